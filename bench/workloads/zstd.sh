#!/usr/bin/env bash
# bench/workloads/zstd.sh — a real multi-threaded program for the benchmarks:
# the zstd command-line compressor, built from the Debian source package
# (libzstd) twice, as a user of the profiler would build it:
#
#   fp/zstd     the distribution's CFLAGS + -fno-omit-frame-pointer
#               -mno-omit-leaf-frame-pointer (for --callgraph fp)
#   nofp/zstd   the distribution's CFLAGS as they are (-g -O2: on x86-64 GCC
#               omits frame pointers), for --callgraph dwarf
#
# The source comes through toolchains/lib.sh's private deb-src configuration
# (the system's apt configuration is never touched) and is copied, never
# built in place; everything lands in ~/.cache/perflens/bench/<key>/ where
# <key> names the source version and a hash of this script, so a new Debian
# upload or a new recipe builds beside the old one.  Nothing third-party is
# ever written into the work tree.
#
#   bench/workloads/zstd.sh        prints the directory (last line of stdout)
#
# Also makes <dir>/input: a deterministic 48 MiB mix of text-like and
# binary-like data that zstd -19 compresses at a few MB/s per thread.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../toolchains/lib.sh
. "$here/../../toolchains/lib.sh"
PL_TC_QUIET=${PL_TC_QUIET:-}

pl_apt_ready
src=$(pl_fetch_source libzstd)
ver=$(basename "$src")
recipe=$(sha256sum "$0" | cut -c1-10)
cache=${PERFLENS_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/bench}
dir=$cache/zstd-${ver#libzstd_}-$recipe
if [ ! -f "$dir/.complete" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/tmp.zstd.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	top=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'libzstd-*' | head -n 1)
	[ -n "$top" ] || pl_die "no libzstd-* directory in $src"
	base=$(dpkg-buildflags --get CFLAGS | sed 's/-ffile-prefix-map=[^ ]*//')
	for v in fp nofp; do
		cp -a "$top" "$tmp/src-$v"
		flags="$base"
		[ $v = fp ] && flags="$flags -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
		echo "bench: building zstd ($v): $flags" >&2
		# no optional codecs: the same program whatever -dev packages exist
		make -s -C "$tmp/src-$v/programs" -j2 zstd CFLAGS="$flags" \
			HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 >&2
		mkdir -p "$tmp/$v"
		cp "$tmp/src-$v/programs/zstd" "$tmp/$v/zstd"
		# keep the sources the binary's DWARF points at (symbolizing, perf annotate)
	done
	# 48 MiB: lines of pseudo-words (text-like) interleaved with runs of
	# numbers (binary-like); the same bytes on every machine.
	awk 'BEGIN {
		srand(7); split("alpha beta gamma delta sample frame stack thread block agent viewer perf kernel ring buffer", w, " ");
		n = 0
		while (n < 48 * 1048576) {
			line = ""
			k = 4 + int(rand() * 12)
			for (i = 0; i < k; i++)
				line = line w[1 + int(rand() * 15)] (rand() < 0.3 ? sprintf("%d", int(rand() * 100000)) : "") " "
			line = line "\n"
			if (n + length(line) > 48 * 1048576)
				line = substr(line, 1, 48 * 1048576 - n)
			printf "%s", line
			n += length(line)
		}
	}' >"$tmp/input"
	cat >"$tmp/VERSIONS" <<EOV
source: $ver (Debian source package libzstd)
recipe: $recipe (sha256 of bench/workloads/zstd.sh)
cflags: $base  [+ -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer for fp/]
built: $(date -u +%FT%TZ)
EOV
	touch "$tmp/.complete"
	rm -rf "$dir"
	mv -T "$tmp" "$dir"
	trap - EXIT
fi
echo "$dir"
