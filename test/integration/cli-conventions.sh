#!/usr/bin/env bash
# cli-conventions.sh — the command lines behave as the ecosystem's do:
# the port really bound is the one logged, a refused connection fails at
# once, messages read as one sentence and name options that exist, an
# unknown option and a missing file are said as such, a capture stub is an
# error, one version format, perf's short options on the agent, help
# within 80 columns.  Oracles: ss (the socket the kernel holds), strace
# (the connect() calls made), the programs' own option tables.
set -u
TOP=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/test/pl-test.sh"
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
pl_plan port_zero_logged port_zero_token_file refused_at_once wrong_token_sentence unknown_option missing_file \
	capture_stub_refused capture_torn_kept whole_sections_refuse_filter version_format \
	help_80_columns help_environment agent_perf_letters

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

# ─── --port 0 with a generated token: its file named after the real port ─
mkdir -p "$TMP/home"
env -u XDG_RUNTIME_DIR HOME="$TMP/home" "$AGENT" --listen --bind 127.0.0.1 --port 0 \
	>"$TMP/agent-gen.log" 2>&1 &
gpid=$!
PIDS+=("$gpid")
gport=$(listened_port "$TMP/agent-gen.log")
gheld=$(ss -Hltnp 2>/dev/null | grep "pid=$gpid," | awk '{print $4}' | sed 's/.*://' | head -n1)
gfile="$TMP/home/perflens-agent-$gport.token"
# the log names the file once the port is known, and only that file exists
for _ in $(seq 100); do grep -q 'the token is in' "$TMP/agent-gen.log" && break; sleep 0.1; done
if [ -n "$gport" ] && [ "$gport" = "$gheld" ] && [ -s "$gfile" ] &&
	[ "$(stat -c %a "$gfile")" = 600 ] && [ ! -e "$TMP/home/perflens-agent-0.token" ] &&
	grep -qF "the token is in $gfile" "$TMP/agent-gen.log"; then
	ok port_zero_token_file
else
	fail port_zero_token_file "port '$gport' (kernel: '$gheld'); files: $(ls -l "$TMP/home" | tr '\n' ' '); log: $(head -c 300 "$TMP/agent-gen.log")"
fi
kill "$gpid" 2>/dev/null

# ─── a refused connection: one connect(), one sentence, exit 2 ──────────
# port 1 of loopback: nothing listens there (ss says so first)
if ss -Hltn 2>/dev/null | awk '{print $4}' | grep -q '^127\.0\.0\.1:1$'; then
	fail refused_at_once "something listens on 127.0.0.1:1 here"
else
	# (LeakSanitizer cannot run under ptrace: a sanitizer build checks
	# leaks in the other cases)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
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

# ─── an unknown option, a missing file: said as such ────────────────────
err=$(DISPLAY= WAYLAND_DISPLAY= "$PERFLENS" --bogus 2>&1 >/dev/null); rc=$?
if [ $rc = 2 ] && echo "$err" | grep -q "unknown option '--bogus'" && ! echo "$err" | grep -q display; then
	ok unknown_option
else
	fail unknown_option "exit $rc: $err"
fi
err=$(DISPLAY=:0 "$PERFLENS" "$TMP/typo.plens" 2>&1 >/dev/null); rc=$?
if [ $rc = 2 ] && echo "$err" | grep -q "typo.plens: no such file" && ! echo "$err" | grep -q "unknown command"; then
	ok missing_file
else
	fail missing_file "exit $rc: $err"
fi

# ─── a stub of a capture is an error; a torn tail after data is not ─────
cap=$TMP/real.plens
if "$AGENT" --output "$cap" --frequency 499 -- "$B/workloads/burn" 0.5 1 >"$TMP/cap.log" 2>&1; then
	head -c 100 "$cap" >"$TMP/stub.plens"
	err=$("$PERFLENS" report "$TMP/stub.plens" 2>&1 >"$TMP/stub.out"); rc=$?
	if [ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q 'holds no samples' &&
		echo "$err" | grep -q 'record again' && ! echo "$err" | grep -q intact; then
		ok capture_stub_refused
	else
		fail capture_stub_refused "exit $rc: $err $(head -c 200 "$TMP/stub.out")"
	fi
	size=$(stat -c %s "$cap")
	head -c $((size - 3)) "$cap" >"$TMP/torn.plens"
	err=$("$PERFLENS" report "$TMP/torn.plens" 2>&1 >"$TMP/torn.out"); rc=$?
	if [ $rc = 0 ] && echo "$err" | grep -q 'everything before it is intact' &&
		! grep -q ': 0 samples' "$TMP/torn.out"; then
		ok capture_torn_kept
	else
		fail capture_torn_kept "exit $rc: $err $(head -n 1 "$TMP/torn.out")"
	fi
	# a report section of the whole recording refuses a thread or range
	# instead of listing everything as if it had taken them; the profile
	# and --locks take them
	bad=
	for sec in --block --counters --markers --tracepoints --syscalls --findings --periods; do
		for f in "--tid 1" "--from 0.1" "--to 0.2"; do
			# shellcheck disable=SC2086 # "$f" is an option and its value
			err=$("$PERFLENS" report "$cap" $sec $f 2>&1 >/dev/null); rc=$?
			echo "$err" | grep -q "report $sec lists the whole recording" && [ $rc = 2 ] ||
				bad="$bad|$sec $f: exit $rc: $(echo "$err" | head -c 160)"
		done
	done
	"$PERFLENS" report "$cap" --locks --from 0.1 >/dev/null 2>"$TMP/locks.err" ||
		bad="$bad|--locks --from 0.1 refused: $(head -c 160 "$TMP/locks.err")"
	if [ -z "$bad" ]; then ok whole_sections_refuse_filter
	else fail whole_sections_refuse_filter "${bad#|}"; fi
elif why=$(pl_perf_refused); then
	skip capture_stub_refused "$why"
	skip capture_torn_kept "$why"
	skip whole_sections_refuse_filter "$why"
else
	fail capture_stub_refused "the agent could not record: $(tail -n 2 "$TMP/cap.log")"
	fail capture_torn_kept "the agent could not record"
	fail whole_sections_refuse_filter "the agent could not record"
fi

# ─── one version format: NAME VERSION (protocol N), the same VERSION ────
v1=$("$PERFLENS" --version); v2=$("$AGENT" --version)
re='^(perflens|perflens-agent) [0-9]+\.[0-9]+\.[0-9]+ \(protocol [0-9]+\)$'
if echo "$v1" | grep -qE "$re" && echo "$v2" | grep -qE "$re" &&
	[ "${v1#perflens }" = "${v2#perflens-agent }" ] && [ "$v1" = "$("$PERFLENS" -V)" ] &&
	[ "$v2" = "$("$AGENT" -V)" ]; then
	ok version_format
else
	fail version_format "'$v1' and '$v2'"
fi

# ─── every --help within 80 columns, no doubled percent ─────────────────
long=
for cmd in "" report export diff record ps; do
	for h in --help --help-all; do
		[ -z "$cmd" ] && [ $h = --help-all ] && continue
		out=$("$PERFLENS" $cmd $h 2>&1) || long="$long [perflens $cmd $h: exit $?]"
		l=$(echo "$out" | awk 'length > 80' | head -n 1)
		[ -n "$l" ] && long="$long [perflens $cmd $h: $l]"
		echo "$out" | grep -q '%%' && long="$long [perflens $cmd $h: %%]"
	done
done
out=$("$AGENT" --help 2>&1) || long="$long [perflens-agent --help: exit $?]"
l=$(echo "$out" | awk 'length > 80' | head -n 1)
[ -n "$l" ] && long="$long [perflens-agent --help: $l]"
if [ -z "$long" ] && "$PERFLENS" --help | grep -qF "'SYM>5%'"; then
	ok help_80_columns
else
	fail help_80_columns "${long:-no 'SYM>5%' in perflens --help}"
fi

# ─── environment variables in one place ─────────────────────────────────
# every variable the viewer's sources read is listed by perflens help environment
env_help=$("$PERFLENS" help environment 2>&1)
missing= seen=0
for v in $(grep -rhoE --exclude-dir=tests '(g_)?getenv\("[A-Z_]+"\)' "$TOP"/viewer/io "$TOP"/viewer/symbols \
	"$TOP"/viewer/cli "$TOP"/viewer/ui 2>/dev/null | sed 's/.*"\(.*\)".*/\1/' | sort -u); do
	case $v in HOME) continue ;; esac # the home directory, not a setting
	seen=$((seen + 1))
	echo "$env_help" | grep -qw "$v" || missing="$missing $v"
done
if [ -z "$missing" ] && [ "$seen" -ge 5 ] && echo "$env_help" | grep -qw DEBUGINFOD_URLS; then
	ok help_environment
else
	fail help_environment "perflens help environment lacks:$missing"
fi

# ─── perf's letters on the agent: the same perf_event_open as the names ──
# strace shows the attributes the kernel is given; a run with -F/-g/-e/-p/-a
# must give exactly those of the run with the long names.
attrs() { # OUT ARGS...: the sorted perf_event_open attributes of one run
	local out=$1; shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -ff -qq -e trace=perf_event_open -o "$out.raw" "$AGENT" "$@" >/dev/null 2>"$out.err"
	local rc=$?
	# one file per thread (-ff): a call is never split into "<unfinished
	# ...>" and "resumed" lines by another thread's, which would hide it
	cat "$out.raw".* | sed -nE 's/^perf_event_open\(\{(.*)\}, .*/\1/p' | sort -u >"$out"
	return $rc
}
sleep 30 & sleeper=$!
PIDS+=("$sleeper")
bad=
burn="$B/workloads/burn 0.2 1"
attrs "$TMP/long1" --output "$TMP/l1.plens" --frequency 499 --callgraph fp --event cpu-clock -- $burn
r1=$?
attrs "$TMP/short1" --output "$TMP/s1.plens" -F 499 -g -e cpu-clock -- $burn
r2=$?
attrs "$TMP/short1b" --output "$TMP/s1b.plens" -gF499 -ecpu-clock -- $burn
r3=$?
if [ $r1$r2$r3 != 000 ]; then
	bad="$bad [exit $r1 $r2 $r3: $(tail -n 1 "$TMP/short1.err")]"
else
	cmp -s "$TMP/long1" "$TMP/short1" || bad="$bad [-F -g -e: $(diff "$TMP/long1" "$TMP/short1" | head -3 | tr '\n' ' ')]"
	cmp -s "$TMP/long1" "$TMP/short1b" || bad="$bad [-gF499 -ecpu-clock differs]"
	# the sampling events (at 499 Hz; the probe's are not): fp stacks, not dwarf
	hz=$(grep 'sample_freq=499' "$TMP/short1")
	[ -n "$hz" ] && ! echo "$hz" | grep -qv 'PERF_SAMPLE_CALLCHAIN' &&
		! echo "$hz" | grep -q 'PERF_SAMPLE_STACK_USER' || bad="$bad [-F 499 -g: not fp at 499 Hz]"
fi
attrs "$TMP/long2" --output "$TMP/l2.plens" --pid "$sleeper" --duration 0.2
r1=$?
attrs "$TMP/short2" --output "$TMP/s2.plens" -p "$sleeper" --duration 0.2
r2=$?
{ [ $r1$r2 = 00 ] && [ -s "$TMP/long2" ] && cmp -s "$TMP/long2" "$TMP/short2"; } ||
	bad="$bad [-p: exit $r1 $r2 $(diff "$TMP/long2" "$TMP/short2" | head -3 | tr '\n' ' ')]"
attrs "$TMP/long3" --output "$TMP/l3.plens" --all --duration 0.2
r1=$?
attrs "$TMP/short3" --output "$TMP/s3.plens" -a --duration 0.2
r2=$?
if [ $r1$r2 = 00 ]; then
	{ [ -s "$TMP/long3" ] && cmp -s "$TMP/long3" "$TMP/short3"; } || bad="$bad [-a differs from --all]"
elif grep -qiE 'paranoid|permission' "$TMP/long3.err" && why=$(pl_perf_refused); then
	: # the whole system is refused to this user, for both spellings alike
else
	bad="$bad [-a/--all: exit $r1 $r2: $(tail -n 1 "$TMP/short3.err")]"
fi
err=$("$AGENT" -x 2>&1); rc=$?
[ $rc = 2 ] && echo "$err" | grep -q "unknown option '-x'" || bad="$bad [-x: exit $rc: $err]"
if [ -n "$bad" ]; then
	fail agent_perf_letters "$bad"
elif why=$(pl_perf_refused) && [ ! -s "$TMP/long1" ]; then
	skip agent_perf_letters "$why"
else
	ok agent_perf_letters
fi
