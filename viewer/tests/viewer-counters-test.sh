#!/usr/bin/env bash
# viewer-counters-test.sh — the perf-stat style counters the agent reads
# beside every recording (report's "Counters:" table), against the kernel's
# own accounting of the same process: python3 naps 300 times and, as it
# ends, prints its /proc/self/status (Debian's /usr/bin/python3).
#   switches_match_proc   context-switches with the default --stacks user
#       (the switch happens in the kernel: an exclude_kernel counter read 0
#       there) equals voluntary_ctxt_switches + nonvoluntary_ctxt_switches
#       within 5 % or 10 (the counter starts at the exec, /proc at the
#       fork), and at least the 300 naps
#   page_faults_counted   page-faults is at least the 64 MiB python3 touched
#       in 4 KiB pages (16384) and within 10 % of /proc/self/stat's minflt
#       + majflt
#   rate_over_recording   "Per second" is the value over the recording's
#       seconds (report's header), for a session of about one counter read
#       period, where the counter's first and last reads fall together
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-counters: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-counters-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
pl_plan switches_match_proc page_faults_counted rate_over_recording
for x in "$PERFLENS" "$AGENT"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
# Debian's python3 itself: a python3 earlier in PATH may be a wrapper
# script (pyenv's shim) whose shells the counters would count too
PY=/usr/bin/python3
[ -x "$PY" ] || pl_fail_all "$PY is not installed (ci/deps.sh)"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

cat >"$TMP/nap.py" <<'PY'
import sys, time
b = bytearray(64 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
for _ in range(300):
    time.sleep(0.002)
st = open('/proc/self/status').read().split('\n')
f = open('/proc/self/stat').read().rsplit(')', 1)[1].split()
with open(sys.argv[1], 'w') as o:
    for l in st:
        if 'ctxt_switches' in l:
            o.write(l.replace(':', '') + '\n')
    o.write('minflt %s\nmajflt %s\n' % (f[7], f[9]))
PY
"$AGENT" --output "$TMP/nap.plens" -F 99 -- "$PY" "$TMP/nap.py" "$TMP/proc.txt" >"$TMP/agent.log" 2>&1 ||
	pl_fail_all "the agent failed: $(tail -2 "$TMP/agent.log" | tr '\n' ' ')"
"$PERFLENS" report "$TMP/nap.plens" >"$TMP/report.txt" 2>&1 ||
	pl_fail_all "report failed: $(head -3 "$TMP/report.txt" | tr '\n' ' ')"
# counter NAME [COLUMN]: the Counters table's value (2) or per second (3)
counter() { awk -v n="$1" -v c="${2:-2}" '/^Counters:/ { t = 1; next } t && /^$/ { exit } t && $1 == n { print $c; exit }' "$TMP/report.txt"; }
proc() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/proc.txt"; }
# near A B ABS SHARE: A is within ABS or SHARE x B of B
near() { awk -v a="$1" -v b="$2" -v n="$3" -v r="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= n || d <= r * b) }'; }

cs=$(counter context-switches) want=$(($(proc voluntary_ctxt_switches) + $(proc nonvoluntary_ctxt_switches)))
if [ -n "$cs" ] && [ "$cs" -ge 300 ] &&
	near "$cs" "$want" 10 0.05; then
	echo "# context-switches $cs, /proc $want"
	ok switches_match_proc
else
	fail switches_match_proc "context-switches '${cs:-none}', /proc's voluntary + nonvoluntary $want (at least 300 naps)"
fi

pf=$(counter page-faults) fl=$(($(proc minflt) + $(proc majflt)))
if [ -n "$pf" ] && [ "$pf" -ge 16384 ] &&
	near "$pf" "$fl" 0 0.1; then
	echo "# page-faults $pf, /proc $fl"
	ok page_faults_counted
else
	fail page_faults_counted "page-faults '${pf:-none}', /proc's minflt + majflt $fl (at least 16384 wanted)"
fi

# a session of about one read period: the first and the last reads together
"$AGENT" --output "$TMP/short.plens" -F 99 -- "$PY" -c 'import time
t = time.time()
while time.time() - t < 1.05: pass' >"$TMP/short.log" 2>&1
"$PERFLENS" report "$TMP/short.plens" >"$TMP/report.txt" 2>&1
secs=$(sed -n 's/.* samples over \([0-9.]*\) s.*/\1/p' "$TMP/report.txt" | head -n 1)
v=$(counter task-clock) r=$(counter task-clock 3)
if [ -n "$v" ] && [ -n "$secs" ] && [ -n "$r" ] &&
	awk -v v="$v" -v s="$secs" -v r="$r" 'BEGIN { w = v / s; d = r - w; if (d < 0) d = -d; exit !(r > 0 && d <= 0.01 * w + 1) }'; then
	echo "# task-clock $v over $secs s: $r a second"
	ok rate_over_recording
else
	fail rate_over_recording "task-clock '${v:-none}' over '${secs:-?}' s, per second '${r:-none}'"
fi
exit 0
