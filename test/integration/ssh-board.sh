#!/usr/bin/env bash
# ssh-board.sh — perflens record ssh://root@… against an emulated arm64
# board whose only server is Debian's dropbear (arm64 dropbear-bin and its
# libraries, unpacked into the initramfs by test/boards/mkinitramfs-ssh.sh;
# the board's /init is test/boards/init-ssh.sh).  Debian's arm64 kernel
# boots under qemu-system-aarch64 (test/boards/boot.sh, user-mode network
# with restrict=on: a host port forwarded to the guest's port 22, nothing
# else).  With PL_SSH_BOARD=riscv64 (ssh-board-riscv64.sh) the board is
# the riscv64 one instead: the kernel kernel.sh builds from Debian's
# source under qemu-system-riscv64, and busybox and dropbear built from
# Debian's source packages by test/boards/userland.sh (bookworm has no
# riscv64 port to take them from); its cases are named ssh_riscv64_*.
# The board makes its host key at boot (dropbearkey) and prints the
# public half on the console, which becomes this test's known_hosts; the
# test's own key is root's (and the user pl's) authorized_keys.  The viewer
# runs the real ssh client with a private config (PERFLENS_SSH), finds the
# board is aarch64 (riscv64), copies dist/perflens-agent-aarch64
# (-riscv64) and runs it with --stdio.
#
# Cases: the board boots and dropbear answers (its banner names it); a
# recording of /burn (samples, hot_leaf from the board's binary, thread
# names, the HELLO's machine and kernel are the board's); the agent seen
# running on the board during the session (ps over ssh: the check that
# follows can see it) and gone after it; a second session that reuses
# the copy (same inode and mtime on the board, "already" said, one file
# there); the session file naming its ssh:// target; and, as the user pl,
# whom Debian's perf_event_paranoid=3 refuses (uid 1000 on the board):
# one line with the board's level and the ways out (ssh://root@…, `sudo
# sysctl kernel.perf_event_paranoid=N`: 1 for a command, 0 for --all, or
# setcap on the deployed agent's path, which must be the file there),
# the same advice in the app's Connect form (its facts, and Start's
# error; screenshots ssh-board-advice.png and ssh-board-start-refused.png
# in $PL_UI_SCREENSHOTS, else the temporary directory), and the sysctl it advises, applied as root on the
# board, letting pl record.  The riscv64 board's kernel (upstream's
# default, level 2) lets pl record its own program's user space: that
# recording, told why there are no kernel stacks (ssh_riscv64_nonroot_user_only),
# the app's facts saying so and its Start recording (ssh_riscv64_start,
# screenshot ssh-board-riscv64-user-only.png); --all refused with the
# advice, and level 1 applied, as on arm64.
#
# Run once per make check, with the plain build (like boards.sh).
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${PL_BUILD:-$top/build}
here=$top/test/boards
. "$top/test/pl-test.sh" || { echo "not ok ssh-board: cannot read test/pl-test.sh"; exit 1; }
# shellcheck source=../tools/sampling.sh
. "$top/test/tools/sampling.sh"
board_arch=${PL_SSH_BOARD:-arm64}
case "$board_arch" in
# own: what perf_event_paranoid the board's kernel gives a user — Debian's
# 3 refuses perf events outright (its SECURITY_PERF_EVENTS_RESTRICT), the
# upstream default 2 (the kernel kernel.sh builds) lets a user profile
# its own processes' user space only
arm64) pre=ssh_board_ march=aarch64 triple=aarch64-linux-gnu shot=ssh-board own=3 ;;
riscv64) pre=ssh_riscv64_ march=riscv64 triple=riscv64-linux-gnu shot=ssh-board-riscv64 own=2 ;;
*) echo "not ok ssh-board: PL_SSH_BOARD=$board_arch: arm64 or riscv64"; exit 1 ;;
esac
CASES=
if [ $own = 3 ]; then own_cases="nonroot_advice app_start_refused"; else own_cases="nonroot_user_only start"; fi
for c in boot dropbear record symbols agent_seen agent_gone reuse session_says_ssh $own_cases \
	nonroot_advice_all app_facts nonroot_advice_works guest; do
	CASES="$CASES $pre$c"
done
pl_plan $CASES
case "$B" in
*build-san)
	# the board side is the same for every host build, and pl-ssh.c runs
	# under ASan in ssh-test.sh: one run per make check is enough
	for c in $CASES; do skip "$c" "[by-design] the emulated board runs once, with the plain build (this is $(basename "$B"))"; done
	exit 0 ;;
esac
PERFLENS=$B/perflens
AGENTS=${PL_AGENTS_DIR:-$top/dist}
out=$B/boards/ssh-$board_arch
T=$(mktemp -d /tmp/pl-ssh-board-XXXXXX)
qpid=
cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
fail_all() { for c in $CASES; do pl_was_reported "$c" || fail "$c" "$1"; done; exit 1; }
t_all=$(date +%s.%N)
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

[ -x "$PERFLENS" ] || fail_all "$PERFLENS not built (make)"
[ -x "$AGENTS/perflens-agent-$march" ] || fail_all "$AGENTS/perflens-agent-$march not built (make agents)"
# ci/deps.sh installed these up front; a test installs nothing
PL_APT_CHECK=1 "$here/deps.sh" >"$T/deps.log" 2>&1 || fail_all "$(tail -n 1 "$T/deps.log")"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
	fail_all "OpenSSH client missing (ci/deps.sh installs openssh-client)"
if [ "$board_arch" = riscv64 ]; then
	# the kernel as the riscv64 board of boards.sh has it (cached there);
	# the user space the same for both halves of mkinitramfs-ssh.sh
	kernel=$("$here/kernel.sh" riscv64 2>"$T/kernel.log") ||
		fail_all "cannot build the riscv64 kernel: $(tail -n 1 "$T/kernel.log")"
	fetched=$("$here/userland.sh" riscv64 2>"$T/fetch.log") ||
		fail_all "cannot build busybox and dropbear for riscv64: $(tail -n 1 "$T/fetch.log")"
	dropbear=$fetched
	# its kernel runs no #! scripts (allnoconfig leaves BINFMT_SCRIPT out;
	# init.c is the other riscv64 /init): busybox's shell is handed /init
	init=/bin/busybox init_args="sh /init"
else
	fetched=$("$here/fetch.sh" arm64 2>"$T/fetch.log") ||
		fail_all "cannot fetch Debian's arm64 kernel and busybox: $(tail -n 1 "$T/fetch.log")"
	dropbear=$("$here/fetch.sh" arm64 dropbear 2>"$T/fetch-dropbear.log") ||
		fail_all "cannot fetch Debian's arm64 dropbear-bin: $(tail -n 1 "$T/fetch-dropbear.log")"
	kernel=$fetched
	init= init_args=
fi

# ─── the board ───────────────────────────────────────────────────────────
ssh-keygen -q -t ed25519 -N '' -f "$T/id" -C pl-ssh-board
mkdir -p "$out"
if ! "$here/mkinitramfs-ssh.sh" "$board_arch" "$fetched" "$dropbear" "$T/id.pub" "$out" >"$out/mkinitramfs.log" 2>&1; then
	fail_all "mkinitramfs-ssh.sh: $(tail -n 3 "$out/mkinitramfs.log" | tr '\n' ' ')"
fi
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
port=$(free_port)
console=$out/console.log
: >"$console"
t0=$(date +%s.%N)
PL_BOARD_GUEST_PORT=22 PL_BOARD_INIT=$init PL_BOARD_INIT_ARGS=$init_args "$here/boot.sh" "$board_arch" "$kernel" "$out/initrd.gz" "$port" none 150 >"$console" 2>&1 &
qpid=$!
for _ in $(seq 1200); do
	grep -q 'PL-SSHD-START' "$console" && break
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.1
done
hostkey=$(grep -m1 -o 'PL-HOSTKEY ssh-ed25519 [A-Za-z0-9+/=]*' "$console" | cut -d' ' -f2-3)
if ! grep -q 'PL-SSHD-START' "$console" || [ -z "$hostkey" ]; then
	fail_all "the board did not start dropbear: $(grep -E 'PL-|panic' "$console" | tail -n 3 | tr '\n' ' ')"
fi
kver=$(grep -m1 -o 'PL-BOOT .*' "$console" | sed -n 's/.*kernel=\([^ ]*\).*/\1/p' | tr -d '\r')
echo "[127.0.0.1]:$port $hostkey" >"$T/known_hosts"
cat >"$T/ssh_config" <<EOF
Host *
	IdentityFile $T/id
	IdentitiesOnly yes
	IdentityAgent none
	UserKnownHostsFile $T/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
	BatchMode yes
EOF
unset SSH_AUTH_SOCK
export PERFLENS_SSH="ssh -F $T/ssh_config" PERFLENS_AGENTS_DIR=$AGENTS
URL=ssh://root@127.0.0.1:$port
board() { ssh -F "$T/ssh_config" -p "$port" root@127.0.0.1 "$@"; }
# the forwarded port accepts before dropbear listens: wait for a login
up=
for _ in $(seq 100); do
	board true 2>/dev/null && { up=1; break; }
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.2
done
[ -n "$up" ] || fail_all "no ssh login to the board: $(board true 2>&1 | tail -n 1)"
ok ${pre}boot
echo "# board up (dropbear answering) $(secs "$t0") s after qemu started"
# the server is the board's dropbear, by its own banner
banner=$(exec 3<>"/dev/tcp/127.0.0.1/$port" && head -c 64 <&3 | head -n 1 | tr -d '\r')
case "$banner" in
SSH-2.0-dropbear*) ok ${pre}dropbear; echo "# the board's server: $banner" ;;
*) fail ${pre}dropbear "the forwarded port answers '$banner', not dropbear" ;;
esac

# processes on the board running a PerfLens agent (its exe, from /proc)
# one ls and one sed per look: a shell loop forking per process took
# seconds on the emulated CPU beside burn, and its list of /proc was
# taken before the agent started
scan='ls -l /proc/[0-9]*/exe 2>/dev/null | sed -n "s|.* /proc/\\([0-9]*\\)/exe -> \\(.*/perflens-agent-.*\\)|\\1 \\2|p"'
board_agents() { board "$scan"; }
agent_stat() { board 'stat -c "%i %Y %n" "$HOME"/.cache/perflens/perflens-agent-*' 2>/dev/null; }

# ─── a recording; the agent seen during it, gone after ───────────────────
rec() { # file log secs
	timeout 90 "$PERFLENS" record "$URL" -e cpu-clock -F 1000 --callgraph fp \
		--command "/burn $3 2" --duration 10 -o "$1" >"$2" 2>&1
}
t0=$(date +%s.%N)
# the watch runs on the board (one login, a scan every 0.1 s there): an
# ssh login per look took longer than the session on a loaded host
board "echo watching; for i in \$(seq 600); do s=\$($scan); [ -n \"\$s\" ] && { echo \"\$s\"; exit 0; }; sleep 0.1; done" \
	>"$T/seen" 2>&1 &
wpid=$!
for _ in $(seq 300); do # the watch is logged in before the session starts
	grep -q watching "$T/seen" && break
	kill -0 "$wpid" 2>/dev/null || break
	sleep 0.1
done
rec "$T/s1.plens" "$T/rec1.log" 3
rc=$?
for _ in $(seq 50); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
seen=$(grep perflens-agent- "$T/seen")
echo "# first record (copy + 3 s of burn): $(secs "$t0") s"
if [ -n "$seen" ]; then ok ${pre}agent_seen; echo "# during the session, on the board: $(echo "$seen" | head -n 1)"
else fail ${pre}agent_seen "no process on the board ran the agent during the session (the watch there said: $(head -c 300 "$T/seen" | tr '\n' '|'))"; fi
gone_after() { # what (each look one ssh login: the bound only keeps a leftover from hanging the test)
	local left
	for _ in $(seq 60); do
		left=$(board_agents) || { fail ${pre}agent_gone "ps over ssh failed after $1"; return 1; }
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	fail ${pre}agent_gone "still running on the board after $1: $left"
	return 1
}
if [ $rc -ne 0 ]; then
	fail ${pre}record "record failed (rc=$rc): $(tail -n 4 "$T/rec1.log" | tr '\n' '|')"
	fail ${pre}symbols "no recording"
else
	rep=$out/s1-report.txt
	"$PERFLENS" report "$T/s1.plens" --top 30 --binary "$out/root/burn" \
		--sysroot /usr/$triple >"$rep" 2>&1
	samples=$(sed -n 's/.*: \([0-9]*\) samples over .*/\1/p' "$rep" | head -n 1)
	# sampled at the frequency asked, enough to judge a share
	# (pl_rate_check, pl_min_samples: how many a fixed time gives on an
	# emulated CPU depends on how much of it the host let it run)
	rate=$(pl_rate_check "$B/tools/pl-dump" "$T/s1.plens" 1000); rate_ok=$?
	if [ $rate_ok = 0 ] && [ "${samples:-0}" -ge "$pl_min_samples" ] && grep -q "($march, Linux $kver)" "$rep" &&
		grep -q "copied the $march agent" "$T/rec1.log"; then
		ok ${pre}record
		echo "# $samples samples ($rate), $(grep -o "copied the $march agent ([0-9]* bytes)" "$T/rec1.log")"
	else
		fail ${pre}record "${samples:-no} samples ($rate), machine/kernel or copy not as expected: $(head -n 2 "$rep" | tr '\n' '|') $(head -n 1 "$T/rec1.log")"
	fi
	# hot_leaf in burn (named from the board's ELF): its share of the
	# user-space samples of burn's worker threads at least 60 % less 4
	# standard errors (P0 and K: boards.sh's hot_share,
	# test/tools/sampling.sh); and the threads by name
	missing=
	for n in burn-1 burn-2 sleeper; do
		awk -v n="$n" '/^Threads:/ { t = 1; next } t && /^$/ { exit } t && $3 == n { f = 1 } END { exit !f }' "$rep" ||
			missing="$missing $n"
	done
	if hot=$(pl_threads_share "$B/tools/pl-dump" "$PERFLENS" "$T/s1.plens" "$rep" hot_leaf burn 0.60 \
		burn-1,burn-2 --binary "$out/root/burn" --sysroot /usr/$triple) && [ -z "$missing" ]; then
		ok ${pre}symbols
		echo "# hot_leaf in burn: $hot of burn-1's and burn-2's user-space samples"
	else
		fail ${pre}symbols "hot_leaf in burn, of burn-1's and burn-2's user-space samples: $hot; threads missing: ${missing:-none}: $(grep -A4 '^Top functions' "$rep" | tail -n 3 | tr -s ' ' | tr '\n' '|')"
	fi
fi
gone_after "the first session"
before=$(agent_stat)

# ─── a second session: the copy reused ───────────────────────────────────
sleep 1.1 # a copy now would show in the mtime (seconds)
t0=$(date +%s.%N)
if rec "$T/s2.plens" "$T/rec2.log" 1.5; then
	echo "# second record (reused + 1.5 s of burn): $(secs "$t0") s"
	after=$(agent_stat)
	n=$(echo "$after" | grep -c perflens-agent-)
	s2=$("$PERFLENS" report "$T/s2.plens" 2>/dev/null | sed -n 's/.*: \([0-9]*\) samples over .*/\1/p' | head -n 1)
	rate2=$(pl_rate_check "$B/tools/pl-dump" "$T/s2.plens" 1000); rate2_ok=$?
	if [ -z "$before" ] || [ "$before" != "$after" ]; then
		fail ${pre}reuse "the board's copy changed: '$before' -> '$after'"
	elif [ "$n" != 1 ]; then
		fail ${pre}reuse "$n agents in the board's directory: $after"
	elif grep -q "copied the" "$T/rec2.log" || ! grep -q "is on $URL already" "$T/rec2.log"; then
		fail ${pre}reuse "the second session did not say it reused the copy: $(head -n 2 "$T/rec2.log" | tr '\n' '|')"
	elif [ $rate2_ok != 0 ] || [ "${s2:-0}" -lt "$pl_min_samples" ]; then
		fail ${pre}reuse "the second session has ${s2:-no} samples: $rate2"
	else
		ok ${pre}reuse
		echo "# second session: $s2 samples; on the board (inode mtime path): $after"
	fi
else
	fail ${pre}reuse "second record failed: $(tail -n 4 "$T/rec2.log" | tr '\n' '|')"
fi
gone_after "the second session" && ok ${pre}agent_gone

if "$PERFLENS" report "$T/s1.plens" 2>/dev/null | grep -q "connected over $URL"; then
	ok ${pre}session_says_ssh
else
	fail ${pre}session_says_ssh "no 'connected over $URL' in the report"
fi

# ─── a user whom perf_event_paranoid refuses ─────────────────────────────
PURL=ssh://pl@127.0.0.1:$port
paranoid=$(grep -m1 -o 'PL-PARANOID [0-9-]*' "$console" | cut -d' ' -f2)
# the app first: its Connect form, then Start (it deploys the agent as pl)
SHOTS=${PL_UI_SCREENSHOTS:-$T/shots}
mkdir -p "$SHOTS" "$T/xdg/config" "$T/xdg/data" "$T/xdg/cache"
[ "$paranoid" = "$own" ] || fail_all "the board's perf_event_paranoid is ${paranoid:-unknown}, where its kernel gives $own"
if [ $own = 3 ]; then
	cat >"$T/app.script" <<SCRIPT
connect $PURL
expect-facts cap_perfmon,cap_sys_ptrace+ep app_facts
screenshot $SHOTS/$shot-advice.png
command /burn 2 2
expect-start-refused (ssh://root@127.0.0.1:$port) app_start_refused
connect-view
screenshot $SHOTS/$shot-start-refused.png
SCRIPT
else
	# level 2: the facts say there will be no kernel stacks, and Start
	# records pl's own program
	cat >"$T/app.script" <<SCRIPT
connect $PURL
expect-facts kernel stacks no, user stacks yes app_facts
screenshot $SHOTS/$shot-user-only.png
command /burn 2 2
start
stop
SCRIPT
fi
t0=$(date +%s.%N)
if [ -f "$B/test/perflens-ui-script.so" ]; then
	XDG_CONFIG_HOME=$T/xdg/config XDG_DATA_HOME=$T/xdg/data XDG_CACHE_HOME=$T/xdg/cache \
		GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=cairo \
		PERFLENS_UI_TEST_MODULE=$B/test/perflens-ui-script.so PERFLENS_UI_SCRIPT=$T/app.script \
		timeout 120 xvfb-run -a -s '-screen 0 1600x1000x24' "$PERFLENS" >"$T/app.out" 2>"$T/app.err"
	if grep -q 'Xvfb failed to start' "$T/app.err"; then
		skip ${pre}app_facts "[no-display] Xvfb failed to start"
		for c in app_start_refused start; do
			case " $CASES " in *" $pre$c "*) skip "$pre$c" "[no-display] Xvfb failed to start" ;; esac
		done
	else
		sed -n "s/^\\(ok\\|not ok\\|skip\\) /\\1 ${pre}/p" "$T/app.out" >"$T/app.cases"
		pl_relay "$T/app.cases"
		grep -aE '^# ' "$T/app.out"
		pl_was_reported ${pre}app_facts || fail ${pre}app_facts "the app stopped early: $(tail -c 300 "$T/app.err" | tr '\n' '|')"
	fi
else
	fail ${pre}app_facts "$B/test/perflens-ui-script.so not built (make)"
fi
echo "# the app as pl: $(secs "$t0") s"

# the CLI: exit 2 and one line (besides the copy and connection notes)
# naming the board's level, the value needed, root, and the deployed
# agent's path — which must be the file on the board
advice_case() { # case target-args needed
	local c=$1 need=$3 err rc path lines
	err=$(timeout 60 "$PERFLENS" record "$PURL" $2 -F 1000 --duration 2 -o "$T/$c.plens" 2>&1 >/dev/null)
	rc=$?
	echo "# $c: $(echo "$err" | tr '\n' '|')"
	lines=$(echo "$err" | grep -v "^perflens: \\(copied\\|connected\\|the $march agent is on\\)")
	path=$(echo "$lines" | grep -o 'setcap cap_perfmon,cap_sys_ptrace+ep [^`]*' | cut -d' ' -f3)
	if [ $rc -ne 2 ] || [ "$(echo "$lines" | wc -l)" -ne 1 ]; then
		fail "$c" "rc=$rc, want 2 and one line: $(echo "$err" | tr '\n' '|')"
	elif ! echo "$lines" | grep -q "perf_event_paranoid is $paranoid" ||
		! echo "$lines" | grep -qF "sysctl kernel.perf_event_paranoid=$need\`" ||
		! echo "$lines" | grep -qF "(ssh://root@127.0.0.1:$port)" || [ -z "$path" ]; then
		fail "$c" "the line lacks the level ($paranoid), sysctl =$need, ssh://root@… or setcap PATH: $lines"
	elif ! ssh -F "$T/ssh_config" -p "$port" pl@127.0.0.1 "test -x '$path' && test -O '$path'"; then
		fail "$c" "setcap names $path, which is not pl's agent on the board"
	else
		ok "$c"
	fi
}
# pl records `/burn 3 2` for 5 s into $T/NAME.plens (log $T/NAME.log) and
# hot_leaf is named as in the symbols case: $hot, its share of the worker
# threads' user-space samples (pl_threads_share: the top function of all
# the samples of a short run is the loader's on a starved emulated CPU)
record_as_pl() { # NAME
	hot=
	timeout 60 "$PERFLENS" record "$PURL" -e cpu-clock -F 1000 --command "/burn 3 2" --duration 5 \
		-o "$T/$1.plens" >"$T/$1.log" 2>&1 &&
		"$PERFLENS" report "$T/$1.plens" --top 30 --binary "$out/root/burn" --sysroot /usr/$triple \
			>"$T/$1-report.txt" 2>/dev/null &&
		hot=$(pl_threads_share "$B/tools/pl-dump" "$PERFLENS" "$T/$1.plens" "$T/$1-report.txt" hot_leaf burn \
			0.60 burn-1,burn-2 --binary "$out/root/burn" --sysroot /usr/$triple)
}
if [ $own = 3 ]; then
	advice_case ${pre}nonroot_advice "--command /burn" 1
else
	# level 2: pl records its own program, user space only, told why and
	# what would give kernel stacks
	c=${pre}nonroot_user_only
	if record_as_pl "$c" &&
		grep -q 'sampling user space only (run as root or set kernel.perf_event_paranoid=1 for kernel stacks)' "$T/$c.log"; then
		ok "$c"
		echo "# as pl at level 2: hot_leaf in burn: $hot; $(grep -o 'Kernel sampling is not allowed[^)]*)' "$T/$c.log")"
	else
		fail "$c" "pl did not record its own program at level 2, told why (${hot:-no share}): $(tr '\n' '|' <"$T/$c.log")"
	fi
fi
advice_case ${pre}nonroot_advice_all --all 0
# the advice applied (the board is this test's: its sysctl is ours to
# change): pl records, hot_leaf named
hot=
if board sysctl -w kernel.perf_event_paranoid=1 >/dev/null && record_as_pl pl; then
	ok ${pre}nonroot_advice_works
	echo "# as pl: hot_leaf in burn: $hot"
else
	fail ${pre}nonroot_advice_works "after sysctl kernel.perf_event_paranoid=1 pl still cannot record, or hot_leaf not named (${hot:-no share}): $(tail -n 3 "$T/pl.log" | tr '\n' '|')"
fi

board poweroff -f >/dev/null 2>&1 # dropbear dies with the board: no status
for _ in $(seq 50); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
why=$(grep -m1 -E 'PL-ERROR|PL-WATCHDOG|Kernel panic' "$console")
if [ -z "$why" ]; then ok ${pre}guest; else fail ${pre}guest "$why"; fi
echo "# ssh-board: $(secs "$t_all") s in all ($(cut -d' ' -f1-3 /proc/loadavg) load on $(nproc) cores)"
exit 0
