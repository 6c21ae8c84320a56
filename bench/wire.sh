#!/usr/bin/env bash
# bench/wire.sh — bytes per sample leaving the board: PerfLens vs the seed
# design's pipeline (`perf record -g` then `perf script` text compressed
# with `zstd -1`) and vs perf.data itself.
#
#   bench/wire.sh [BUILD_DIR] [RUNS] [INPUT_MIB]      (defaults: build 3 8)
#
# For 99 and 999 Hz, fp and dwarf, RUNS rounds alternating a PerfLens run
# and a perf run (the order flips each round) on the same zstd compression:
#   PerfLens  perflens-agent --output F --pid ZSTD --frequency HZ
#             --callgraph MODE --no-offcpu --no-counters
#             bytes/sample = capture size (= what the socket carries: side
#             band, health, probe results and all) / samples in it
#   perf      perf record -F HZ --call-graph fp|dwarf,8192 --user-callchains
#             -p ZSTD, then `perf script | zstd -1` (bytes / samples) and
#             the perf.data size / samples
# Then the last PerfLens capture of each configuration goes through
# pl-wirestat: bytes per frame type and per SAMPLE field, raw and compressed,
# and what the same stream would take in full 128 KiB blocks (the agent
# closes a block every 100 ms for latency).  Goals: fp ≤ 0.5× the text
# pipeline; dwarf ≤ 1,000 bytes/sample.  Writes bench/results/wire.md.
set -euo pipefail
build=${1:-build}
runs=${2:-3}
mib=${3:-8}
BENCH_CMD="bench/wire.sh $build $runs $mib"
. "$(dirname "$0")/lib.sh"
bench_setup "$build"
outdir=${PL_BENCH_OUT:-$PL_ROOT/bench/results}
mkdir -p "$outdir"
input=$(bench_input "$mib")
read -r -a zargs <<<"$(zstd_args "$input")"

start_target() {
	"$1" "${zargs[@]}" &
	TARGET=$!
	BENCH_PIDS+=("$TARGET")
}

# run_perflens MODE HZ KEEP: prints "bytes_per_sample samples full_block_bps
# steady_bps (start-up frames left out) one_zstd_stream_bps (what-if)"
run_perflens() {
	local mode=$1 hz=$2 keep=$3 z=$ZSTD_FP out=$BTMP/o.plens
	[ "$mode" = dwarf ] && z=$ZSTD_NOFP
	start_target "$z"
	"$AGENT" --output "$out" --pid "$TARGET" --frequency "$hz" --callgraph "$mode" \
		--no-offcpu --no-counters 2>"$BTMP/agent.log" ||
		{ cat "$BTMP/agent.log" >&2; bench_die "the agent failed (log above)"; }
	wait "$TARGET"
	local samples bytes full
	samples=$("$PL_ROOT/$build/tools/pl-dump" -c "$out" | awk '$1 == "SAMPLE" {print $2}')
	bytes=$(stat -c %s "$out")
	"$PL_WIRESTAT" "$out" >"$BTMP/wirestat" || bench_die "pl-wirestat failed on $out"
	full=$(sed -n 's/^Re-compressed at .*: \([0-9]*\) bytes.*/\1/p' "$BTMP/wirestat")
	steady=$(sed -n 's/.*without them the stream costs \*\*\([0-9.]*\) bytes.*/\1/p' "$BTMP/wirestat")
	stream=$(sed -n 's/^| as sent, but one zstd stream across blocks[^|]*| \([0-9.]*\) .*/\1/p' "$BTMP/wirestat")
	cp "$BTMP/wirestat" "$keep"
	awk -v b="$bytes" -v s="$samples" -v f="$full" -v st="$steady" -v zs="$stream" \
		'BEGIN {printf "%.1f %d %.1f %s %s\n", b / s, s, f / s, st, zs}'
}

# run_perf MODE HZ: prints "text_zstd_bps perfdata_bps samples text_raw_bps"
run_perf() {
	local mode=$1 hz=$2 z=$ZSTD_FP cg=fp data=$BTMP/perf.data
	[ "$mode" = dwarf ] && { z=$ZSTD_NOFP; cg="dwarf,8192"; }
	start_target "$z"
	perf record -q -F "$hz" --call-graph "$cg" --user-callchains -p "$TARGET" -o "$data" \
		2>"$BTMP/perf.log" || { cat "$BTMP/perf.log" >&2; bench_die "perf record failed"; }
	wait "$TARGET"
	local samples text raw pdata
	samples=$(perf script -i "$data" -F tid 2>/dev/null | wc -l)
	perf script -i "$data" 2>/dev/null >"$BTMP/script.txt"
	raw=$(stat -c %s "$BTMP/script.txt")
	text=$(zstd -1 -c "$BTMP/script.txt" | wc -c)
	pdata=$(stat -c %s "$data")
	awk -v t="$text" -v p="$pdata" -v s="$samples" -v r="$raw" \
		'BEGIN {printf "%.1f %.1f %d %.1f\n", t / s, p / s, s, r / s}'
}

bench_log "wire: $runs rounds x 4 configurations x (PerfLens, perf) on ${mib} MiB"
rows=$BTMP/rows
: >"$rows"
for hz in 99 999; do
	for mode in fp dwarf; do
		for ((r = 0; r < runs; r++)); do
			for side in $( ((r % 2)) && echo "perf perflens" || echo "perflens perf"); do
				if [ "$side" = perflens ]; then
					line=$(run_perflens "$mode" "$hz" "$BTMP/ws-$hz-$mode")
				else
					line=$(run_perf "$mode" "$hz")
				fi
				echo "$hz $mode $side $line" >>"$rows"
				bench_log "$hz Hz $mode $side: $line"
			done
		done
	done
done

col() { awk -v hz="$1" -v m="$2" -v v="$3" -v c="$4" '$1 == hz && $2 == m && $3 == v {print $c}' "$rows" | median; }
{
	bench_header "Wire bytes per sample: PerfLens vs perf script | zstd -1 vs perf.data"
	echo "Medians of $runs runs each. PerfLens bytes are the whole capture (= the socket stream: probe results,"
	echo "side band, health every second, block headers) divided by its samples; perf's are the whole \`perf script\`"
	echo "output (default fields, user call chains symbolized on the board) compressed with \`zstd -1\`, and the perf.data file."
	echo "Goals: fp ≤ 0.5× the text pipeline; dwarf ≤ 1,000 bytes/sample."
	echo
	echo "Columns 4-6 are what-ifs computed by pl-wirestat from the same capture: the stream without its start-up frames"
	echo "(probe results, vDSO image…: a fixed cost), in full 128 KiB blocks instead of one block per 100 ms, and with one"
	echo "zstd stream across the agent's blocks (ZSTD_e_flush at each block end: same latency)."
	echo
	echo "| Hz | mode | PerfLens B/sample | without start-up | in full blocks | one zstd stream | perf script + zstd -1 B/sample | perf script raw text B/sample | perf.data B/sample | PerfLens / text pipeline | PerfLens / perf.data | samples PerfLens / perf | goal |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for hz in 99 999; do
		for mode in fp dwarf; do
			pl=$(col $hz $mode perflens 4); sl=$(col $hz $mode perflens 5); fb=$(col $hz $mode perflens 6)
			st=$(col $hz $mode perflens 7); zs=$(col $hz $mode perflens 8)
			tx=$(col $hz $mode perf 4); pd=$(col $hz $mode perf 5); sp=$(col $hz $mode perf 6); rw=$(col $hz $mode perf 7)
			r1=$(awk -v a="$pl" -v b="$tx" 'BEGIN {printf "%.2f×", a / b}')
			r2=$(awk -v a="$pl" -v b="$pd" 'BEGIN {printf "%.3f×", a / b}')
			if [ "$mode" = fp ]; then
				goal=$(awk -v a="$pl" -v b="$tx" 'BEGIN {print (a <= 0.5 * b) ? "met (≤0.5×)" : "**missed** (>0.5×)"}')
			else
				goal=$(awk -v a="$pl" 'BEGIN {print (a <= 1000) ? "met (≤1000)" : "**missed** (>1000)"}')
			fi
			echo "| $hz | $mode | $pl | $st | $fb | $zs | $tx | $rw | $pd | $r1 | $r2 | $sl / $sp | $goal |"
		done
	done
	echo
	for hz in 99 999; do
		for mode in fp dwarf; do
			echo "## Where the bytes go: PerfLens $mode at $hz Hz (last run, \`pl-wirestat\`)"
			echo
			cat "$BTMP/ws-$hz-$mode"
			echo
		done
	done
	echo "<details><summary>Every run (Hz mode side: PerfLens B/sample samples full-block steady one-stream | perf text+zstd B/sample perf.data B/sample samples raw-text B/sample)</summary>"
	echo
	echo '```'
	cat "$rows"
	echo '```'
	echo "</details>"
} >"$outdir/wire.md"
cat "$outdir/wire.md"
