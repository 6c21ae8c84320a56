#!/usr/bin/env bash
# test/realworld/build.sh — the real programs of the matrix, built from
# their Debian source packages with the distribution's CFLAGS (-g -O2 ...),
# as a user of the profiler would build them, each twice:
#
#   fp/     + -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer (--callgraph fp)
#   nofp/   the distribution's flags as they are (GCC omits frame pointers
#           on x86-64), for --callgraph dwarf
#
# and in each: bzip2 (C, the compressor), libbz2.so.1.0 (dlopened by
# python3's ctypes), lzip (C++: classes, inlining), pbzip2 (C++,
# pthreads; linked with this libbz2.a), bzip2-stripped (symbols only in
# debug/.build-id/NN/REST.debug, found through the build-id or the
# .gnu_debuglink), and input (16 MiB of deterministic text-like data).
#
# Sources come through toolchains/lib.sh's private deb-src configuration
# (the system's apt configuration is never touched); builds are copies,
# never in the source tree.  Everything lands in
#   ${PL_REALWORLD_CACHE:-${XDG_CACHE_HOME:-~/.cache}/perflens/realworld}/<key>/
# where <key> names the three source versions and a hash of this script.
#
#   test/realworld/build.sh      prints that directory (last line of stdout)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../toolchains/lib.sh
. "$here/../../toolchains/lib.sh"

pl_apt_ready
bz=$(pl_fetch_source bzip2)
pb=$(pl_fetch_source pbzip2)
lz=$(pl_fetch_source lzip)
recipe=$(sha256sum "$0" | cut -c1-10)
cache=${PL_REALWORLD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/realworld}
dir=$cache/$(basename "$bz")+$(basename "$pb")+$(basename "$lz")-$recipe
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
srcdir() { find "$1" -mindepth 1 -maxdepth 1 -type d -name "$2-*" | head -n 1; }
bzs=$(srcdir "$bz" bzip2) pbs=$(srcdir "$pb" pbzip2) lzs=$(srcdir "$lz" lzip)
[ -n "$bzs" ] && [ -n "$pbs" ] && [ -n "$lzs" ] || pl_die "an unpacked source is missing under $PL_TC_CACHE/src"
base=$(dpkg-buildflags --get CFLAGS | sed 's/-ffile-prefix-map=[^ ]*//')
cxxbase=$(dpkg-buildflags --get CXXFLAGS | sed 's/-ffile-prefix-map=[^ ]*//')
libsrc=(blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c)
libobj=("${libsrc[@]/%.c/.o}") pic=("${libsrc[@]/%.c/.pic.o}")

for v in fp nofp; do
	o=$tmp/$v
	mkdir -p "$o/obj"
	extra=
	[ $v = fp ] && extra="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
	# the sources stay where the binaries' DWARF points (copied beside them)
	cp -a "$bzs" "$o/bzip2-src"; cp -a "$pbs" "$o/pbzip2-src"; cp -a "$lzs" "$o/lzip-src"
	echo "realworld: building bzip2, libbz2.so, lzip, pbzip2 ($v): $base $extra" >&2
	(
		set -e
		cd "$o/bzip2-src"
		for f in "${libsrc[@]}"; do
			gcc $base $extra -D_FILE_OFFSET_BITS=64 -c "$f" -o "$o/obj/${f%.c}.o" &
			gcc $base $extra -D_FILE_OFFSET_BITS=64 -fPIC -c "$f" -o "$o/obj/${f%.c}.pic.o"
			wait $!
		done
		ar rcs "$o/libbz2.a" "${libobj[@]/#/$o/obj/}"
		gcc -shared $base $extra -Wl,-soname,libbz2.so.1.0 -o "$o/libbz2.so.1.0" "${pic[@]/#/$o/obj/}"
		gcc $base $extra -D_FILE_OFFSET_BITS=64 -o "$o/bzip2" bzip2.c "$o/libbz2.a"
		cd "$o/lzip-src"
		g++ $cxxbase $extra -DPROGVERSION='"1.23"' -o "$o/lzip" ./*.cc
		cd "$o/pbzip2-src"
		g++ $cxxbase $extra -pthread -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64 \
			-DUSE_STACKSIZE_CUSTOMIZATION -I"$o/bzip2-src" \
			-o "$o/pbzip2" pbzip2.cpp BZ2StreamScanner.cpp ErrorContext.cpp "$o/libbz2.a" -pthread
	) >&2
	# A stripped program whose symbols are in a separate debug file, as
	# distributions ship them: the debug file under debug/.build-id/, the
	# program carrying its .gnu_debuglink.
	id=$(readelf -n "$o/bzip2" | awk '/Build ID:/ { print $3 }')
	[ -n "$id" ] || pl_die "no build-id in $o/bzip2"
	mkdir -p "$o/debug/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$o/bzip2" "$o/debug/.build-id/${id:0:2}/${id:2}.debug"
	objcopy --strip-all --add-gnu-debuglink="$o/debug/.build-id/${id:0:2}/${id:2}.debug" \
		"$o/bzip2" "$o/bzip2-stripped"
	rm -rf "$o/obj"
done

# 16 MiB of lines of pseudo-words and numbers; the same bytes everywhere
awk 'BEGIN {
	srand(11); split("alpha beta gamma delta sample frame stack thread block agent viewer perf kernel ring buffer", w, " ");
	n = 0; max = 16 * 1048576
	while (n < max) {
		line = ""
		k = 4 + int(rand() * 12)
		for (i = 0; i < k; i++)
			line = line w[1 + int(rand() * 15)] (rand() < 0.3 ? sprintf("%d", int(rand() * 100000)) : "") " "
		line = line "\n"
		if (n + length(line) > max) line = substr(line, 1, max - n)
		printf "%s", line
		n += length(line)
	}
}' >"$tmp/input"
cat >"$tmp/VERSIONS" <<EOV
sources: $(basename "$bz") $(basename "$pb") $(basename "$lz") (Debian source packages)
recipe: $recipe (sha256 of test/realworld/build.sh)
cflags: $base  [+ -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer in fp/]
cxxflags: $cxxbase
built: $(date -u +%FT%TZ)
EOV
touch "$tmp/.complete"
rm -rf "$dir"
mv -T "$tmp" "$dir"
trap - EXIT
echo "$dir"
