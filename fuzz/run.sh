#!/usr/bin/env bash
# fuzz/run.sh — runs the libFuzzer harnesses (fuzz/fuzz.mk).
#
#   fuzz/run.sh check            each harness over its seed corpus and its
#                                regression inputs, then fuzzed briefly with
#                                a fixed seed and run count (check_runs; at
#                                most FUZZ_CHECK_SECONDS, default 30),
#                                FUZZ_JOBS (default: the cores) at a time;
#                                one line per harness: ok / not ok fuzz-NAME
#   fuzz/run.sh long [SECONDS]   each harness fuzzed for SECONDS (default
#                                300); writes the table to fuzz/results.md
#   fuzz/run.sh seeds            regenerates fuzz/corpus/ from the real tools
#                                (needs root for perf; run it when the wire
#                                format changes, then commit the result)
#
# Environment: BUILD (default build; the harnesses are $BUILD/fuzz/fuzz-*,
# built here with make when missing), FUZZ_TARGETS (default: all).
# Working corpora grow in $BUILD/fuzz/work/NAME (the committed seeds in
# fuzz/corpus/NAME are never written); crashes are saved in
# $BUILD/fuzz/artifacts/NAME/ — copy each into fuzz/regressions/NAME/ once
# understood, so that `check` replays it for ever.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cd "$top" || exit 1
BUILD=${BUILD:-build}
mode=${1:-check}
long_seconds=${2:-300}
check_seconds=${FUZZ_CHECK_SECONDS:-30}
targets=${FUZZ_TARGETS:-"wire commands capture perfdata mapfile ehabi expr"}

# A sanitizer report or a broken invariant is a crash: libFuzzer saves the
# input.  Leaks count (hostile input must not leak the viewer's memory).
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Per-target options: the longest input worth trying.  Seeds are ≤ 64 KiB;
# the command reader's block limit is 64 KiB, so allow a little more.
max_len() {
	case $1 in
	commands) echo 70000 ;;
	expr) echo 4096 ;;
	*) echo 65536 ;;
	esac
}

# `check` fuzzes with a fixed seed and a fixed number of runs (about
# FUZZ_CHECK_SECONDS here), so that CI replays a prefix of the very
# mutations the last local `make check` tried: a finding shows up on a
# developer's machine first, never as a random red CI.  Open-ended
# exploration is `make fuzz` (long mode, random seeds).
check_runs() {
	case $1 in
	wire) echo 15000 ;;
	commands) echo 150000 ;;
	capture) echo 5000 ;;
	perfdata) echo 8000 ;;
	mapfile) echo 20000 ;;
	ehabi) echo 300000 ;;
	expr) echo 200000 ;;
	*) echo 10000 ;;
	esac
}

have_clang_fuzzer() {
	command -v clang >/dev/null 2>&1 &&
		ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1
}

build_all() {
	local bins=() t
	for t in $targets; do
		bins+=("$BUILD/fuzz/fuzz-$t")
	done
	[ ${#bins[@]} -gt 0 ] || return 0
	# every core: after a change to the decoders, seven sanitizer builds
	# one after another took over a minute of `make check`
	local j=-j${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
	if grep -q 'fuzz/fuzz.mk' Makefile; then
		make -s "$j" BUILD="$BUILD" "${bins[@]}"
	else
		make -s "$j" -f Makefile -f fuzz/fuzz.mk BUILD="$BUILD" "${bins[@]}"
	fi
}

# The inputs a run starts from: seeds, then regressions.
dirs_of() {
	local d
	for d in "fuzz/corpus/$1" "fuzz/regressions/$1"; do
		[ -d "$d" ] && echo "$d"
	done
}

# First line of libFuzzer's report that says what went wrong.
crash_reason() {
	grep -m1 -E 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error|fuzz invariant failed|ERROR: libFuzzer|SUMMARY:' "$1" |
		sed -e 's/^==[0-9]*==//' | cut -c1-200
}

check_one() {
	local t=$1 bin="$BUILD/fuzz/fuzz-$1" log work art
	log="$BUILD/fuzz/logs/$t.check.log"
	work="$BUILD/fuzz/check-work/$t"
	art="$BUILD/fuzz/artifacts/$t"
	mkdir -p "$(dirname "$log")" "$art"
	rm -rf "$work" && mkdir -p "$work"
	# 1. every seed and every regression input, once each
	local files=()
	mapfile -t files < <(find $(dirs_of "$t") -type f 2>/dev/null | sort)
	if [ ${#files[@]} -gt 0 ] && ! "$bin" -runs=1 "${files[@]}" >"$log" 2>&1; then
		echo "not ok fuzz-$t: $(sed -n 's/^Running: //p' "$log" | tail -1): $(crash_reason "$log") (log: $log)"
		return
	fi
	# 2. a short fuzzing run from the seeds (into a scratch corpus)
	if ! "$bin" -seed=20261122 -runs="$(check_runs "$t")" -max_total_time="$check_seconds" \
		-max_len="$(max_len "$t")" -timeout=20 -artifact_prefix="$art/" -print_final_stats=1 "$work" $(dirs_of "$t") \
		>>"$log" 2>&1; then
		echo "not ok fuzz-$t: $(crash_reason "$log"); input saved in $art/ (log: $log)"
		return
	fi
	local execs
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	echo "ok fuzz-$t (${#files[@]} inputs replayed, ${execs:-?} executions, seed 20261122)"
}

long_one() {
	local t=$1 secs=$2 bin="$BUILD/fuzz/fuzz-$1" log work art
	log="$BUILD/fuzz/logs/$t.long.log"
	work="$BUILD/fuzz/work/$t"
	art="$BUILD/fuzz/artifacts/$t"
	mkdir -p "$(dirname "$log")" "$work" "$art"
	local before after
	before=$(find "$art" -type f | wc -l)
	# fork mode: a crash is saved and fuzzing goes on, so one run finds
	# several bugs; one worker (the machine is shared).
	"$bin" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
		-max_total_time="$secs" -max_len="$(max_len "$t")" -timeout=20 \
		-artifact_prefix="$art/" "$work" $(dirs_of "$t") >"$log" 2>&1
	after=$(find "$art" -type f | wc -l)
	# fork mode's progress lines: "#EXECS: cov: N ft: N corp: N exec/s N
	# oom/timeout/crash: A/B/C time: Ns ..."
	local last execs cov corp oct
	last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
	execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
	cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$last")
	corp=$(sed -E 's/.* corp: ([0-9]+).*/\1/' <<<"$last")
	oct=$(sed -E 's#.*oom/timeout/crash: ([0-9/]+).*#\1#' <<<"$last")
	echo "| fuzz-$t | $secs | ${execs:-?} | ${cov:-?} | ${corp:-?} | ${oct:-?} | $((after - before)) | $(ls "$art" | tr '\n' ' ') |"
}

# Seeds come from the real programs: the agent recording the burn workload
# (fp and dwarf), `perf record` on it, an ARM cross compiler for EHABI
# tables, and the real encoder for command streams (fuzz/plens-seed.c).
# Captures are cut at block boundaries so each seed stays under 64 KiB.
make_seeds() {
	local tmp seed="$BUILD/fuzz/plens-seed" wl="$BUILD/workloads" c=fuzz/corpus
	tmp=$(mktemp -d) || return 1
	if grep -q 'fuzz/fuzz.mk' Makefile; then
		make -s BUILD="$BUILD" "$seed" "$BUILD/perflens-agent" "$wl/burn" || return 1
	else
		make -s -f Makefile -f fuzz/fuzz.mk BUILD="$BUILD" "$seed" "$BUILD/perflens-agent" \
			"$wl/burn" || return 1
	fi
	rm -rf "$c" && mkdir -p "$c"/{wire,commands,capture,perfdata,ehabi,mapfile}
	# short flush intervals keep blocks small, so that the raw and bare-frame
	# seeds (cut at block boundaries, ≤ 60 KB) reach past the start-up frames
	# into samples; dwarf without switch-time stacks, which fill a block fast
	"$BUILD/perflens-agent" --output "$tmp/fp.plens" --flush-ms 100 --callgraph fp -- "$wl/burn" 0.5 2 \
		>/dev/null 2>&1 || echo "agent fp recording failed" >&2
	"$BUILD/perflens-agent" --output "$tmp/dwarf.plens" --flush-ms 20 --no-offcpu --callgraph dwarf \
		--stack-size 2048 \
		-- "$wl/burn-nofp" 0.5 2 >/dev/null 2>&1 || echo "agent dwarf recording failed" >&2
	for m in fp dwarf; do
		[ -s "$tmp/$m.plens" ] || continue
		head -c 65536 "$tmp/$m.plens" >"$c/wire/$m-zstd.plens" # a torn tail is fine
		"$seed" raw "$tmp/$m.plens" "$c/wire/$m-raw.plens" 60000
		"$seed" frames "$tmp/$m.plens" "$c/wire/$m.frames" 50000
		cp "$c/wire/$m-zstd.plens" "$c/wire/$m-raw.plens" "$c/wire/$m.frames" "$c/capture/"
	done
	# tracepoint hits (sched_wakeup, with their format) and markers (issue 19)
	make -s BUILD="$BUILD" "$wl/marks" >/dev/null 2>&1
	if "$BUILD/perflens-agent" --output "$tmp/trace.plens" --flush-ms 20 --no-offcpu --callgraph fp \
		--markers --event sched:sched_wakeup -- "$wl/marks" "$tmp/marks.expect" 2 2 >/dev/null 2>&1; then
		# whole (≈ 8 KB): a raw re-blocking stops at 60 KB, before the
		# first block of samples with their 4 KiB stack copies
		head -c 65536 "$tmp/trace.plens" >"$c/capture/trace-zstd.plens"
	else
		echo "agent trace recording failed" >&2
	fi
	"$seed" commands "$c/commands"
	cp "$c/commands/session-zstd.plens" "$c/wire/commands-zstd.plens"
	cp "$c/commands/session.frames" "$c/wire/commands.frames"
	"$seed" chunks "$c/capture/text-chunks-raw.plens" raw
	"$seed" chunks "$c/capture/text-chunks.frames" bare
	if command -v perf >/dev/null 2>&1; then
		perf record -q -F 200 -g -o "$c/perfdata/fp.data" -- "$wl/burn" 0.3 1 >/dev/null 2>&1
		perf record -q -F 100 --call-graph dwarf,512 -o "$c/perfdata/dwarf.data" \
			-- "$wl/burn-nofp" 0.2 1 >/dev/null 2>&1
		perf record -q -F 200 -g -o - -- "$wl/burn" 0.3 1 2>/dev/null >"$c/perfdata/pipe.data"
		perf record -q -F 200 -e cpu-clock,task-clock -s --switch-events \
			-o "$c/perfdata/multi.data" -- "$wl/burn" 0.3 2 >/dev/null 2>&1
		cp "$c/perfdata/fp.data" "$c/capture/fp.data"
	else
		echo "perf not installed: no perf.data seeds" >&2
	fi
	# a small C program with a call chain, built for ARM and statically
	cat >"$tmp/t.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) int leaf(int *v, int n) { int s = 0; for (int i = 0; i < n; i++) s += v[i] * i; return s; }
__attribute__((noinline)) int mid(int n) { int v[64]; for (int i = 0; i < 64; i++) v[i] = rand(); qsort(v, 64, sizeof(int), cmp); return leaf(v, n); }
__attribute__((noinline)) double fp(double x) { double y[8]; for (int i = 0; i < 8; i++) y[i] = x * i; return y[3] + mid((int)x); }
int main(int argc, char **argv) { printf("%f\n", fp(argc)); return 0; }
C
	if command -v arm-linux-gnueabihf-gcc >/dev/null 2>&1; then
		arm-linux-gnueabihf-gcc -O2 -funwind-tables -mthumb -s -o "$c/ehabi/thumb-O2.elf" "$tmp/t.c"
		arm-linux-gnueabihf-gcc -O1 -funwind-tables -marm -fno-omit-frame-pointer -s \
			-o "$c/ehabi/arm-O1.elf" "$tmp/t.c"
	else
		echo "arm-linux-gnueabihf-gcc not installed: no ARM ELF seeds" >&2
	fi
	# GNU ld maps: x86-64 and ARM links with -ffunction-sections, and the
	# start of the memory map of a static link (its full map is 600 KB)
	gcc -O1 -ffunction-sections -pthread -Wl,-Map="$c/mapfile/burn-x86_64.map" \
		-o "$tmp/burn" test/workloads/burn.c
	if command -v arm-linux-gnueabihf-gcc >/dev/null 2>&1; then
		arm-linux-gnueabihf-gcc -O2 -ffunction-sections -Wl,-Map="$c/mapfile/t-arm.map" \
			-o "$tmp/t-arm" "$tmp/t.c"
	fi
	if gcc -O1 -ffunction-sections -static -Wl,-Map="$tmp/static.map" -o "$tmp/t-static" \
		"$tmp/t.c" 2>/dev/null; then
		sed -n '/^Linker script and memory map/,$p' "$tmp/static.map" | head -c 60000 |
			sed '$d' >"$c/mapfile/static-part.map"
	fi
	# bare unwind entries: personality byte, then opcodes (fuzz-ehabi.c)
	printf '\x00\x97\x84\x08\xb0' >"$c/ehabi/ops-p0-vsp-pop"
	printf '\x01\x02\xa8\xb0\xb0' >"$c/ehabi/ops-p1-pop-r4-lr"
	printf '\x02\x03\xb1\x0f\xb2\x81\x01\xc9\x02\xb0' >"$c/ehabi/ops-p2-mixed"
	chmod 644 "$c"/*/*
	rm -rf "$tmp"
	du -sh "$c"
}

# Expression seeds (fuzz-expr.c): the first byte picks the reader ('0' a
# gate, '4'+KIND a filter rule, '5'+KIND a transform, '6' a pair, '7' a
# regex); every example of docs/expressions.md and the refusals the tests
# check, one seed a line.
expr_seeds() {
	local c=fuzz/corpus/expr n=0 line
	rm -rf "$c" && mkdir -p "$c"
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s' "$line" >"$c/$(printf '%03d' $n)"
	done <<'SEEDS'
0hot_leaf>5%
0total:main<=90%
0unwound<99%
0self:unwound<1%
0hot_leaf>=75%
0total:compute_mid<100%
0no_such_fn<1%
0[unknown]>=2%
0helper (a.c)>5%
0helper (x/util.c)>1.5%
0std::vector<int>::push_back>5%
0<impl Foo as Bar>::baz<3%
0operator<<>1%
0operator>>=2%
0"operator>">1%
0"JS:foo \"x\" \\ y"<=0.25%
0 hot_leaf > 5 % 
0hot_leaf>>1%
0foo:hot_leaf>1%
0nosuchfn>5%
0hot_leaf>500%
0hot_leaf>-1%
0hot_leaf>1e2
0hot_leaf
0>5%
0vector<int>5%
0"unterminated>1%
0hot_leaf>5%%
0007.50>00.500%
40^helper$
41helper (cut)
42^libc
43ld-linux (cut)
44^std::(.*)=\1
44x(=y
40(
40a[b (cut)
44^(x)=\9\
51main;run;work
52main;;x
50^helper \(a\.c\)$
57
50*x
6^frame start;^frame end
6step [0-9]*[02468]$;step [0-9]*[13579]$
6ab
6a(;b
7alloc|free
7x{2,1}
SEEDS
	echo "$n expression seeds in $c"
}

case $mode in
seeds)
	make_seeds
	expr_seeds
	;;
check)
	# ci/deps.sh installs clang and libFuzzer: their absence is a failure
	if ! have_clang_fuzzer; then
		for t in $targets; do echo "not ok fuzz-$t: clang with libFuzzer (libclang-rt-14-dev) is not installed (ci/deps.sh)"; done
		exit 1
	fi
	if ! build_all >"$BUILD/fuzz-build.log" 2>&1; then
		for t in $targets; do echo "not ok fuzz-$t: the harnesses do not build (see $BUILD/fuzz-build.log)"; done
		exit 1
	fi
	# As many harnesses at a time as there are cores (FUZZ_JOBS): each
	# fuzzes with a fixed seed and a fixed count of runs, so what it tries
	# does not depend on what runs beside it, and `make check` runs nothing
	# else meanwhile.  The lines come out in the targets' order.
	jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
	out="$BUILD/fuzz/check-lines"
	rm -rf "$out" && mkdir -p "$out"
	for t in $targets; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		check_one "$t" >"$out/$t" 2>&1 &
	done
	wait
	for t in $targets; do cat "$out/$t"; done
	;;
long)
	have_clang_fuzzer || { echo "clang with libFuzzer is not installed" >&2; exit 1; }
	build_all || exit 1
	# one row file per target, so that a run of some targets
	# (FUZZ_TARGETS=…) updates their rows and keeps the others'
	rowdir="$BUILD/fuzz/rows"
	mkdir -p "$rowdir"
	for t in $targets; do
		echo "fuzzing fuzz-$t for ${long_seconds}s…" >&2
		long_one "$t" "$long_seconds" >"$rowdir/$t.new"
		echo "$(cat "$rowdir/$t.new") $(date -u '+%Y-%m-%d %H:%M') |" >"$rowdir/$t"
		rm -f "$rowdir/$t.new"
		cat "$rowdir/$t" >&2
	done
	{
		echo "# Fuzzing results"
		echo
		echo "Produced by \`fuzz/run.sh long SECONDS\` (last run: $(date -u '+%Y-%m-%d %H:%M UTC'),"
		echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' + uncommitted changes'))"
		echo "on $(nproc) CPUs (shared), clang $(clang -dumpversion), libFuzzer fork mode with one worker."
		echo "Executions and coverage are libFuzzer's own counters; *new crashes* counts the"
		echo "inputs saved in \`$BUILD/fuzz/artifacts/<target>/\` during that run (crash, leak,"
		echo "timeout or out-of-memory).  Every invariant is checked in every run: a bug"
		echo "found stays a crash until it is fixed (no ignore list, no switch)."
		echo
		echo "| target | seconds | executions | coverage (edges) | corpus | oom/timeout/crash | new crashes | artifacts / note | run at (UTC) |"
		echo "|---|---|---|---|---|---|---|---|---|"
		for t in wire commands capture perfdata mapfile ehabi expr; do
			[ -f "$rowdir/$t" ] && cat "$rowdir/$t"
		done
		echo
		echo "Bugs found, with the input that shows each (\`fuzz/run.sh check\` replays them"
		echo "and reports \"not ok\" until they are fixed):"
		echo
		cat fuzz/findings.md 2>/dev/null
	} >fuzz/results.md
	echo "wrote fuzz/results.md" >&2
	;;
*)
	echo "usage: fuzz/run.sh check | long [SECONDS] | seeds" >&2
	exit 2
	;;
esac
