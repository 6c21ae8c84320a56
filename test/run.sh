#!/usr/bin/env bash
# test/run.sh — runs every test program and sums their "ok / not ok / skip"
# lines into one closing "N passed, N failed, N skipped" line.
#
#   test/run.sh [-k PATTERN] BUILD_DIR...
#
# For each build dir (e.g. build and build-san, the ASan+UBSan build) it
# runs every executable BUILD/test/*-test and test/integration/*.sh with
# PL_BUILD=BUILD.  Each prints one line per case; a program that dies
# without reporting a failed case counts as one failure, so a crash or a
# sanitizer report is never silent.
#
# A skip must say why with a tag from test/skip-reasons.txt:
# "skip NAME: [TAG] text".  A skip without a listed tag is counted (and
# printed) as a failure: a test cannot hide a broken agent or a missing
# build behind a skip.
set -u
pattern=
if [ "${1:-}" = "-k" ]; then pattern=$2; shift 2; fi
[ $# -gt 0 ] || set -- build
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
export PL_TOP="$top"
# sanitizer reports end the program with an error, and leaks count
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
# The viewer keeps inflated debug files under $XDG_CACHE_HOME/perflens/debug:
# tests get a scratch cache per build dir so they neither fill the user's
# nor depend on it, while the toolchain and board caches (minutes to
# rebuild, keyed by version) stay where they are.
user_cache=${XDG_CACHE_HOME:-$HOME/.cache}
export PERFLENS_TC_CACHE=${PERFLENS_TC_CACHE:-$user_cache/perflens/toolchains}
export PL_BOARDS_CACHE=${PL_BOARDS_CACHE:-$user_cache/perflens/boards}
export PERFLENS_BENCH_CACHE=${PERFLENS_BENCH_CACHE:-$user_cache/perflens/bench}
# A developer's DEBUGINFOD_URLS (Debian's /etc/profile.d/debuginfod.sh
# sets one) would send the tests' stripped modules to servers on the
# network; a test that wants a server starts its own and names it.
unset DEBUGINFOD_URLS
pass=0 fail=0 skip=0
# every failed case's line, printed again last: a CI log shown only by its
# tail must still say which case failed and why
failed_cases=()
failed_names=()

# The allowed tags, as the pattern of a good skip line; a tag listed as
# "no-kernel-feature:WHAT" wants its argument.
tags=
while read -r t _; do
	case $t in '' | '#'*) continue ;; esac
	case $t in *:WHAT) t="${t%WHAT}[^]]+" ;; esac
	tags=${tags:+$tags|}$t
done <"$here/skip-reasons.txt"
good_skip="^skip [^:]+: \[($tags)\] [^[:space:]]"

run_one() {
	local name=$1 logdir=$2; shift 2
	local log="$logdir/${name##*/}.log"
	local t0=$SECONDS
	"$@" >"$log" 2>&1
	local rc=$?
	# a skip without a listed reason is a failure: rewritten as one
	if grep -a '^skip ' "$log" | grep -qavE "$good_skip"; then
		re=$good_skip awk '/^skip / && $0 !~ ENVIRON["re"] {
			sub(/^skip /, "not ok "); $0 = $0 "  (a skip without a reason from test/skip-reasons.txt)"
		} { print }' "$log" >"$log.tmp" && mv "$log.tmp" "$log"
	fi
	local p f s
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^skip ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok $name: exited with status $rc without reporting a failed case" >>"$log"
		f=$((f + 1))
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	grep -aE '^(not ok|skip) ' "$log" | sed "s#^#  [$name] #"
	printf '%-40s %3d ok %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	if [ "$f" -ne 0 ]; then
		failed_names+=("$name")
		local line
		while IFS= read -r line; do
			failed_cases+=("[$name] ${line:0:400}")
		done < <(grep -a '^not ok ' "$log" | head -n 10)
		echo "---- tail of $log ----"; tail -n 40 "$log"; echo "----"
	fi
}

for build in "$@"; do
	[ -d "$build" ] || { echo "not ok $build: build directory missing"; fail=$((fail + 1)); continue; }
	export PL_BUILD
	PL_BUILD=$(cd "$build" && pwd)
	logdir="$PL_BUILD/test-logs"
	mkdir -p "$logdir"
	export XDG_CACHE_HOME="$PL_BUILD/test-cache"
	rm -rf "$XDG_CACHE_HOME"; mkdir -p "$XDG_CACHE_HOME"
	tag=$(basename "$build")
	echo "== $tag"
	for t in "$PL_BUILD"/test/*-test; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		run_one "$tag/$name" "$logdir" "$t"
	done
	for t in "$here"/integration/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		run_one "$tag/$name" "$logdir" bash "$t"
	done
done

if [ ${#failed_cases[@]} -gt 0 ]; then
	echo "failed cases (each program's log tail is above):"
	printf '  %s\n' "${failed_cases[@]:0:30}"
fi
[ ${#failed_names[@]} -gt 0 ] && echo "failed programs: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
