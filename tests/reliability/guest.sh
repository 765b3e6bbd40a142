#!/bin/sh
# shellcheck shell=dash
# In-guest half of tests/reliability/run.sh (busybox VM, dash).
#
#   guest.sh OUTDIR MODE SPEC...
#
# SPEC is LABEL:DEVICE:FSTYPE:SEED:NOPS. Every device is mounted on
# /mnt/LABEL with uid=1000:3000,gid=1000:3001 (mount -i: no helper), then
#   MODE run       runs /tests/randops as uid 1000 (saved uid 0) with SEED and
#                  NOPS operations, and unmounts
#   MODE powercut  prints EXTOWN-RANDOPS-START on the console and runs
#                  randops without end: the host SIGKILLs qemu meanwhile
#   MODE replay    only mounts (ext4: the journal is replayed), lists the
#                  tree and unmounts: the boot after a power cut
# Writes OUTDIR/results (PASS/FAIL lines named reliability.LABEL.*),
# OUTDIR/LABEL.out (randops' figures) and OUTDIR/LABEL.err.
set -u

OUT=$1
MODE=$2
shift 2
RES=$OUT/results
: >"$RES"
OPTS=uid=1000:3000,gid=1000:3001

T_RESULTS=$RES
# shellcheck source=tests/lib/results.sh
. /tests/results.sh

for spec in "$@"; do
	IFS=: read -r label dev fstype seed nops <<EOF
$spec
EOF
	m=/mnt/$label
	mkdir -p "$m"
	if out=$(mount -i -t "$fstype" -o "$OPTS" "$dev" "$m" 2>&1); then
		pass "reliability.$label.mount"
	else
		fail "reliability.$label.mount" "mount -t $fstype -o $OPTS $dev: $out"
		continue
	fi
	case $MODE in
	run)
		start=$(date +%s)
		rc=0
		/tests/randops -q -u 1000 -g 1000 -p 1000:1000 "$m" "$seed" "$nops" \
			>"$OUT/$label.out" 2>"$OUT/$label.err" || rc=$?
		secs=$(($(date +%s) - start))
		ops=$(awk '$1 == "ops" { print $2 }' "$OUT/$label.out")
		errs=$(awk '$1 == "errors" { print $2 }' "$OUT/$label.out")
		echo "seconds $secs" >>"$OUT/$label.out"
		if [ "$rc" -eq 0 ] && [ "${ops:-0}" -eq "$nops" ] && [ "${errs:-1}" -eq 0 ]; then
			pass "reliability.$label.random_ops.workload"
		else
			fail "reliability.$label.random_ops.workload" \
				"randops exit $rc, ops ${ops:-?} of $nops, unexpected results ${errs:-?}: $(grep -m 3 '^error' "$OUT/$label.out" | tr '\n' ' ')$(head -c 300 "$OUT/$label.err")"
		fi
		;;
	powercut)
		sync
		echo "EXTOWN-RANDOPS-START $label" >/dev/console
		/tests/randops -q -u 1000 -g 1000 -p 1000:1000 "$m" "$seed" 0 \
			>"$OUT/$label.out" 2>"$OUT/$label.err"
		fail "reliability.$label.powercut.killed" "randops ended by itself: $(head -c 300 "$OUT/$label.out")"
		;;
	replay)
		n=$(find "$m" | wc -l)
		bad=$(find "$m" ! -user 1000 | head -n 3 | tr '\n' ' ')
		if [ -z "$bad" ]; then
			pass "reliability.$label.replay.shown_owner"
		else
			fail "reliability.$label.replay.shown_owner" "not shown as uid 1000 after replay: $bad"
		fi
		echo "entries $n" >"$OUT/$label.out"
		;;
	esac
	if out=$(umount "$m" 2>&1); then
		pass "reliability.$label.umount"
	else
		fail "reliability.$label.umount" "$out"
	fi
done
sync
