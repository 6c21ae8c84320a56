#!/usr/bin/env bash
# viewer-fleet-collect-test.sh — fleet reporting end to end: real agents
# (perflens-agent --server … --label …) profiling real programs (the burn
# workload, Debian's bzip2 and gzip) report to `perflens collect`, which
# stores their sessions in Debian's real ClickHouse (18.16), started here on
# loopback by ci/clickhouse/server.sh.  The oracle is `perflens report` of
# the sessions the collector kept (--keep-sessions): the same data.
#
#   collect_counts_equal  4 agents, 2 s sessions; the collector killed
#       (SIGKILL) and started again on the same port and spool, then
#       ClickHouse killed and restarted, while they run: the agents come
#       back, the sessions the killed collector left are stored by the new
#       one, every kept session's count of its main event in ClickHouse
#       equals its report's, no session is missing or extra, and some
#       blocks went through the spool.
#   stored_times_in_run   every stored session's samples lie within the run
#       on the host's clock (the agents run here: the board's clock is this
#       one): from the first agent's start to the collector's stop, the
#       second and later sessions of a connection too (they were once
#       stored a board uptime ahead).
#   fleet_report_matches  fleet report --where fw=2.3.1 --top 0: its total
#       and every function's self samples equal the per-session reports of
#       the burn sessions (fw=2.3.1) merged; --where fw=2.3.0 likewise for
#       bzip2 and gzip; export's collapsed counts sum to the same total.
#   unauthenticated_refused  a peer sending junk, a silent peer and an agent
#       with a wrong token are refused: the collector counts them, accepted
#       only the 4 agents, and stored nothing under the rogue's label.
#   fleet_where_strict    bad --where / --since are refused with the
#       character where reading stopped; nothing is asked.
#   agent_labels_strict   the agent refuses a label that is not KEY=VALUE,
#       a bad labels file line (named), and --label without --server, a
#       token or a target, before it dials anything.
#   fleet_sharded_equals_single  two servers as two shards (fleet schema
#       --cluster on each, Distributed tables), the stored rows copied in
#       through the Distributed tables: fleet report --where fw=2.3.1 and
#       fw=2.3.0 asked through either server print what the single server
#       printed, and both shards hold some of the sessions.
#   collect_away_held     two agents attached (--pid) to a running burn; the
#       collector stopped in order (SIGTERM) for 10 s, then started again
#       on its port: the agents record on, into RAM, and send what they
#       held when it is back.  (10 s falls between the agents' 5th and 6th
#       dial, so they are back 12-20 s after the stop; an away time near
#       a dial's reach can cost a whole 30 s step of backoff more.)  The
#       one with the default ring (4 MiB): the samples stored under its
#       label equal its own count (its exit line), none dropped, none left
#       unsent.
#   collect_away_dropped  the other, with a 256 KiB ring (the least the
#       agent takes) and dwarf stack copies at 499 Hz (far more than
#       256 KiB in 12 s, even when a loaded machine gives the target a
#       fifth of a core): it dropped whole sessions,
#       and stored + dropped equals its own count exactly; the collector's
#       log says how many samples were lost on the board, the same number.
#
# PL_FLEET_AGENTS (default 4, a multiple of 4) and PL_FLEET_SECONDS (default
# 16) scale the run: `make fleet-long` runs 20 agents for 60 s.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-fleet-collect: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
. "$TOP/viewer/tests/viewer-fleet-lib.sh" || { echo "not ok viewer-fleet-collect: cannot read viewer/tests/viewer-fleet-lib.sh"; exit 1; }
fleet_begin fleet
CH2=$TMP/ch2

CASES="collect_counts_equal stored_times_in_run fleet_report_matches unauthenticated_refused fleet_where_strict agent_labels_strict fleet_sharded_equals_single collect_away_held collect_away_dropped"
NAGENTS=${PL_FLEET_AGENTS:-4} SECONDS_RUN=${PL_FLEET_SECONDS:-16}
pl_plan $CASES
missing=""
for x in "$AGENT" "$PERFLENS" "$BURN"; do [ -x "$x" ] || missing="$x not built (make)"; done
for x in bzip2 gzip python3 curl; do command -v $x >/dev/null || missing="$x is not installed (ci/deps.sh)"; done
[ -z "$missing" ] || pl_fail_all "$missing"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

fleet_clickhouse
fleet_token
echo wrong-token >"$TMP/bad-token" && chmod 600 "$TMP/bad-token"
# 4 MB of this machine's programs to compress
cat /usr/bin/bash /usr/bin/python3 2>/dev/null | head -c 4000000 >"$TMP/input"

collector() { # PORT LOG
	fleet_collector "$2" "$1" --keep-sessions "$TMP/keep"
}
collector 0 "$TMP/collect1.log"

agent() { # NAME FW BOARD COMMAND...
	local name=$1 fw=$2 board=$3
	shift 3
	"$AGENT" --server "127.0.0.1:$PORT" --token-file "$TMP/token" --label "fw=$fw" \
		--label "board=$board" --session-period 2 -F 499 -g -- "$@" >/dev/null 2>"$TMP/$name.log" &
	PIDS+=($!)
}
# The programs run at nice 19 (the agent starts nice, nice execs them): on
# 2 cores, 20 agents' programs at the normal priority starve the collector
# beside them, which then answers agents later than their gate allows (5 s)
# — on a site the collector has a machine of its own.
NICE=$(command -v nice)
T0=$(date +%s)
for ((i = 0; i < NAGENTS; i += 4)); do
	agent burn1-$i 2.3.1 vm-a$i "$NICE" -n 19 "$BURN" 2 2
	agent burn2-$i 2.3.1 vm-b$i "$NICE" -n 19 "$BURN" 2 2
	agent bzip2-$i 2.3.0 vm-c$i "$NICE" -n 19 "$(command -v bzip2)" -9 -c "$TMP/input"
	agent gzip-$i 2.3.0 vm-d$i "$NICE" -n 19 "$(command -v gzip)" -9 -c "$TMP/input"
done
# the unauthenticated: an agent with a wrong token, junk, a silent peer
"$AGENT" --server "127.0.0.1:$PORT" --token-file "$TMP/bad-token" --label fw=rogue \
	--session-period 2 -F 99 -- "$BURN" 1 1 >/dev/null 2>"$TMP/rogue.log" &
ROGUE=$!
PIDS+=($ROGUE)
python3 -c 'import socket,sys,time
j=socket.create_connection(("127.0.0.1",int(sys.argv[1]))); j.sendall(b"GET / HTTP/1.0\r\n\r\n"*50)
s=socket.create_connection(("127.0.0.1",int(sys.argv[1]))); time.sleep(7)' "$PORT" 2>"$TMP/peers.log" &
PIDS+=($!)

quarter=$((SECONDS_RUN / 4))
sleep $quarter
kill -KILL $COLLECT
wait $COLLECT 2>/dev/null
collector "$PORT" "$TMP/collect.log"
sleep $quarter
"$TOP/ci/clickhouse/server.sh" kill "$CH" 1 >>"$TMP/ch.log" 2>&1
sleep $((SECONDS_RUN - 3 * quarter))
"$TOP/ci/clickhouse/server.sh" restart "$CH" 1 >>"$TMP/ch.log" 2>&1 ||
	pl_fail_all "ClickHouse did not restart: $(tail -c 300 "$TMP/ch.log")"
sleep $quarter
kill -TERM $COLLECT
rc=0
wait $COLLECT || rc=$?
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
PIDS=()
T1=$(date +%s)

# ─── collect_counts_equal ─────────────────────────────────────────────
main_count() { # FILE → "EVENT COUNT" of its main event, as the report heads its table
	# ("Top functions by self (EVENT; % of N samples"): the store keeps the
	# same event, the sampled one with the most samples
	"$PERFLENS" report --top 0 "$1" >"$1.report" 2>"$1.err" || return 1
	sed -n 's/^Top functions by self (\([^;]*\); % of \([0-9]*\) samples.*/\1 \2/p' "$1.report" | head -1
}
c=collect_counts_equal
summary=$(grep 'blocks inserted' "$TMP/collect.log")
spooled=$(echo "$summary" | sed -n 's/.*inserted, \([0-9]*\) spooled.*/\1/p')
stored=$(sql "SELECT name, event, c FROM (SELECT session, count() AS c FROM perflens_samples GROUP BY session) ANY LEFT JOIN (SELECT session, any(name) AS name, any(event) AS event FROM perflens_sessions GROUP BY session) USING session ORDER BY name FORMAT TabSeparated")
nfiles=$(ls "$TMP"/keep/*.plens 2>/dev/null | wc -l)
bad=""
for f in "$TMP"/keep/*.plens; do
	[ -e "$f" ] || break
	s=$(basename "$f" .plens)
	want=$(main_count "$f") || { bad="perflens report $f failed: $(head -c 200 "$f.err")"; break; }
	got=$(echo "$stored" | awk -F'\t' -v s="$s" '$1 == s { print $2 " " $3 }')
	# a session without samples of a sampled event has no rows: its table
	# is of "all events" (switch samples alone, or none)
	[ -z "$got" ] && { [ -z "$want" ] || [ "${want% *}" = "all events" ]; } && continue
	[ "$got" = "$want" ] || { bad="session $s: ClickHouse has '$got', its report '$want'"; break; }
done
nsessions=$(echo "$stored" | grep -c .)
if [ $rc -ne 0 ]; then
	fail $c "perflens collect exited $rc: $(tail -c 400 "$TMP/collect.log")"
elif [ "$nfiles" -lt $((NAGENTS * 2)) ]; then
	fail $c "only $nfiles sessions kept ($NAGENTS agents, 2 s sessions, $SECONDS_RUN s): $(tail -c 300 "$TMP/collect.log")"
elif [ -n "$bad" ]; then
	fail $c "$bad"
elif [ "$nsessions" -gt "$nfiles" ]; then
	fail $c "$nsessions sessions in ClickHouse, $nfiles kept"
elif ! grep -q 'left by an earlier run' "$TMP/collect.log"; then
	fail $c "the restarted collector stored nothing the killed one left: $(head -c 300 "$TMP/collect.log")"
elif [ -z "$spooled" ] || [ "$spooled" -eq 0 ]; then
	fail $c "ClickHouse was down 5 s yet no block went through the spool: $summary"
else
	ok $c
	echo "# $nfiles sessions, $nsessions with samples, counts equal; $summary" >&2
fi

# ─── stored_times_in_run ──────────────────────────────────────────────
c=stored_times_in_run
times=$(sql "SELECT name, lo, hi FROM (SELECT session, toUInt32(min(time)) AS lo, toUInt32(max(time)) AS hi FROM perflens_samples GROUP BY session) ANY LEFT JOIN (SELECT session, any(name) AS name FROM perflens_sessions GROUP BY session) USING session ORDER BY name FORMAT TabSeparated")
# a second's slack each side: the stored times are whole seconds
out=$(echo "$times" | awk -F'\t' -v t0=$((T0 - 1)) -v t1=$((T1 + 1)) 'NF == 3 {
	n++; if ($2 < t0 || $3 > t1) { bad++; if (!w) w = $1 " " ($2 - t0 - 1) ".." ($3 - t0 - 1) " s" } }
	END { printf "%d %d %s", n, bad, w }')
read -r ntimes nbad worst <<<"$out"
if [ "${ntimes:-0}" -lt 2 ]; then
	fail $c "only ${ntimes:-0} sessions with samples in ClickHouse: $(echo "$times" | head -3 | tr '\n' '|')"
elif [ "${nbad:-0}" -ne 0 ]; then
	fail $c "$nbad of $ntimes sessions stored outside the run (0..$((T1 - T0)) s after it began): $worst"
else
	ok $c
	echo "# $ntimes sessions, every sample within the run's $((T1 - T0)) s on the host's clock" >&2
fi

# ─── fleet_report_matches ─────────────────────────────────────────────
c=fleet_report_matches
merge() { # PATTERN: the Top-functions rows of the reports of sessions of that program, summed
	python3 - "$1" "$TMP"/keep/*.plens.report <<'PY'
import re, sys
prog, files = sys.argv[1], sys.argv[2:]
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
tot, rows = 0, {}
for f in files:
	text = open(f).read()
	if not re.search(r'\b(%s)\b' % prog, text):
		continue
	m = re.search(r'^Top functions by self \(([^;]*); % of (\d+) samples', text, re.M)
	if not m or m.group(1) == 'all events':
		continue  # no sampled event has a sample: the store keeps none of it
	tot += int(m.group(2))
	top = text.split('Top functions by self', 1)
	if len(top) < 2:
		continue
	for line in top[1].split('\n')[2:]:
		if not line.strip():
			break
		r = row.match(line)
		if r and int(r.group(1)):
			k = r.group(2) + ' ' + r.group(3)
			rows[k] = rows.get(k, 0) + int(r.group(1))
print('total', tot)
for k in sorted(rows):
	print(rows[k], k)
PY
}
fleet_rows() { # WHERE
	"$PERFLENS" fleet report --clickhouse "$URL" --clickhouse-credentials "$CRED" --where "$1" \
		--since 1h --top 0 >"$TMP/fleet.out" 2>"$TMP/fleet.err" || return 1
	python3 - "$TMP/fleet.out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
print('total', re.search(r'Fleet: (\d+) samples', text).group(1))
rows = {}
for line in text.split('Top functions by self', 1)[1].split('\n')[2:]:
	r = row.match(line)
	if r and int(r.group(1)):
		rows[r.group(2) + ' ' + r.group(3)] = int(r.group(1))
for k in sorted(rows):
	print(rows[k], k)
PY
}
bad=""
for pair in "2.3.1:burn" "2.3.0:bzip2|gzip"; do
	fw=${pair%%:*} prog=${pair#*:}
	merge "$prog" >"$TMP/want.$fw"
	fleet_rows "fw=$fw" >"$TMP/got.$fw" || { bad="fleet report failed: $(head -c 300 "$TMP/fleet.err")"; break; }
	if ! diff -q "$TMP/want.$fw" "$TMP/got.$fw" >/dev/null; then
		bad="fw=$fw: fleet report and the merged session reports differ: $(diff "$TMP/want.$fw" "$TMP/got.$fw" | head -6 | tr '\n' '|')"
		break
	fi
done
if [ -z "$bad" ]; then
	"$PERFLENS" fleet export --clickhouse "$URL" --clickhouse-credentials "$CRED" --where fw=2.3.1 \
		-o "$TMP/fleet.collapsed" 2>"$TMP/export.err" || bad="fleet export failed: $(head -c 300 "$TMP/export.err")"
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/fleet.collapsed" 2>/dev/null)
	want=$(sed -n 's/^total //p' "$TMP/want.2.3.1")
	[ -n "$bad" ] || [ "$sum" = "$want" ] || bad="export's collapsed counts sum to $sum, the reports to $want"
fi
[ -z "$bad" ] && [ "$(sed -n 's/^total //p' "$TMP/want.2.3.1")" -gt 0 ] || bad=${bad:-"no burn samples at all"}
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── unauthenticated_refused ──────────────────────────────────────────
c=unauthenticated_refused
# refusals of both collectors (the first was killed: no closing line)
refused=$(cat "$TMP/collect1.log" "$TMP/collect.log" | grep -c 'refused 127.0.0.1')
agents=$(sed -n 's/.*: \([0-9]*\) agents, .*/\1/p' "$TMP/collect.log")
rogue=$(sql "SELECT count() FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, 'fw')] = 'rogue')")
if [ "$agents" != "$NAGENTS" ]; then
	fail $c "the collector accepted '$agents' agents, not the $NAGENTS with the token: $(grep -E 'reports|refused' "$TMP/collect.log" | head -8 | tr '\n' '|')"
elif [ -z "$refused" ] || [ "$refused" -lt 3 ]; then
	fail $c "'$refused' peers refused, not the 3 (or more: the rogue agent retries) without the token: $(grep refused "$TMP/collect.log" | head -5 | tr '\n' '|')"
elif [ "$rogue" != 0 ]; then
	fail $c "$rogue samples stored under the rogue agent's label"
elif ! cat "$TMP/collect1.log" "$TMP/collect.log" | grep -q 'refused 127.0.0.1:[0-9]*: wrong token'; then
	fail $c "the wrong token was not what the collector said: $(grep refused "$TMP/collect.log" | head -3 | tr '\n' '|')"
else
	ok $c
fi

# ─── fleet_where_strict ───────────────────────────────────────────────
c=fleet_where_strict
bad=""
for w in "fw=2.3.1,,board=x:10" "fw:3" "=x:1" "fw=:4" "fw=1,fw=2:6" "fw!x:3"; do
	arg=${w%:*} at=${w##*:}
	if out=$("$PERFLENS" fleet report --clickhouse "$URL" --clickhouse-credentials "$CRED" --where "$arg" 2>&1); then
		bad="--where '$arg' was accepted"
		break
	fi
	echo "$out" | grep -q "at character $at:" || { bad="--where '$arg': '$out' (wanted character $at)"; break; }
done
for s in "2x:2" "h:1" "0h:2" "5m3:3"; do
	[ -n "$bad" ] && break
	arg=${s%:*} at=${s##*:}
	if out=$("$PERFLENS" fleet report --clickhouse "$URL" --clickhouse-credentials "$CRED" --since "$arg" 2>&1); then
		bad="--since '$arg' was accepted"
	elif ! echo "$out" | grep -q "at character $at:"; then
		bad="--since '$arg': '$out' (wanted character $at)"
	fi
done
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── agent_labels_strict ──────────────────────────────────────────────
c=agent_labels_strict
bad=""
printf 'fw=2.3.1\n# a comment\n\nboard imx8mp\n' >"$TMP/labels"
tries=(
	"--server 127.0.0.1:1 --token-file $TMP/token --label fw --all|a label is KEY=VALUE"
	"--server 127.0.0.1:1 --token-file $TMP/token --label =x --all|a label is KEY=VALUE"
	"--server 127.0.0.1:1 --token-file $TMP/token --label f/w=1 --all|a label is KEY=VALUE"
	"--server 127.0.0.1:1 --token-file $TMP/token --labels-file $TMP/labels --all|$TMP/labels line 4"
	"--server 127.0.0.1:1 --token-file $TMP/token --labels-file $TMP/none --all|cannot read the labels file"
	"--listen --token-file $TMP/token --label fw=1 --all|it needs --server"
	"--server 127.0.0.1:1 --label fw=1 --all|--token-file"
	"--server 127.0.0.1:1 --token-file $TMP/token --label fw=1|--pid N, --all or -- COMMAND"
	"--server 127.0.0.1:1 --token-file $TMP/token --label fw=1 --session-period 0.5 --all|--session-period needs seconds"
)
for t in "${tries[@]}"; do
	args=${t%%|*} want=${t#*|}
	# shellcheck disable=SC2086
	out=$(timeout 10 "$AGENT" $args 2>&1)
	st=$?
	if [ $st -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
		bad="perflens-agent $args: exit $st, '$(head -c 200 <<<"$out")' (wanted exit 2 and '$want')"
		break
	fi
done
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── fleet_sharded_equals_single ──────────────────────────────────────
c=fleet_sharded_equals_single
bad=""
if ! "$TOP/ci/clickhouse/server.sh" start "$CH2" 2 >"$TMP/ch2.log" 2>&1; then
	bad="two ClickHouse servers did not start: $(tail -c 300 "$TMP/ch2.log")"
else
	read -r U1 U2 <<<"$(. "$CH2/env"; echo "$PL_CH_URLS")"
	CRED2=$CH2/credentials CLUSTER=$(. "$CH2/env"; echo "$PL_CH_CLUSTER")
	for u in "$U1" "$U2"; do
		[ -n "$bad" ] && break
		"$PERFLENS" fleet schema --clickhouse "$u" --clickhouse-credentials "$CRED2" \
			--cluster "$CLUSTER" 2>"$TMP/schema.err" || bad="fleet schema on $u: $(head -c 300 "$TMP/schema.err")"
	done
	for t in perflens_sessions perflens_samples perflens_stacks; do
		[ -n "$bad" ] && break
		curl -sS --fail -u "$(cat "$CRED")" --data-binary "SELECT * FROM $t FORMAT Native" "$URL/" >"$TMP/$t.native" &&
			curl -sS --fail -u "$(cat "$CRED2")" --data-binary @"$TMP/$t.native" \
				"$U1/?insert_distributed_sync=1&query=INSERT%20INTO%20$t%20FORMAT%20Native" ||
			bad="copying $t into the shards failed"
	done
	for fw in 2.3.1 2.3.0; do
		[ -n "$bad" ] && break
		"$PERFLENS" fleet report --clickhouse "$URL" --clickhouse-credentials "$CRED" --where "fw=$fw" --top 0 >"$TMP/one.$fw" 2>&1
		for u in "$U1" "$U2"; do
			"$PERFLENS" fleet report --clickhouse "$u" --clickhouse-credentials "$CRED2" --where "fw=$fw" --top 0 >"$TMP/two.$fw" 2>&1
			cmp -s "$TMP/one.$fw" "$TMP/two.$fw" ||
				{ bad="fw=$fw through $u: $(diff "$TMP/one.$fw" "$TMP/two.$fw" | head -6 | tr '\n' '|')"; break; }
		done
	done
	if [ -z "$bad" ]; then
		n1=$(curl -sS -u "$(cat "$CRED2")" --data-binary "SELECT uniqExact(session) FROM perflens_samples_local" "$U1/")
		n2=$(curl -sS -u "$(cat "$CRED2")" --data-binary "SELECT uniqExact(session) FROM perflens_samples_local" "$U2/")
		[ "${n1:-0}" -gt 0 ] && [ "${n2:-0}" -gt 0 ] || bad="the shards hold '$n1' and '$n2' sessions: one is empty"
	fi
fi
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── collect_away_held, collect_away_dropped ──────────────────────────
# (after the cases above: their counts are of every session in the store)
"$TOP/ci/clickhouse/server.sh" stop "$CH2" >/dev/null 2>&1 # the shards are done
# the target at the test's own priority: at nice 19 on a busy machine it got
# no CPU, gave no samples, and the small ring had nothing to drop
"$BURN" 300 1 >/dev/null 2>&1 &
TARGET=$!
PIDS+=($TARGET)
collector 0 "$TMP/away1.log"
away_agent() { # FW ARGS...
	local fw=$1
	shift
	"$AGENT" --server "127.0.0.1:$PORT" --token-file "$TMP/token" --label "fw=$fw" \
		--label board=away --session-period 4 --no-offcpu --pid "$TARGET" "$@" \
		>/dev/null 2>"$TMP/$fw.log" &
	PIDS+=($!)
	AWAY+=($!)
}
AWAY=()
away_agent away-held -F 499 -g
away_agent away-dropped -F 499 --callgraph dwarf --stack-size 4096 --flight-size 256K
sleep 6
kill -TERM $COLLECT
rc1=0
wait $COLLECT || rc1=$?
away0=$SECONDS
sleep 10
collector "$PORT" "$TMP/away2.log"
# the agents dial again with a backoff from 250 ms that doubles up to 30 s
# (±25 %), the 5th dial 6-10 s after the stop and the 6th 12-20 s: each
# is back when the session it held at that moment reaches the collector
for _ in $(seq 600); do
	[ "$(grep -c 'session ended: the collector is back' "$TMP/away2.log")" -ge 2 ] && break
	sleep 0.1
done
echo "# the agents were back $((SECONDS - away0)) s after the collector stopped" >&2
sleep 3
for p in "${AWAY[@]}"; do kill -TERM "$p"; wait "$p"; done
kill -TERM $COLLECT
rc2=0
wait $COLLECT || rc2=$?
kill $TARGET 2>/dev/null
away_counts() { # FW → "RECORDED DROPPED DROPPED_SESSIONS UNSENT STORED"
	grep 'held: .* samples recorded' "$TMP/$1.log" | tail -1 |
		sed -n 's/.*held: \([0-9]*\) samples recorded, \([0-9]*\) dropped in \([0-9]*\) sessions, \([0-9]*\) unsent.*/\1 \2 \3 \4/p' |
		tr '\n' ' '
	sql "SELECT count() FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, 'fw')] = '$1')"
}
read -r rec dropped dsess unsent stored <<<"$(away_counts away-held)"
c=collect_away_held
if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
	fail $c "perflens collect exited $rc1, then $rc2: $(tail -c 300 "$TMP/away1.log") / $(tail -c 300 "$TMP/away2.log")"
elif ! grep -q 'session ended: the collector is back' "$TMP/away2.log"; then
	fail $c "no session held while the collector was away reached it: $(tail -c 400 "$TMP/away2.log")"
elif [ -z "$unsent" ]; then
	fail $c "the agent did not say its counts: $(tail -c 300 "$TMP/away-held.log")"
elif [ "$dropped" != 0 ] || [ "$unsent" != 0 ]; then
	fail $c "$dropped samples dropped, $unsent unsent: $(tail -c 300 "$TMP/away-held.log")"
elif [ "$stored" != "$rec" ]; then
	fail $c "ClickHouse has $stored samples under its label, the agent recorded $rec"
else
	ok $c
	echo "# away 10 s: $rec samples recorded, $stored stored" >&2
fi
read -r rec dropped dsess unsent stored <<<"$(away_counts away-dropped)"
told=$(sed -n 's/.*session .*: \([0-9]*\) samples lost on the board.*/\1/p' "$TMP/away2.log" |
	awk '{ s += $1 } END { print s + 0 }')
c=collect_away_dropped
if [ -z "$unsent" ]; then
	fail $c "the agent did not say its counts: $(tail -c 300 "$TMP/away-dropped.log")"
elif [ "$dsess" -lt 1 ] || [ "$dropped" -lt 1 ]; then
	fail $c "a 256 KiB ring held the away time of dwarf stacks at 499 Hz without dropping: $(tail -c 300 "$TMP/away-dropped.log")"
elif [ "$unsent" != 0 ] || [ $((stored + dropped)) != "$rec" ]; then
	fail $c "stored $stored + dropped $dropped (unsent $unsent) is not the $rec the agent recorded"
elif [ "$told" != "$dropped" ]; then
	fail $c "the collector's log says $told samples lost on the board, the agent dropped $dropped: $(grep 'lost on the board' "$TMP/away2.log" | head -3 | tr '\n' '|')"
else
	ok $c
	echo "# away 10 s, 256 KiB: $rec recorded = $stored stored + $dropped dropped ($dsess sessions); the collector said so" >&2
fi
