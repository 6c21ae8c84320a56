#!/usr/bin/env bash
# debuginfod-test.sh — symbols of a stripped program from Debian's real
# debuginfod server (pl-debuginfod.c, libdebuginfod).
#
# The test starts `debuginfod -F` on a free port of 127.0.0.1 over a
# directory of this project's files split into stripped program and debug
# file (objcopy --only-keep-debug + strip): build/workloads/burn, and
# libidle.so, a library built here that burn maps (LD_PRELOAD) but never
# runs.  The agent records the stripped burn with --callgraph dwarf, then:
#   - report with DEBUGINFOD_URLS names hot_leaf with burn.c lines, and the
#     coverage names the server; without a server it names neither;
#   - the server's log (-vvv: one line per request) shows burn's debug
#     info asked for and libidle never (mapped, no samples);
#   - with the program gone from this machine its executable comes from
#     the server too, and the DWARF unwinding uses it (stacks reach main);
#   - the server stopped, a second report is served by the client's cache;
#   - a server that accepts and never answers, or refuses, costs a bounded
#     time and one line on stderr.
# Each run has its own DEBUGINFOD_CACHE_PATH; nothing of the system's
# (no service, no user cache) is touched.  debuginfod and libdebuginfod
# come from ci/deps.sh: their absence is a failure, never a skip.
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=$B/perflens-agent BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok debuginfod: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plsym-dbgd-XXXXXX)
SRV_PID= HOLE_PID=
cleanup() {
	pl_unreported
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null
	[ -n "$HOLE_PID" ] && kill "$HOLE_PID" 2>/dev/null
	wait 2>/dev/null
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
export XDG_CACHE_HOME="$TMP/xdg" # perflens' inflated-debug cache: this test's own
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE

CASES=(stripped_symbolized_through_server stripped_unsymbolized_without_server
       unsampled_module_never_requested executable_fetched_for_unwinding
       perf_data_unwound_ahead_with_fetched_executable progress_line_on_a_tty_only
       second_run_from_cache unanswering_server_bounded refusing_server_one_line)
pl_plan "${CASES[@]}"
fail_all() { for c in "${CASES[@]}"; do pl_was_reported "$c" || fail "$c" "$1"; done; exit 1; }

command -v debuginfod >/dev/null || fail_all "debuginfod not installed (ci/deps.sh)"
[ -e /usr/include/elfutils/debuginfod.h ] || fail_all "libdebuginfod-dev not installed (ci/deps.sh)"
for t in objcopy strip cc python3 script; do
	command -v $t >/dev/null || fail_all "$t not installed (ci/deps.sh)"
done
[ -x "$PERFLENS" ] && [ -x "$AGENT" ] && [ -x "$BURN" ] || fail_all "$PERFLENS, $AGENT or $BURN not built (make)"

build_id() { readelf -n "$1" | awk '/Build ID/ { print $3; exit }'; }

# ── the files: stripped on the "board" (here), debug info on the server ──
mkdir -p "$TMP/srv" "$TMP/board"
cat >"$TMP/idle.c" <<'EOF'
int idle_never_called(int x) { return x * 3 + 1; }
EOF
cc -g -O1 -shared -fPIC -o "$TMP/libidle-full.so" "$TMP/idle.c" || fail_all "cannot build libidle.so"
for f in "$BURN:burn" "$TMP/libidle-full.so:libidle.so"; do
	src=${f%%:*} name=${f##*:}
	objcopy --only-keep-debug "$src" "$TMP/srv/$name.debug" && strip -o "$TMP/srv/$name" "$src" &&
		cp "$TMP/srv/$name" "$TMP/board/$name" || fail_all "cannot split $src"
done
BURN_ID=$(build_id "$TMP/board/burn") IDLE_ID=$(build_id "$TMP/board/libidle.so")
[ -n "$BURN_ID" ] && [ -n "$IDLE_ID" ] || fail_all "no build-id in burn or libidle.so"

# ── the recording ──
# (preloaded into burn alone, through env: not into an ASan agent)
if ! "$AGENT" --output "$TMP/rec.plens" --callgraph dwarf \
	-- env LD_PRELOAD="$TMP/board/libidle.so" "$TMP/board/burn" 1 1 >"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then
		for c in "${CASES[@]}"; do skip "$c" "$why"; done
		exit 0
	fi
	fail_all "the agent failed: $(tail -1 "$TMP/agent.log")"
fi

# ── the server, on a free port, its scan awaited through its metrics ──
# the server's metrics page (python3, which the test needs anyway: no curl
# on a fresh machine, and ci/deps.sh does not install one for this)
metrics() {
	python3 -c 'import sys, urllib.request
try:
    print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=2).read().decode(), end="")
except Exception:
    pass' "$1"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_server() {
	local try
	for try in 1 2 3; do
		PORT=$(free_port)
		debuginfod -F -p "$PORT" -d "$TMP/db.sqlite" -t 0 -g 0 -vvv "$TMP/srv" >"$TMP/srv.log" 2>&1 &
		SRV_PID=$!
		local i
		for i in $(seq 100); do
			kill -0 "$SRV_PID" 2>/dev/null || break
			if metrics "$PORT" | grep -q '^scanned_files_total{source="file"} 4$'; then
				return 0
			fi
			sleep 0.1
		done
		kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null; SRV_PID=
	done
	return 1
}
start_server || fail_all "debuginfod did not start or scan $TMP/srv: $(tail -2 "$TMP/srv.log" | tr '\n' ' ')"
URL="http://127.0.0.1:$PORT"
requests() { grep -c "GET /buildid/$1" "$TMP/srv.log"; }
# build-ids the server was asked for, and those of the modules a report's
# coverage gives samples ("N addrs", N > 0; local paths: recorded here)
requested_ids() { sed -n 's#.*GET /buildid/\([0-9a-f]*\)/.*#\1#p' "$TMP/srv.log" | sort -u; }
sampled_ids() {
	awk '/^Symbol coverage/ { on = 1; next } on && NF == 0 { exit }
	     on && $1 ~ /^\// && $3 == "addrs" && $2 > 0 { print $1 }' "$1" |
		while read -r f; do [ -f "$f" ] && build_id "$f"; done | sort -u
}

# ── with the server ──
export DEBUGINFOD_CACHE_PATH="$TMP/cache1"
DEBUGINFOD_URLS=$URL "$PERFLENS" report --lines "$TMP/rec.plens" >"$TMP/with.txt" 2>"$TMP/with.err"
rc=$?
top=$(awk '/^Top functions/ { f = 1; next } f && NF == 0 { exit } f && $4 != "Function" { print $4; exit }' "$TMP/with.txt")
if [ $rc -ne 0 ]; then
	fail stripped_symbolized_through_server "report exited $rc: $(head -2 "$TMP/with.err")"
elif [ "$top" != hot_leaf ]; then
	fail stripped_symbolized_through_server "top function '$top', not hot_leaf"
elif ! grep -qE "burn\.c:[0-9]+" "$TMP/with.txt"; then
	fail stripped_symbolized_through_server "no burn.c line in the hot lines"
elif ! grep -A2 "^  $TMP/board/burn " "$TMP/with.txt" | grep -q "debuginfod: $URL/buildid/$BURN_ID/debuginfo"; then
	fail stripped_symbolized_through_server "the coverage does not name the server: $(grep -A2 "board/burn " "$TMP/with.txt" | tr '\n' ' ')"
else
	ok stripped_symbolized_through_server
	echo "# $(grep -m1 -E 'hot_leaf' "$TMP/with.txt" | tr -s ' ')"
fi

# ── without: neither the environment nor the option ──
"$PERFLENS" report --lines "$TMP/rec.plens" >"$TMP/without.txt" 2>&1
n_before=$(requests "$BURN_ID")
"$PERFLENS" report --debuginfod "" "$TMP/rec.plens" >"$TMP/without2.txt" 2>&1
if grep -q hot_leaf "$TMP/without.txt" "$TMP/without2.txt"; then
	fail stripped_unsymbolized_without_server "hot_leaf named without a server"
elif grep -q "debuginfod:" "$TMP/without.txt"; then
	fail stripped_unsymbolized_without_server "the coverage names a server"
elif [ "$(requests "$BURN_ID")" != "$n_before" ]; then
	fail stripped_unsymbolized_without_server "the server was asked"
else
	ok stripped_unsymbolized_without_server
fi

# ── libidle.so: mapped, never sampled, never asked for ──
idle_row=$(grep "^  $TMP/board/libidle.so " "$TMP/with.txt")
all=$(grep -c "GET /buildid/" "$TMP/srv.log")
if [ -z "$idle_row" ]; then
	fail unsampled_module_never_requested "libidle.so is not in the coverage (not mapped?)"
elif ! echo "$idle_row" | grep -q ' 0 addrs'; then
	fail unsampled_module_never_requested "libidle.so has samples: $idle_row"
elif [ "$(requests "$IDLE_ID")" != 0 ]; then
	fail unsampled_module_never_requested "libidle.so was asked for: $(grep "$IDLE_ID" "$TMP/srv.log" | head -1)"
elif [ "$(requests "$BURN_ID/debuginfo")" != 1 ]; then
	fail unsampled_module_never_requested "$(requests "$BURN_ID/debuginfo") requests for burn's debug info (want 1)"
elif [ -n "$(comm -23 <(requested_ids) <(sampled_ids "$TMP/with.txt"))" ]; then
	fail unsampled_module_never_requested "asked for modules without samples: $(comm -23 <(requested_ids) <(sampled_ids "$TMP/with.txt") | tr '\n' ' ')"
else
	ok unsampled_module_never_requested
	echo "# server log: $all request(s), for $(requested_ids | wc -l) module(s), all sampled (burn's debuginfo once), none for libidle.so"
fi

# ── the program gone from here: its executable comes from the server ──
mv "$TMP/board/burn" "$TMP/burn.away"
DEBUGINFOD_CACHE_PATH="$TMP/cache2" "$PERFLENS" report --debuginfod "$URL" "$TMP/rec.plens" \
	>"$TMP/gone.txt" 2>"$TMP/gone.err"
mv "$TMP/burn.away" "$TMP/board/burn"
rooted=$(sed -n 's/.*unwound to the start of their program or thread: \([0-9.]*\)%.*/\1/p' "$TMP/gone.txt")
if ! grep -q hot_leaf "$TMP/gone.txt"; then
	fail executable_fetched_for_unwinding "hot_leaf missing: $(head -2 "$TMP/gone.err")"
elif [ "$(requests "$BURN_ID/executable")" -lt 1 ]; then
	fail executable_fetched_for_unwinding "the server was never asked for the executable"
elif ! grep -A2 "^  $TMP/board/burn " "$TMP/gone.txt" | grep -q "debuginfod: .*cache2/$BURN_ID/executable"; then
	fail executable_fetched_for_unwinding "the coverage does not show the fetched executable"
elif [ -z "$rooted" ] || ! awk -v r="$rooted" 'BEGIN { exit !(r >= 90) }'; then
	fail executable_fetched_for_unwinding "only ${rooted:-?}% of stacks unwound to their start"
elif ! grep -qE "^ +[0-9.]+% +[0-9.]+% +[0-9]+ +main +burn" "$TMP/gone.txt"; then
	fail executable_fetched_for_unwinding "main is not in the stacks"
else
	ok executable_fetched_for_unwinding
	echo "# executable and debug info fetched; ${rooted}% of stacks unwound to their start"
fi

# ── a perf.data: the unwinding worker (pl-unwind-ahead.c) fetches too ──
pname=perf_data_unwound_ahead_with_fetched_executable
# (once more after a second: perf's locked-memory budget is per user,
# shared with whatever else records at the time)
perf_rec() {
	perf record -e cpu-clock -F 999 --call-graph dwarf,8192 -o "$TMP/perf.data" \
		-- "$TMP/board/burn" 1 1 >"$TMP/perf.log" 2>&1
}
if ! perf_rec && ! { sleep 1; perf_rec; }; then
	if why=$(pl_perf_refused); then skip $pname "$why"
	else fail $pname "perf record failed: $(grep -v '^\[\|^burn done' "$TMP/perf.log" | head -2 | tr '\n' ' ')"; fi
else
	mv "$TMP/board/burn" "$TMP/burn.away"
	PERFLENS_DEBUG_AHEAD=1 DEBUGINFOD_CACHE_PATH="$TMP/cache5" "$PERFLENS" report \
		--debuginfod "$URL" "$TMP/perf.data" >"$TMP/pd.txt" 2>"$TMP/pd.err"
	mv "$TMP/burn.away" "$TMP/board/burn"
	used=$(sed -n 's/.*unwind ahead: \([0-9]*\) used.*/\1/p' "$TMP/pd.err")
	rooted=$(sed -n 's/.*unwound to the start of their program or thread: \([0-9.]*\)%.*/\1/p' "$TMP/pd.txt")
	if ! grep -q hot_leaf "$TMP/pd.txt"; then
		fail $pname "hot_leaf missing: $(head -2 "$TMP/pd.err")"
	elif [ -z "$used" ] || [ "$used" -eq 0 ]; then
		fail $pname "the worker answered no sample: $(tr '\n' ' ' <"$TMP/pd.err")"
	elif [ -z "$rooted" ] || ! awk -v r="$rooted" 'BEGIN { exit !(r >= 90) }'; then
		fail $pname "only ${rooted:-?}% of stacks unwound to their start"
	else
		ok $pname
		echo "# perf.data: $used samples unwound ahead; ${rooted}% rooted"
	fi
fi

# ── progress: one updating line on a terminal (script gives a pty), cleared
# at the end; nothing when stderr is a file (the first report's) ──
DEBUGINFOD_CACHE_PATH="$TMP/cache6" script -qec "'$PERFLENS' report --debuginfod '$URL' \
	'$TMP/rec.plens' >/dev/null" /dev/null >"$TMP/tty.out" 2>&1
esc=$(printf '\033')
if ! grep -aq "debuginfod: debug info of burn from .*[0-9]" "$TMP/tty.out"; then
	fail progress_line_on_a_tty_only "no progress line on the tty: $(od -c "$TMP/tty.out" | head -3 | tr '\n' ' ')"
elif [ "$(tail -c 4 "$TMP/tty.out" | od -An -c | tr -d ' \n')" != "\r033[K" ]; then
	fail progress_line_on_a_tty_only "the line is not cleared at the end: $(tail -c 40 "$TMP/tty.out" | od -An -c | tr '\n' ' ')"
elif [ -s "$TMP/with.err" ]; then
	fail progress_line_on_a_tty_only "stderr to a file got: $(head -c 200 "$TMP/with.err")"
else
	ok progress_line_on_a_tty_only
	echo "# tty: $(tr '\r' '\n' <"$TMP/tty.out" | sed "s/$esc\[K//" | grep -a . | head -1)"
fi

# ── the server stopped: the cache of the first run answers ──
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null; SRV_PID=
DEBUGINFOD_URLS=$URL "$PERFLENS" report --lines "$TMP/rec.plens" >"$TMP/cached.txt" 2>"$TMP/cached.err"
if ! grep -q hot_leaf "$TMP/cached.txt" || ! grep -qE "burn\.c:[0-9]+" "$TMP/cached.txt"; then
	fail second_run_from_cache "hot_leaf or its lines missing: $(head -2 "$TMP/cached.err")"
elif ! grep -A2 "^  $TMP/board/burn " "$TMP/cached.txt" | grep -q "debuginfod: its cache"; then
	fail second_run_from_cache "the coverage does not say the cache: $(grep -A2 "board/burn " "$TMP/cached.txt" | tr '\n' ' ')"
else
	ok second_run_from_cache
fi

# ── a server that accepts and never answers ──
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(300)' >"$TMP/hole.port" &
HOLE_PID=$!
for i in $(seq 50); do [ -s "$TMP/hole.port" ] && break; sleep 0.1; done
t0=$(date +%s.%N)
DEBUGINFOD_TIMEOUT=1 DEBUGINFOD_CACHE_PATH="$TMP/cache3" "$PERFLENS" report \
	--debuginfod "http://127.0.0.1:$(cat "$TMP/hole.port")" "$TMP/rec.plens" >"$TMP/hole.txt" 2>"$TMP/hole.err"
rc=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
lines=$(grep -c . "$TMP/hole.err")
if [ $rc -ne 0 ]; then
	fail unanswering_server_bounded "report exited $rc"
elif ! awk -v s="$secs" 'BEGIN { exit !(s < 20) }'; then
	fail unanswering_server_bounded "took ${secs} s"
elif [ "$lines" != 1 ] || ! grep -q "^perflens: debuginfod: .*no answer in" "$TMP/hole.err"; then
	fail unanswering_server_bounded "stderr is not one line: $(head -3 "$TMP/hole.err" | tr '\n' ' ')"
else
	ok unanswering_server_bounded
	printf '# %.1f s: %s\n' "$secs" "$(cat "$TMP/hole.err")"
fi
kill "$HOLE_PID"; wait "$HOLE_PID" 2>/dev/null; HOLE_PID=

# ── a refused connection (nothing listens on the stopped server's port) ──
t0=$(date +%s.%N)
DEBUGINFOD_CACHE_PATH="$TMP/cache4" "$PERFLENS" report --debuginfod "$URL" "$TMP/rec.plens" \
	>"$TMP/refused.txt" 2>"$TMP/refused.err"
rc=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
if [ $rc -ne 0 ] || [ "$(grep -c . "$TMP/refused.err")" != 1 ] ||
	! grep -q "^perflens: debuginfod: .*refused" "$TMP/refused.err"; then
	fail refusing_server_one_line "exit $rc, stderr: $(head -3 "$TMP/refused.err" | tr '\n' ' ')"
elif ! awk -v s="$secs" 'BEGIN { exit !(s < 10) }'; then
	fail refusing_server_one_line "took ${secs} s"
else
	ok refusing_server_one_line
	printf '# %.1f s: %s\n' "$secs" "$(cat "$TMP/refused.err")"
fi
exit 0
