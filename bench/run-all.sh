#!/usr/bin/env bash
# bench/run-all.sh — every PerfLens-vs-perf benchmark of bench/, one after
# the other (never in parallel: they would disturb each other), each writing
# its table to bench/results/<name>.md with the command and the date.
#
#   bench/run-all.sh [BUILD_DIR] [RUNS]      (defaults: build 3)
#
#   size.md      agent binary per architecture (ci/agents.sh)
#   overhead.md  agent CPU / RSS and the target's slowdown vs perf record
#   wire.md      bytes per sample vs perf script | zstd -1 and perf.data,
#                with the per-field byte accounting of SAMPLE
#   latency.md   sample-to-screen latency vs perf record | perf script
#   agent-profile.md  perf's profile of the agent itself (fp and dwarf)
# then, when present, bench/ingest.sh, bench/scale.sh and bench/flame.sh (the viewer's
# benchmarks, owned by their authors) and bench/performance-doc.sh, which
# assembles docs/PERFORMANCE.md from all the tables.
#
# (bench/agent.sh, the older burn-based overhead + wire table, is covered
# by overhead.sh and wire.sh on a real program and is not run here.)
#
# Needs root (or perf_event_paranoid ≤ 1), perf, zstd, and a built tree
# (make).  The first run builds the zstd workload from Debian source into
# ~/.cache/perflens/bench (a few minutes).  Takes ~30 minutes with RUNS=3 (more with ingest).
# PL_BENCH_SKIP="size latency" skips benchmarks by name.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-3}
skip=" ${PL_BENCH_SKIP:-} "
status=0
run() {
	local name=$1
	shift
	case "$skip" in *" $name "*) echo "bench: skipping $name" >&2; return ;; esac
	echo "bench: === $name: $* ===" >&2
	"$@" >/dev/null || { echo "bench: $name FAILED (exit $?)" >&2; status=1; }
}
run size bench/size.sh
run overhead bench/overhead.sh "$build" "$runs"
run wire bench/wire.sh "$build" "$runs"
run latency bench/latency.sh "$build" "$runs"
run agent-profile bench/agent-profile.sh "$build"
# the viewer's side, by their own scripts when present (same arguments)
[ -x bench/ingest.sh ] && run ingest bench/ingest.sh "$build" "$runs"
[ -x bench/scale.sh ] && run scale bench/scale.sh "$build" "$runs"
[ -x bench/flame.sh ] && run flame bench/flame.sh "$build"
[ -x bench/performance-doc.sh ] && run performance-doc bench/performance-doc.sh
echo "bench: results in bench/results/: $(cd bench/results && echo *.md)" >&2
exit $status
