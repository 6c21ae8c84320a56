#!/usr/bin/env bash
# ci/agents.sh — the six static agents: dist/perflens-agent-<arch>.
#
#   ci/agents.sh [ARCH...]        (default: all six)
#
# Builds each with toolchains/cc.sh (musl, compression-only zstd and
# compiler-rt builtins from Debian source packages, cached under
# ~/.cache/perflens), checks that it is static and stripped, and prints
# the size table.  Fails when an agent exceeds the size budget.
#
# Env: PERFLENS_AGENTS_DIR (default dist) and PERFLENS_AGENTS_OBJ (default
# build/agents) place the agents and their objects elsewhere, so that a
# private build directory does not overwrite the shared dist/;
# PERFLENS_AGENTS_MAP=1 also writes a linker map beside each agent.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${PERFLENS_AGENT_BUDGET:-196608} # 192 KiB
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64 aarch64_be armv7l armeb riscv64)
toolchains/deps.sh >/dev/null
dist=${PERFLENS_AGENTS_DIR:-dist}
objroot=${PERFLENS_AGENTS_OBJ:-build/agents}
mkdir -p "$dist"
status=0
printf '| target | bytes | static | budget (%d bytes = %d KiB) |\n|---|---|---|---|\n' "$budget" $((budget / 1024)) >"$dist/sizes.md"
# What an agent is built from, hashed: the sources, this script, the
# toolchain scripts, the compiler and the options.  An arch whose agent
# was built from the same key (OBJ/ARCH/key, with the sysroot, itself
# named by its versions) and is still the file built then (its sha256) is
# not built again: six LTO builds took a minute of every `make check`.
# The checks below run on it all the same.
srckey=$({
	find ci/agents.sh agent common toolchains -type f -print0 | sort -z | xargs -0 sha256sum
	clang --version
	echo "map=${PERFLENS_AGENTS_MAP:-0}"
} | sha256sum | cut -d ' ' -f 1)
for arch in "${archs[@]}"; do
	sysroot=$(toolchains/sysroot.sh "$arch" | tail -n 1)
	out=$dist/perflens-agent-$arch
	# Compile each file (LLVM bitcode with LTO), then link.  Only probe.c
	# keeps frame pointers: the probe samples its own busy child to learn
	# whether fp call graphs work on the board; elsewhere they cost size.
	# agent/static/*.c come before the libraries and replace members of
	# them: zstd's unused match finders, and musl's printf family (its
	# long double support alone pulled ~3 KB of soft-float into aarch64);
	# printf.c took the agents from 162,648 / 163,480 / 163,760 / 124,556
	# / 128,000 bytes to 154,456 / 152,280 / 153,176 / 118,940 / 123,904
	# (x86_64 / aarch64 / aarch64_be / armv7l / armeb).
	obj=$objroot/$arch
	key="$srckey $arch $sysroot"
	if [ -f "$out" ] && [ "$(cat "$obj/key" 2>/dev/null)" = "$key" ] &&
		[ "$(sha256sum <"$out" | cut -d ' ' -f 1)" = "$(cat "$obj/agent.sha256" 2>/dev/null)" ] &&
		{ [ "${PERFLENS_AGENTS_MAP:-0}" != 1 ] || [ -f "$out.map" ]; }; then
		echo "# $out: built before from the same sources and toolchain ($obj/key)" >&2
	else
		rm -rf "$obj"
		mkdir -p "$obj"
		flags=(-std=gnu11 -D_GNU_SOURCE -DPL_BLOCK_NO_DECOMPRESS
			-DPL_ZSTD_FAST_ONLY -Oz -Icommon -Iagent)
		for src in agent/*.c agent/static/*.c common/*.c; do
			extra=()
			[ "$src" = agent/probe.c ] && extra=(-fno-omit-frame-pointer)
			o=$obj/$(echo "$src" | tr / _).o
			PERFLENS_SYSROOT=$sysroot toolchains/cc.sh "$arch" "${flags[@]}" "${extra[@]}" \
				-c "$src" -o "$o" &
		done
		wait
		map=()
		[ "${PERFLENS_AGENTS_MAP:-0}" = 1 ] && map=(-Wl,-Map="$out.map")
		PERFLENS_SYSROOT=$sysroot toolchains/cc.sh "$arch" -Oz "${map[@]}" -o "$out" "$obj"/*.o
		sha256sum <"$out" | cut -d ' ' -f 1 >"$obj/agent.sha256"
		echo "$key" >"$obj/key"
	fi
	size=$(stat -c %s "$out")
	kind=$(file -b "$out")
	static=no
	case "$kind" in *"statically linked"*|*"static-pie linked"*) static=yes ;; esac
	case "$kind" in *"not stripped"*) static="$static, NOT STRIPPED"; status=1 ;; esac
	verdict=ok
	[ "$size" -le "$budget" ] || { verdict="OVER $budget"; status=1; }
	[ "$static" = yes ] || status=1
	printf '| %s | %d | %s | %s |\n' "$arch" "$size" "$static" "$verdict" | tee -a "$dist/sizes.md"
done
exit $status
