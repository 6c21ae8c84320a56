# test/pl-test.sh — what the shell tests share (sourced, never run):
#
#   . "${PL_TOP:-.}/test/pl-test.sh"
#
# ok NAME / fail NAME WHY / skip NAME "[TAG] WHY" print one case line each
# (test/run.sh counts them; TAG is one of test/skip-reasons.txt, anything
# else counts as a failure).  pl_plan names the cases a script means to
# report; pl_relay FILE passes on the case lines of a program it ran; and
# pl_unreported, called at the end (an EXIT trap), fails every planned case
# that was never reported, so a script that stops early cannot leave its
# later cases out of the count.
#
# pl_perf_refused asks the kernel (through perf, the oracle, never through
# the agent under test) whether it refuses perf events here: it prints
# "[TAG] why" and succeeds when it does.  A test skips a case that needs
# perf only then; an agent that fails where the kernel allows perf is the
# failure the test exists to catch.

declare -A pl_reported=()
pl_planned=()

ok() { echo "ok $1"; pl_reported[$1]=1; }
fail() { echo "not ok $1: $2"; pl_reported[$1]=1; }
skip() { echo "skip $1: $2"; pl_reported[$1]=1; }

pl_plan() { pl_planned+=("$@"); }

# Prints the case lines of FILE (a program's output) and notes their names.
pl_relay() {
	local line name
	while IFS= read -r line; do
		echo "$line"
		name=${line#ok }
		name=${name#not ok }
		name=${name#skip }
		pl_reported[${name%%[: ]*}]=1
	done < <(grep -aE '^(ok|not ok|skip) ' "$1")
}

# Whether NAME has been reported (by this script or a relayed program).
pl_was_reported() { [ -n "${pl_reported[$1]:-}" ]; }

# Fails each planned case not reported yet, with why (e.g. "the app
# stopped early: …").
pl_unreported() {
	local c
	for c in "${pl_planned[@]}"; do
		pl_was_reported "$c" || fail "$c" "never reported: ${1:-the script ended before it}"
	done
}

# Ends the script: every planned case not reported yet fails with WHY.
pl_fail_all() { pl_unreported "$1"; exit 1; }
# Ends the script: every planned case not reported yet skips with WHY
# ("[TAG] …", a tag from test/skip-reasons.txt).
pl_skip_all() {
	local c
	for c in "${pl_planned[@]}"; do pl_was_reported "$c" || skip "$c" "$1"; done
	exit 0
}
# The app's stderr FILE says Xvfb did not start: every case skips
# [no-display], quoting it.
pl_no_display() {
	grep -q 'Xvfb failed to start' "$1" &&
		pl_skip_all "[no-display] Xvfb failed to start: $(grep -m1 -v '^$' "$1" | head -c 200)"
}

# pl_tracefs GROUP/EVENT: prints the tracefs directory that has that
# tracepoint (mounting tracefs at /sys/kernel/tracing where nothing is
# mounted), or fails.  The agent reads the same directories.
pl_tracefs() {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -r "$d/events/$1/id" ] && { echo "$d"; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -r "/sys/kernel/tracing/events/$1/id" ] && { echo /sys/kernel/tracing; return 0; }
	return 1
}

# pl_loop_device MB ERRFILE: a loop device over a new MB MiB backing file
# under /var/tmp, with direct I/O where the kernel allows it, in the
# globals BACK and LOOP (the caller's cleanup detaches LOOP and removes
# BACK).  Returns 1 when the backing file cannot be written, 2 when no loop
# device can be set up; ERRFILE then holds the line to fail or skip with.
pl_loop_device() {
	BACK=$(mktemp /var/tmp/pl-loop-XXXXXX) || { echo "mktemp in /var/tmp failed" >"$2"; return 1; }
	if ! dd if=/dev/zero of="$BACK" bs=1M count="$1" status=none 2>"$2"; then
		echo "cannot write the loop device's backing file $BACK: $(head -c 200 "$2")" >"$2"
		return 1
	fi
	if ! LOOP=$(losetup --direct-io=on -f --show "$BACK" 2>"$2") &&
		! LOOP=$(losetup -f --show "$BACK" 2>"$2"); then
		LOOP=
		echo "[no-kernel-feature:loop] losetup: $(head -c 200 "$2")" >"$2"
		return 2
	fi
}

pl_perf_refused() {
	local out
	command -v perf >/dev/null 2>&1 || return 1 # ci/deps.sh installs it: no excuse
	out=$(perf stat -x, -e cpu-clock -- true 2>&1) && return 1
	if echo "$out" | grep -qiE 'paranoid|permission|not permitted|EACCES|EPERM'; then
		if [ "$(id -u)" != 0 ]; then
			echo "[not-root] the kernel refuses perf events to this user: $(echo "$out" | head -1)"
		else
			echo "[no-kernel-feature:perf_event_open] the kernel refuses perf events even to root: $(echo "$out" | head -1)"
		fi
		return 0
	fi
	if echo "$out" | grep -qiE 'not supported|function not implemented|ENOSYS|ENOENT'; then
		echo "[no-kernel-feature:perf_event_open] $(echo "$out" | head -1)"
		return 0
	fi
	return 1
}
