#!/usr/bin/env bash
# ci/apt-missing.sh — installs the given Debian packages that are missing,
# and only those.  Shared by ci/deps.sh, toolchains/deps.sh and
# test/boards/deps.sh.
#
#   ci/apt-missing.sh WHO PACKAGE...      (WHO names the caller in messages)
#   PL_APT_CHECK=1 ci/apt-missing.sh ...  names what is missing and exits 1,
#                                         installing nothing (what tests use:
#                                         no test installs anything)
#
# Idempotent: with everything installed it changes nothing and needs no
# network.  `apt-get update` runs only when a missing package is not
# installable from the current lists.  Needs root (or sudo) only when
# something is missing.
set -euo pipefail
who=$1
shift

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}
installable() {
	local c
	c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

missing=()
for p in "$@"; do
	installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "${PL_APT_CHECK:-0}" = 1 ]; then
	echo "$who: not installed: ${missing[*]} (run ci/deps.sh, which installs every package up front)" >&2
	exit 1
fi

SUDO=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "$who: need root to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
for p in "${missing[@]}"; do
	if ! installable "$p"; then
		echo "$who: $p not in the package lists; running apt-get update" >&2
		$SUDO apt-get -q update >&2
		break
	fi
done
echo "$who: installing ${missing[*]}" >&2
$SUDO apt-get -q install -y --no-install-recommends "${missing[@]}" >&2
