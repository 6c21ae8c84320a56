#!/usr/bin/env bash
# viewer-scale-report-test.sh — the figures `perflens report` prints for a
# large-ish capture (the agent at 100 kHz on the burn workload's threads,
# frame pointers: some 10^5 samples, held and reordered in many runs)
# equal those counted independently from the same file's export: the
# collapsed stacks summed with awk (every sample once, its leaf frame its
# self), the Threads rows summed against the header's total, and the
# report of the file decoded on one thread.
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-scale-report: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-scale-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="total_equals_collapsed self_equals_collapsed threads_add_up decode_thread_same decode_thread_same_timeline aggregate_thread_same"
pl_plan $ALL

for x in "$PERFLENS" "$AGENT" "$BURN"; do
	[ -x "$x" ] || { for n in $ALL; do fail "$n" "$x not built (make)"; done; exit 1; }
done
CAP=$TMP/burn.plens
if ! "$AGENT" --output "$CAP" -g --frequency 100000 -- "$BURN" 4 2 >"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then
		for n in $ALL; do skip "$n" "$why"; done
		exit 0
	fi
	for n in $ALL; do fail "$n" "the kernel allows perf, but the agent cannot record: $(tail -1 "$TMP/agent.log")"; done
	exit 1
fi
"$PERFLENS" report "$CAP" --top 0 >"$TMP/report.txt" 2>"$TMP/report.err" ||
	{ for n in $ALL; do fail "$n" "report failed: $(tail -1 "$TMP/report.err")"; done; exit 1; }
"$PERFLENS" export "$CAP" --format collapsed -o "$TMP/c.folded" 2>"$TMP/export.err" ||
	{ for n in $ALL; do fail "$n" "export failed: $(tail -1 "$TMP/export.err")"; done; exit 1; }

# the header: "Top functions by self (cpu-clock; % of N samples, ..."
total=$(sed -n 's/^Top functions by self ([^;]*; % of \([0-9]*\) samples.*/\1/p' "$TMP/report.txt")
folded=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/c.folded")
if [ -n "$total" ] && [ "$total" -gt 10000 ] && [ "$total" = "$folded" ]; then
	ok total_equals_collapsed
else
	fail total_equals_collapsed "report counts ${total:-nothing}, the collapsed stacks add up to $folded (want equal, over 10000)"
fi

# every function row's Samples (self) against the collapsed leaves, by
# name (rows with no self sample are not leaves; "f (inlined)" is the collapsed "f_[i]"; rows of one name in two
# modules or files add up: a collapsed frame names no module, and a file
# only where two functions share a name)
awk '{ k = $NF; $NF = ""; sub(/ $/, ""); nf = split($0, f, ";"); x = f[nf]
       i = sub(/_\[i\]$/, "", x); sub(/ \(.*\)$/, "", x); s[x (i ? "_[i]" : "")] += k }
     END { for (x in s) print x, s[x] }' "$TMP/c.folded" | sort >"$TMP/leaves"
awk '/^Top functions/ { on = 1; next } on && /^ *Self%/ { next } on && !NF { exit }
     on && $3 > 0 { name = $4 ($0 ~ /\(inlined\)$/ ? "_[i]" : ""); s[name] += $3 }
     END { for (x in s) print x, s[x] }' "$TMP/report.txt" | sort >"$TMP/rows"
rows=$(wc -l <"$TMP/rows")
if [ "$rows" -gt 3 ] && diff "$TMP/leaves" "$TMP/rows" >"$TMP/rows.diff"; then
	ok self_equals_collapsed
else
	fail self_equals_collapsed "$rows rows; report vs collapsed leaves differ: $(head -4 "$TMP/rows.diff" | tr '\n' ' ')"
fi

# a capture this large is decoded on a second thread (pl-capture.h): the
# report is the same, byte for byte, as one decoded on the caller's thread
size=$(stat -c %s "$CAP")
PERFLENS_NO_DECODE_THREAD=1 "$PERFLENS" report "$CAP" --top 0 >"$TMP/report1.txt" 2>&1
if [ "$size" -lt 65536 ]; then
	fail decode_thread_same "the capture is $size bytes, under the 64 KiB a second thread decodes"
elif cmp -s "$TMP/report.txt" "$TMP/report1.txt"; then
	ok decode_thread_same
else
	fail decode_thread_same "reports differ: $(diff "$TMP/report.txt" "$TMP/report1.txt" | head -3 | tr '\n' ' ')"
fi

# there the decoding thread also puts the messages in the model's ingest
# order (pl-time-order.h): every sample in the same order, with the same
# time and stack (the perf.data export writes them one by one, in the
# model's order; perf itself counts them)
PERFLENS_NO_DECODE_THREAD=1 "$PERFLENS" export "$CAP" --format perf-data -o "$TMP/one.data" 2>"$TMP/one.err"
"$PERFLENS" export "$CAP" --format perf-data -o "$TMP/two.data" 2>"$TMP/two.err"
if command -v perf >/dev/null; then
	nsamp=$(perf script -i "$TMP/two.data" -F tid,time 2>/dev/null | wc -l)
else
	nsamp=$(($(stat -c %s "$TMP/two.data" 2>/dev/null || echo 0) / 100)) # no perf: its size
fi
if [ ! -s "$TMP/two.data" ] || [ ! -s "$TMP/one.data" ]; then
	fail decode_thread_same_timeline "export failed: $(tail -1 "$TMP/two.err") $(tail -1 "$TMP/one.err")"
elif [ "$nsamp" -lt 10000 ]; then
	fail decode_thread_same_timeline "the perf.data export holds $nsamp samples (want over 10000)"
elif cmp -s "$TMP/one.data" "$TMP/two.data"; then
	ok decode_thread_same_timeline
else
	fail decode_thread_same_timeline "the exports differ: $(cmp "$TMP/one.data" "$TMP/two.data" | head -1)"
fi

# over 64 Ki samples the counting is split across two threads and added
# up (pl-profile-aggregate.c): the same report as one pass, whole and in a
# time range, which cuts each half at a different point
PERFLENS_NO_AGGREGATE_THREAD=1 "$PERFLENS" report "$CAP" --top 0 >"$TMP/report-agg1.txt" 2>&1
"$PERFLENS" report "$CAP" --top 0 --from 0.3 --to 1.1 >"$TMP/range2.txt" 2>&1
PERFLENS_NO_AGGREGATE_THREAD=1 "$PERFLENS" report "$CAP" --top 0 --from 0.3 --to 1.1 >"$TMP/range1.txt" 2>&1
rtotal=$(sed -n 's/^Top functions by self ([^;]*; % of \([0-9]*\) samples.*/\1/p' "$TMP/range2.txt")
if [ -z "$total" ] || [ "$total" -lt 65536 ]; then
	fail aggregate_thread_same "the report counts ${total:-nothing} samples, under the 65536 that are counted on two threads"
elif ! cmp -s "$TMP/report.txt" "$TMP/report-agg1.txt"; then
	fail aggregate_thread_same "reports differ: $(diff "$TMP/report.txt" "$TMP/report-agg1.txt" | head -3 | tr '\n' ' ')"
elif [ -z "$rtotal" ] || [ "$rtotal" -lt 1000 ] || ! cmp -s "$TMP/range1.txt" "$TMP/range2.txt"; then
	fail aggregate_thread_same "time range 0.3-1.1 s: ${rtotal:-no} samples; $(diff "$TMP/range1.txt" "$TMP/range2.txt" | head -3 | tr '\n' ' ')"
else
	ok aggregate_thread_same
fi

# the Threads rows add up to the total
tsum=$(awk '/^Threads:/ { on = 1; next } on && /^ *TID/ { next } on && !NF { exit }
	    on { n += $4 } END { print n + 0 }' "$TMP/report.txt")
if [ -n "$total" ] && [ "$tsum" = "$total" ]; then
	ok threads_add_up
else
	fail threads_add_up "the Threads rows add up to $tsum, the report counts ${total:-nothing}"
fi
