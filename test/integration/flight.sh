#!/usr/bin/env bash
# flight.sh — the flight recorder (agent --flight, issue 28) on the real
# kernel, with test/workloads/glitch (quiet, then a burst in burst_work()
# and the marker "glitch now"; its EXPECT file gives the times):
#   marker_window        --flight 20 --trigger marker:glitch --before 2
#       --after 1 on a run that spins in warmup_spin(), marks "startup",
#       sleeps 3 s, bursts 300 ms: exactly one snapshot (mode 0600, no
#       temporary file left); report names the trigger and the marker's
#       text; the snapshot holds the marker "glitch now" and not "startup",
#       no warmup_spin, and no record earlier than (trigger - 2 s) less
#       the drain's delay (0.25 s); burst_work is its top phase function,
#       as it is for perf recording the same run (-k CLOCK_MONOTONIC;
#       --buildid-mmap, as in tracepoints.sh: perf 6.1 misreads the mmap
#       records of a run whose agent asks for build-ids) within the same
#       window; every frame named (no hex address among the functions).
#   exit_trigger         --trigger exit on a run that exits 3: a snapshot
#       whose trigger says "exit status 3" and that ends "target exited".
#   quiet_writes_nothing --trigger exit on a run that exits 0, and a marker
#       trigger whose regex matches no marker: no file at all.
#   syscall_trigger      --trigger 'syscall:clock_nanosleep>1s' on a run
#       that sleeps 1.5 s: one snapshot, its trigger's duration between the
#       1.5 s asked for and what the program measured around the sleep.
#   event_trigger        -e u:GLITCH:burst_work --trigger
#       event:u:GLITCH:burst_work (a uprobe, hit once): one snapshot, its
#       trigger "a hit of" the probe, within the burst the program timed
#       (its EXPECT file), burst_work in it.
#   cpu_trigger          --trigger 'cpu:1%/1s' on a run that sleeps 3 s, then
#       spins 3 s: one snapshot, fired during the spin (or within the
#       reading after it), not in the sleep, which held the share at 0 (the
#       share is read once a second: a reading that covers the spin's start
#       counts whole; 1 %: the test machine is shared, a spin may get a few
#       % of a CPU), its detail a share read over the last second.
#   signal_and_caps      SIGUSR1 three times with --snapshot-count 2
#       --trigger-gap 0: three saved (the agent's log), two left, the
#       newest; each holds a "signal" trigger.
#   snapshot_now         --flight 2 --before 1 --port 0 --token T (a viewer
#       asks for the whole ring: 2 s, whatever --before) on a run that spins
#       1.5 s in warmup_spin(), marks "startup", sleeps 3 s, bursts, then
#       spins in after_spin() (30 s, ended by SIGTERM once the clients are
#       done); `perflens snapshot` 6.5 s in: the file
#       it saves is the board's (cmp), mode 0600, in the sessions folder
#       (mode 0700, with its .idx sidecar, no part file left) and not in
#       the directory it ran in; it decodes, its trigger is
#       "viewer fired" with a window of 2 s before and none after, it holds
#       after_spin (what ran last) and neither warmup_spin nor "startup"
#       (older than the ring keeps), and no record earlier than the trigger
#       less 2 s and the drain's delay; a wrong token gets exit 2 and
#       "rejected the token", and no file.
#   boot_handoff         --boot --flight 20 --after 1 --trigger 'proc:^glitch$'
#       -- /bin/sh -c SCRIPT as PID 1 of a new PID namespace (unshare -p
#       -f -m --mount-proc, as the kernel starts init=): the script (the
#       real init) says it is PID 1 and runs glitch, then sleeps and ends
#       after the recorder; the recorder saved one snapshot when glitch
#       started and exited (its summary line comes before the script's
#       last); the snapshot's trigger names glitch, its threads hold sh as
#       pid 1, sleep and glitch (init's children, named), and glitch's
#       burst_work or spin_until; the agent not as PID 1 refuses --boot
#       (exit 2, "as PID 1").
#   rss_bounded          a 12 s dwarf recording (16 KiB stacks: the stream
#       overfills a 256 KiB ring, ~1 MiB in 12 s even when the shared test
#       machine gives burn a small share) with SIGUSR1 midway: the agent's VmRSS,
#       read from /proc every 0.2 s, stays within the ring + 8 MiB (16 MiB
#       for an AddressSanitizer build) and grows by no more than the ring +
#       512 KiB after its first second; the
#       ring dropped blocks (so it was full); the snapshot decodes.
#   bad_options          --before longer than --flight, an unknown trigger
#       kind, --flight with --output: exit 2 with a sentence each.
# PL_AGENT: the agent under test (else the build's).
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} W=$B/workloads/glitch
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok flight: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/pl-flight-XXXXXX)
APID=
trap '[ -z "$APID" ] || { kill "$APID" 2>/dev/null; wait "$APID" 2>/dev/null; }; pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="marker_window exit_trigger quiet_writes_nothing syscall_trigger event_trigger cpu_trigger signal_and_caps snapshot_now boot_handoff rss_bounded bad_options"
pl_plan $ALL
for x in "$PERFLENS" "$AGENT" "$W" "$B/workloads/burn"; do
	[ -x "$x" ] || { for n in $ALL; do fail "$n" "$x not built (make)"; done; exit 1; }
done
command -v perf >/dev/null || { for n in $ALL; do fail "$n" "perf missing (ci/deps.sh)"; done; exit 1; }

# ─── options (no perf needed) ───────────────────────────────────────────
bad=""
"$AGENT" --flight 5 --before 10 -- true >"$TMP/b1" 2>&1; r1=$?
"$AGENT" --flight 5 --trigger bogus:x -- true >"$TMP/b2" 2>&1; r2=$?
"$AGENT" --flight 5 --output "$TMP/x.plens" -- true >"$TMP/b3" 2>&1; r3=$?
[ $r1 = 2 ] && grep -q -- "--before is longer than --flight" "$TMP/b1" || bad="$bad before($r1: $(head -c 150 "$TMP/b1"))"
[ $r2 = 2 ] && grep -q "marker:REGEX" "$TMP/b2" || bad="$bad trigger($r2: $(head -c 150 "$TMP/b2"))"
[ $r3 = 2 ] && grep -q "choose one" "$TMP/b3" || bad="$bad output($r3: $(head -c 150 "$TMP/b3"))"
[ -z "$bad" ] && ok bad_options || fail bad_options "$bad"

if why=$(pl_perf_refused); then
	pl_skip_all "$why"
fi

# value KEY FILE: the rest of the line "KEY ..." in an EXPECT file
value() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$2"; }
# snapshots DIR: the snapshot files, oldest first
snapshots() { ls "$1"/flight-*.plens 2>/dev/null | sort; }

# ─── a marker trigger, perf on the same run ─────────────────────────────
S=$TMP/m
if ! perf record -q --buildid-mmap -k CLOCK_MONOTONIC -e cpu-clock -F 999 -g -o "$TMP/perf.data" -- \
	"$AGENT" --flight 20 --trigger marker:glitch --before 2 --after 1 --snapshot-dir "$S" \
	-F 999 --callgraph fp -- "$W" "$TMP/m.expect" 3000 300 0 100 100 >"$TMP/m.log" 2>&1; then
	fail marker_window "the agent (under perf record) failed: $(tail -3 "$TMP/m.log" | tr '\n' ' ')"
else
	files=$(snapshots "$S")
	n=$(echo "$files" | grep -c . )
	f=$(echo "$files" | head -1)
	why=""
	[ "$n" = 1 ] || why="$why $n snapshots, not 1 ($(ls -a "$S" 2>&1 | tr '\n' ' '));"
	[ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ] || why="$why mode $(stat -c %a "$f" 2>&1), not 600;"
	ls -a "$S" | grep -q '\.tmp$' && why="$why a temporary file was left;"
	if [ -n "$f" ]; then
		"$PERFLENS" report --top 0 "$f" >"$TMP/m.report" 2>&1 || why="$why report failed: $(head -2 "$TMP/m.report");"
		"$PERFLENS" report --markers "$f" >"$TMP/m.markers" 2>&1
		grep -q 'trigger: marker:glitch fired at .*marker "glitch now"' "$TMP/m.report" ||
			why="$why no trigger line ($(grep -m1 trigger "$TMP/m.report"));"
		grep -q 'glitch now' "$TMP/m.markers" || why="$why the marker 'glitch now' is missing;"
		grep -q 'startup' "$TMP/m.markers" && why="$why the earlier marker 'startup' is in the window;"
		grep -q 'warmup_spin' "$TMP/m.report" && why="$why warmup_spin (before the window) is in it;"
		# the function table: Self% Total% Samples Function Module
		awk '/^Top functions/ { t = 1; next } t && /^$/ { t = 0 } t && $4 ~ /^0x/ { print }' \
			"$TMP/m.report" >"$TMP/m.hex"
		[ -s "$TMP/m.hex" ] && why="$why unnamed frames: $(head -3 "$TMP/m.hex" | tr '\n' ' ');"
		# phase totals, ours (Total% column)
		ours=$(awk '/^Top functions/ { t = 1; next } t && /^$/ { t = 0 }
			t && ($4 == "warmup_spin" || $4 == "burst_work" || $4 == "after_spin") { sub(/%/, "", $2); print $2, $4 }' \
			"$TMP/m.report" | sort -rn | head -1 | awk '{print $2}')
		[ "$ours" = burst_work ] || why="$why our top phase function is '$ours';"
		# the window: the first record no earlier than trigger - 2 s (- 0.25 s drain)
		line=$(grep -m1 'trigger: marker:glitch' "$TMP/m.report")
		rel=$(echo "$line" | sed -E 's/.*fired at ([0-9.]+) s.*/\1/')
		clk=$(echo "$line" | sed -E 's/.*\(clock ([0-9.]+) s\).*/\1/')
		glitch=$(value glitch "$TMP/m.expect")
		startup=$(value startup "$TMP/m.expect")
		awk -v rel="$rel" -v clk="$clk" -v g="$glitch" -v s="$startup" 'BEGIN {
			first = clk - rel; g /= 1e9; s /= 1e9
			if (clk < g - 0.05 || clk > g + 0.05) { printf "the trigger at %.3f, the marker at %.3f;", clk, g; exit }
			if (first < clk - 2.25) printf "the first record %.3f s before the trigger (--before 2);", clk - first
			if (first <= s) printf "the first record precedes the startup marker;"
		}' >"$TMP/m.win"
		[ -s "$TMP/m.win" ] && why="$why $(cat "$TMP/m.win")"
		# perf, same run, same window: which phase function its glitch samples hold most
		perf script -i "$TMP/perf.data" -F comm,time,ip,sym --comm glitch 2>"$TMP/perf.err" >"$TMP/perf.txt"
		theirs=$(awk -v lo="$(awk -v c="$clk" -v r="$rel" 'BEGIN { printf "%.6f", c - r }')" '
			$1 == "glitch" { t = $2; sub(/:$/, "", t); in_w = (t + 0 >= lo); seen = ""; next }
			in_w && NF >= 2 && ($2 == "warmup_spin" || $2 == "burst_work" || $2 == "after_spin") && index(seen, $2) == 0 { n[$2]++; seen = seen " " $2 }
			END { best = ""; for (k in n) if (best == "" || n[k] > n[best]) best = k; print best }' "$TMP/perf.txt")
		[ "$theirs" = burst_work ] || why="$why perf's top phase function in the window is '$theirs' ($(head -c 200 "$TMP/perf.err"));"
		[ "$theirs" = "$ours" ] || why="$why perf says '$theirs', we say '$ours';"
	fi
	[ -z "$why" ] && ok marker_window || fail marker_window "$why"
fi

# ─── exit: non-zero status; and nothing written without a trigger ──────
S=$TMP/e
if ! "$AGENT" --flight 10 --trigger exit --before 2 --after 1 --snapshot-dir "$S" -F 999 \
	--callgraph fp -- "$W" "$TMP/e.expect" 300 200 3 >"$TMP/e.log" 2>&1; then
	fail exit_trigger "the agent failed: $(tail -3 "$TMP/e.log" | tr '\n' ' ')"
else
	f=$(snapshots "$S" | head -1)
	if [ -z "$f" ]; then
		fail exit_trigger "no snapshot ($(tail -2 "$TMP/e.log" | tr '\n' ' '))"
	else
		"$PERFLENS" report "$f" >"$TMP/e.report" 2>&1
		if grep -q 'trigger: exit fired at .*: exit status 3' "$TMP/e.report" &&
			grep -q 'ended: target exited' "$TMP/e.report" &&
			grep -q 'burst_work' "$TMP/e.report"; then
			ok exit_trigger
		else
			fail exit_trigger "report: $(grep -E 'trigger|ended' "$TMP/e.report" | tr '\n' ' ')"
		fi
	fi
fi

S=$TMP/q
"$AGENT" --flight 10 --trigger exit --trigger 'marker:^never$' --snapshot-dir "$S" -F 999 \
	--callgraph fp -- "$W" "$TMP/q.expect" 300 200 0 >"$TMP/q.log" 2>&1
rq=$?
if [ $rq != 0 ]; then
	fail quiet_writes_nothing "the agent exited $rq: $(tail -2 "$TMP/q.log" | tr '\n' ' ')"
elif [ -n "$(ls -A "$S" 2>/dev/null)" ]; then
	fail quiet_writes_nothing "files without a trigger: $(ls -A "$S" | tr '\n' ' ')"
elif ! grep -q 'flight recorder: 0 snapshots' "$TMP/q.log"; then
	fail quiet_writes_nothing "the agent's summary: $(tail -1 "$TMP/q.log")"
else
	ok quiet_writes_nothing
fi

# ─── a slow system call ─────────────────────────────────────────────────
S=$TMP/s
if ! "$AGENT" --flight 10 --trigger 'syscall:clock_nanosleep>1s' --before 3 --after 0.5 \
	--snapshot-dir "$S" -F 999 --callgraph fp -- "$W" "$TMP/s.expect" 1500 100 >"$TMP/s.log" 2>&1; then
	fail syscall_trigger "the agent failed: $(tail -3 "$TMP/s.log" | tr '\n' ' ')"
else
	f=$(snapshots "$S" | head -1)
	n=$(snapshots "$S" | grep -c .)
	"$PERFLENS" report "$f" >"$TMP/s.report" 2>&1
	took=$(sed -nE 's/.*trigger: syscall:clock_nanosleep>1s fired .*took ([0-9.]+) ms.*/\1/p' "$TMP/s.report" | head -1)
	t0=$(value startup "$TMP/s.expect") b=$(value burst "$TMP/s.expect")
	measured=$(echo "$b" | awk -v s="$t0" '{ printf "%.3f", ($1 - s) / 1e6 }')
	if [ "$n" != 1 ] || [ -z "$took" ]; then
		fail syscall_trigger "$n snapshots; trigger: $(grep -m1 trigger "$TMP/s.report")"
	elif awk -v t="$took" -v m="$measured" 'BEGIN { exit !(t >= 1500 && t <= m) }'; then
		ok syscall_trigger
	else
		fail syscall_trigger "took $took ms, outside [1500, $measured] (the program's clock)"
	fi
fi

# ─── any hit of a probe ─────────────────────────────────────────────────
S=$TMP/p
WABS=$(cd "$(dirname "$W")" && pwd)/$(basename "$W")
if [ ! -e /sys/bus/event_source/devices/uprobe/type ]; then
	skip event_trigger "[no-kernel-feature:uprobe PMU] no /sys/bus/event_source/devices/uprobe"
elif ! "$AGENT" --flight 10 -e "u:$WABS:burst_work" --trigger "event:u:$WABS:burst_work" --before 1 \
	--after 0.5 --snapshot-dir "$S" -F 999 --callgraph fp -- "$W" "$TMP/p.expect" 500 300 >"$TMP/p.log" 2>&1; then
	fail event_trigger "the agent failed: $(tail -3 "$TMP/p.log" | tr '\n' ' ')"
else
	n=$(snapshots "$S" | grep -c .)
	f=$(snapshots "$S" | head -1)
	"$PERFLENS" report "$f" >"$TMP/p.report" 2>&1
	line=$(grep -m1 "trigger: event:u:.*burst_work fired" "$TMP/p.report")
	clk=$(echo "$line" | sed -E 's/.*\(clock ([0-9.]+) s\).*/\1/')
	b=$(value burst "$TMP/p.expect")
	if [ "$n" != 1 ] || [ -z "$line" ]; then
		fail event_trigger "$n snapshots; report: $(grep -m1 trigger "$TMP/p.report")"
	elif ! echo "$line" | grep -q "a hit of u:"; then
		fail event_trigger "the detail: $line"
	elif ! echo "$b" | awk -v c="$clk" '{ exit !(c >= $1 / 1e9 - 0.001 && c <= $2 / 1e9) }'; then
		fail event_trigger "fired at $clk s, outside the burst ($b ns)"
	elif ! grep -q burst_work "$TMP/p.report"; then
		fail event_trigger "burst_work is not in the snapshot"
	else
		ok event_trigger
	fi
fi

# ─── a CPU share held ───────────────────────────────────────────────────
S=$TMP/c
if ! "$AGENT" --flight 10 --trigger 'cpu:1%/1s' --before 3 --after 0.5 --snapshot-dir "$S" \
	-F 999 --callgraph fp -- "$W" "$TMP/c.expect" 3000 3000 0 0 >"$TMP/c.log" 2>&1; then
	fail cpu_trigger "the agent failed: $(tail -3 "$TMP/c.log" | tr '\n' ' ')"
else
	n=$(snapshots "$S" | grep -c .)
	f=$(snapshots "$S" | head -1)
	"$PERFLENS" report "$f" >"$TMP/c.report" 2>&1
	line=$(grep -m1 "trigger: cpu:1%/1s fired" "$TMP/c.report")
	clk=$(echo "$line" | sed -E 's/.*\(clock ([0-9.]+) s\).*/\1/')
	b=$(value burst "$TMP/c.expect")
	if [ "$n" != 1 ] || [ -z "$line" ]; then
		fail cpu_trigger "$n snapshots; report: $(grep -m1 trigger "$TMP/c.report")"
	elif ! echo "$b" | awk -v c="$clk" '{ exit !(c >= $1 / 1e9 && c <= $2 / 1e9 + 1.1) }'; then
		fail cpu_trigger "fired at $clk s, not during the spin ($b ns)"
	elif ! echo "$line" | grep -qE 'CPU [0-9]+\.[0-9]% over the last second'; then
		fail cpu_trigger "the detail: $line"
	else
		ok cpu_trigger
	fi
fi

# ─── SIGUSR1, and the directory's caps ──────────────────────────────────
S=$TMP/u
"$AGENT" --flight 10 --before 0.5 --after 0 --trigger-gap 0 --snapshot-count 2 --snapshot-dir "$S" \
	-F 999 --callgraph fp -- "$W" "$TMP/u.expect" 4000 100 >"$TMP/u.log" 2>&1 &
APID=$!
sleep 1
for i in 1 2 3; do
	kill -USR1 $APID
	sleep 0.8
done
wait $APID
ru=$?
APID=
saved=$(grep -c 'flight recorder: signal fired; saved' "$TMP/u.log")
left=$(snapshots "$S")
nleft=$(echo "$left" | grep -c .)
last=$(grep 'flight recorder: signal fired; saved' "$TMP/u.log" | tail -2 | sed 's/.*saved //' | sort)
why=""
[ $ru = 0 ] || why="$why the agent exited $ru;"
[ "$saved" = 3 ] || why="$why $saved saved, not 3;"
[ "$nleft" = 2 ] || why="$why $nleft left, not 2;"
[ "$left" = "$last" ] || why="$why left: $(echo $left), not the newest: $(echo $last);"
for f in $left; do
	"$PERFLENS" report "$f" 2>&1 | grep -q 'trigger: signal fired' || why="$why $f has no signal trigger;"
done
[ -z "$why" ] && ok signal_and_caps || fail signal_and_caps "$why"

# ─── a viewer's "Save now" (perflens snapshot) ─────────────────────────
S=$TMP/n
TOKEN=flight-test-token-0123456789abcdef
"$AGENT" --flight 2 --before 1 --port 0 --bind 127.0.0.1 --token "$TOKEN" --snapshot-dir "$S" -F 999 \
	--callgraph fp --markers -- "$W" "$TMP/n.expect" 3000 300 0 1500 30000 >"$TMP/n.log" 2>&1 &
APID=$!
port=
for i in $(seq 50); do
	port=$(sed -nE 's/.*flight recorder listening on [^ ]*:([0-9]+) .*/\1/p' "$TMP/n.log")
	[ -n "$port" ] && break
	sleep 0.1
done
sleep 6.5
mkdir -p "$TMP/n.got" "$TMP/n.bad"
P=$(cd "$(dirname "$PERFLENS")" && pwd)/$(basename "$PERFLENS") # (run from those directories)
# saved where `perflens record` saves (the sessions folder), not the
# directory it runs in
(cd "$TMP/n.got" && XDG_DATA_HOME=$TMP/n.xdg PERFLENS_TOKEN=$TOKEN "$P" snapshot "127.0.0.1:$port" \
	>"$TMP/n.out" 2>&1); rn=$?
(cd "$TMP/n.bad" && XDG_DATA_HOME=$TMP/n.bad "$P" snapshot --token wrong-token-0123456789abcdef \
	"127.0.0.1:$port" >"$TMP/n.bad.out" 2>&1); rbad=$?
kill -TERM $APID # (glitch spins 30 s: room for a slow machine, not waited for)
wait $APID
ra=$?
APID=
why=""
NS=$TMP/n.xdg/perflens/sessions
got=$(ls "$NS"/flight-*.plens 2>/dev/null | head -1)
board=$(snapshots "$S" | head -1)
[ -n "$port" ] || why="$why the agent never said its port ($(head -3 "$TMP/n.log" | tr '
' ' '));"
[ $ra = 0 ] || why="$why the agent exited $ra: $(tail -2 "$TMP/n.log" | tr '
' ' ');"
[ $rbad = 2 ] && grep -q "rejected the token" "$TMP/n.bad.out" || why="$why a wrong token: exit $rbad, $(head -c 200 "$TMP/n.bad.out");"
[ -z "$(ls -A "$TMP/n.bad")" ] || why="$why a wrong token left $(ls -A "$TMP/n.bad");"
if [ $rn != 0 ] || [ -z "$got" ]; then
	why="$why perflens snapshot exited $rn: $(head -c 300 "$TMP/n.out");"
elif [ -z "$board" ] || ! cmp -s "$got" "$board"; then
	why="$why the file received ($got) is not the board's ($board);"
else
	[ "$(stat -c %a "$got")" = 600 ] || why="$why mode $(stat -c %a "$got"), not 600;"
	[ "$(stat -c %a "$NS")" = 700 ] || why="$why the sessions folder has mode $(stat -c %a "$NS"), not 700;"
	[ -s "$got.idx" ] || why="$why no sessions-index sidecar $got.idx;"
	[ "$(ls -A "$NS" | grep -vc '^flight-.*\.plens\(\.idx\)\?$')" = 0 ] || why="$why the sessions folder holds $(ls -A "$NS" | tr '\n' ' ');"
	[ -z "$(ls -A "$TMP/n.got")" ] || why="$why it wrote into the directory it ran in: $(ls -A "$TMP/n.got");"
	grep -q "saved $got (.* bytes; on the board: $board)" "$TMP/n.out" || why="$why it said: $(cat "$TMP/n.out");"
	"$PERFLENS" report "$got" >"$TMP/n.report" 2>&1 || why="$why report failed: $(head -2 "$TMP/n.report");"
	"$PERFLENS" report --markers "$got" >"$TMP/n.markers" 2>&1
	line=$(grep -m1 'trigger: viewer fired' "$TMP/n.report")
	echo "$line" | grep -q 'window 2.000 s before, 0.000 s after' || why="$why the trigger line: '$line';"
	grep -q after_spin "$TMP/n.report" || why="$why after_spin (what ran last) is not in it;"
	grep -q warmup_spin "$TMP/n.report" && why="$why warmup_spin (older than the ring keeps) is in it;"
	grep -q startup "$TMP/n.markers" && why="$why the marker 'startup' (older than the ring keeps) is in it;"
	rel=$(echo "$line" | sed -E 's/.*fired at ([0-9.]+) s.*/\1/')
	awk -v rel="$rel" 'BEGIN { if (rel == "" || rel > 2.25) printf "the first record %s s before the trigger (--flight 2);", rel }' >"$TMP/n.win"
	[ -s "$TMP/n.win" ] && why="$why $(cat "$TMP/n.win")"
fi
[ -z "$why" ] && ok snapshot_now || fail snapshot_now "$why"

# ─── --boot: the agent as init, the real init keeps PID 1 ───────────────
S=$TMP/b
"$AGENT" --boot --flight 5 -- /bin/true >"$TMP/b.notpid1" 2>&1; rnot=$?
if [ "$(id -u)" != 0 ]; then
	skip boot_handoff "[not-root] a PID namespace (unshare -p) for the agent to be PID 1 in"
elif ! unshare -p -f -m --mount-proc true 2>"$TMP/b.unshare"; then
	skip boot_handoff "[no-kernel-feature:PID namespaces] unshare -p: $(head -c 150 "$TMP/b.unshare")"
else
	timeout 60 unshare -p -f -m --mount-proc "$AGENT" --boot --flight 20 --after 1 \
		--trigger 'proc:^glitch$' -F 999 --callgraph fp --snapshot-dir "$S" -- /bin/sh -c \
		"echo init is pid \$\$; sleep 1; $W $TMP/b.expect 500 300 0 100 500; sleep 4; echo init done" \
		>"$TMP/b.log" 2>&1
	rb=$?
	f=$(snapshots "$S" | head -1)
	n=$(snapshots "$S" | grep -c .)
	why=""
	[ $rb = 0 ] || why="$why exit $rb;"
	[ $rnot = 2 ] && grep -q "as PID 1" "$TMP/b.notpid1" || why="$why not PID 1: exit $rnot, $(head -c 150 "$TMP/b.notpid1");"
	grep -q '^init is pid 1$' "$TMP/b.log" || why="$why the real init was not PID 1 ($(grep -m1 'init is' "$TMP/b.log"));"
	# the recorder ended first, and init went on
	awk '/flight recorder: 1 snapshot;/ { s = NR } /^init done$/ { d = NR } END { exit !(s && d > s) }' "$TMP/b.log" ||
		why="$why the recorder's summary and init's end: $(grep -E 'flight recorder: [0-9]+ snap|init done' "$TMP/b.log" | tr '\n' ' ');"
	if [ "$n" != 1 ]; then
		why="$why $n snapshots, not 1 ($(tail -3 "$TMP/b.log" | tr '\n' ' '));"
	else
		"$PERFLENS" report --top 0 "$f" >"$TMP/b.report" 2>&1 || why="$why report failed: $(head -2 "$TMP/b.report");"
		grep -q 'trigger: proc:^glitch\$ fired at .*: glitch (pid [0-9]*) started' "$TMP/b.report" ||
			why="$why the trigger line: $(grep -m1 trigger "$TMP/b.report");"
		# Threads: TID PID Name ...
		awk '/^Threads:/ { t = 1; next } t && /^$/ { t = 0 } t && $2 == 1 && $3 == "sh" { f = 1 } END { exit !f }' \
			"$TMP/b.report" || why="$why no thread of sh as pid 1;"
		for c in sleep glitch; do
			awk -v c=$c '/^Threads:/ { t = 1; next } t && /^$/ { t = 0 } t && $3 == c { f = 1 } END { exit !f }' \
				"$TMP/b.report" || why="$why init's child $c is not named;"
		done
		grep -qE 'burst_work|spin_until' "$TMP/b.report" || why="$why glitch's functions are not named;"
	fi
	[ -z "$why" ] && ok boot_handoff || fail boot_handoff "$why"
fi

# ─── RSS bounded by the ring ────────────────────────────────────────────
S=$TMP/r
RING=$((256 << 10)) FIXED=$((8 << 20))
"$AGENT" --flight 60 --flight-size 256K --snapshot-dir "$S" -F 999 --callgraph dwarf --stack-size 16384 \
	-- "$B/workloads/burn" 12 2 >"$TMP/r.log" 2>&1 &
APID=$!
(sleep 6; kill -USR1 $APID) &
# An agent built with AddressSanitizer (build-san) carries its runtime's
# shadow and allocator pools, about 8 MiB more at any ring size: the
# fixed part is larger there, the growth bound the same.
if readelf -d "$AGENT" 2>/dev/null | grep -q 'NEEDED.*libasan'; then FIXED=$((16 << 20)); fi
max=0 base= polls=0
while kill -0 $APID 2>/dev/null; do
	r=$(awk '/^VmRSS/ { print $2 }' /proc/$APID/status 2>/dev/null)
	[ -n "$r" ] && [ "$r" -gt "$max" ] && max=$r
	# the first second's RSS: set up, the ring still far from full
	polls=$((polls + 1))
	[ -z "$base" ] && [ $polls -ge 5 ] && [ -n "$r" ] && base=$r
	sleep 0.2
done
wait $APID
rr=$?
APID=
dropped=$(sed -nE 's/.*flight recorder: [0-9]+ snapshots?; ([0-9]+) of the ring.*/\1/p' "$TMP/r.log")
f=$(snapshots "$S" | head -1)
why=""
[ $rr = 0 ] || why="$why the agent exited $rr: $(tail -2 "$TMP/r.log" | tr '\n' ' ');"
[ $((max * 1024)) -le $((RING + FIXED)) ] || why="$why VmRSS reached $max KiB, over the ring + $((FIXED >> 20)) MiB ($(((RING + FIXED) / 1024)) KiB);"
# after its first second the agent may grow by the ring it fills and a
# little more (the kernel's stack pages, buffered snapshot output), never
# with the 12 s of stream it drops
[ -n "$base" ] && [ $(((max - base) * 1024)) -le $((RING + (512 << 10))) ] ||
	why="$why VmRSS grew from ${base:-?} KiB after 1 s to $max KiB, more than the ring + 512 KiB;"
[ "${dropped:-0}" -gt 0 ] || why="$why the ring never filled (dropped '${dropped}'): the bound was not exercised;"
if [ -z "$f" ]; then
	why="$why no snapshot from SIGUSR1 (agent: $(tail -3 "$TMP/r.log" | tr '\n' ' '));"
else
	"$PERFLENS" report "$f" >"$TMP/r.report" 2>&1 && grep -q hot_leaf "$TMP/r.report" ||
		why="$why the snapshot does not name hot_leaf: $(head -3 "$TMP/r.report" | tr '\n' ' ');"
fi
echo "# rss_bounded: VmRSS ${base:-?} KiB after 1 s, max $max KiB (ring 256 KiB, fixed part allowed $((FIXED >> 20)) MiB), $dropped blocks dropped" >&2
[ -z "$why" ] && ok rss_bounded || fail rss_bounded "$why"
