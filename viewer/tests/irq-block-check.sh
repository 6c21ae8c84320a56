#!/usr/bin/env bash
# irq-block-check.sh — `perflens record --all --irq --block` through a
# live agent, and `report --irq` / `report --block` of the recording,
# against the kernel's own accounting of the same run.  One recording,
# with load started once the recording runs and ended before it stops:
# loopback network (an HTTP server and 300 requests to it, 10000 UDP
# datagrams to a socket on 127.0.0.1), timers (2000 naps of 1 ms) and
# O_DIRECT reads and writes on a loop device whose backing file (on
# /var/tmp) it reaches with direct I/O too, so the disk's own interrupts
# come in the same window.
# Two pairs of /proc snapshots bracket the recording: the outer pair
# (p0 before `perf stat … perflens record` starts, p1 after it ended) and
# the inner pair (i0 once record says the recording runs: the agent opened
# every event before it sends SESSION; i1 once the load ended, before the
# test stops the recording with SIGINT, as Ctrl-C does).  Every event
# between i0 and i1 is in the recording, and every event of the recording
# is between p0 and p1: the margin is exactly what /proc counted between
# the outer and the inner snapshots on each side, and below the inner
# delta the samples the kernel said it lost (LOST records name no event:
# any count may be short by all of them), nothing else.
#   irq_counts_match_proc   every softirq vector and every hardirq handler,
#       on every CPU: report --irq's count lies in [inner delta - lost,
#       outer delta] of /proc/softirqs or /proc/interrupts (a shared IRQ line
#       runs each of its N handlers per interrupt: up to N x the outer
#       delta); NET_RX grew by at least 5000 between i0 and i1 (the 10000
#       datagrams), so the case cannot pass on a quiet machine.
#   irq_counts_match_perf   the recording's total hardirq and softirq
#       counts against `perf stat -a -e irq:irq_handler_entry -e
#       irq:softirq_entry` wrapped around the `perflens record` command:
#       inner delta - lost <= ours <= perf <= outer delta.
#   irq_paired              every run in the middle pairs, but for at most
#       one per sample lost; the entries unpaired at the end (the agent
#       turns the exits off before the entries, or the run had not ended)
#       are at most the entries recorded outside the inner window, where
#       the end lies; NET_RX has time.
#   block_matches_diskstats the loop device's row of report --block: its
#       write and read requests equal the /proc/diskstats writes and reads
#       completed of that device between i0 and i1 exactly, and between p0
#       and p1 too (nothing else uses a fresh loop device), its KiB written
#       and read equal the sectors x 512 / 1024; dd's 200 writes and 100
#       reads of 64 KiB are in there; p50 <= p90 <= p99 <= max, max > 0.
#   block_issue_stacks      the loop device's requests were issued by dd
#       (O_DIRECT dispatches in the submitter's context) and their stacks
#       hold a kernel function of the block layer (blkdev_*, __blk_*,
#       blk_mq_*, submit_bio*).
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-irq-block: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-irq-XXXXXX)
PIDS=() LOOP= BACK=
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$BACK" ] && rm -f "$BACK"
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
IRQ_CASES="irq_counts_match_proc irq_counts_match_perf irq_paired"
BLOCK_CASES="block_matches_diskstats block_issue_stacks"
pl_plan $IRQ_CASES $BLOCK_CASES
for x in "$PERFLENS" "$AGENT"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
PY=/usr/bin/python3
[ -x "$PY" ] || pl_fail_all "$PY is not installed (ci/deps.sh)"
command -v perf >/dev/null || pl_fail_all "perf missing (ci/deps.sh)"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
[ "$(id -u)" = 0 ] || pl_skip_all "[not-root] the agent records every CPU's tracepoints and the test makes a loop device: root's"
tfs=$(pl_tracefs irq/softirq_entry) ||
	pl_skip_all "[no-kernel-feature:irq tracepoints] no irq/softirq_entry in tracefs"

# ─── the loop device (the block cases skip without one) ─────────────────
block_skip=
pl_loop_device 32 "$TMP/loop.err"
case $? in
1) pl_fail_all "$(cat "$TMP/loop.err")" ;;
2) block_skip=$(cat "$TMP/loop.err") ;;
esac
if [ -z "$block_skip" ] && [ ! -r "$tfs/events/block/block_rq_issue/id" ]; then
	block_skip="[no-kernel-feature:block tracepoints] no block/block_rq_issue in tracefs"
fi
LOOPDEV=${LOOP#/dev/}
# the probe udev runs on a new device (blkid reads it) must be over
# before the first /proc/diskstats read
[ -n "$LOOP" ] && { command -v udevadm >/dev/null && udevadm settle 2>/dev/null; sleep 1; }
if [ -n "$LOOP" ]; then
	mm=$(cat "/sys/block/$LOOPDEV/dev") # "7:0"
	LOOPMM=${mm/:/,}
fi

# ─── the load ───────────────────────────────────────────────────────────
cat >"$TMP/load.py" <<'PY'
import http.server, socket, sys, threading, time, urllib.request
# loopback network: an HTTP server and its client, UDP datagrams
srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)
srv.RequestHandlerClass.log_message = lambda *a: None
threading.Thread(target=srv.serve_forever, daemon=True).start()
def http_load():
    url = 'http://127.0.0.1:%d/' % srv.server_address[1]
    for _ in range(300):
        urllib.request.urlopen(url, timeout=10).read()
def udp_load():
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.bind(('127.0.0.1', 0))
    r.settimeout(2)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    got = 0
    for i in range(10000):
        if i % 50 == 0:
            time.sleep(0.005)  # bursts a ring of 128 KiB a CPU holds
        s.sendto(b'x' * 512, r.getsockname())
        try:
            r.recv(1024); got += 1
        except socket.timeout:
            pass
    print('udp received', got)
def timer_load():
    for _ in range(2000):
        time.sleep(0.001)
ts = [threading.Thread(target=f) for f in (http_load, udp_load, timer_load)]
for t in ts: t.start()
for t in ts: t.join()
srv.shutdown()
PY

snap() { # tag: /proc/interrupts, /proc/softirqs, /proc/diskstats and the time
	date +%s.%N >"$TMP/$1.time"
	cat /proc/interrupts >"$TMP/$1.int"
	cat /proc/softirqs >"$TMP/$1.soft"
	cat /proc/diskstats >"$TMP/$1.disk"
}

port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$AGENT" --listen --bind 127.0.0.1 --port "$port" --token irq-token >"$TMP/agent.log" 2>&1 &
PIDS+=($!)
up=
for _ in $(seq 100); do
	(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && up=1 && break
	sleep 0.05
done
[ -n "$up" ] || pl_fail_all "the agent did not listen on $port: $(head -c 300 "$TMP/agent.log")"

# dd's data, made before: only dd's own I/O goes on inside the recording
dd if=/dev/urandom of="$TMP/data" bs=64k count=200 status=none
CAP=$TMP/irq.plens
block_opt=
[ -z "$block_skip" ] && block_opt=--block
snap p0
perf stat -a -x, -o "$TMP/perf.stat" -e irq:irq_handler_entry -e irq:softirq_entry -- \
	"$PERFLENS" record 127.0.0.1:"$port" --token irq-token --all --irq $block_opt \
	--callgraph fp --frequency 99 --duration 120 -o "$CAP" >"$TMP/rec.log" 2>&1 &
recpid=$!
PIDS+=($recpid)
for _ in $(seq 200); do
	grep -q 'recording to' "$TMP/rec.log" && break
	kill -0 $recpid 2>/dev/null || break
	sleep 0.05
done
if grep -q 'recording to' "$TMP/rec.log"; then
	snap i0
	"$PY" "$TMP/load.py" >"$TMP/load.log" 2>&1 &
	loadpid=$!
	if [ -n "$LOOP" ] && [ -z "$block_skip" ]; then
		dd if="$TMP/data" of="$LOOP" bs=64k count=200 oflag=direct status=none 2>"$TMP/dd.err" ||
			echo "dd write failed: $(cat "$TMP/dd.err")" >>"$TMP/load.log"
		dd if="$LOOP" of=/dev/null bs=64k count=100 iflag=direct status=none 2>"$TMP/dd.err" ||
			echo "dd read failed: $(cat "$TMP/dd.err")" >>"$TMP/load.log"
	fi
	wait $loadpid
	snap i1
	# the recording runs on past i1 until told to stop (Ctrl-C's STOP);
	# --duration is only the backstop
	recorder=$(pgrep -P $recpid -x perflens)
	[ -n "$recorder" ] && kill -0 "$recorder" 2>/dev/null ||
		pl_fail_all "perflens record ended before the load did: $(tail -c 400 "$TMP/rec.log" | tr '\n' '|')"
	kill -INT "$recorder"
fi
wait $recpid
rec=$?
snap p1
[ -f "$TMP/i1.time" ] || pl_fail_all "the recording did not start: $(tail -c 400 "$TMP/rec.log" | tr '\n' '|')"
[ $rec = 0 ] || pl_fail_all "perf stat + perflens record failed ($rec): $(tail -c 400 "$TMP/rec.log" | tr '\n' '|')"
grep -q 'failed' "$TMP/load.log" && pl_fail_all "the load failed: $(head -c 300 "$TMP/load.log")"
echo "# load: $(tr '\n' ' ' <"$TMP/load.log")"

"$PERFLENS" report --irq "$CAP" >"$TMP/irq.txt" 2>"$TMP/irq.err" ||
	pl_fail_all "report --irq failed: $(head -c 300 "$TMP/irq.err")"

echo "# windows: outer $(awk -v a="$(cat "$TMP/p0.time")" -v b="$(cat "$TMP/p1.time")" 'BEGIN { print b - a }') s, inner $(awk -v a="$(cat "$TMP/i0.time")" -v b="$(cat "$TMP/i1.time")" 'BEGIN { print b - a }') s; $(grep -m1 '^IRQ and softirq time' "$TMP/irq.txt")"
lost=$(sed -n 's/.*the recording lost \([0-9]*\) samples.*/\1/p' "$TMP/irq.txt" | head -n 1)
lost=${lost:-0}
echo "# lost samples: $lost"
# every count may be short by the samples lost: past 1 % of them the
# cases would check little
total=$(sed -n 's/^  [a-z]*irqs: \([0-9]*\),.*/\1/p' "$TMP/irq.txt" | awk '{ s += $1 } END { print s + 0 }')
[ $((lost * 100)) -le "$total" ] ||
	pl_fail_all "the recording lost $lost samples of about $total: too many for the counts to be checked (a loaded machine?)"

# Per (kind, source, CPU): ours against the inner and outer /proc deltas.
cat >"$TMP/cmp.py" <<'PY'
import re, sys
d, lost = sys.argv[1], int(sys.argv[2])
def proc(tag):
    rows = {}
    lines = open('%s/%s.int' % (d, tag)).read().split('\n')
    ncpu = len(lines[0].split())
    for l in lines[1:]:
        f = l.split()
        if not f or not re.match(r'^[0-9]+:$', f[0]):
            continue
        nh = l.count(',') + 1  # "name1, name2": one handler more than commas
        for c in range(ncpu):
            rows[('hard', f[0][:-1], c)] = (int(f[1 + c]), nh)
    lines = open('%s/%s.soft' % (d, tag)).read().split('\n')
    ncpu = len(lines[0].split())
    for l in lines[1:]:
        f = l.split()
        if f:
            for c in range(ncpu):
                rows[('soft', f[0][:-1], c)] = (int(f[1 + c]), 1)
    return rows
def delta(a, b):
    return {k: (b[k][0] - a[k][0], b[k][1]) for k in b if k in a}
outer, inner = delta(proc('p0'), proc('p1')), delta(proc('i0'), proc('i1'))
ours, kind = {}, None
for l in open(d + '/irq.txt'):
    if l.startswith('Hardirqs ('): kind = 'hard'; continue
    if l.startswith('Softirqs ('): kind = 'soft'; continue
    if not l.strip() or l.startswith('Per CPU'): kind = None; continue
    f = l.split()
    if kind is None or len(f) < 8 or not f[0].isdigit(): continue
    src = f[7] if kind == 'soft' else f[0]
    for pc in f[6].split(','):
        c, n = pc.split(':')
        ours[(kind, src, int(c))] = ours.get((kind, src, int(c)), 0) + int(n)
bad = rows = 0
tot = {}
for k in sorted(outer):
    hi, nh = outer[k]
    lo = inner.get(k, (0, 1))[0]
    o = ours.pop(k, 0)
    out = o < lo - lost or o > hi * nh
    bad += out
    rows += 1
    for t, v in (('ours', o), ('inner', lo), ('outer', hi)):
        tot[(k[0], t)] = tot.get((k[0], t), 0) + v
        if k[1] == 'NET_RX': tot[('netrx', t)] = tot.get(('netrx', t), 0) + v
    if hi or o:
        print('%s %s cpu%d: inner %d%s <= ours %d <= outer %d%s%s' % (k[0], k[1], k[2], lo,
              ' - %d lost' % lost if lost else '', o, hi,
              ' x %d handlers' % nh if nh > 1 else '', '  <-- outside' if out else ''))
for k, o in ours.items():
    if o:
        print('%s %s cpu%d: ours %d, not in /proc  <-- outside' % (k[0], k[1], k[2], o)); bad += 1
for k in ('hard', 'soft', 'netrx'):
    print('total %s inner %d ours %d outer %d' % (k, tot.get((k, 'inner'), 0), tot.get((k, 'ours'), 0), tot.get((k, 'outer'), 0)))
print('rows %d bad %d' % (rows, bad))
PY
"$PY" "$TMP/cmp.py" "$TMP" "$lost" >"$TMP/cmp.txt" 2>&1

# ─── irq_counts_match_proc ──────────────────────────────────────────────
sed 's/^/#   /' "$TMP/cmp.txt" | head -80
summary=$(tail -n 1 "$TMP/cmp.txt")
nbad=$(echo "$summary" | awk '$1 == "rows" { print $4 }')
netrx=$(awk '$1 == "total" && $2 == "netrx" { print $4 }' "$TMP/cmp.txt")
if [ -z "$nbad" ]; then
	fail irq_counts_match_proc "the comparison failed: $(tail -3 "$TMP/cmp.txt" | tr '\n' '|')"
elif [ "$nbad" != 0 ]; then
	fail irq_counts_match_proc "$nbad of the (kind, source, CPU) rows outside [inner, outer]: $(grep -- '<--' "$TMP/cmp.txt" | head -5 | tr '\n' '|')"
elif [ "${netrx:-0}" -lt 5000 ]; then
	fail irq_counts_match_proc "/proc/softirqs NET_RX grew by ${netrx:-0} only inside the recording: the network load did not run"
else
	ok irq_counts_match_proc
fi

# ─── irq_counts_match_perf ──────────────────────────────────────────────
perf_hard=$(awk -F, '$3 == "irq:irq_handler_entry" { print $1 }' "$TMP/perf.stat")
perf_soft=$(awk -F, '$3 == "irq:softirq_entry" { print $1 }' "$TMP/perf.stat")
ours_hard=$(sed -n 's/^  hardirqs: \([0-9]*\),.*/\1/p' "$TMP/irq.txt")
ours_soft=$(sed -n 's/^  softirqs: \([0-9]*\),.*/\1/p' "$TMP/irq.txt")
read -r ih oh <<<"$(awk '$1 == "total" && $2 == "hard" { print $4, $8 }' "$TMP/cmp.txt")"
read -r is os <<<"$(awk '$1 == "total" && $2 == "soft" { print $4, $8 }' "$TMP/cmp.txt")"
echo "# hardirqs: /proc inner $ih <= ours $ours_hard <= perf stat $perf_hard <= /proc outer $oh"
echo "# softirqs: /proc inner $is <= ours $ours_soft <= perf stat $perf_soft <= /proc outer $os"
chain() { # numbers that must not decrease
	local prev=-1 x
	for x in "$@"; do
		case $x in '' | *[!0-9]*) return 1 ;; esac
		[ "$x" -ge "$prev" ] || return 1
		prev=$x
	done
}
if chain $((ih - lost > 0 ? ih - lost : 0)) "$ours_hard" "$perf_hard" "$oh" &&
	chain $((is - lost > 0 ? is - lost : 0)) "$ours_soft" "$perf_soft" "$os"; then
	ok irq_counts_match_perf
else
	fail irq_counts_match_perf "want /proc inner <= ours <= perf <= /proc outer: hardirqs $ih, $ours_hard, '$perf_hard', $oh; softirqs $is, $ours_soft, '$perf_soft', $os: $(head -c 300 "$TMP/perf.stat" | tr '\n' '|')"
fi

# ─── irq_paired ─────────────────────────────────────────────────────────
ncpu=$(sed -n 's/^IRQ and softirq time: \([0-9]*\) CPUs.*/\1/p' "$TMP/irq.txt")
read -r before after dropped <<<"$(sed -n 's/^  unpaired: \([0-9]*\) at the start.*, \([0-9]*\) at the end.*, \([0-9]*\) dropped.*/\1 \2 \3/p' "$TMP/irq.txt")"
netrx_ms=$(awk '/^Softirqs \(/ { t = 1; next } t && $NF == "NET_RX" { print $3; exit }' "$TMP/irq.txt")
echo "# unpaired: $before before, $after after, $dropped dropped; $ncpu CPUs; NET_RX $netrx_ms ms"
if [ -z "${dropped:-}" ] || [ -z "$ncpu" ]; then
	fail irq_paired "no unpaired line: $(head -8 "$TMP/irq.txt" | tr '\n' '|')"
elif [ "$dropped" -gt "$lost" ]; then
	fail irq_paired "$dropped runs dropped unpaired, more than the $lost samples lost"
elif [ "$after" -gt $((ours_hard + ours_soft - ih - is)) ]; then
	fail irq_paired "$after entries unpaired at the end, more than the $((ours_hard + ours_soft - ih - is)) entries recorded outside the inner window (after i1): the end's are all there"
elif ! awk -v t="${netrx_ms:-0}" 'BEGIN { exit !(t > 0) }'; then
	fail irq_paired "NET_RX has no time: '${netrx_ms:-}'"
else
	ok irq_paired
fi

# ─── block ──────────────────────────────────────────────────────────────
if [ -n "$block_skip" ]; then
	for c in $BLOCK_CASES; do skip "$c" "$block_skip"; done
	exit 0
fi
"$PERFLENS" report --block --top 0 "$CAP" >"$TMP/block.txt" 2>"$TMP/block.err" ||
	pl_fail_all "report --block failed: $(head -c 300 "$TMP/block.err")"
row=$(awk -v d="$LOOPMM" '$1 == d' "$TMP/block.txt" | head -n 1)
# /proc/diskstats: 4 reads completed, 6 sectors read, 8 writes completed, 10 sectors written
ds() { awk -v n="$LOOPDEV" -v f="$2" '$3 == n { print $f }' "$TMP/$1.disk"; }
dr=$(($(ds i1 4) - $(ds i0 4))) dsr=$(($(ds i1 6) - $(ds i0 6)))
dw=$(($(ds i1 8) - $(ds i0 8))) dsw=$(($(ds i1 10) - $(ds i0 10)))
# outside the inner window, nothing: the outer deltas are the same
outer_same=1
for f in 4 6 8 10; do
	[ $(($(ds p1 $f) - $(ds p0 $f))) = $(($(ds i1 $f) - $(ds i0 $f))) ] || outer_same=
done
echo "# $LOOP ($LOOPMM): report row: $row"
echo "# /proc/diskstats between i0 and i1: reads $dr ($dsr sectors), writes $dw ($dsw sectors); the same between p0 and p1: ${outer_same:-no}"
if [ -z "$row" ]; then
	fail block_matches_diskstats "no row for $LOOPMM in report --block: $(head -12 "$TMP/block.txt" | tr '\n' '|')"
else
	set -- $row
	reads=$3 writes=$4 rkib=$7 wkib=$8 p50=${10} p90=${11} p99=${12} max=${13}
	want_rkib=$(awk -v s="$dsr" 'BEGIN { printf "%.1f", s * 512 / 1024 }')
	want_wkib=$(awk -v s="$dsw" 'BEGIN { printf "%.1f", s * 512 / 1024 }')
	if [ -z "$outer_same" ]; then
		fail block_matches_diskstats "$LOOP had I/O outside the load (between p0 and i0 or i1 and p1): $(grep " $LOOPDEV " "$TMP/p0.disk" "$TMP/i0.disk" "$TMP/i1.disk" "$TMP/p1.disk" | tr '\n' '|')"
	elif [ "$reads" != "$dr" ] || [ "$writes" != "$dw" ] || [ "$rkib" != "$want_rkib" ] || [ "$wkib" != "$want_wkib" ]; then
		fail block_matches_diskstats "ours reads $reads ($rkib KiB) writes $writes ($wkib KiB), diskstats reads $dr ($want_rkib KiB) writes $dw ($want_wkib KiB)"
	elif [ "$writes" -lt 200 ] || [ "$reads" -lt 100 ] || awk -v w="$wkib" 'BEGIN { exit !(w < 12800) }'; then
		fail block_matches_diskstats "dd's 200 writes and 100 reads of 64 KiB are not all there: $row"
	elif ! awk -v a="$p50" -v b="$p90" -v c="$p99" -v d="$max" 'BEGIN { exit !(a <= b && b <= c && c <= d && d > 0) }'; then
		fail block_matches_diskstats "latency percentiles out of order: $row"
	else
		ok block_matches_diskstats
	fi
fi
# the slowest rows of the loop device: "… Device Op Sector KiB Latency TID Thread [stack]"
awk -v d="$LOOPMM" '/^Slowest/ { t = 1; next } t && $2 == d' "$TMP/block.txt" >"$TMP/loop.slow"
n=$(wc -l <"$TMP/loop.slow")
bydd=$(awk '$8 == "dd"' "$TMP/loop.slow" | wc -l)
stacked=$(awk '$8 == "dd"' "$TMP/loop.slow" | grep -cE '\[.*(blkdev_|__blk_|blk_mq_|submit_bio)')
echo "# loop requests listed $n, issued by dd $bydd, with a block-layer frame $stacked"
echo "# e.g. $(awk '$8 == "dd"' "$TMP/loop.slow" | head -n 1 | cut -c1-300)"
if [ "$n" -lt 300 ]; then
	fail block_issue_stacks "$n requests of $LOOPMM listed, want dd's 300"
elif [ "$bydd" -lt 300 ] || [ "$stacked" -lt "$bydd" ]; then
	fail block_issue_stacks "of $n requests, $bydd issued by dd, $stacked with a block-layer frame: $(head -n 2 "$TMP/loop.slow" | tr '\n' '|')"
else
	ok block_issue_stacks
fi
