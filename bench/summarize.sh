#!/usr/bin/env bash
# Turn the benchmark guest's measurements into the Markdown tables that
# bench/run.sh prints and docs/benchmarks.md quotes.
#
#   bench/summarize.sh DIR [ACCEL]
#
# DIR holds raw.txt ("CONFIG WORKLOAD REP SECONDS" lines, bench/guest.sh)
# and env.txt. Medians of an even count are the mean of the middle two.
# Ratios are of medians. Goals (issue 5): uid= <= 1.02x plain on every
# workload; bindfs/uid= >= 3x on stat-walk and create (expected); uid=
# within 2% of the idmapped mount.
set -euo pipefail

[ $# -ge 1 ] || {
	echo "usage: $0 DIR [ACCEL]" >&2
	exit 2
}
dir=$1
accel=${2:-?}

echo "Kernel $(sed -n 's/^kernel //p' "$dir/env.txt"), accelerator $accel," \
	"$(sed -n 's/^cpus //p' "$dir/env.txt") guest CPUs," \
	"$(awk '/^memory_kb/ { printf "%d", $2 / 1024 }' "$dir/env.txt") MiB guest memory;" \
	"$(sed -n 's/^params //p' "$dir/env.txt")."
echo "Cells: median seconds (min-max) over the repetitions, then the ratio of medians to plain."
echo

LC_ALL=C sort -k1,1 -k2,2 -k4,4g "$dir/raw.txt" | awk '
function fmt(x) { return x >= 100 ? sprintf("%.1f", x) : x >= 1 ? sprintf("%.3f", x) : sprintf("%.4f", x) }
{
	k = $1 SUBSEP $2
	n[k]++
	v[k, n[k]] = $4
}
END {
	for (k in n) {
		c = n[k]
		med[k] = (c % 2) ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
		lo[k] = v[k, 1]
		hi[k] = v[k, c]
	}
	ncfg = split("plain uid split bindfs idmap fallback", cfg, " ")
	label["plain"] = "plain"
	label["uid"] = "uid=1000,gid=1000"
	label["split"] = "uid=1000:2000,gid=1000:2000"
	label["bindfs"] = "bindfs --force-user/group=1000"
	label["idmap"] = "idmapped 1234->1000"
	label["fallback"] = "mount.ext4 idmapped fallback (1234->1000 one way)"
	nwl = split("walk_cold walk_warm create write read", wl, " ")
	wlabel["walk_cold"] = "stat-walk, cold cache"
	wlabel["walk_warm"] = "stat-walk, warm cache"
	wlabel["create"] = "create + fsync dir"
	wlabel["write"] = "sequential write + fsync"
	wlabel["read"] = "sequential read, cold"

	line = "| workload (seconds) |"
	sep = "|---|"
	for (i = 1; i <= ncfg; i++) {
		line = line " " label[cfg[i]] " |"
		sep = sep "---|"
	}
	print line
	print sep
	for (j = 1; j <= nwl; j++) {
		w = wl[j]
		line = "| " wlabel[w] " |"
		for (i = 1; i <= ncfg; i++) {
			k = cfg[i] SUBSEP w
			if (!(k in n)) { line = line " - |"; continue }
			cell = fmt(med[k]) " (" fmt(lo[k]) "-" fmt(hi[k]) ")"
			pk = "plain" SUBSEP w
			if (cfg[i] != "plain" && (pk in n) && med[pk] > 0)
				cell = cell " " sprintf("%.3f", med[k] / med[pk]) "x"
			if (n[k] < 5) cell = cell " n=" n[k]
			line = line " " cell " |"
		}
		print line
	}

	print ""
	print "| workload | uid=/plain (goal <= 1.02) | uid=N:M/plain | bindfs/uid= (expected >= 3 on walk, create) | uid=/idmapped (goal 0.98-1.02) |"
	print "|---|---|---|---|---|"
	for (j = 1; j <= nwl; j++) {
		w = wl[j]
		u = "uid" SUBSEP w
		if (!(u in n)) continue
		line = "| " wlabel[w] " |"
		p = "plain" SUBSEP w
		if (p in n) {
			r = sprintf("%.3f", med[u] / med[p]) + 0
			line = line " " sprintf("%.3f", r) (r <= 1.02 ? " met" : " NOT met") " |"
		} else line = line " - |"
		s = "split" SUBSEP w
		line = line ((s in n) && (p in n) ? " " sprintf("%.3f", med[s] / med[p]) : " -") " |"
		b = "bindfs" SUBSEP w
		if (b in n) {
			r = med[b] / med[u]
			verdict = ""
			if (w == "walk_cold" || w == "walk_warm" || w == "create")
				verdict = (r >= 3 ? " (>= 3)" : " (< 3)")
			line = line " " sprintf("%.2f", r) verdict " |"
		} else line = line " - |"
		m = "idmap" SUBSEP w
		if (m in n) {
			r = sprintf("%.3f", med[u] / med[m]) + 0
			line = line " " sprintf("%.3f", r) (r >= 0.98 && r <= 1.02 ? " met" : r < 0.98 ? " NOT met (uid= faster)" : " NOT met") " |"
		} else line = line " - |"
		print line
	}

	h = "mount" SUBSEP "helper"
	d = "mount" SUBSEP "direct"
	if ((h in n) && (d in n)) {
		print ""
		print "| mount of an untagged ext4 disk (ms) | median | min-max | n |"
		print "|---|---|---|---|"
		printf "| `mount -t ext4` through /usr/sbin/mount.ext4 | %.2f | %.2f-%.2f | %d |\n", med[h] * 1000, lo[h] * 1000, hi[h] * 1000, n[h]
		printf "| `mount -i -t ext4` (no helper) | %.2f | %.2f-%.2f | %d |\n", med[d] * 1000, lo[d] * 1000, hi[d] * 1000, n[d]
		printf "| added by the helper (difference of medians) | %.2f | | |\n", (med[h] - med[d]) * 1000
	}
}'
if grep -q '^FAIL' "$dir/results" 2>/dev/null; then
	echo
	echo "Sanity checks that FAILED (figures above may be meaningless for these):"
	grep '^FAIL' "$dir/results" | sed 's/^/    /'
fi
