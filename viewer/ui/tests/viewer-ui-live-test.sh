#!/usr/bin/env bash
# viewer-ui-live-test.sh — the real agent on loopback, the real GTK app
# under Xvfb: connect, pick the burn workload from the board's process
# list, record live, check the views, take screenshots; then reopen the
# saved session in a second instance (dark theme).  The app is driven
# through its own widget API by a script (--script, pl-ui-script.h) and
# prints "ok NAME" / "not ok NAME: why" itself; this script adds its own
# checks and skips every case, with the reason, when something is missing.
#
# Screenshots go to $PL_UI_SCREENSHOTS (e.g. docs/screenshots to refresh
# the committed ones), else to a temporary directory.
set -u
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=$B/perflens-agent BURN=$B/workloads/burn PERFLENS=$B/perflens
TMP=$(mktemp -d /tmp/plv-ui-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

ok() { echo "ok $1"; }
fail() { echo "not ok $1: $2"; }
skip() { echo "skip $1: $2"; }

CASES="wrong_token_error connect pick_process start still_recording live_samples live_flame_hot_leaf live_timeline_threads stop \
flame_hot_leaf hover_tooltip flame_search function_callers source_hot_line svg_export session_saved \
reopen_dark open_perf_data"
skip_all() { for c in $CASES; do skip "$c" "$1"; done; exit 0; }

[ -x "$APP" ] || skip_all "$APP not built (make -f Makefile -f viewer/ui/ui.mk $APP)"
[ -x "$AGENT" ] || skip_all "$AGENT not built"
[ -x "$BURN" ] || skip_all "$BURN not built"
command -v xvfb-run >/dev/null || skip_all "xvfb-run not installed (apt-get install xvfb)"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 20000))
}
wait_listen() {
	for _ in $(seq 100); do
		(exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1
# GTK and fontconfig keep caches for the process lifetime: not our leaks
export ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-}
mkdir -p "$SHOTS"

port=$(free_port)
token=ui-test-$RANDOM
"$AGENT" --listen --bind 127.0.0.1 --port "$port" --token "$token" >"$TMP/agent.log" 2>&1 &
PIDS+=($!)
wait_listen "$port" || skip_all "the agent did not listen: $(head -c 300 "$TMP/agent.log")"
# the workload runs on its own: the app must find it in the process list
"$BURN" 60 2 >/dev/null 2>&1 &
PIDS+=($!)

cat >"$TMP/live.script" <<EOF
expect-connect-error 127.0.0.1:$port wrong-token token wrong_token_error
connect 127.0.0.1:$port $token
wait-process burn
pick burn
screenshot $SHOTS/connect.png
frequency 999
start
record 4
expect-recording still_recording
expect-samples 500 live_samples
expect-flame hot_leaf live_flame_hot_leaf
expect-threads burn- 2 live_timeline_threads
screenshot $SHOTS/live.png
stop
expect-flame hot_leaf flame_hot_leaf
screenshot $SHOTS/flame-graph.png
hover hot_leaf $SHOTS/flame-tooltip.png
search ^(hot_leaf|compute) flame_search
screenshot $SHOTS/flame-search.png
search-clear
zoom compute_outer
screenshot $SHOTS/flame-zoom.png
zoom-out
zoom-reset
expect-callers hot_leaf function_callers
screenshot $SHOTS/functions.png
source hot_leaf source_hot_line
screenshot $SHOTS/source.png
thread burn-1
range-busy 0.12
view chart
screenshot $SHOTS/flame-chart.png
thread all
view counters
screenshot $SHOTS/counters.png
export-svg $TMP/flame.svg svg_export
EOF
timeout 150 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" --script "$TMP/live.script" \
	>"$TMP/app.out" 2>"$TMP/app.err"
rc=$?
grep -aE '^(ok|not ok|skip) ' "$TMP/app.out"
grep -aE '^# ' "$TMP/app.out"
for c in $CASES; do
	case $c in session_saved|reopen_dark|open_perf_data) continue ;; esac
	grep -qE "^(ok|not ok|skip) $c(:|$)" "$TMP/app.out" ||
		fail "$c" "the app did not report it (exit $rc): $(tail -c 400 "$TMP/app.err" | tr '\n' '|')"
done

# The live session was saved as it streamed, and the CLI reads it.
saved=$(ls "$XDG_DATA_HOME"/perflens/sessions/*.plens 2>/dev/null | head -1)
if [ -z "$saved" ]; then
	fail session_saved "no session under $XDG_DATA_HOME/perflens/sessions"
	skip reopen_dark "no saved session"
	exit 0
fi
if [ -x "$PERFLENS" ]; then
	if "$PERFLENS" report "$saved" 2>/dev/null | grep -q hot_leaf; then
		ok session_saved
	else
		fail session_saved "perflens report $saved does not show hot_leaf"
	fi
else
	[ -s "$saved" ] && ok session_saved || fail session_saved "$saved is empty"
fi

# A second instance opens the saved file, dark theme, then a perf.data
# recorded by perf itself (when perf works here).
perfdata=""
if command -v perf >/dev/null &&
	timeout 30 perf record -q -F 999 -g -o "$TMP/perf.data" -- "$BURN" 1.5 2 >"$TMP/perf.log" 2>&1; then
	perfdata=$TMP/perf.data
fi
cat >"$TMP/reopen.script" <<EOF
open $saved
expect-flame hot_leaf reopen_dark
screenshot $SHOTS/flame-graph-dark.png
EOF
[ -n "$perfdata" ] && printf 'open %s\nexpect-flame hot_leaf open_perf_data\n' "$perfdata" >>"$TMP/reopen.script"
PERFLENS_THEME=dark timeout 90 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" \
	--script "$TMP/reopen.script" >"$TMP/app2.out" 2>"$TMP/app2.err"
grep -E '^(ok|not ok|skip) ' "$TMP/app2.out"
grep -qE '^(ok|not ok) reopen_dark' "$TMP/app2.out" ||
	fail reopen_dark "the app did not report it: $(tail -c 400 "$TMP/app2.err" | tr '\n' '|')"
if [ -z "$perfdata" ]; then
	skip open_perf_data "perf record did not run here: $(head -c 200 "$TMP/perf.log" 2>/dev/null)"
else
	grep -qE '^(ok|not ok) open_perf_data' "$TMP/app2.out" ||
		fail open_perf_data "the app did not report it: $(tail -c 400 "$TMP/app2.err" | tr '\n' '|')"
fi
exit 0
