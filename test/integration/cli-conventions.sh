#!/usr/bin/env bash
# cli-conventions.sh — the command lines behave as the ecosystem's do:
# the port really bound is the one logged, a refused connection fails at
# once, messages read as one sentence and name options that exist, an
# unknown option and a missing file are said as such, a capture stub is an
# error, one version format, perf's short options on the agent, help
# within 80 columns.  Oracles: ss (the socket the kernel holds), strace
# (the connect() calls made), the programs' own option tables.
set -u
. "${PL_TOP:-.}/test/pl-test.sh"
B=${PL_BUILD:-build}
AGENT=$B/perflens-agent
PERFLENS=$B/perflens
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
	pl_unreported
}
trap cleanup EXIT
pl_plan port_zero_logged refused_at_once wrong_token_sentence

[ -x "$AGENT" ] && [ -x "$PERFLENS" ] || pl_fail_all "$AGENT or $PERFLENS not built (make)"

# The "listening on ADDR:PORT" line of an agent log (waits for it).
listened_port() {
	local _
	for _ in $(seq 200); do
		grep -q 'listening on' "$1" 2>/dev/null && break
		sleep 0.05
	done
	sed -n 's/.*listening on [^ ]*:\([0-9]*\)$/\1/p' "$1" | head -n1
}

# ─── --port 0: the port the kernel chose is the one logged ──────────────
"$AGENT" --listen --bind 127.0.0.1 --port 0 --token cli-token >"$TMP/agent.log" 2>&1 &
apid=$!
PIDS+=("$apid")
port=$(listened_port "$TMP/agent.log")
# the oracle: the listening socket the kernel holds for that process
held=$(ss -Hltnp 2>/dev/null | grep "pid=$apid," | awk '{print $4}' | sed 's/.*://' | head -n1)
if [ -n "$port" ] && [ "$port" != 0 ] && [ "$port" = "$held" ]; then
	ok port_zero_logged
else
	fail port_zero_logged "logged '$port', the kernel holds '$held' for pid $apid: $(head -c 300 "$TMP/agent.log")"
fi

# ─── a refused connection: one connect(), one sentence, exit 2 ──────────
# port 1 of loopback: nothing listens there (ss says so first)
if ss -Hltn 2>/dev/null | awk '{print $4}' | grep -q '^127\.0\.0\.1:1$'; then
	fail refused_at_once "something listens on 127.0.0.1:1 here"
else
	strace -f -qq -e trace=connect -o "$TMP/connect.trace" \
		"$PERFLENS" record 127.0.0.1:1 --token x --pid 1 --timeout 30 >"$TMP/ref.out" 2>"$TMP/ref.err"
	rc=$?
	tries=$(grep -c 'sin_port=htons(1)' "$TMP/connect.trace")
	if [ "$rc" = 2 ] && [ "$tries" = 1 ] && [ "$(wc -l <"$TMP/ref.err")" = 1 ] &&
		grep -q 'cannot connect to 127.0.0.1:1: nothing listens on that port' "$TMP/ref.err"; then
		ok refused_at_once
	else
		fail refused_at_once "exit $rc, $tries connect() to port 1 (want 1): $(head -c 300 "$TMP/ref.err")"
	fi
fi

# ─── the wrong token: one sentence naming perflens's own options ────────
if [ -z "$port" ] || [ "$port" = 0 ]; then
	fail wrong_token_sentence "no agent port"
else
	"$PERFLENS" record 127.0.0.1:"$port" --token nope --pid 1 --quiet >/dev/null 2>"$TMP/tok.err"
	rc=$?
	err=$(cat "$TMP/tok.err")
	# every --option the message names is one `perflens record` takes
	"$PERFLENS" record --help >"$TMP/record.help" 2>&1
	bad=
	for o in $(grep -o -- '--[a-z][a-z-]*' "$TMP/tok.err" | sort -u); do
		grep -q -- "$o\\b" "$TMP/record.help" || bad="$bad $o"
	done
	if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/tok.err")" = 1 ] && [ -z "$bad" ] &&
		echo "$err" | grep -q 'rejected the token: give --token' &&
		! echo "$err" | grep -q '[()]'; then
		ok wrong_token_sentence
	else
		fail wrong_token_sentence "exit $rc, options perflens record lacks:${bad:- none}: $err"
	fi
fi
