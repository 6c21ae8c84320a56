#!/usr/bin/env bash
# bench/scale-app.sh — the app opening a large capture: time from launch
# until the flame graph of the whole session is shown, main's build against
# this tree's, side by side on the same capture.
#
#   bench/scale-app.sh OLD_BUILD_DIR NEW_BUILD_DIR CAPTURE [RUNS]   (RUNS: 3)
#
# Each build dir holds perflens, perflens-ui.so and test/perflens-ui-script.so
# (the UI tests' driver: a module the app attaches only when
# PERFLENS_UI_TEST_MODULE names it).  The driver's script is "open CAPTURE"
# (pl_window_open_file, then wait until loading is over and the flame graph
# is laid out) and "expect-samples 1 shown", whose "ok shown" line is
# stamped as it arrives: launch → that line is the time to show the profile
# (GTK start-up included).  The app then quits; /usr/bin/time gives its CPU
# (user + system, all threads, the whole life) and peak RSS.  One Xvfb
# serves every run; old and new alternate.  Prints a Markdown table.
#
# The app runs with PERFLENS_TIMING=1 (viewer/ui/pl-ui-timing.h): a build
# that knows it says on stderr when its first frame with the profile was
# painted ("painted after s") and how long each frame and recompute took.
# With CLICKS=N (default 0) each run then clicks N times on the flame graph
# and presses Escape after each, like a user, with xdotool (the app's is
# the only window on this Xvfb); the app's own "recompute click" and "recompute escape"
# times give the p50 / p95 columns (builds without the variable: "—"), its
# "frame" lines after "shown" the frame column (n: how many frames it
# painted from then to its exit, asked for or not).
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") cap=$(realpath "$3") runs=${4:-3}
clicks=${CLICKS:-0}
for b in "$old" "$new"; do
	for f in perflens perflens-ui.so test/perflens-ui-script.so; do
		[ -e "$b/$f" ] || { echo "bench/scale-app.sh: $b/$f missing (make all)" >&2; exit 2; }
	done
done
command -v Xvfb >/dev/null || { echo "bench/scale-app.sh: Xvfb missing (apt install xvfb)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/pl-scale-app-XXXXXX)
xpid=
cleanup() { [ -n "$xpid" ] && kill "$xpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
disp=:$((90 + RANDOM % 100))
Xvfb "$disp" -screen 0 1600x1000x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xpid=$!
sleep 1
kill -0 "$xpid" || { echo "bench/scale-app.sh: Xvfb did not start: $(tail -1 "$tmp/xvfb.log")" >&2; exit 1; }
if ((clicks > 0)); then
	command -v xdotool >/dev/null || { echo "bench/scale-app.sh: xdotool missing (apt install xdotool)" >&2; exit 2; }
	# the app stays up while the clicks come: 2.5 s each, 10 s to find the window
	# (a session with warnings opens on its Findings: the clicks go to the flame graph)
	printf 'open %s\nexpect-samples 1 shown\nview flame\nsleep %d\n' "$cap" $((10 + 5 * clicks / 2 + 2)) >"$tmp/open.script"
else
	printf 'open %s\nexpect-samples 1 shown\n' "$cap" >"$tmp/open.script"
fi
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Clicks on the flame graph once the app shows the profile: the middle of
# the window, a few rows above the status line (the flame graph scrolls to
# its roots there), then Escape.
interact() { # lines-file
	local - wid="" i x y
	set +e # a window gone early ends the clicks, not the bench
	for ((i = 0; i < 600 && ${#wid} == 0; i++)); do
		grep -q ' ok shown' "$1" 2>/dev/null &&
			wid=$(DISPLAY=$disp xdotool search --onlyvisible --name PerfLens 2>/dev/null | head -1)
		[ -n "$wid" ] || sleep 0.1
	done
	[ -n "$wid" ] || return 0
	sleep 1
	eval "$(DISPLAY=$disp xdotool getwindowgeometry --shell "$wid")" || return 0
	x=$((X + WIDTH / 2)) y=$((Y + HEIGHT - 70))
	for ((i = 0; i < clicks; i++)); do
		DISPLAY=$disp xdotool mousemove $((x + (i % 5) * 40 - 80)) "$y" click 1
		sleep 1.2
		DISPLAY=$disp xdotool key Escape
		sleep 1.2
	done
}

run() { # name build
	local t0 shown painted
	t0=$(date +%s.%N)
	: >"$tmp/$1.lines"
	DISPLAY=$disp XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config PERFLENS_TIMING=1 \
		PERFLENS_UI_TEST_MODULE=$2/test/perflens-ui-script.so PERFLENS_UI_SCRIPT=$tmp/open.script \
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" timeout 300 "$2/perflens" 2>"$tmp/$1.err" |
		while IFS= read -r line; do
			printf '%s %s\n' "$(date +%s.%N)" "$line"
		done >"$tmp/$1.lines" &
	local job=$!
	if ((clicks > 0)); then interact "$tmp/$1.lines"; fi
	wait "$job" || echo "bench/scale-app.sh: $1 exited with status $? ($(grep -m1 '^not ok' "$tmp/$1.lines" | cut -d' ' -f2-))" >&2
	shown=$(awk '$2 == "ok" && $3 == "shown" { print $1; exit }' "$tmp/$1.lines")
	[ -n "$shown" ] || { echo "bench/scale-app.sh: $1 did not show the profile: $(cat "$tmp/$1.lines" | tail -2) $(tail -2 "$tmp/$1.err")" >&2; exit 1; }
	# the app's own first painted frame, when the build reports it
	painted=$(awk '$1 == "perflens-timing:" && $2 == "shown" { print $3; exit }' "$tmp/$1.err")
	# (time writes "Command exited with non-zero status" first, when it did)
	tail -1 "$tmp/time" | awk -v t0="$t0" -v s="$shown" -v p="${painted:-}" '{ printf "%.2f %s %.2f %.2f %.0f\n", s - t0, p == "" ? "-" : sprintf("%.2f", p - t0), $1, $2 + $3, $4 / 1024 }' >>"$tmp/$1.rows"
	awk '$1 == "perflens-timing:" && $2 == "recompute" { print $3, $4 }' "$tmp/$1.err" >>"$tmp/$1.recompute"
	# every frame painted once the profile was shown (clicks, Escapes, and
	# any the app asked for with nothing to show: n counts them)
	awk '$1 == "perflens-timing:" && $2 == "shown" { on = 1 } on && $1 == "perflens-timing:" && $2 == "frame" { print "frame", $3 }' "$tmp/$1.err" >>"$tmp/$1.recompute"
	echo "$1 $(tail -1 "$tmp/$1.rows")" >&2
}
for ((i = 0; i < runs; i++)); do
	if ((i % 2 == 0)); then run old "$old"; run new "$new"; else run new "$new"; run old "$old"; fi
done
col() { awk -v c="$2" '$c != "-" {print $c}' "$tmp/$1.rows" | median; }
# p50 and p95 (nearest rank) of one recompute's times, ms
pct() { # name what
	awk -v w="$2" '$1 == w { print $2 }' "$tmp/$1.recompute" 2>/dev/null | sort -g |
		awk '{a[NR]=$1} END { if (!NR) { print "— / —"; exit } i=int(0.95*NR+0.999); printf "%.0f / %.0f (%d)\n", a[int((NR+1)/2)], a[i], NR }'
}
echo "| build | shown after s | painted after s | app life s | CPU s | peak RSS MiB | frame ms after shown p50 / p95 (n) |$( ((clicks > 0)) && echo ' click ms p50 / p95 (n) | Escape ms p50 / p95 (n) |')"
echo "|---|---:|---:|---:|---:|---:|---:|$( ((clicks > 0)) && echo '---:|---:|')"
for n in old new; do
	p=$(col $n 2); [ -n "$p" ] || p="—"
	echo "| $n | $(col $n 1) | $p | $(col $n 3) | $(col $n 4) | $(col $n 5) | $(pct $n frame) |$( ((clicks > 0)) && echo " $(pct $n click) | $(pct $n escape) |")"
done
awk -v a="$(col old 1)" -v b="$(col new 1)" -v c="$(col old 4)" -v d="$(col new 4)" -v e="$(col old 5)" -v f="$(col new 5)" \
	'BEGIN { printf "| ratio old / new | %.2fx | | | %.2fx | %.2fx |\n", a / b, c / d, e / f }'
echo
echo "every run (name shown_s painted_s life_s cpu_s rss_mib):"
for n in old new; do sed "s/^/$n /" "$tmp/$n.rows"; done
