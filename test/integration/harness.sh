#!/usr/bin/env bash
# harness.sh — the harness cannot be fooled (issue 13, "skips that cannot
# hide breakage"), checked in seconds:
#   run_sh_skip_reasons   test/run.sh counts a skip with a tag from
#                         test/skip-reasons.txt as a skip, and one without a
#                         listed tag (or with no text after it) as a failure;
#   broken_agent_fails    with PL_AGENT=/bin/false, an agent that never
#                         starts, the creation test (C) and the export test
#                         (shell) report every case "not ok": no skip, no pass.
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PL_BUILD:-$top/build}
tmp=$(mktemp -d /tmp/pl-harness-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# ─── run.sh and the list of reasons ─────────────────────────────────────
mkdir -p "$tmp/b/test"
cat >"$tmp/b/test/zz-harness-fake-test" <<'EOF'
#!/bin/sh
echo "ok a"
echo "skip b: [no-pmu] no hardware events here"
echo "skip c: [no-kernel-feature:sched_process_fork tracepoint] not in tracefs"
echo "skip d: the agent did not start"
echo "skip e: [made-up] x"
echo "skip f: [no-kernel-feature:] nothing named"
echo "skip g: [not-root]"
EOF
chmod +x "$tmp/b/test/zz-harness-fake-test"
out=$("$top/test/run.sh" -k zz-harness-fake "$tmp/b" 2>&1)
rc=$?
last=$(echo "$out" | tail -1)
if [ $rc -ne 0 ] && [ "$last" = "1 passed, 4 failed, 2 skipped" ] &&
	echo "$out" | grep -q 'not ok d: the agent did not start  (a skip without a reason'; then
	echo "ok run_sh_skip_reasons"
else
	echo "not ok run_sh_skip_reasons: exit $rc, '$last': $(echo "$out" | tr '\n' '|' | head -c 600)"
fi

# ─── a broken agent fails, never skips ──────────────────────────────────
bad=""
check_all_fail() { # what log
	local n_ok n_skip n_fail
	n_ok=$(grep -c '^ok ' "$2") n_skip=$(grep -c '^skip ' "$2") n_fail=$(grep -c '^not ok ' "$2")
	[ "$n_fail" -gt 0 ] && [ "$n_ok" -eq 0 ] && [ "$n_skip" -eq 0 ] ||
		bad="$bad $1: $n_fail failed, $n_ok passed, $n_skip skipped;"
	echo "# PL_AGENT=/bin/false $1: $n_fail failed, $n_ok passed, $n_skip skipped"
}
PL_AGENT=/bin/false timeout 120 "$build/test/creation-test" >"$tmp/creation.log" 2>&1
check_all_fail creation-test "$tmp/creation.log"
PL_AGENT=/bin/false PL_TOP=$top timeout 120 bash "$build/test/viewer-export-test" >"$tmp/export.log" 2>&1
check_all_fail viewer-export-test "$tmp/export.log"
if [ -z "$bad" ]; then
	echo "ok broken_agent_fails"
else
	echo "not ok broken_agent_fails:$bad"
fi
