#!/usr/bin/env bash
# The agent under valgrind memcheck: no invalid access, no uninitialised
# use, no leak, in its three modes.  (ASan/UBSan cover the same code in
# build-san; valgrind also sees the real perf ring mappings and syscalls.)
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PL_BUILD:-$top/build}
case "$build" in *-san)
	echo "skip valgrind-agent: [by-design] the sanitizer build is checked by ASan itself"; exit 0 ;;
esac
command -v valgrind >/dev/null || { echo "not ok valgrind-agent: valgrind not installed (ci/deps.sh)"; exit 1; }
# PL_AGENT: another agent binary under test
agent=${PL_AGENT:-$build/perflens-agent} viewer=$build/perflens burn=$build/workloads/burn
tmp=$(mktemp -d /tmp/pl-vg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
vg=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--show-leak-kinds=definite)

check() { # name log exit-status
	local name=$1 log=$2 rc=$3
	if [ "$rc" -eq 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$log"; then
		echo "ok $name"
	else
		echo "not ok $name: exit $rc; $(grep -E 'ERROR SUMMARY|Invalid|uninitialised|definitely lost' "$log" | head -3 | tr '\n' ' ')"
	fi
}

"${vg[@]}" "$agent" --output "$tmp/fp.plens" --callgraph fp --frequency 499 -- "$burn" 1 2 \
	>"$tmp/fp.out" 2>"$tmp/fp.log"
check valgrind-output-fp "$tmp/fp.log" $?

"${vg[@]}" "$agent" --output "$tmp/dw.plens" --callgraph dwarf --frequency 199 --stacks both \
	-- "$build/workloads/burn-nofp" 1 1 >"$tmp/dw.out" 2>"$tmp/dw.log"
check valgrind-output-dwarf-kernel "$tmp/dw.log" $?

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${vg[@]}" "$agent" --listen --bind 127.0.0.1 --port "$port" --token vg 2>"$tmp/ls.log" &
ag=$!
# a refused connection is final for the viewer: wait until the agent,
# slow under valgrind, listens
for _ in $(seq 600); do
	grep -q 'listening on' "$tmp/ls.log" 2>/dev/null && break
	sleep 0.1
done
ok=1
"$viewer" ps "127.0.0.1:$port" --token vg --timeout 30 >"$tmp/ps.out" 2>&1 || ok=0
"$viewer" record "127.0.0.1:$port" --token vg --command "$burn 1 1" --timeout 30 \
	-o "$tmp/live.plens" >"$tmp/rec.out" 2>&1 || ok=0
"$viewer" ps "127.0.0.1:$port" --token wrong --timeout 30 >/dev/null 2>&1 # refused: exercised
kill -TERM $ag
wait $ag
rc=$?
[ $ok -eq 1 ] || { echo "not ok valgrind-listen: the viewer failed: $(tail -2 "$tmp/rec.out")"; exit 1; }
check valgrind-listen "$tmp/ls.log" $rc
