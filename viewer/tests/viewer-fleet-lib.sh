# viewer-fleet-lib.sh — what the fleet tests share; sourced after
# test/pl-test.sh with B, TOP, PERFLENS set.  Each test gets a scratch
# directory, a ClickHouse server of its own (Debian's, started as a user
# process by ci/clickhouse/server.sh on free loopback ports), a token, and
# `perflens collect` on a free port; the EXIT trap stops all of them.
#
#   fleet_begin TAG         TMP (/tmp/plv-TAG-*), PIDS, CH; the EXIT trap
#                           (which also stops a second server at $CH2 when
#                           the test sets CH2)
#   fleet_clickhouse        starts the server at $CH; URL, CRED; sql QUERY
#   fleet_token             $TMP/token, random, 0600
#   fleet_collector LOG [PORT [ARG...]]
#                           perflens collect on 127.0.0.1:PORT (0, the
#                           default: a free one) into the store, with the
#                           token and $TMP/spool, plus ARGs; sets COLLECT and
#                           PORT from its "listening on port" line

fleet_cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	"$TOP/ci/clickhouse/server.sh" stop "$CH" >/dev/null 2>&1
	[ -z "${CH2:-}" ] || "$TOP/ci/clickhouse/server.sh" stop "$CH2" >/dev/null 2>&1
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}

fleet_begin() {
	TMP=$(mktemp -d "/tmp/plv-$1-XXXXXX")
	PIDS=()
	CH=$TMP/ch
	trap fleet_cleanup EXIT
}

sql() { curl -sS --fail -u "$(cat "$CRED")" --data-binary "$1" "$URL/"; }

fleet_clickhouse() {
	"$TOP/ci/clickhouse/server.sh" start "$CH" 1 >"$TMP/ch.log" 2>&1 ||
		pl_fail_all "ClickHouse did not start: $(tail -c 300 "$TMP/ch.log")"
	. "$CH/env"
	URL=$PL_CH_URLS CRED=$PL_CH_CREDENTIALS
}

fleet_token() {
	head -c 24 /dev/urandom | base64 >"$TMP/token" && chmod 600 "$TMP/token"
}

fleet_collector() {
	local log=$1 port=${2:-0}
	shift $(($# < 2 ? $# : 2))
	"$PERFLENS" collect --listen "127.0.0.1:$port" --clickhouse "$URL" --clickhouse-credentials "$CRED" \
		--token-file "$TMP/token" --spool "$TMP/spool" "$@" 2>"$log" &
	COLLECT=$!
	PIDS+=($COLLECT)
	PORT=
	for _ in $(seq 100); do
		PORT=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")
		[ -n "$PORT" ] && break
		sleep 0.1
	done
	[ -n "$PORT" ] || pl_fail_all "perflens collect did not listen: $(tail -c 300 "$log")"
}

# fleet_agent FW BOARD COMMAND...: a real agent reporting COMMAND's samples
# to the collector (fleet_collector's $PORT) with fw=, board= and device=
# (the board's name: one device per board) labels, sessions cut every 2 s;
# its log in $TMP/BOARD.log.
FLEET_AGENTS=()
fleet_agent() {
	local fw=$1 board=$2
	shift 2
	"$AGENT" --server "127.0.0.1:$PORT" --token-file "$TMP/token" --label "fw=$fw" \
		--label "board=$board" --label "device=$board" --session-period 2 -F 499 -g -- "$@" \
		>/dev/null 2>"$TMP/$board.log" &
	FLEET_AGENTS+=($!)
	PIDS+=($!)
}

# fleet_agents_stop: ends every fleet_agent (their last session is sent).
fleet_agents_stop() {
	local p
	for p in "${FLEET_AGENTS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	FLEET_AGENTS=()
}
