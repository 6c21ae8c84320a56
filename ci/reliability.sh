#!/usr/bin/env bash
# ci/reliability.sh — writes docs/RELIABILITY.md from the project's own runs:
# the fuzzing table (fuzz/results.md, made by `fuzz/run.sh long`), every fault
# test with its outcome, and the sanitizer and valgrind runs.
#
#   ci/reliability.sh [FUZZ_SECONDS]     (default: keep fuzz/results.md as is;
#                                          a number re-runs the long fuzzing)
# Run through `make reliability` after `make all SAN=1 all`.
set -u
cd "$(dirname "$0")/.."
out=docs/RELIABILITY.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PL_TOP=$PWD

[ -n "${1:-}" ] && fuzz/run.sh long "$1" >/dev/null

outcome() { # log name → "passed" / "FAILED: why" / "skipped: why"
	local line
	line=$(grep -E "^(ok|not ok|skip) $2(:|$)" "$1" | head -n1)
	case "$line" in
	"ok "*) echo passed ;;
	"not ok "*) echo "FAILED: ${line#*: }" ;;
	"skip "*) echo "skipped: ${line#*: }" ;;
	*) echo "not run" ;;
	esac
}

PL_BUILD=$PWD/build build/test/faults-test >"$tmp/faults.log" 2>&1
PL_BUILD=$PWD/build build/test/agent-test >"$tmp/agent.log" 2>&1
PL_BUILD=$PWD/build build/test/access-test >"$tmp/access.log" 2>&1
PL_BUILD=$PWD/build build/test/viewer-core-test >"$tmp/core.log" 2>&1
PL_BUILD=$PWD/build build/test/stream-test >"$tmp/stream.log" 2>&1
test/run.sh build-san >"$tmp/san.log" 2>&1
san_line=$(tail -n1 "$tmp/san.log")
PL_BUILD=$PWD/build bash test/integration/valgrind-agent.sh >"$tmp/vg.log" 2>&1
fuzz/run.sh check >"$tmp/fuzzcheck.log" 2>&1

{
	echo "# Reliability"
	echo
	echo "Produced by \`ci/reliability.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD),"
	echo "$(nproc) CPUs, $(uname -r). Nothing in this file is written by hand."
	echo
	echo "## Fuzzing"
	echo
	if [ -f fuzz/results.md ]; then
		sed -n '/^| target/,/^$/p' fuzz/results.md
		echo
		sed -n '1,/^| target/p' fuzz/results.md | grep -v '^| target' | grep -v '^# ' | sed '/^$/d'
	fi
	echo
	echo "Bugs the fuzzers found, each kept as a regression input that \`make check\` replays (with"
	echo "the strict checks on), so \"ok\" below means fixed and staying fixed:"
	echo
	echo "| target | regression input | status |"
	echo "|---|---|---|"
	for f in fuzz/regressions/*/*; do
		[ -f "$f" ] || continue
		t=$(basename "$(dirname "$f")")
		st=$(grep -E "^(ok|not ok) fuzz-$t" "$tmp/fuzzcheck.log" | head -n1 | awk '{print ($1 == "ok") ? "fixed (replays clean)" : "OPEN"}')
		echo "| $t | \`$(basename "$f")\` | $st |"
	done
	echo
	echo "Details of each (cause, fix): \`fuzz/findings.md\`."
	echo
	echo "\`make check\` replays every corpus and regression input and fuzzes each harness briefly:"
	echo
	grep -E '^(ok|not ok|skip) fuzz-' "$tmp/fuzzcheck.log" | sed 's/^/    /'
	echo
	echo "## Faults (each an automated test)"
	echo
	echo "| fault | test | outcome |"
	echo "|---|---|---|"
	f=$tmp/faults.log a=$tmp/agent.log c=$tmp/core.log s=$tmp/stream.log x=$tmp/access.log
	echo "| viewer killed with SIGKILL while saving: the file opens up to its last complete block | viewer-core-test | $(grep -E '^(ok|not ok|skip) [a-z_]*kill' "$c" | head -n1 | awk '{print ($1=="ok")?"passed":"FAILED"}') |"
	echo "| torn capture file (every cut point): opens up to the last complete block | viewer-core-test | $(grep -E '^(ok|not ok) [a-z_]*torn' "$c" | head -n1 | awk '{print ($1=="ok")?"passed":"FAILED"}') |"
	echo "| agent killed (SIGKILL) while recording: the viewer says so at once, keeps what arrived | faults-test agent_killed_while_recording | $(outcome "$f" test_agent_killed_while_recording) |"
	echo "| viewer listener restarts: an agent in --server mode reconnects with backoff | agent-test server_mode_reconnects | $(outcome "$a" test_server_mode_reconnects) |"
	echo "| the profiled process exits: END message, session closed, agent keeps serving | agent-test attach_to_running_pid | $(outcome "$a" test_attach_to_running_pid) |"
	echo "| ring-buffer overflow (1-page rings, 20 kHz, 16 KiB stacks): losses counted, sent, shown | faults-test ring_overflow_counted_and_shown | $(outcome "$f" test_ring_overflow_counted_and_shown) |"
	echo "| network slower than samples: whole blocks dropped, counted, reported; no sample refers to a lost stack | stream-test backpressure | $(outcome "$s" test_backpressure_drops_blocks_and_reports) |"
	echo "| disk full under the agent (--output /dev/full): clear error | faults-test output_disk_full | $(outcome "$f" test_output_disk_full) |"
	echo "| disk full under the viewer (96 KiB tmpfs): clear error, earlier data intact | faults-test viewer_save_disk_full_keeps_earlier_data | $(outcome "$f" test_viewer_save_disk_full_keeps_earlier_data) |"
	echo "| hostile viewer: garbage, oversized block header, silence, command flood | faults-test, agent-test | $(outcome "$f" test_oversized_block_refused); $(outcome "$f" test_silent_peer_dropped); $(outcome "$f" test_command_flood_bounded) |"
	echo "| hostile agent: garbage, a 2 GiB block header, silence | faults-test hostile_agent_gets_clear_error | $(outcome "$f" test_hostile_agent_gets_clear_error) |"
	echo "| wrong token: refused after 1 s without stalling the agent, logged with the peer | faults-test wrong_token_answered_late_and_logged | $(outcome "$f" test_wrong_token_answered_late_and_logged) |"
	echo "| token written to a file: mode 0600; --no-auth warns | faults-test | $(outcome "$f" test_token_written_owner_only); $(outcome "$f" test_no_auth_warns) |"
	echo "| a second viewer while one is connected: told who holds the agent, after its AUTH | agent-test listen_full_session | $(outcome "$a" test_listen_full_session) |"
	echo "| an empty token (--token \"\", an empty or blank token file): refused at start, exit 2 | access-test empty_token_refused | $(outcome "$x" test_empty_token_refused) |"
	echo "| a generated token: in a new 0600 file (a link there replaced, not followed), never in the log | access-test generated_token_written_not_logged | $(outcome "$x" test_generated_token_written_not_logged) |"
	echo "| before AUTH a peer learns only versions and that a token is needed | access-test hello_before_auth_names_nothing | $(outcome "$x" test_hello_before_auth_names_nothing) |"
	echo "| a silent peer, then a loop of them: perflens record with the token starts within 2 s | access-test silent_peers_do_not_delay_record | $(outcome "$x" test_silent_peers_do_not_delay_record) |"
	echo "| --no-auth: START with a command refused without --allow-exec, logged with the peer | access-test no_auth_needs_allow_exec | $(outcome "$x" test_no_auth_needs_allow_exec) |"
	echo
	echo "## Sanitizers and valgrind"
	echo
	echo "- The whole suite built with ASan + UBSan (\`make SAN=1\`, \`-fno-sanitize-recover=all\`, leaks detected): \`$san_line\`"
	echo "- The agent under valgrind memcheck (\`--leak-check=full\`, errors are failures):"
	sed 's/^/    /' "$tmp/vg.log" | grep -E '(ok|not ok|skip) '
} >"$out"
echo "wrote $out"
