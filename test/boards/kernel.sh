#!/usr/bin/env bash
# test/boards/kernel.sh BOARD — builds a big-endian board's kernel from
# Debian's own kernel source (the linux-source-6.1 package, installed by
# test/boards/deps.sh): no Debian kernel package exists for aarch64_be or
# armeb.  Prints the directory that holds it:
#
#   DIR/Image or DIR/zImage   what qemu boots (-kernel)
#   DIR/vmlinux               the same kernel unstripped, with DWARF
#   DIR/versions              "kernel linux-source-6.1 <pkg version> <uname -r>"
#   DIR/build/                the `make O=` directory (kept: make resumes an
#                             interrupted build there)
#
#   BOARD  arm64be  aarch64-linux-gnu-, allnoconfig + kernel-arm64be.config
#          armeb    arm-linux-gnueabihf- (BE8 through CPU_BIG_ENDIAN),
#                   allnoconfig + kernel-armeb.config
#          riscv64  riscv64-linux-gnu-, allnoconfig + kernel-riscv64.config
#                   (Debian 12 has no riscv64 kernel package)
#
# DIR is $PL_BOARDS_CACHE (default ~/.cache/perflens/boards)/kernel-<board>-
# <source version>-<hash of the fragment, this script and the compiler>, so a
# changed fragment or a new source package builds anew and a warm run only
# checks that DIR/versions exists.  The source tarball is unpacked once per
# version under src/.  Builds run niced, -j$(nproc) (PL_KERNEL_JOBS); a lock
# keeps two runs from building the same directory.  Measured on 2 cores
# shared with other builds (load 8 to 140): arm64be 7 min, armeb 16 min
# (5.4 min of CPU); BOARDS.md's arm64 build without DWARF took 2 min 20 s
# on idle cores.
set -euo pipefail
board=${1:?usage: kernel.sh arm64be|armeb|riscv64}
here=$(cd "$(dirname "$0")" && pwd)
case "$board" in
arm64be) karch=arm64 cross=aarch64-linux-gnu- image=Image ;;
armeb) karch=arm cross=arm-linux-gnueabihf- image=zImage ;;
riscv64) karch=riscv cross=riscv64-linux-gnu- image=Image ;;
*) echo "kernel.sh: unknown board $board (arm64be, armeb or riscv64)" >&2; exit 2 ;;
esac
frag=$here/kernel-$board.config
cache=${PL_BOARDS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/boards}
tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
[ -f "$tarball" ] && [ -n "$srcver" ] ||
	{ echo "kernel.sh: linux-source-6.1 is not installed (run ci/deps.sh)" >&2; exit 1; }
command -v "${cross}gcc" >/dev/null ||
	{ echo "kernel.sh: ${cross}gcc is not installed (run ci/deps.sh)" >&2; exit 1; }

hash=$( { cat "$frag" "$0"; "${cross}gcc" --version | head -n 1; } | sha256sum | cut -c1-12)
key=kernel-$board-linux-source-6.1_$srcver-$hash
key=${key//[^A-Za-z0-9._+-]/_}
dir=$cache/$key
if [ -f "$dir/versions" ]; then echo "$dir"; exit 0; fi

mkdir -p "$cache/src"
exec 9>"$cache/$key.lock"
flock 9
if [ -f "$dir/versions" ]; then echo "$dir"; exit 0; fi   # built meanwhile

# the source, unpacked once per package version (shared by both boards)
src=$cache/src/linux-source-6.1_${srcver//[^A-Za-z0-9._+-]/_}
if [ ! -f "$src/.unpacked" ]; then
	exec 8>"$cache/src/.lock"
	flock 8
	if [ ! -f "$src/.unpacked" ]; then
		echo "kernel.sh: unpacking $tarball ($srcver)" >&2
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
		mv "$src.tmp" "$src"
		touch "$src/.unpacked"
	fi
	exec 8>&-
fi

jobs=${PL_KERNEL_JOBS:-$(nproc)}
kmake=(nice make -s -C "$src" O="$dir/build" ARCH="$karch" CROSS_COMPILE="$cross"
	KBUILD_BUILD_USER=perflens KBUILD_BUILD_HOST=boards -j"$jobs")
mkdir -p "$dir/build"
t0=$SECONDS
echo "kernel.sh: configuring $board (allnoconfig + $(basename "$frag"))" >&2
"${kmake[@]}" KCONFIG_ALLCONFIG="$frag" allnoconfig >&2
# every option of the fragment must have survived the dependencies
bad=$(grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$frag" | while IFS= read -r l; do
	case "$l" in
	"# "*) o=${l#\# }; o=${o% is not set}; grep -q "^$o=" "$dir/build/.config" && echo "$o (wanted off)" ;;
	*) grep -qxF "$l" "$dir/build/.config" || echo "$l (got: $(grep -E "^(# )?${l%%=*}[= ]" "$dir/build/.config" || echo absent))" ;;
	esac
done)
if [ -n "$bad" ]; then
	echo "kernel.sh: options of $(basename "$frag") that did not survive allnoconfig:" >&2
	echo "$bad" >&2
	exit 1
fi
echo "kernel.sh: building $board $image in $dir/build (-j$jobs)" >&2
"${kmake[@]}" "$image" >&2
cp "$dir/build/arch/$karch/boot/$image" "$dir/$image"
ln -sf build/vmlinux "$dir/vmlinux"
printf 'kernel linux-source-6.1 %s %s\nbuilt %s s\n' "$srcver" \
	"$(cat "$dir/build/include/config/kernel.release")" $((SECONDS - t0)) >"$dir/versions.tmp"
mv "$dir/versions.tmp" "$dir/versions"
echo "$dir"
