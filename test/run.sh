#!/usr/bin/env bash
# test/run.sh — runs every test program and sums their "ok / not ok / skip"
# lines into the closing "N passed, N failed, N skipped" line.
#
#   test/run.sh [BUILD_DIR] [PATTERN]
#
# A test program is any executable build/test/*-test, plus test/integration/*.sh.
# Each prints one line per case; a program that dies without printing its
# cases counts as one failure (so a crash is never silent).
set -u
build=${1:-build}
pattern=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
outdir="$build/test-logs"
mkdir -p "$outdir"
export PL_BUILD="$(cd "$build" && pwd)" PL_TOP="$top"
pass=0 fail=0 skip=0
failed_names=()

run_one() {
	local name=$1; shift
	local log="$outdir/$name.log"
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
	grep -E '^(not ok|skip) ' "$log" | sed "s/^/  [$name] /"
	printf '%-28s %3d ok %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	if [ "$f" -ne 0 ]; then
		failed_names+=("$name")
		echo "---- tail of $log ----"; tail -n 30 "$log"; echo "----"
	fi
}

for t in "$build"/test/*-test; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
	run_one "$name" "$t"
done
for t in "$here"/integration/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
	run_one "$name" bash "$t"
done

[ ${#failed_names[@]} -gt 0 ] && echo "failed programs: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
