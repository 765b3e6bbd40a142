# shellcheck shell=bash
# The start every test suite script shares (sourced):
#
#   . "$top/tests/harness.sh"
#   harness_init LOGNAME TESTNAME
#
# sets $work to a new directory under ${TMPDIR:-/tmp} that is removed on
# exit unless EXTOWN_KEEP=1, and defines log() ("LOGNAME: ..." on stderr)
# and harness_fail() ("FAIL TESTNAME.harness: why" on stdout, exit 1: the
# harness broke, which is not the same as a test failing).
#
#   harness_build_helper SRC BUILD
#
# builds mount.ext4 from the checkout SRC as it is installed
# (configure --prefix=/usr --sysconfdir=/etc --enable-werror) in BUILD,
# output in $work/build.log; harness_fail when that breaks.

harness_init() {
	harness_log=$1
	harness_test=$2
	work=$(mktemp -d "${TMPDIR:-/tmp}/extown-$1.XXXXXX") ||
		harness_fail "cannot make a work directory in ${TMPDIR:-/tmp}"
	trap harness_cleanup EXIT
}

# shellcheck disable=SC2317 # run by the EXIT trap
harness_cleanup() {
	if [ -z "${EXTOWN_KEEP:-}" ]; then
		rm -rf "$work"
	else
		echo "$harness_log: work directory kept: $work" >&2
	fi
}

log() { echo "$harness_log: $*" >&2; }

harness_fail() {
	echo "FAIL $harness_test.harness: $*"
	exit 1
}

harness_build_helper() {
	mkdir -p "$2"
	{
		(cd "$1" && autoreconf -fi) &&
			(cd "$2" && "$1/configure" --prefix=/usr --sysconfdir=/etc --enable-werror) &&
			make -C "$2" -j"$(nproc)" mount.ext4
	} >"$work/build.log" 2>&1 ||
		harness_fail "cannot build mount.ext4 from $1 (see $work/build.log; EXTOWN_KEEP=1 keeps it)"
}
