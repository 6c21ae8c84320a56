#!/usr/bin/env bash
# viewer-fleet-symbols-test.sh — how `perflens collect` symbolizes: once per
# (build-id, address) for every session and board, with each board's
# settings chosen by its labels.  Real agents profile real programs (the
# burn workload; three small programs built here, stripped, their debug
# info in .build-id trees) and report to the collector, which stores into
# Debian's real ClickHouse (18.16) started here by ci/clickhouse/server.sh.
# Oracles: `perflens report` of the sessions the collector kept (fresh
# symbolization, no cache), ClickHouse's own rows (perflens_symbols FINAL:
# one row a key), nm of the unstripped programs.
#
#   symbols_once        burn's later sessions take addresses from the cache
#       (counted by the collector per session), the answers kept in all
#       equal the distinct keys ClickHouse holds (none symbolized twice),
#       and each burn session's functions and self counts in ClickHouse
#       equal its own report's.
#   symbols_restart_warm a collector started again symbolizes burn's first
#       new session from the cache ClickHouse kept: its addresses come
#       from the cache, the names equal the session's report.
#   board_settings      agents labelled board=alpha and board=beta run two
#       stripped programs whose debug info only their board's debug-dirs
#       (collect --boards) hold: each board's sessions name its program's
#       function (nm's name), and an agent no group matches (board=gamma)
#       is symbolized with the defaults, which cannot name its program; a
#       boards file with an unknown key or a bad match is refused at the
#       start, naming the group and key.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-fleet-symbols: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
. "$TOP/viewer/tests/viewer-fleet-lib.sh" || { echo "not ok viewer-fleet-symbols: cannot read viewer/tests/viewer-fleet-lib.sh"; exit 1; }
fleet_begin fleetsym

pl_plan symbols_once symbols_restart_warm board_settings
missing=""
for x in "$AGENT" "$PERFLENS" "$BURN"; do [ -x "$x" ] || missing="$x not built (make)"; done
for x in python3 curl cc strip objcopy nm; do command -v $x >/dev/null || missing="$x is not installed (ci/deps.sh)"; done
[ -z "$missing" ] || pl_fail_all "$missing"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

fleet_clickhouse
fleet_token

# three programs, each spinning in a function of its own name, stripped;
# alpha's and beta's debug info in a .build-id tree of their own
for p in alpha beta gamma; do
	cat >"$TMP/$p.c" <<C
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_$p(void) { for (int i = 0; i < 100000; i++) sink += i * 7; }
int main(int c, char **v) {
	time_t end = time(0) + atoi(v[1]);
	while (time(0) < end) spin_$p();
	return 0;
}
C
	cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/$p.full" "$TMP/$p.c" ||
		pl_fail_all "cc could not build $p"
	id=$(readelf -n "$TMP/$p.full" | sed -n 's/.*Build ID: *//p')
	[ -n "$id" ] || pl_fail_all "$p has no build-id"
	mkdir -p "$TMP/dbg-$p/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$TMP/$p.full" "$TMP/dbg-$p/.build-id/${id:0:2}/${id:2}.debug"
	strip --strip-all -o "$TMP/$p" "$TMP/$p.full"
done
cat >"$TMP/boards" <<INI
[alpha]
match = board=alpha
debug-dirs = $TMP/dbg-alpha
[beta]
match = board=beta,fw!=lab
debug-dirs = $TMP/dbg-beta
INI

collector() { # LOG
	fleet_collector "$1" 0 --keep-sessions "$TMP/keep" --boards "$TMP/boards"
}
agent() { # BOARD COMMAND...: the agent's pid in AGENT_PID
	local board=$1
	shift
	"$AGENT" --server "127.0.0.1:$PORT" --token-file "$TMP/token" --label fw=2.4.0 \
		--label "board=$board" --session-period 2 -F 499 -g -- "$@" >/dev/null 2>"$TMP/$board.log" &
	AGENT_PID=$!
	PIDS+=($AGENT_PID)
}
# a reporting agent runs its command again for every session: the agents
# are stopped once their boards have the sessions wanted stored (a loaded
# machine or a sanitizer build takes longer to get there), then the
# collector
sessions_of() { # BOARD
	sql "SELECT uniqExact(session) FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, 'board')] = '$1')" 2>/dev/null || echo 0
}
wait_sessions() { # N BOARD...
	local want=$1 b i
	shift
	for b in "$@"; do
		for ((i = 0; i < 1200; i++)); do
			[ "$(sessions_of "$b")" -ge "$want" ] && break
			sleep 0.1
		done
	done
}
stop() { # AGENT_PID...
	for p in "$@"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	kill -TERM $COLLECT
	wait $COLLECT
}

collector "$TMP/collect1.log"
agent burn "$BURN" 3 2; a1=$AGENT_PID
agent alpha "$TMP/alpha" 3; a2=$AGENT_PID
agent beta "$TMP/beta" 3; a3=$AGENT_PID
agent gamma "$TMP/gamma" 3; a4=$AGENT_PID
wait_sessions 3 burn alpha beta gamma
stop $a1 $a2 $a3 $a4
rc1=$?
mkdir -p "$TMP/keep1" && mv "$TMP"/keep/*.plens "$TMP/keep1/" 2>/dev/null
collector "$TMP/collect2.log"
agent burn "$BURN" 3 2; a1=$AGENT_PID
wait_sessions $(($(sessions_of burn) + 2)) burn
stop $a1
rc2=$?
PIDS=()

# the board of every stored session (sessions are named after the host)
sql "SELECT name, any(labels.value[indexOf(labels.key, 'board')]) FROM perflens_sessions WHERE session IN (SELECT session FROM perflens_samples) GROUP BY name FORMAT TabSeparated" >"$TMP/boards.tsv"
# the collector's line per session, "session S: settings G; addresses: H
# from the symbol cache, M symbolized (K named, kept)", as
# "BOARD S G H M K" (BOARD ?: the session stored no sample)
lines() {
	sed -n 's/.*: session \([^:]*\): settings \(.*\); addresses: \([0-9]*\) from the symbol cache, \([0-9]*\) symbolized (\([0-9]*\) named, kept)/\1 \2 \3 \4 \5/p' "$@" |
		awk -v map="$TMP/boards.tsv" 'BEGIN { while ((getline l < map) > 0) { split(l, f, "\t"); b[f[1]] = f[2] } }
			{ print ($1 in b ? b[$1] : "?"), $0 }'
}
# burn's kept sessions, in order
burn_files() { # DIR
	for s in $(awk -F'\t' '$2 == "burn" { print $1 }' "$TMP/boards.tsv" | sort); do
		[ -e "$1/$s.plens" ] && echo "$1/$s.plens"
	done
}
# a session's functions and self counts: from its report (fresh symbols) and from ClickHouse
report_rows() { # FILE
	"$PERFLENS" report --top 0 "$1" >"$1.report" 2>"$1.err" || return 1
	python3 - "$1.report" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r'^Top functions by self \(([^;]*); % of (\d+) samples', text, re.M)
if not m or m.group(1) == 'all events':
	sys.exit(0)
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
rows = {}
for line in text.split('Top functions by self', 1)[1].split('\n')[2:]:
	if not line.strip():
		break
	r = row.match(line)
	if r and int(r.group(1)):
		rows[r.group(2) + ' ' + r.group(3)] = int(r.group(1))
for k in sorted(rows):
	print(rows[k], k)
PY
}
stored_rows() { # SESSION
	sql "SELECT c, f FROM (SELECT stack, count() AS c FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE name = '$1') GROUP BY stack) ANY LEFT JOIN (SELECT stack, any(frames)[1] AS f FROM perflens_stacks GROUP BY stack) USING stack FORMAT TabSeparated" |
		awk -F'\t' '{ s[$2] += $1 } END { for (k in s) print s[k], k }' | sort -k2
}
same_names() { # FILE: empty when ClickHouse's rows for the session equal its report's
	local s
	s=$(basename "$1" .plens)
	report_rows "$1" | sort -k2 >"$1.want" || { echo "perflens report $1 failed: $(head -c 200 "$1.err")"; return; }
	stored_rows "$s" >"$1.got"
	[ -s "$1.want" ] || { echo "$s: its report has no samples"; return; }
	cmp -s "$1.want" "$1.got" || echo "$s: ClickHouse and its report differ: $(diff "$1.want" "$1.got" | head -6 | tr '\n' '|')"
}

# ─── symbols_once ─────────────────────────────────────────────────────
c=symbols_once
bad=""
lines "$TMP/collect1.log" >"$TMP/lines1"
burn=$(grep -c '^burn ' "$TMP/lines1")
hits_later=$(grep '^burn ' "$TMP/lines1" | sort -k2 | tail -n +2 | awk '{ s += $4 } END { print s + 0 }')
lines "$TMP/collect2.log" >"$TMP/lines2"
kept=$(cat "$TMP/lines1" "$TMP/lines2" | awk '{ s += $6 } END { print s + 0 }')
keys=$(sql "SELECT count() FROM perflens_symbols FINAL")
if [ "$rc1" != 0 ]; then
	bad="perflens collect exited $rc1: $(tail -c 400 "$TMP/collect1.log")"
elif [ "$burn" -lt 2 ]; then
	bad="$burn burn sessions symbolized: $(grep -v reports "$TMP/collect1.log" | head -c 400)"
elif [ "$hits_later" -eq 0 ]; then
	bad="burn's later sessions took no address from the cache: $(grep '^burn ' "$TMP/lines1" | tr '\n' '|')"
elif [ "$kept" != "$keys" ]; then
	bad="$kept answers kept by the sessions of both collectors, $keys distinct keys in ClickHouse ($(sql "SELECT count() FROM perflens_symbols") rows)"
else
	files=$(burn_files "$TMP/keep1")
	[ -n "$files" ] || bad="no burn session kept"
	for f in $files; do
		bad=$(same_names "$f")
		[ -n "$bad" ] && break
	done
fi
if [ -n "$bad" ]; then fail $c "$bad"; else
	ok $c
	echo "# burn sessions (board session settings hits symbolized kept): $(grep '^burn ' "$TMP/lines1" | sort -k2 | tr '\n' '|'); $keys keys" >&2
fi

# ─── symbols_restart_warm ─────────────────────────────────────────────
c=symbols_restart_warm
bad=""
first=$(lines "$TMP/collect2.log" | grep '^burn ' | sort -k2 | head -1)
f=$(burn_files "$TMP/keep" | head -1)
if [ "$rc2" != 0 ]; then
	bad="the second perflens collect exited $rc2: $(tail -c 400 "$TMP/collect2.log")"
elif [ -z "$first" ] || [ -z "$f" ]; then
	bad="the second collector stored no burn session: $(tail -c 400 "$TMP/collect2.log")"
else
	read -r _ _ _ hits sym _ <<<"$first"
	if [ "$hits" -eq 0 ]; then
		bad="the restarted collector's first burn session took nothing from the cache ClickHouse kept: $first"
	else
		bad=$(same_names "$f")
	fi
fi
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; echo "# first session after the restart: $first" >&2; fi

# ─── board_settings ───────────────────────────────────────────────────
c=board_settings
bad=""
for p in alpha beta gamma; do
	nm "$TMP/$p.full" | grep -q " T spin_$p\$" || { bad="nm does not name spin_$p in $p.full"; break; }
	s=$(grep "^$p " "$TMP/lines1" | head -1 | awk '{ print $3 }')
	want=$p
	[ $p = gamma ] && want="(defaults)"
	[ "$s" = "$want" ] || { bad="$p's sessions were symbolized with settings '$s', not $want: $(grep "^$p " "$TMP/lines1" | head -2 | tr '\n' '|')"; break; }
	named=$(sql "SELECT count() FROM perflens_samples ANY LEFT JOIN (SELECT stack, any(frames) AS fr FROM perflens_stacks GROUP BY stack) USING stack WHERE session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, 'board')] = '$p') AND has(fr, 'spin_$p $p')")
	all=$(sql "SELECT count() FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, 'board')] = '$p')")
	if [ "${all:-0}" -eq 0 ]; then
		bad="no samples of board=$p stored"
	elif [ $p != gamma ] && [ "$named" -lt $((all / 2)) ]; then
		bad="board=$p: $named of $all samples under spin_$p (its debug dir, chosen by its label, names it)"
	elif [ $p = gamma ] && [ "$named" -ne 0 ]; then
		bad="board=gamma: $named samples named spin_gamma, with no debug info for it anywhere"
	fi
	[ -n "$bad" ] && break
done
printf '[x]\nmatch = board=x\ndebug-dir = /tmp\n' >"$TMP/bad-key"
printf '[y]\nmatch = board\n' >"$TMP/bad-match"
for t in "bad-key|[x]: unknown key 'debug-dir'" "bad-match|[y]: match: "; do
	[ -n "$bad" ] && break
	f=${t%%|*} want=${t#*|}
	out=$(timeout 20 "$PERFLENS" collect --listen 127.0.0.1:0 --clickhouse "$URL" --clickhouse-credentials "$CRED" \
		--token-file "$TMP/token" --spool "$TMP/spool3" --boards "$TMP/$f" 2>&1)
	st=$?
	[ $st -ne 0 ] && grep -qF -- "$want" <<<"$out" || bad="collect --boards $f: exit $st, '$(head -c 200 <<<"$out")' (wanted a failure saying '$want')"
done
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi
