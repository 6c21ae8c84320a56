#!/usr/bin/env bash
# ci/clickhouse/server.sh — Debian's ClickHouse server as a user process on
# loopback, for the fleet store's tests and `make clickhouse`.
#
#   server.sh start DIR [N]   start N servers (1 or 2; default 1) under DIR
#   server.sh stop DIR        stop every server started under DIR
#   server.sh kill DIR K      SIGKILL server K (1-based): a crash, for fault tests
#   server.sh restart DIR K   start server K again on its ports and data
#
# Each server gets ports found free on 127.0.0.1, its own data directory
# (DIR/sK), and a config made from config.xml.in and users.xml.in beside
# this script.  One user, perflens, with a random password: its text is only
# in DIR/credentials ("perflens:PASSWORD", 0600), which clients read; the
# configs hold its SHA-256 (the Distributed tables' own connections, which
# ClickHouse 18.16 can only give a plain password, are in DIR/sK/config.xml,
# 0600).  When every server answers, DIR/env holds, for `.`:
#   PL_CH_URLS="http://127.0.0.1:P1 …"  PL_CH_CREDENTIALS=DIR/credentials
#   PL_CH_CLUSTER=perflens_shards   (every server started, one shard each)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "clickhouse/server.sh: $*" >&2; exit 2; }
server=$(command -v clickhouse-server || true)
[ -n "$server" ] || die "clickhouse-server is not installed (ci/deps.sh installs Debian's)"

free_ports() { # N: N distinct ports the kernel gives out free now
	python3 -c 'import socket,sys
s=[socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1",0))
print(" ".join(str(x.getsockname()[1]) for x in s))' "$1"
}

wait_up() { # K: until server K answers /ping, or its log says why not
	local k=$1 url i
	url=$(sed -n 1p "$dir/s$k/url")
	for ((i = 0; i < 600; i++)); do
		[ "$(curl -s --max-time 1 "$url/ping" 2>/dev/null)" = "Ok." ] && return 0
		kill -0 "$(cat "$dir/s$k/pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "clickhouse/server.sh: server $k did not answer on $url:" >&2
	tail -n 5 "$dir/s$k/log/error.log" "$dir/s$k/log/stdout" 2>/dev/null >&2
	return 1
}

launch() { # K
	local k=$1
	# its own session: `make clickhouse` leaves it running after make ends
	setsid "$server" --config-file="$dir/s$k/config.xml" >"$dir/s$k/log/stdout" 2>&1 </dev/null &
	echo $! >"$dir/s$k/pid"
}

stop_one() { # K
	local k=$1 pid i
	[ -f "$dir/s$k/pid" ] || return 0
	pid=$(cat "$dir/s$k/pid")
	kill "$pid" 2>/dev/null || { rm -f "$dir/s$k/pid"; return 0; }
	for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/s$k/pid"
}

start() {
	local n=$1 attempt k ports shards pw sha
	case $n in 1 | 2) ;; *) die "N is 1 or 2, not $n" ;; esac
	mkdir -p "$dir"
	umask 077
	if [ ! -s "$dir/credentials" ]; then
		pw=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
		[ ${#pw} = 32 ] || die "could not read a password from /dev/urandom"
		printf 'perflens:%s\n' "$pw" >"$dir/credentials"
	fi
	pw=$(sed -n 's/^perflens://p' "$dir/credentials")
	sha=$(printf '%s' "$pw" | sha256sum | cut -d' ' -f1)
	for attempt in 1 2 3; do
		read -r -a ports <<<"$(free_ports $((2 * n)))"
		shards=
		for ((k = 1; k <= n; k++)); do
			shards+="            <shard><replica><host>127.0.0.1</host><port>${ports[2 * k - 1]}</port>"
			shards+="<user>perflens</user><password>$pw</password></replica></shard>"$'\n'
		done
		for ((k = 1; k <= n; k++)); do
			mkdir -p "$dir/s$k"/{data,tmp,log,user_files,format_schemas}
			sed -e "s#@DIR@#$dir/s$k#g" -e "s#@HTTP_PORT@#${ports[2 * k - 2]}#" \
				-e "s#@TCP_PORT@#${ports[2 * k - 1]}#" "$here/config.xml.in" |
				awk -v s="$shards" '/@SHARDS@/ { printf "%s", s; next } { print }' >"$dir/s$k/config.xml"
			sed -e "s#@DIR@#$dir/s$k#g" -e "s#@PASSWORD_SHA256@#$sha#" "$here/users.xml.in" >"$dir/s$k/users.xml"
			echo "http://127.0.0.1:${ports[2 * k - 2]}" >"$dir/s$k/url"
			launch "$k"
		done
		local ok=1
		for ((k = 1; k <= n; k++)); do wait_up "$k" || ok=0; done
		if [ $ok = 1 ]; then
			{
				printf 'PL_CH_URLS="%s"\n' "$(for ((k = 1; k <= n; k++)); do cat "$dir/s$k/url"; done | tr '\n' ' ' | sed 's/ $//')"
				printf 'PL_CH_CREDENTIALS=%s\n' "$dir/credentials"
				printf 'PL_CH_CLUSTER=perflens_shards\n'
			} >"$dir/env"
			return 0
		fi
		# a port taken between the look and the bind: again, on others
		for ((k = 1; k <= n; k++)); do stop_one "$k"; done
	done
	die "no ClickHouse server came up in 3 tries (logs under $dir)"
}

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: server.sh start|stop|kill|restart DIR [N|K]"
mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
case $cmd in
start) start "${3:-1}" ;;
stop) for p in "$dir"/s*/pid; do [ -f "$p" ] || continue; k=${p%/pid}; stop_one "${k##*/s}"; done ;;
kill) [ -f "$dir/s$3/pid" ] && kill -9 "$(cat "$dir/s$3/pid")" && rm -f "$dir/s$3/pid" ;;
restart) [ -f "$dir/s$3/config.xml" ] || die "no server $3 under $dir"; launch "$3"; wait_up "$3" ;;
*) die "unknown command $cmd (start, stop, kill, restart)" ;;
esac
