#!/usr/bin/env bash
# bench/performance-doc.sh — assembles docs/PERFORMANCE.md from the tables
# the benchmark scripts wrote (bench/results/*.md, docs/boards-results.md,
# the GTK flame-graph timing test).  Nothing in the result is typed by hand:
# rerun the benchmarks (make bench), then this.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/PERFORMANCE.md
section() { # title file
	[ -f "$2" ] || { printf '\n## %s\n\n(not measured yet: run %s)\n' "$1" "$3"; return; }
	printf '\n## %s\n\n' "$1"
	# drop the file's own H1; keep everything else as written by its script
	sed '1{/^# /d}' "$2"
}
{
	echo "# Performance"
	echo
	echo "Every figure below was written by a script in \`bench/\` (or by a test) on this project's"
	echo "2-core shared VM, with the command and date it was made. Comparisons with \`perf\` run both"
	echo "sides in the same invocation, alternating, several runs, medians: read ratios, not absolute"
	echo "times. Assembled by \`bench/performance-doc.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)."
	echo
	echo "## Goals at a glance"
	echo
	echo "Each row below is copied by this script from the table it belongs to (last column: goal)."
	for f in size overhead wire latency ingest scale flame; do
		[ -f "bench/results/$f.md" ] || continue
		echo
		echo "**$f** (bench/results/$f.md):"
		echo
		awk '/^\| *(target|Hz|call graph|nodes|tool|binary)/ && !h { print; h = 1; next }
		     h && /^\|---/ { print; next }
		     h && /^\|/ { print; next }
		     h && !/^\|/ { exit }' "bench/results/$f.md"
	done
	section "1. Agent binary size" bench/results/size.md "bench/size.sh"
	section "2. Agent overhead on the board (vs perf record)" bench/results/overhead.md "bench/overhead.sh"
	section "3. Wire bytes per sample (vs perf script | zstd -1 and perf.data)" bench/results/wire.md "bench/wire.sh"
	section "4. Sample-to-screen latency" bench/results/latency.md "bench/latency.sh"
	section "5/6. Viewer ingest vs perf report, and a large dwarf perf.data" bench/results/ingest.md "bench/ingest.sh"
	# what each ingest change bought, measured when it was made (issues #3, #7)
	if [ -f bench/results/ingest-changes.md ]; then
		echo
		sed '1{/^# /d}' bench/results/ingest-changes.md
	fi
	section "5b. Loading a 10 M-sample session (main vs this tree)" bench/results/scale.md "bench/scale.sh"
	if [ -f bench/results/scale-changes.md ]; then
		echo
		sed '1{/^# /d}' bench/results/scale-changes.md
	fi
	section "7. Flame graph layout and draw" bench/results/flame.md "build/test/viewer-ui-flame-layout-test"
	section "8. Fleet ingest into ClickHouse" bench/results/fleet-ingest.md "bench/fleet-ingest.sh"
	# what each fleet change bought, measured when it was made (issue 29)
	if [ -f bench/results/fleet-changes.md ]; then
		echo
		sed '1{/^# /d}' bench/results/fleet-changes.md
	fi
	section "8b. The fleet's flame graph over 100 M stored samples" bench/results/fleet-flame.md "bench/fleet-flame.sh"
	section "Where the agent's CPU goes" bench/results/agent-profile.md "bench/agent-profile.sh"
	echo
	echo "## Static agents under qemu-user (protocol against this x86_64 viewer)"
	echo
	echo "qemu-user has no perf_event_open, so this checks the wire encoding of 32-bit and"
	echo "big-endian agents: HELLO fields, the probe's ENOSYS refusal, process list, device health,"
	echo "a refused START with its reason, and the viewer's \`perflens ps\` / \`perflens record\`."
	echo "Run by \`build/test/qemu-agent-test\` (part of \`make check\`) at $(date -u '+%H:%M UTC'):"
	echo
	echo "| arch | result |"
	echo "|---|---|"
	if [ -x build/test/qemu-agent-test ]; then
		PL_BUILD=$PWD/build PL_TOP=$PWD build/test/qemu-agent-test 2>/dev/null |
			sed -n 's/^ok test_\(.*\)/| \1 | all checks passed |/p; s/^not ok test_\([a-z0-9_]*\): \(.*\)/| \1 | FAILED: \2 |/p; s/^skip test_\([a-z0-9_]*\): \(.*\)/| \1 | skipped: \2 |/p'
	fi
	section "Emulated boards (arm64, armv7 with Debian kernels)" docs/boards-results.md "PL_BOARDS_RESULTS=docs/boards-results.md test/integration/boards.sh"
} >"$out"
echo "wrote $out"
