#!/usr/bin/env bash
# viewer-ui-flight-test.sh — the app's "Save now" for a flight recorder
# (issue 28): the real agent records test/workloads/glitch with --flight 4
# --port (a free loopback port) --token, the app (under Xvfb, driven by
# viewer/ui/tests/pl-ui-script-flight.c) asks for snapshots, and each file
# is checked with outside tools against the board's own copy:
#   connect             the Board page connects to the recorder (it takes
#                       the recorder's one viewer slot)
#   save_now_button     the header's Save now… dialog, its form filled and
#                       its Save now button clicked: the Board page's
#                       connection is let go of, the snapshot opens in the
#                       window
#   save_now_samples    it holds ≥ 500 samples (4 s of a 999 Hz spin)
#   save_now_flame      its flame graph names after_spin, what the program
#                       spins in when it is saved
#   save_now_shortcut   Ctrl+Shift+S (its action, the accelerator checked
#                       bound) saves from the same recorder again at once;
#                       the new file opens
#   flight_files        both files are in the chosen folder, mode 0600, each
#                       byte for byte one of the board's snapshots in its
#                       --snapshot-dir (cmp), `perflens report` reads each
#                       and counts samples and the trigger "viewer fired",
#                       and its sessions-index sidecar FILE.idx has those
#                       samples and the recorder's address, as a
#                       recording's has
#   flight_wrong_token  a wrong token: the dialog says "Wrong token"
#   flight_not_recorder an agent started with --listen (no --flight): the
#                       dialog says it is not a flight recorder
#                       (recorder: …) and what to start instead
# Screenshots ($PL_UI_SCREENSHOTS, else a temporary directory):
# flight-saved.png (the snapshot open), flight-dialog-error.png (the
# dialog with the wrong token's words).  PL_AGENT: the agent under test.
set -u
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} W=$B/workloads/glitch
DRIVER=$B/test/perflens-ui-script.so
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-flight: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-flight-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
FPID= LPID=
# glitch's pid, from its EXPECT file
glitch_pid() { awk '$1 == "pid" { print $2; exit }' "$TMP/expect" 2>/dev/null; }
cleanup() {
	for p in $FPID $LPID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	g=$(glitch_pid)
	[ -z "$g" ] || kill "$g" 2>/dev/null
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
pl_plan connect save_now_button save_now_samples save_now_flame save_now_shortcut flight_files \
	flight_wrong_token flight_not_recorder
for x in "$APP" "$AGENT" "$W"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
mkdir -p "$SHOTS"

# the flight recorder: glitch spins 1.5 s, sleeps 3 s, bursts, then spins in
# after_spin (up to 10 minutes: a loaded machine may take a minute to start
# the app; ended once the app is done)
S=$TMP/board TOKEN=ui-flight-$RANDOM-0123456789abcdef
"$AGENT" --flight 4 --before 4 --port 0 --bind 127.0.0.1 --token "$TOKEN" --snapshot-dir "$S" -F 999 \
	--callgraph fp -- "$W" "$TMP/expect" 3000 300 0 1500 600000 >"$TMP/flight.log" 2>&1 &
FPID=$!
port=
for _ in $(seq 100); do
	port=$(sed -nE 's/.*flight recorder listening on [^ ]*:([0-9]+) .*/\1/p' "$TMP/flight.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || pl_fail_all "the flight recorder did not say its port: $(head -c 300 "$TMP/flight.log")"

# an agent that is not a flight recorder
lport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LTOKEN=ui-listen-$RANDOM
"$AGENT" --listen --bind 127.0.0.1 --port "$lport" --token "$LTOKEN" >"$TMP/listen.log" 2>&1 &
LPID=$!

cat >"$TMP/flight.script" <<EOS
# after_spin runs from about 6 s on
sleep 7
connect 127.0.0.1:$port $TOKEN
flight-save 127.0.0.1:$port $TOKEN $TMP/saved save_now_button
expect-samples 500 save_now_samples
expect-flame after_spin save_now_flame
screenshot $SHOTS/flight-saved.png
sleep 1
flight-shortcut save_now_shortcut
expect-flight-error 127.0.0.1:$port wrong-token-$RANDOM Wrong flight_wrong_token
flight-dialog-shot $SHOTS/flight-dialog-error.png
expect-flight-error 127.0.0.1:$lport $LTOKEN recorder: flight_not_recorder
EOS
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/flight.script \
	timeout 200 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
rc=$?
pl_no_display "$TMP/app.err"
if grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$TMP/app.err"; then
	pl_fail_all "exit $rc: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$TMP/app.err" | tr '\n' '|' | head -c 1500)"
fi
grep -aE '^# ' "$TMP/app.out"
pl_relay "$TMP/app.out"
kill -TERM $FPID 2>/dev/null
wait $FPID
FPID=
g=$(glitch_pid)
[ -z "$g" ] || kill "$g" 2>/dev/null

# ─── the files, against the board's ───────────────────────────────────
why=""
saved=$(sed -n 's/^# flight saved //p' "$TMP/app.out")
n=$(echo "$saved" | grep -c .)
[ "$n" = 2 ] || why="$why $n snapshots opened, not 2;"
for f in $saved; do
	[ "$(dirname "$f")" = "$TMP/saved" ] || why="$why $f is not in the chosen folder;"
	[ "$(stat -c %a "$f" 2>&1)" = 600 ] || why="$why $f: mode $(stat -c %a "$f" 2>&1), not 600;"
	same=
	for b in "$S"/flight-*.plens; do cmp -s "$f" "$b" && same=$b; done
	[ -n "$same" ] || why="$why $f is none of the board's snapshots ($(ls "$S" 2>&1 | tr '\n' ' '));"
	"$APP" report "$f" >"$TMP/report" 2>&1 || why="$why report $f failed: $(head -c 200 "$TMP/report");"
	samples=$(sed -nE 's/^.*: ([0-9]+) samples over .*/\1/p' "$TMP/report" | head -1)
	[ "${samples:-0}" -gt 0 ] || why="$why report $f counts no samples ($(head -c 200 "$TMP/report" | tr '\n' '|'));"
	grep -q 'trigger: viewer fired' "$TMP/report" || why="$why report $f names no viewer trigger;"
	# in the sessions index as a recording is (pl-sessions-index.h)
	idx_samples=$(sed -n 's/^samples=//p' "$f.idx" 2>/dev/null)
	idx_peer=$(sed -n 's/^peer=//p' "$f.idx" 2>/dev/null)
	[ "${idx_samples:-x}" = "${samples:-y}" ] || why="$why $f.idx: samples '${idx_samples}', the report ${samples:-?};"
	[ "$idx_peer" = "127.0.0.1:$port" ] || why="$why $f.idx: peer '$idx_peer', not 127.0.0.1:$port;"
	echo "# $f: ${samples:-?} samples, the board's $same"
done
ls -a "$TMP/saved" 2>/dev/null | grep -q '\.part$' && why="$why a temporary file was left;"
[ -z "$why" ] && ok flight_files || fail flight_files "$why"
[ $rc = 0 ] || echo "# the app exited $rc: $(tail -3 "$TMP/app.err" | tr '\n' ' ')"
