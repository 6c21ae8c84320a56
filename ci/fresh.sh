#!/usr/bin/env bash
# ci/fresh.sh — `make check` on a fresh Debian 12 machine, made here: a clean
# bookworm root (mmdebstrap), a clean clone of HEAD in it, and `make check`
# run inside as root by chroot, with this machine's kernel (/proc, /sys,
# /dev, /dev/pts bound in; tmpfs on /tmp, /dev/shm and /run).  It catches
# what a developer's machine hides: a package that only a later step or an
# earlier run installed, a cache that a fresh machine does not have.
#
#   ci/fresh.sh [--keep] [--shell] [--rebuild-base]      (make check-fresh)
#
#   --keep          keep the root afterwards (path printed; unmounted)
#   --shell         (or PL_FRESH_SHELL=1) a shell inside the root, mounts
#                   in place, after make check and before the cleanup
#   --rebuild-base  build the base root even if the cached one is current
#   PL_FRESH_CMD=…  run that instead of `make check` (e.g. a subset, to debug)
#
# Needs root (chroot, mounts).  The base root (Debian's 'important' set plus
# make, what `make check` itself presupposes) is cached as a tarball in
# ${XDG_CACHE_HOME:-~/.cache}/perflens/fresh/, keyed by the Date of this
# machine's apt lists; it is rebuilt when that changes, and only the newest
# is kept.  The mirror and suites are this machine's own (its apt sources).
# Nothing of the host's ~/.cache/perflens (toolchains, boards) goes in: the
# run builds and fetches all of it, as a fresh machine does.  Only committed
# work is tested (a warning says so when the tree is dirty).
#
# Output goes to the terminal and to build/fresh/check.log (PL_FRESH_LOG),
# the per-test logs to build/fresh/check-logs/BUILD/; the last line is make
# check's own "N passed, N failed, N skipped", the one before it the
# durations.  Exit status: make check's.  Every mount lives in
# a private mount namespace, so none outlives the run even if it is killed;
# the trap also unmounts and stops whatever the run left inside the root.
set -euo pipefail

die() { echo "ci/fresh.sh: $*" >&2; exit 2; }
say() { echo "fresh: $*" >&2; }
fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# stop_leftovers ROOT: ends every process whose root directory is ROOT or
# under it (a daemon or a test's server the run left behind), TERM then KILL.
stop_leftovers() {
	local sig p r n
	for sig in TERM KILL; do
		n=0
		for p in /proc/[0-9]*; do
			r=$(readlink "$p/root" 2>/dev/null) || continue
			case $r in "$1"|"$1"/*) kill -"$sig" "${p#/proc/}" 2>/dev/null && n=$((n + 1)) ;; esac
		done
		[ "$n" = 0 ] && return 0
		say "stopped $n process(es) left in the root (SIG$sig)"
		sleep 1
	done
}

# ---- inner part: runs in its own mount namespace (see the end) -----------
if [ "${1:-}" = --inner ]; then
	root=$2 shell=$3 log=$4 cmd=$5
	mounted=()
	umount_all() {
		local i
		for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
			umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null || true
		done
		mounted=()
	}
	trap umount_all EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mnt() { # mnt TARGET mount-args...
		local t=$root$1; shift
		mkdir -p "$t"
		mount "$@" "$t"
		mounted+=("$t")
	}
	# The root is a mount point, as on a real machine: in a chroot whose /
	# is a plain directory the kernel hides the mount holding it from
	# /proc/self/mountinfo, so findmnt finds nothing there, and `unshare
	# --propagation private` or `mount --make-rprivate /` fail with EINVAL
	# (ssh-test's non-root user could not be set up: 2026-11-26).
	mnt "" --bind "$root"
	mnt /proc -t proc proc
	# (the namespace is private: nothing mounted here reaches the host)
	mnt /sys --rbind /sys
	mnt /dev --bind /dev
	mnt /dev/pts --bind /dev/pts
	mnt /dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs
	mnt /tmp -t tmpfs -o mode=1777,nosuid,nodev tmpfs
	mnt /run -t tmpfs -o mode=0755,nosuid,nodev tmpfs
	mkdir -p "$root/run/lock"; chmod 1777 "$root/run/lock"
	cleanenv=(env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin CI=true)
	set +e
	exec 3> >(tee -a "$log")
	tee_pid=$!
	"${cleanenv[@]}" chroot "$root" /bin/bash -c "cd /src/perflens && $cmd" </dev/null >&3 2>&1
	rc=$?
	exec 3>&-
	# A process the run left behind (holding the log's pipe open, or the
	# mounts busy) is stopped here, before the shell and the cleanup.
	stop_leftovers "$root"
	wait "$tee_pid" 2>/dev/null
	if [ "$shell" = 1 ]; then
		say "a shell in the root (make check exited $rc); exit it to clean up"
		"${cleanenv[@]}" TERM="${TERM:-xterm}" PS1='fresh# ' chroot "$root" /bin/bash -c 'cd /src/perflens && exec bash -i' </dev/tty >/dev/tty 2>&1
	fi
	exit "$rc"
fi

# ---- outer part ----------------------------------------------------------
keep=0 shell=${PL_FRESH_SHELL:-0} rebuild=0
for a in "$@"; do
	case $a in
	--keep) keep=1 ;;
	--shell) shell=1 ;;
	--rebuild-base) rebuild=1 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $a (see --help)" ;;
	esac
done
[ "$shell" = 1 ] && { [ -t 0 ] || die "--shell needs a terminal"; }
[ "$(id -u)" = 0 ] || die "needs root (chroot and mounts)"
t0=$SECONDS
top=$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel)
here=$top/ci
cd "$top"

# The tools: a developer target, so it installs them itself.
"$here/apt-missing.sh" ci/fresh.sh mmdebstrap zstd tar util-linux

# The mirror: this machine's bookworm* entries of type deb, as one-line
# sources ("deb URI SUITE COMPONENTS"), from deb822 .sources and
# sources.list files alike.  Entries for other distributions are left out.
mirror_lines() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled != "no")
					for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
						if (s[j] ~ /^bookworm/) print "deb " u[i] " " s[j] " " comps
				types = ""; enabled = ""; nu = 0; ns = 0; comps = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			{ key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "") }
			key == "types" { types = $0 }
			key == "enabled" { enabled = tolower($0) }
			key == "uris" { nu = split($0, u, " ") }
			key == "suites" { ns = split($0, s, " ") }
			key == "components" { comps = $0 }
			END { flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [opts] URI SUITE COMP...; options dropped
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk '$1 == "deb" && $3 ~ /^bookworm/ { print }'
	done
}
mapfile -t mirrors < <(mirror_lines | awk '!seen[$0]++')
[ ${#mirrors[@]} -gt 0 ] || die "no bookworm entry in this machine's apt sources"

# apt settings of this machine that the root needs to reach the same mirror
# the same way (e.g. Check-Valid-Until off for a frozen mirror, a proxy).
aptopts=()
while IFS= read -r l; do aptopts+=("--aptopt=$l"); done < <(apt-config dump |
	grep -E '^Acquire::(Check-Valid-Until|Check-Date|https?::Proxy|https?::proxy|Retries) ')

# The cache key: the newest Date of this machine's lists for those suites;
# lists older than a day are refreshed first, so the key follows the mirror.
lists=/var/lib/apt/lists
newest=$(find "$lists" -maxdepth 1 -name '*_InRelease' -mmin -1440 2>/dev/null | head -n1)
if [ -z "$newest" ]; then
	say "apt lists older than a day: apt-get update"
	apt-get -q update >&2 || say "apt-get update failed; using the lists as they are"
fi
key=$(for f in "$lists"/*bookworm*_InRelease "$lists"/*bookworm*_Release; do
	[ -f "$f" ] || continue
	d=$(sed -n 's/^Date: //p' "$f" | head -n1)
	[ -n "$d" ] && date -u -d "$d" +%Y%m%dT%H%M%SZ
done | sort | tail -n1)
[ -n "$key" ] || die "no Date in $lists/*bookworm*InRelease: run apt-get update"
variant=important
cache=${XDG_CACHE_HOME:-$HOME/.cache}/perflens/fresh
mkdir -p "$cache"
base=$cache/bookworm-$variant-$key.tar.zst

t_base0=$SECONDS
if [ "$rebuild" = 1 ] || [ ! -s "$base" ]; then
	say "building the base root ($variant + make) for lists of $key from:"
	printf '  %s\n' "${mirrors[@]}" >&2
	tmp=$(mktemp --suffix=.tar.zst "$cache/.building.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	# A policy-rc.d stops packages from starting daemons inside the root,
	# which would outlive the run.
	mmdebstrap --mode=root --variant=$variant --include=make \
		--arch="$(dpkg --print-architecture)" "${aptopts[@]}" \
		--customize-hook='printf "#!/bin/sh\nexit 101\n" >"$1/usr/sbin/policy-rc.d"; chmod 755 "$1/usr/sbin/policy-rc.d"' \
		bookworm "$tmp" "${mirrors[@]}" >&2
	mv -f "$tmp" "$base"
	trap - EXIT
	# only the newest base is kept
	find "$cache" -maxdepth 1 -name 'bookworm-*.tar.zst' ! -path "$base" -delete
	base_how="built in $(fmt $((SECONDS - t_base0)))"
else
	base_how="cached"
fi
say "base: $base ($base_how)"

# The scratch root and the cleanup every way out goes through.
scratch=${PL_FRESH_DIR:-/var/tmp}
mkdir -p "$scratch"
root=$(mktemp -d "$scratch/perflens-fresh.XXXXXX")
done=0
log=${PL_FRESH_LOG:-$top/build/fresh/check.log}
cleanup() {
	local rc=$? m d n
	trap - EXIT INT TERM
	[ "$done" = 1 ] || say "interrupted after $(fmt $((SECONDS - t0))) (exit $rc); cleaning up"
	# anything still running inside the root keeps its mount namespace
	# alive: stopped, so the namespace and the directory can go
	stop_leftovers "$root"
	# the mounts are in the inner namespace; anything visible here under
	# the root (it never should be) is undone before any rm
	while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done < <(awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r)
	if awk -v r="$root" '$5 == r || index($5, r "/") == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		say "mounts remain under $root: left in place"
	else
		# the per-test logs outlive the root, beside the run's log
		for d in "$root"/src/perflens/build*/test-logs; do
			[ -d "$d" ] || continue
			n=$(basename "$(dirname "$d")")
			rm -rf "${log%.log}-logs/$n"; mkdir -p "${log%.log}-logs"
			cp -r "$d" "${log%.log}-logs/$n"
		done
		[ "$keep" = 1 ] || rm -rf --one-file-system "$root"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t_setup0=$SECONDS
tar --zstd -xpf "$base" -C "$root" --numeric-owner
# The root reaches the network as this machine does.
rm -f "$root/etc/resolv.conf"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
[ -f /etc/hosts ] && cp /etc/hosts "$root/etc/hosts"

# A clean clone of HEAD: committed work only.
if [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
	say "WARNING: the work tree has uncommitted changes; they are NOT tested (only HEAD $(git rev-parse --short HEAD) is)"
fi
head=$(git rev-parse HEAD)
mkdir -p "$root/src"
git clone -q --no-checkout --no-hardlinks "$(git rev-parse --path-format=absolute --git-common-dir)" "$root/src/perflens"
git -C "$root/src/perflens" checkout -q --detach "$head"
# Nothing in the tree reads ../shared (only a README names a file in it),
# so it is not copied.
t_setup=$((SECONDS - t_setup0))

mkdir -p "$(dirname "$log")"
{
	echo "== ci/fresh.sh $(date -u +%FT%TZ): make check of $(git rev-parse --short HEAD) in a fresh bookworm root"
	echo "== base $(basename "$base") ($base_how), root $root"
} | tee "$log" >&2

t_check0=$SECONDS
set +e
# In the foreground: Ctrl-C reaches the whole run, the inner trap unmounts,
# then this one's cleanup.  (To stop it from elsewhere, signal its process
# group.)
unshare --mount --propagation private -- bash "$0" --inner "$root" "$shell" "$log" "${PL_FRESH_CMD:-make check}"
rc=$?
set -e
t_check=$((SECONDS - t_check0))

# make check's closing line is test/run.sh's; make's own "Error" line may
# follow it when something failed.
closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1 || true)
last=$(grep -v '^$' "$log" | tail -n1)
{
	echo "check-fresh: base $base_how, setup $(fmt "$t_setup"), make check $(fmt "$t_check"), total $(fmt $((SECONDS - t0))); make check exited $rc; log $log"
	[ "$keep" = 1 ] && echo "check-fresh: the root is kept, unmounted: $root"
	if [ -n "$closing" ]; then
		echo "$closing"
	else
		echo "make check stopped before its closing line; its last line: $last"
		echo "0 passed, 1 failed, 0 skipped"
	fi
} | tee -a "$log"
done=1
exit "$rc"
