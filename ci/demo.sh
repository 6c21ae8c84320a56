#!/usr/bin/env bash
# ci/demo.sh — the main job: profile a sample workload through the real
# agent on loopback and show what the viewer makes of it.
#
#   ci/demo.sh [BUILD_DIR]
#
# Starts perflens-agent --listen on 127.0.0.1 with a fresh token, records
# the multi-threaded sample workload live with DWARF unwinding through the
# viewer, saves the session, and prints the viewer's report.  With a
# display (and the GTK viewer built), the session opens in the window.
set -euo pipefail
build=${1:-build}
agent="$build/perflens-agent"
viewer="$build/perflens"
burn=$(realpath "$build/workloads/burn-nofp")
out=${PERFLENS_DEMO_OUT:-$build/demo.plens}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 9999)
token=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')

"$agent" --listen --bind 127.0.0.1 --port "$port" --token "$token" 2>"$build/demo-agent.log" &
agent_pid=$!
trap 'kill $agent_pid 2>/dev/null || true' EXIT

# the agent probes the board (~0.3 s) before it listens
for _ in $(seq 100); do
	grep -q listening "$build/demo-agent.log" 2>/dev/null && break
	sleep 0.1
done
echo "== agent listening on 127.0.0.1:$port (log: $build/demo-agent.log)"
"$viewer" record "127.0.0.1:$port" --token "$token" --command "$burn 4 3" \
	--callgraph dwarf --frequency 499 --switch --counters --timeout 20 -o "$out"
echo
echo "== session saved to $out; the viewer's report:"
"$viewer" report "$out" --top 15
# with a display, the session opens in the desktop app
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
	echo "== opening $out in the viewer"
	"$viewer" "$out" &
else
	echo "== no display: run 'perflens $out' on a desktop to open it in the app"
fi
