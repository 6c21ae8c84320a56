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
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") cap=$(realpath "$3") runs=${4:-3}
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
printf 'open %s\nexpect-samples 1 shown\n' "$cap" >"$tmp/open.script"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

run() { # name build
	local t0 shown
	t0=$(date +%s.%N)
	DISPLAY=$disp XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config \
		PERFLENS_UI_TEST_MODULE=$2/test/perflens-ui-script.so PERFLENS_UI_SCRIPT=$tmp/open.script \
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" timeout 300 "$2/perflens" 2>"$tmp/$1.err" |
		while IFS= read -r line; do
			printf '%s %s\n' "$(date +%s.%N)" "$line"
		done >"$tmp/$1.lines"
	shown=$(awk '$2 == "ok" && $3 == "shown" { print $1; exit }' "$tmp/$1.lines")
	[ -n "$shown" ] || { echo "bench/scale-app.sh: $1 did not show the profile: $(cat "$tmp/$1.lines" | tail -2) $(tail -2 "$tmp/$1.err")" >&2; exit 1; }
	awk -v t0="$t0" -v s="$shown" '{ printf "%.2f %.2f %.2f %.0f\n", s - t0, $1, $2 + $3, $4 / 1024 }' "$tmp/time" >>"$tmp/$1.rows"
	echo "$1 $(tail -1 "$tmp/$1.rows")" >&2
}
for ((i = 0; i < runs; i++)); do
	if ((i % 2 == 0)); then run old "$old"; run new "$new"; else run new "$new"; run old "$old"; fi
done
col() { awk -v c="$2" '{print $c}' "$tmp/$1.rows" | median; }
echo "| build | shown after s | app life s | CPU s | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|"
for n in old new; do
	echo "| $n | $(col $n 1) | $(col $n 2) | $(col $n 3) | $(col $n 4) |"
done
awk -v a="$(col old 1)" -v b="$(col new 1)" -v c="$(col old 3)" -v d="$(col new 3)" -v e="$(col old 4)" -v f="$(col new 4)" \
	'BEGIN { printf "| ratio old / new | %.2fx | | %.2fx | %.2fx |\n", a / b, c / d, e / f }'
echo
echo "every run (name shown_s life_s cpu_s rss_mib):"
for n in old new; do sed "s/^/$n /" "$tmp/$n.rows"; done
