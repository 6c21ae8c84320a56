#!/usr/bin/env bash
# The shipped static musl agent (dist/perflens-agent-x86_64) passes the same
# integration tests as the host build: this is the binary users scp.
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# PL_AGENTS_DIR: agents built elsewhere (ci/agents.sh PERFLENS_AGENTS_DIR)
bin=${PL_AGENTS_DIR:-$top/dist}/perflens-agent-x86_64
if [ "$(uname -m)" != x86_64 ]; then
	echo "skip static-agent: [other-arch] the agent tested here is the x86_64 one; this host is $(uname -m)"; exit 0
fi
case "${PL_BUILD:-build}" in
*build-san)
	# the shipped agent is one binary whatever the host build; its
	# readers run under ASan in the sanitizer build's own agent tests
	echo "skip static-agent: [by-design] the shipped static agent runs once, with the plain build (this is $(basename "$PL_BUILD"))"
	exit 0 ;;
esac
if [ ! -x "$bin" ]; then
	echo "not ok static-agent: $bin not built (make agents)"; exit 1
fi
case "$(file -b "$bin")" in
*"statically linked"*) echo "ok static-agent-is-static" ;;
*) echo "not ok static-agent-is-static: $(file -b "$bin")" ;;
esac
PL_AGENT=$bin "$PL_BUILD/test/agent-test" | sed 's/^\(ok\|not ok\|skip\) /\1 static-/'
rc=${PIPESTATUS[0]}
# thread-creation stacks from the static agent too (tracefs, per-event sample layout)
PL_AGENT=$bin "$PL_BUILD/test/creation-test" | sed 's/^\(ok\|not ok\|skip\) /\1 static-/'
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
exit "$rc"
