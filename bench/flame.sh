#!/usr/bin/env bash
# bench/flame.sh — flame graph layout and cairo draw time for 10k and 100k
# call-tree nodes (viewer/core/pl-flame-layout.c, drawn by
# viewer/core/pl-flame-draw.c at 1600x1000 with labels, as the widget draws),
# median of RUNS runs of the layout test.
#   bench/flame.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-7}
t=$build/test/viewer-ui-flame-layout-test
[ -x "$t" ] || { echo "bench/flame.sh: $t not built (make)" >&2; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for ((i = 0; i < runs; i++)); do
	PL_BUILD=$build "$t" | grep '^# bench_' >>"$tmp"
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
{
	echo "# Flame graph layout and draw"
	echo
	echo "Produced by \`bench/flame.sh $build $runs\` on $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Synthetic call trees; frames narrower than half a pixel are not laid out. Goal: ≤ 16 ms for a 100k-node graph."
	echo
	echo "| nodes | rectangles laid out | layout ms (median) | draw ms (median) | total ms | goal |"
	echo "|---|---|---|---|---|---|"
	for n in 10k 100k; do
		rows=$(grep "bench_${n}_nodes" "$tmp")
		rects=$(echo "$rows" | head -n1 | sed -n 's/.* \([0-9]*\) rects.*/\1/p')
		lay=$(echo "$rows" | sed -n 's/.*layout \([0-9.]*\) ms.*/\1/p' | median)
		drw=$(echo "$rows" | sed -n 's/.*labels) \([0-9.]*\) ms.*/\1/p' | median)
		tot=$(awk -v a="$lay" -v b="$drw" 'BEGIN { printf "%.2f", a + b }')
		goal=$(awk -v t="$tot" 'BEGIN { print (t <= 16) ? "met" : "**missed**" }')
		echo "| ${n/k/,000} | $rects | $lay | $drw | $tot | $goal |"
	done
} >bench/results/flame.md
cat bench/results/flame.md
