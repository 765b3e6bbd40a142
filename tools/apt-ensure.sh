#!/usr/bin/env bash
# Make sure Debian packages are installed: apt-get installs the missing
# ones (as root), and nothing else happens when all are present.
#
#   tools/apt-ensure.sh WHO PACKAGE...
#
# WHO prefixes the messages (the calling script's name). Exit status 1
# when packages are missing and we are not root or apt-get fails.
# EXTOWN_DEPS_LIST=1: print the PACKAGEs, one per line, and install
# nothing (tools/build-root.sh installs the same lists into a Debian tree).
set -euo pipefail

[ $# -ge 2 ] || {
	echo "usage: $0 WHO PACKAGE..." >&2
	exit 2
}
who=$1
shift
if [ "${EXTOWN_DEPS_LIST:-}" = 1 ]; then
	printf '%s\n' "$@"
	exit 0
fi

missing=()
for p in "$@"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case $status in
	ii*) ;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "$who: all $# packages present"
	exit 0
fi
echo "$who: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "$who: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
