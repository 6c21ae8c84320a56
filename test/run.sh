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
pass=0 fail=0 skip=0
failed_names=()

run_one() {
	local name=$1 logdir=$2; shift 2
	local log="$logdir/${name##*/}.log"
	local t0=$SECONDS
	"$@" >"$log" 2>&1
	local rc=$?
	local p f s
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^skip ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok $name: exited with status $rc without reporting a failed case" >>"$log"
		f=$((f + 1))
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	grep -E '^(not ok|skip) ' "$log" | sed "s#^#  [$name] #"
	printf '%-40s %3d ok %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	if [ "$f" -ne 0 ]; then
		failed_names+=("$name")
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

[ ${#failed_names[@]} -gt 0 ] && echo "failed programs: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
