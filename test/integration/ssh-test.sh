#!/usr/bin/env bash
# ssh-test.sh — perflens record/ps ssh://… against a real OpenSSH sshd that
# this test starts on 127.0.0.1 (a free port, its own host key,
# authorized_keys and sshd_config; no system service is touched).  The
# viewer runs the real ssh client (PERFLENS_SSH names it with a private
# client config: keys and known_hosts of this test only), deploys the agent
# ($PL_AGENT, else $PL_BUILD/perflens-agent, offered as this host's
# architecture's agent) by content hash and runs it with --stdio.
#
# Cases: a recording of burn (samples, hot_leaf), the agent gone after the
# session, a second session reusing the copy (same inode and mtime, no
# copy said), ps, the session file naming its ssh:// target, and each error
# provoked for real: a closed port, a key the server refuses, a changed
# host key, a board whose uname -m has no agent (a PATH shim for one key,
# set by authorized_keys' environment=), a directory that cannot be
# written (/proc), a noexec one (a tmpfs mounted noexec in sshd's private
# mount namespace), and the agent killed mid-session.
#
# And perf refused to a user who is not root: sshd's mount namespace has
# its own /etc/passwd (this machine's plus one user, a uid nobody has,
# bound over the file there only), so a login as that user runs the agent
# with a real non-root uid; `record --all` is then refused by this
# machine's perf_event_paranoid (the whole system needs 0 or less without
# CAP_PERFMON) and must say so in one line: the user, the level, the value
# needed, ssh://root@…, and setcap on the deployed agent's path.  Nothing
# global changes: no user is added to this machine (checked), no sysctl is
# set.
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok ssh: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
CASES="ssh_record ssh_agent_gone ssh_reuse ssh_ps ssh_session_says_ssh ssh_unreachable
ssh_auth_failed ssh_host_key_changed ssh_no_agent_for_arch ssh_not_writable ssh_noexec
ssh_agent_killed ssh_bad_url ssh_app_connect ssh_app_start ssh_app_samples ssh_app_flame ssh_app_stop
ssh_app_session_says_ssh ssh_nonroot_advice ssh_nonroot_host_untouched"
pl_plan $CASES
T=$(mktemp -d /tmp/pl-ssh-XXXXXX)
SSHD_PID=
cleanup() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null && wait "$SSHD_PID" 2>/dev/null
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
fail_all() { for c in $CASES; do pl_was_reported "$c" || fail "$c" "$1"; done; exit 1; }

missing=
for f in "$AGENT" "$PERFLENS" "$BURN"; do [ -x "$f" ] || missing="$missing $f"; done
[ -z "$missing" ] || fail_all "not built:$missing (make)"
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
	fail_all "OpenSSH missing (ci/deps.sh installs openssh-server and openssh-client)"
[ "$(id -u)" = 0 ] || { for c in $CASES; do skip "$c" "[not-root] sshd for another user's login needs root"; done; exit 0; }
case $(uname -m) in
x86_64 | aarch64) arch=$(uname -m) ;;
*) for c in $CASES; do skip "$c" "[other-arch] the agent offered is this host's build: $(uname -m)"; done; exit 0 ;;
esac
if why=$(pl_perf_refused); then
	for c in $CASES; do skip "$c" "$why"; done
	exit 0
fi

secs() { awk "BEGIN { printf \"%.2f\", $2 - $1 }"; }
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# ─── the server ──────────────────────────────────────────────────────────
mkdir -p "$T/agents" "$T/shim" "$T/board-cache" "$T/noexec"
cp "$AGENT" "$T/agents/perflens-agent-$arch"
export PERFLENS_AGENTS_DIR=$T/agents
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key" -C pl-host
ssh-keygen -q -t ed25519 -N '' -f "$T/other_host_key" -C pl-other-host
for k in user bad shim nonroot; do ssh-keygen -q -t ed25519 -N '' -f "$T/id_$k" -C "pl-$k"; done
# the shimmed board says it is a MIPS: no agent is built for that
printf '#!/bin/sh\n[ "$1" = -m ] && { echo mips; exit 0; }\nexec /usr/bin/uname "$@"\n' >"$T/shim/uname"
chmod 755 "$T/shim/uname"
{
	# the board's ~/.cache is this test's: the default directory, kept here
	echo "environment=\"XDG_CACHE_HOME=$T/board-cache\" $(cat "$T/id_user.pub")"
	echo "environment=\"PATH=$T/shim:/usr/bin:/bin\",environment=\"XDG_CACHE_HOME=$T/board-cache\" $(cat "$T/id_shim.pub")"
	# the non-root user's cache is its own home's (the default directory)
	cat "$T/id_nonroot.pub"
} >"$T/authorized_keys"
# the non-root user: a free uid, a home it owns; it must reach
# authorized_keys and its home through $T (711: no listing; the keys in it
# stay 0600)
nr_uid=
for u in $(seq 42420 42499); do getent passwd "$u" >/dev/null || { nr_uid=$u; break; }; done
nr_name=pl-nonroot-$$
passwd_sum=$(sha256sum /etc/passwd)
cat /etc/passwd >"$T/passwd"
echo "$nr_name:x:$nr_uid:$nr_uid:PerfLens test:$T/nr-home:/bin/sh" >>"$T/passwd"
mkdir -m 700 "$T/nr-home"
chown "$nr_uid:$nr_uid" "$T/nr-home"
chmod 711 "$T"
chmod 644 "$T/authorized_keys"
port=$(free_port)
closed_port=$(free_port)
cat >"$T/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $T/host_key
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitUserEnvironment yes
LogLevel VERBOSE
EOF
# sshd's privilege separation directory (its service makes it at start)
[ -d /run/sshd ] || mkdir -m 755 /run/sshd
# a private mount namespace: the noexec tmpfs exists for sshd's sessions
# only.  Only the mount holding $T is made private, not '/': in a chroot
# whose root is no mount point (make check-fresh) that is EINVAL.
# The passwd with the non-root user is bound over /etc/passwd there too,
# once the mount holding it cannot pass the bind on (private; a shared one
# is made private in the namespace first); if neither, no user is added and
# ssh_nonroot_advice fails on the refused login.
cat >"$T/sshd-ns.sh" <<NS
mount --make-rprivate "\$(findmnt -n -o TARGET -T '$T')" || exit 1
mount -t tmpfs -o noexec,size=4m pl-noexec '$T/noexec' || exit 1
case "\$(findmnt -n -o PROPAGATION -T /etc/passwd)" in
*shared*) mount --make-rprivate "\$(findmnt -n -o TARGET -T /etc/passwd)" ;;
esac
case "\$(findmnt -n -o PROPAGATION -T /etc/passwd)" in
*shared* | '') echo "ssh-test: /etc/passwd's mount stays shared: no non-root user" >&2 ;;
*) mount --bind '$T/passwd' /etc/passwd ;;
esac
exec '$SSHD' -D -e -f '$T/sshd_config'
NS
unshare -m --propagation unchanged sh "$T/sshd-ns.sh" 2>"$T/sshd.log" &
SSHD_PID=$!

client_config() { # file identity known_hosts
	cat >"$1" <<EOF
Host *
	IdentityFile $2
	IdentitiesOnly yes
	IdentityAgent none
	UserKnownHostsFile $3
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
EOF
}
echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$T/host_key.pub")" >"$T/known_hosts"
echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$T/other_host_key.pub")" >"$T/known_hosts_changed"
client_config "$T/ssh_config" "$T/id_user" "$T/known_hosts"
client_config "$T/ssh_bad" "$T/id_bad" "$T/known_hosts"
client_config "$T/ssh_changed" "$T/id_user" "$T/known_hosts_changed"
client_config "$T/ssh_shim" "$T/id_shim" "$T/known_hosts"
client_config "$T/ssh_nonroot" "$T/id_nonroot" "$T/known_hosts"
unset SSH_AUTH_SOCK
export PERFLENS_SSH="ssh -F $T/ssh_config"
URL=ssh://root@127.0.0.1:$port

up=
for _ in $(seq 100); do
	ssh -F "$T/ssh_config" -p "$port" -o BatchMode=yes root@127.0.0.1 true 2>/dev/null && { up=1; break; }
	kill -0 "$SSHD_PID" 2>/dev/null || break
	sleep 0.1
done
[ -n "$up" ] || fail_all "the test's sshd did not start: $(tail -c 400 "$T/sshd.log" | tr '\n' '|')"

# the deployed agent, and processes running it
remote_agent() { ls "$T/board-cache/perflens/"perflens-agent-* 2>/dev/null | head -1; }
agent_pids() { # processes whose executable is the deployed agent
	# same file (device and inode), not the same path: the agent runs in
	# sshd's mount namespace, where readlink of its exe gives another path
	# when the test runs in a chroot (make check-fresh)
	local f=$1 p
	for p in /proc/[0-9]*; do
		[ "$p/exe" -ef "$f" ] 2>/dev/null && echo "${p#/proc/}"
	done
}
# the agent ends when its ssh channel closes; the bound only keeps a
# leftover from hanging the test (a loaded host is slow to reap it)
gone_within() { # file seconds
	for _ in $(seq $(($2 * 10))); do
		[ -z "$(agent_pids "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}
check_hot() { # case file
	local out first
	out=$("$PERFLENS" report "$2" 2>&1) || { fail "$1" "report failed: $(echo "$out" | head -3 | tr '\n' '|')"; return 1; }
	echo "$out" >"$T/$1.report"
	first=$(echo "$out" | awk '/^Top functions/ {getline; getline; print $4; exit}')
	[ "$first" = hot_leaf ] || { fail "$1" "top self function '$first', not hot_leaf: $(echo "$out" | head -12 | tr '\n' '|')"; return 1; }
	return 0
}

# ─── a recording, then a second one with the copy reused ─────────────────
t0=$(date +%s.%N)
if timeout 60 "$PERFLENS" record "$URL" --frequency 499 --command "$BURN 1.5 2" --duration 5 \
	-o "$T/s1.plens" >"$T/rec1.log" 2>&1; then
	t1=$(date +%s.%N)
	if check_hot ssh_record "$T/s1.plens"; then
		ok ssh_record
		echo "# first session: $(grep -o 'saved [0-9]* samples' "$T/rec1.log"), $(secs "$t0" "$t1") s with the copy"
	fi
else
	fail ssh_record "record failed: $(tail -c 600 "$T/rec1.log" | tr '\n' '|')"
fi
f=$(remote_agent)
if [ -z "$f" ]; then
	fail ssh_agent_gone "no agent was deployed in $T/board-cache/perflens"
	fail ssh_reuse "no agent was deployed"
else
	if gone_within "$f" 30; then ok ssh_agent_gone; else fail ssh_agent_gone "still running: $(agent_pids "$f")"; fi
	before=$(stat -c '%i %Y' "$f")
	grep -q "copied the $arch agent" "$T/rec1.log" || fail ssh_reuse "the first session did not say it copied the agent: $(head -3 "$T/rec1.log" | tr '\n' '|')"
	sleep 1.1 # a copy now would show in the mtime
	t0=$(date +%s.%N)
	if timeout 60 "$PERFLENS" record "$URL" --frequency 499 --command "$BURN 1 2" --duration 5 \
		-o "$T/s2.plens" >"$T/rec2.log" 2>&1; then
		t1=$(date +%s.%N)
		after=$(stat -c '%i %Y' "$f")
		n=$(ls "$T/board-cache/perflens" | wc -l)
		if [ "$before" != "$after" ]; then
			fail ssh_reuse "the agent was copied again: inode/mtime $before -> $after"
		elif grep -q "copied the" "$T/rec2.log" || ! grep -q "is on $URL already" "$T/rec2.log"; then
			fail ssh_reuse "the second session did not reuse the copy: $(head -3 "$T/rec2.log" | tr '\n' '|')"
		elif [ "$n" != 1 ]; then
			fail ssh_reuse "$n files in the board's directory: $(ls -a "$T/board-cache/perflens" | tr '\n' ' ')"
		elif check_hot ssh_reuse "$T/s2.plens"; then
			pl_was_reported ssh_reuse || ok ssh_reuse
			echo "# second session: reused, $(secs "$t0" "$t1") s"
		fi
		gone_within "$f" 30 || fail ssh_agent_gone "still running after the second session: $(agent_pids "$f")"
	else
		fail ssh_reuse "second record failed: $(tail -c 600 "$T/rec2.log" | tr '\n' '|')"
	fi
fi

# the session file says how it was made
if "$PERFLENS" report "$T/s1.plens" 2>/dev/null | grep -q "connected over $URL"; then
	ok ssh_session_says_ssh
else
	fail ssh_session_says_ssh "no 'connected over $URL' in the report"
fi

# ps over ssh: the agent lists itself
t0=$(date +%s.%N)
if out=$(timeout 30 "$PERFLENS" ps "$URL" 2>&1) && echo "$out" | grep -q "perflens-agent"; then
	t1=$(date +%s.%N)
	t2=$(date +%s.%N)
	timeout 30 "$PERFLENS" ps "$URL" --remote-dir "$T/fresh" >/dev/null 2>&1
	t3=$(date +%s.%N)
	echo "# perflens ps over ssh: $(secs "$t0" "$t1") s with the agent there, $(secs "$t2" "$t3") s copying it first"
	ok ssh_ps
else
	fail ssh_ps "$(echo "$out" | head -5 | tr '\n' '|')"
fi

# ─── errors: exit 2, one line, what to do ───────────────────────────────
expect_error() { # case pattern env-assignment... -- perflens args...
	local c=$1 pat=$2
	shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local err rc
	err=$(env "${envs[@]}" timeout 60 "$PERFLENS" "$@" 2>&1 >/dev/null)
	rc=$?
	echo "# $c: $(echo "$err" | tr '\n' '|')"
	if [ $rc -eq 2 ] && [ "$(echo "$err" | grep -vc '^perflens: copied\|already (' )" -eq 1 ] &&
		echo "$err" | grep -qiE "$pat"; then
		ok "$c"
	else
		fail "$c" "rc=$rc, wanted /$pat/: $(echo "$err" | tr '\n' '|')"
	fi
}
expect_error ssh_unreachable 'connection refused.*check the host and port' PL_X=1 -- \
	ps "ssh://root@127.0.0.1:$closed_port"
expect_error ssh_auth_failed 'authentication.*failed.*authorized_keys' "PERFLENS_SSH=ssh -F $T/ssh_bad" -- \
	ps "$URL"
expect_error ssh_host_key_changed 'host key.*has changed.*ssh-keygen -R' "PERFLENS_SSH=ssh -F $T/ssh_changed" -- \
	ps "$URL"
expect_error ssh_no_agent_for_arch 'is mips.*no PerfLens agent is built' "PERFLENS_SSH=ssh -F $T/ssh_shim" -- \
	ps "$URL"
expect_error ssh_not_writable 'cannot write the agent to /proc/perflens.*--remote-dir' PL_X=1 -- \
	ps "$URL" --remote-dir /proc/perflens
expect_error ssh_noexec 'cannot run the agent from .*noexec.*--remote-dir' PL_X=1 -- \
	ps "$URL" --remote-dir "$T/noexec/agents"

# an option in disguise is not a host (ssh would take it as one)
expect_error ssh_bad_url "bad address 'ssh://-oProxyCommand=touch $T/pwned'" PL_X=1 -- \
	ps "ssh://-oProxyCommand=touch $T/pwned"
[ -e "$T/pwned" ] && fail ssh_bad_url "ssh ran the ProxyCommand"

# ─── perf refused to a user who is not root ─────────────────────────────
# (this machine's own perf_event_paranoid: --all needs 0 or less)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ -n "$(getent passwd "$nr_name")" ] || [ "$(sha256sum /etc/passwd)" != "$passwd_sum" ]; then
	fail ssh_nonroot_host_untouched "this machine's /etc/passwd changed (or names $nr_name)"
else
	ok ssh_nonroot_host_untouched
fi
NURL=ssh://$nr_name@127.0.0.1:$port
if [ "$paranoid" -le 0 ]; then
	skip ssh_nonroot_advice "[no-kernel-feature:perf_event_paranoid>0] this kernel's perf_event_paranoid is $paranoid: it refuses nothing to a user"
else
	err=$(PERFLENS_SSH="ssh -F $T/ssh_nonroot" timeout 60 "$PERFLENS" record "$NURL" --all \
		--duration 1 -o "$T/nonroot.plens" 2>&1 >/dev/null)
	rc=$?
	echo "# ssh_nonroot_advice: $(echo "$err" | tr '\n' '|')"
	line=$(echo "$err" | grep -v '^perflens: \(copied\|connected\|the .* agent is on\)')
	path=$(echo "$line" | grep -o 'setcap cap_perfmon,cap_sys_ptrace+ep [^`]*' | cut -d' ' -f3)
	if [ $rc -ne 2 ] || [ "$(echo "$line" | wc -l)" -ne 1 ]; then
		fail ssh_nonroot_advice "rc=$rc, want 2 and one line: $(echo "$err" | tr '\n' '|')"
	elif ! echo "$line" | grep -q "refused to $nr_name (uid $nr_uid).*perf_event_paranoid is $paranoid" ||
		! echo "$line" | grep -qF 'sysctl kernel.perf_event_paranoid=0`' ||
		! echo "$line" | grep -qF "(ssh://root@127.0.0.1:$port)"; then
		fail ssh_nonroot_advice "the line lacks the user, the level ($paranoid), sysctl =0 or ssh://root@…: $line"
	elif [ "$path" != "$(ls "$T/nr-home/.cache/perflens/"perflens-agent-* 2>/dev/null)" ] ||
		[ "$(stat -c %u "$path" 2>/dev/null)" != "$nr_uid" ]; then
		fail ssh_nonroot_advice "setcap names '$path', not the agent $nr_name was given in $T/nr-home/.cache/perflens"
	else
		ok ssh_nonroot_advice
	fi
fi

# ─── the agent killed mid-session: the record ends with that, no hang ────
"$PERFLENS" record "$URL" --frequency 499 --command "$BURN 30 2" --duration 30 --quiet \
	-o "$T/killed.plens" >"$T/rec-killed.log" 2>&1 &
rpid=$!
victim=
# up to 30 s: copying and starting the agent over ssh is slow on a loaded
# machine (10 s was not enough beside a build-san run)
for _ in $(seq 300); do
	f=$(remote_agent)
	[ -n "$f" ] && victim=$(agent_pids "$f" | head -1)
	[ -n "$victim" ] && [ -s "$T/killed.plens" ] && break
	sleep 0.1
done
if [ -z "$victim" ]; then
	kill "$rpid" 2>/dev/null
	fail ssh_agent_killed "no agent process appeared: $(cat "$T/rec-killed.log" | tr '\n' '|')"
else
	sleep 1
	kids=$(cat /proc/"$victim"/task/*/children 2>/dev/null) # burn, ours to end after
	kill -9 "$victim"
	t0=$(date +%s.%N)
	ended=
	for _ in $(seq 100); do kill -0 "$rpid" 2>/dev/null || { ended=1; break; }; sleep 0.1; done
	t1=$(date +%s.%N)
	if [ -z "$ended" ]; then
		kill "$rpid" 2>/dev/null
		fail ssh_agent_killed "perflens record still running 10 s after the agent was killed"
	else
		wait "$rpid"
		rc=$?
		msg=$(cat "$T/rec-killed.log")
		echo "# ssh_agent_killed: ended $(secs "$t0" "$t1") s after kill -9: $msg"
		if [ $rc -eq 2 ] && echo "$msg" | grep -q "was killed by signal 9 (KILL)"; then
			ok ssh_agent_killed
		else
			fail ssh_agent_killed "rc=$rc: $(echo "$msg" | tr '\n' '|')"
		fi
	fi
fi
for k in ${kids:-}; do kill "$k" 2>/dev/null; done

# ─── the app: Connect to ssh://…, record, screenshots ───────────────────
# Screenshots go to $PL_UI_SCREENSHOTS (docs/screenshots to refresh the
# committed one), else to the temporary directory.
SHOTS=${PL_UI_SCREENSHOTS:-$T/shots}
mkdir -p "$SHOTS" "$T/xdg/config" "$T/xdg/data" "$T/xdg/cache"
cat >"$T/app.script" <<SCRIPT
connect $URL
screenshot $SHOTS/ssh-connect.png
frequency 499
command $BURN 4 2
start
record 2
expect-samples 200 samples
expect-flame hot_leaf flame
screenshot $SHOTS/ssh-live.png
stop
SCRIPT
[ -f "$B/test/perflens-ui-script.so" ] || fail_all "$B/test/perflens-ui-script.so not built (make)"
XDG_CONFIG_HOME=$T/xdg/config XDG_DATA_HOME=$T/xdg/data XDG_CACHE_HOME=$T/xdg/cache \
	GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=cairo \
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	PERFLENS_UI_TEST_MODULE=$B/test/perflens-ui-script.so PERFLENS_UI_SCRIPT=$T/app.script \
	timeout 120 xvfb-run -a -s '-screen 0 1600x1000x24' "$PERFLENS" >"$T/app.out" 2>"$T/app.err"
if grep -q 'Xvfb failed to start' "$T/app.err"; then
	for c in $CASES; do pl_was_reported "$c" || skip "$c" "[no-display] Xvfb failed to start"; done
	exit 0
fi
sed -n 's/^\(ok\|not ok\|skip\) /\1 ssh_app_/p' "$T/app.out" >"$T/app.cases"
pl_relay "$T/app.cases"
grep -aE '^# ' "$T/app.out"
grep -aqE 'ERROR: AddressSanitizer|runtime error:' "$T/app.err" &&
	fail ssh_app_stop "sanitizer report: $(grep -aE -m1 -A8 'ERROR: |runtime error:' "$T/app.err" | tr '\n' '|')"
s=$(ls "$T/xdg/data/perflens/sessions/"*.plens 2>/dev/null | head -1)
if [ -n "$s" ] && "$PERFLENS" report "$s" 2>/dev/null | grep -q "connected over $URL"; then
	ok ssh_app_session_says_ssh
else
	fail ssh_app_session_says_ssh "no session saved by the app, or no 'connected over' in it: '$s' $(tail -c 300 "$T/app.err" | tr '\n' '|')"
fi
# nothing of ours left on the board
f=$(remote_agent)
[ -n "$f" ] && ! gone_within "$f" 30 && fail ssh_agent_gone "left running at the end: $(agent_pids "$f")"
exit 0
