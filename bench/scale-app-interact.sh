#!/usr/bin/env bash
# bench/scale-app-interact.sh — interaction with a large session in the real
# app (issue 27, goal 2): hover, scroll, zoom and drag in the flame graph,
# flame chart, timeline and heatmap at ≤ 16 ms a frame (p95); a time-range
# drag, a thread pick, a search, a transform, the Functions table and the
# Source tab recomputed in ≤ 150 ms (p95).  Main's build against this
# tree's, side by side on the same capture.
#
#   bench/scale-app-interact.sh OLD_BUILD_DIR NEW_BUILD_DIR CAPTURE [RUNS]   (RUNS: 3)
#
# Each build dir holds perflens, perflens-ui.so and test/perflens-ui-script.so.
# The UI tests' driver only opens the capture ("open", then waits until the
# flame graph is laid out) and keeps the app up; everything measured is done
# as a user does it, with xdotool on one Xvfb (1600x1000, the app's window
# the only one, at its default 1400x900): pointer motion, wheel turns,
# drags, clicks on the view switcher, the column titles, a thread's name,
# the frame menu (right click, then the keyboard), typing in the search
# entry.  The places clicked are the default layout's (the window's size
# is checked); Ctrl+Q ends the app.
#
# The app runs with PERFLENS_TIMING=1 (viewer/ui/pl-ui-timing.h) and its
# stderr is stamped line by line as it arrives; each step of the bench
# stamps the start of a phase, and a line belongs to the phase started last
# before it.  Frames count when tagged with the phase's view (a build that
# tags none: "—"); recomputes when named as the phase's action (main names
# a range, a thread pick and a clear "filter").  p95 is the nearest rank.
# REPS (default 20) sets how many times each action is repeated per run;
# a hover or scroll phase moves or turns 2×REPS times.  MAX_LOAD=L waits
# before each app run until the 1-minute load average is below L; the
# loads at the starts are printed.
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") cap=$(realpath "$3") runs=${4:-3}
reps=${REPS:-20}
for b in "$old" "$new"; do
	for f in perflens perflens-ui.so test/perflens-ui-script.so; do
		[ -e "$b/$f" ] || { echo "bench/scale-app-interact.sh: $b/$f missing (make all)" >&2; exit 2; }
	done
done
for t in Xvfb xdotool; do
	command -v $t >/dev/null || { echo "bench/scale-app-interact.sh: $t missing (apt install xvfb xdotool)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/pl-scale-interact-XXXXXX)
xpid= apid=
cleanup() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	[ -n "$xpid" ] && kill "$xpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
disp=:$((90 + RANDOM % 100))
Xvfb "$disp" -screen 0 1600x1000x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xpid=$!
sleep 1
kill -0 "$xpid" || { echo "bench/scale-app-interact.sh: Xvfb did not start: $(tail -1 "$tmp/xvfb.log")" >&2; exit 1; }
# the driver opens the capture and keeps the app up (its sleeps last at
# most 40 s each); Ctrl+Q ends it sooner
{ printf 'open %s\nexpect-samples 1 shown\nview flame\n' "$cap"; for ((i = 0; i < 60; i++)); do echo "sleep 30"; done; } >"$tmp/open.script"

x() { DISPLAY=$disp xdotool "$@"; }
ph=/dev/null
mark() { printf '%s %s\n' "$EPOCHREALTIME" "$1" >>"$ph"; }
# the window's origin: places below are in its coordinates
X0=0 Y0=0
at() { x mousemove $((X0 + $1)) $((Y0 + $2)); }
click() { at "$1" "$2"; x click "${3:-1}"; }

# pointer moves over a region, 2×REPS of them: x0 x1 y0 y1
hover() {
	local i n=$((2 * reps))
	for ((i = 0; i < n; i++)); do
		at $(($1 + (i * 137) % ($2 - $1))) $(($3 + (i * 37) % ($4 - $3)))
		sleep 0.12
	done
}
# wheel turns at a place: REPS down, REPS up
wheel() {
	local i
	at "$1" "$2"
	for ((i = 0; i < reps; i++)); do x click 5; sleep 0.12; done
	for ((i = 0; i < reps; i++)); do x click 4; sleep 0.12; done
	sleep 0.5
}
# a drag from (x, y) by dx, dy in 8 steps; band frames in phase $5,
# the release (a recompute) in phase $6, Escape (the pick cleared) in $7
drag() {
	local i
	mark "$5"
	at "$1" "$2"
	x mousedown 1
	for ((i = 1; i <= 8; i++)); do at $(($1 + $3 * i / 8)) $(($2 + $4 * i / 8)); sleep 0.04; done
	mark "$6"
	x mouseup 1
	sleep 1
	mark "$7"
	x key Escape
	sleep 1
}

interact() { # lines-file
	local - wid="" i
	set +e # a window gone early ends the interaction, not the bench
	for ((i = 0; i < 600 && ${#wid} == 0; i++)); do
		grep -q '^ok shown' "$1" 2>/dev/null &&
			wid=$(x search --onlyvisible --name PerfLens 2>/dev/null | head -1)
		[ -n "$wid" ] || sleep 0.1
	done
	[ -n "$wid" ] || { echo "bench/scale-app-interact.sh: no window" >&2; return 0; }
	sleep 1
	local X Y WIDTH HEIGHT SCREEN WINDOW
	eval "$(x getwindowgeometry --shell "$wid")" || return 0
	if ((WIDTH != 1400 || HEIGHT != 900)); then
		echo "bench/scale-app-interact.sh: the window is ${WIDTH}x$HEIGHT, not 1400x900: its places differ" >&2
		return 0
	fi
	X0=$X Y0=$Y
	# the flame page: the timeline above (lanes 165-515, names left of
	# 230), the flame graph below (565-850, its roots at the bottom)
	mark fhover; hover 20 1370 600 840
	mark fscroll; wheel 700 700
	for ((i = 0; i < reps; i++)); do
		mark fzoom; click $((200 + (i % 5) * 40)) 800; sleep 1
		mark fzoomout; x key Escape; sleep 1
	done
	for ((i = 0; i < reps; i++)); do
		# the frame menu of a root-near frame, the pointer away from it, the
		# keyboard picks an item (the same each time); Reset (in the
		# transforms' bar then shown) undoes it
		mark idle; click 200 800 3; sleep 0.6; at 1300 130; sleep 0.2
		mark transform; x key Down Down Return; sleep 1.2
		click 1350 543; sleep 1.2
	done
	mark thover; hover 250 1380 165 510
	mark tscroll; wheel 700 400
	for ((i = 0; i < reps; i++)); do drag $((300 + (i % 4) * 60)) 300 320 0 tdrag trange tclear; done
	for ((i = 0; i < reps; i++)); do
		mark idle; x key ctrl+f; sleep 0.3
		mark search; x type --delay 40 "ZSTD_count"; sleep 1
		x key ctrl+a BackSpace; sleep 1
	done
	mark idle; click 301 70; sleep 1 # Functions
	# Self % sorted again and again (an even count: as it was after)
	for ((i = 0; i < reps + reps % 2; i++)); do mark fsort; click 790 578; sleep 0.8; done
	for ((i = 0; i < reps; i++)); do
		mark thread; click 35 341; sleep 1 # a thread's name: picked
		click 35 341; sleep 1 # again: every thread
	done
	for ((i = 0; i < reps; i++)); do
		mark idle; click 300 607; sleep 0.4 # the first row
		mark source; click 68 545; sleep 1 # Show source
		mark idle; click 301 70; sleep 0.8 # back to Functions
	done
	mark idle; click 567 70; sleep 1.5 # Flame chart
	mark chover; hover 20 1370 560 850
	mark cscroll; wheel 700 700
	mark idle; click 832 70; sleep 1.5 # Heatmap
	mark hhover; hover 80 1300 560 850
	for ((i = 0; i < reps; i++)); do drag $((100 + (i % 4) * 30)) 580 300 200 hdrag hrange tclear; done
	mark end
	x key ctrl+q
}

run() { # name build
	local t0 w
	# MAX_LOAD: wait (10 min at most) for a quieter machine first
	for ((w = 0; w < 60; w++)); do
		[ -z "${MAX_LOAD:-}" ] && break
		awk -v m="$MAX_LOAD" '{ exit !($1 < m) }' /proc/loadavg && break
		sleep 10
	done
	cut -d' ' -f1 /proc/loadavg >>"$tmp/loads"
	t0=$EPOCHREALTIME
	ph=$tmp/$1.phases.$2
	: >"$ph"
	: >"$tmp/$1.lines"
	DISPLAY=$disp XDG_DATA_HOME=$tmp/data-$1 XDG_CONFIG_HOME=$tmp/config-$1 PERFLENS_TIMING=1 \
		PERFLENS_UI_TEST_MODULE=$3/test/perflens-ui-script.so PERFLENS_UI_SCRIPT=$tmp/open.script \
		timeout 900 "$3/perflens" >"$tmp/$1.lines" 2> >(while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done >"$tmp/$1.err.$2") &
	apid=$!
	interact "$tmp/$1.lines"
	wait "$apid" || true
	apid=
	rm -rf "$tmp/data-$1" "$tmp/config-$1"
	sleep 0.5
	grep -q '^ok shown' "$tmp/$1.lines" || echo "bench/scale-app-interact.sh: $1 run $2 did not show the profile: $(tail -2 "$tmp/$1.lines")" >&2
	awk -v t0="$t0" 'END { printf "%.0f s\n", $1 - t0 }' "$ph" >&2
}
for ((r = 0; r < runs; r++)); do
	echo "run $((r + 1)) of $runs, load $(cut -d' ' -f1 /proc/loadavg)" >&2
	if ((r % 2 == 0)); then run old $r "$old"; run new $r "$new"; else run new $r "$new"; run old $r "$old"; fi
done

# Every stamped line of a build's runs, tagged with its phase:
#   PHASE frame MS TAGS…   |   PHASE recompute WHAT MS
lines() { # name
	local r
	for ((r = 0; r < runs; r++)); do
		awk 'FNR == NR { t[NR] = $1; p[NR] = $2; n = NR; next }
		     $2 == "perflens-timing:" && ($3 == "frame" || $3 == "recompute") {
			ph = ""; for (i = 1; i <= n && t[i] <= $1; i++) ph = p[i]
			if (ph == "") next
			$1 = ph; $2 = ""; print }' "$tmp/$1.phases.$r" "$tmp/$1.err.$r"
	done
}
lines old >"$tmp/old.all"
lines new >"$tmp/new.all"
tagged() { grep -q ' frame [0-9.]* [a-z]' "$1"; }
# n p50 p95 of the rows matching: kind phases (a|b) match (tag or names a|b)
stat() { # file kind phases match
	awk -v kind="$2" -v ph="^($3)\$" -v m="^($4)\$" '
		$1 ~ ph && $2 == kind {
			if (kind == "frame") { ok = 0; for (i = 4; i <= NF; i++) if ($i ~ m) ok = 1; if (ok) print $3 }
			else if ($3 ~ m) print $4 }' "$1" | sort -g |
		awk '{ a[NR] = $1 } END { if (!NR) { print "0 — —"; exit }
			i = int(0.95 * NR); if (i < 0.95 * NR) i++
			printf "%d %.1f %.1f\n", NR, a[int((NR + 1) / 2)], a[i] }'
}
loads=$(sort -g "$tmp/loads" | tr '\n' ' ')
echo "load average (1 min) at each app run's start, sorted: $loads"
echo
echo "| interaction | timed | goal ms (p95) | old n | old p50 | old p95 | new n | new p50 | new p95 | met (new) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
row() { # label kind phases match-new match-old goal
	local o n k
	if [ "$2" = frame ] && ! tagged "$tmp/old.all"; then o="— — —"; else o=$(stat "$tmp/old.all" "$2" "$3" "$5"); fi
	n=$(stat "$tmp/new.all" "$2" "$3" "$4")
	set -- "$1" "$2" "$3" "$4" "$5" "$6" $o $n
	k=$(awk -v p="${12}" -v g="$6" 'BEGIN { if (p == "—") print "—"; else print (p + 0 <= g) ? "yes" : "no" }')
	echo "| $1 | $([ "$2" = frame ] && echo "a frame" || echo "action → shown") | $6 | $7 | $8 | $9 | ${10} | ${11} | ${12} | $k |"
}
row "flame graph: hover" frame fhover flame-graph flame-graph 16
row "flame graph: scroll (wheel)" frame fscroll flame-graph flame-graph 16
row "flame graph: zoom (click, Escape), its frames" frame "fzoom|fzoomout" flame-graph flame-graph 16
row "flame graph: zoom in (click)" recompute fzoom click click 150
row "flame graph: zoom out (Escape)" recompute fzoomout escape escape 150
row "timeline: hover" frame thover timeline timeline 16
row "timeline: scroll (wheel)" frame tscroll timeline timeline 16
row "timeline: drag (the band follows)" frame tdrag timeline timeline 16
row "time-range drag (timeline)" recompute trange range filter 150
row "pick cleared (Escape)" recompute tclear filter filter 150
row "thread pick / unpick (Functions table shown)" recompute thread thread filter 150
row "search (typed, cleared)" recompute search search search 150
row "transform (frame menu, Reset)" recompute transform transform transform 150
row "Functions table: sort (column title)" recompute fsort functions functions 150
row "Source tab (Show source)" recompute source source source 150
row "flame chart: hover" frame chover flame-chart flame-chart 16
row "flame chart: scroll (wheel)" frame cscroll flame-chart flame-chart 16
row "heatmap: hover" frame hhover heatmap heatmap 16
row "heatmap: drag (the band follows)" frame hdrag heatmap heatmap 16
row "time-range drag (heatmap)" recompute hrange range filter 150
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$tmp"/*.all "$tmp"/*.phases.* "$tmp"/*.err.* "$KEEP"/; fi
