#!/usr/bin/env bash
# test/boards/mkinitramfs.sh ARCH FETCHED OUT — assembles an emulated
# board's initramfs: busybox, the virtio modules, the static agent
# (dist/perflens-agent-<aarch64|armv7l>), and the cross-built workloads with
# the cross libc they link against.
#
#   ARCH     arm64 | armhf | arm64be | armeb | riscv64
#   FETCHED  the directory fetch.sh printed (vmlinuz, busybox, modules);
#            for the big-endian boards the one kernel.sh printed (unused
#            here: their kernels have everything built in)
#   OUT      output directory; gets root/ (the guest's files, unstripped:
#            the host's copies for symbolization), initrd.gz
#
# Workloads: test/workloads/burn.c built with -DBURN_LFIND (see there), all
# -g -O1, dynamic against Debian's cross glibc, installed in the guest as
#   /burn       frame pointers kept       (fp mode)
#   /burn-nofp  -fomit-frame-pointer      (dwarf mode)
#   /burn-lib   hot path in /lib/libboardhot.so, no frame pointers
#   /naps       test/workloads/naps.c, frame pointers kept: slow calls
#   /rss        test/workloads/rss.c: known RSS steps (counter tracks)
#               made through libc (stacks at events)
#   /periodic   test/workloads/periodic.c: a 10 ms TIMER_ABSTIME task that
#               logs its own activations; /periods (periods.sh) runs it
#               beside a CPU hog (the periods row)
#   /irqload    test/workloads/irqload.c: /proc's interrupt counts around
#               known loopback and timer load (the irq row)
# and, fully static against musl with this project's own toolchain
# (toolchains/cc.sh: clang, lld, unstripped), as Buildroot, Alpine and
# single-binary firmware boards run their programs:
#   /burn-musl  frame pointers kept, ARM mode on armhf
# The guest keeps the libraries at /lib, where Debian's cross sysroot
# (/usr/<triplet>/lib) keeps them too, so that sysroot symbolizes the guest.
# riscv64 (no Debian port in bookworm, no busybox): those workloads, and
# init.c as /init as on the big-endian boards.
#
# The big-endian boards (arm64be: aarch64_be, armeb: BE8 ARMv7) have no
# Debian user space at all (no glibc, no busybox): everything there is
# static musl from toolchains/cc.sh, unstripped,
#   /init             test/boards/init.c (what init.sh does, in C)
#   /burn-musl        frame pointers kept                      (fp mode)
#   /burn-musl-nofp   -fomit-frame-pointer -funwind-tables     (dwarf mode)
# ARM mode on armeb, as on armhf.  -funwind-tables gives .eh_frame on
# aarch64_be and EHABI tables (.ARM.exidx) on armeb; those reference
# __aeabi_unwind_cpp_pr0/pr1, which musl + compiler-rt do not define:
# aeabi-unwind-stubs.c defines them (never called from C), built without
# LTO, which would drop them before the linker sees the references.
set -euo pipefail
arch=${1:?usage: mkinitramfs.sh ARCH FETCHED OUT}
fetched=${2:?}
out=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
case "$arch" in
arm64) cc=aarch64-linux-gnu-gcc agent=aarch64 cflags= ;;
# ARM mode: the kernel's ARM32 user call-chain walker knows no Thumb frames
armhf) cc=arm-linux-gnueabihf-gcc agent=armv7l cflags=-marm ;;
arm64be) cc= agent=aarch64_be cflags= ;;
armeb) cc= agent=armeb cflags=-marm ;;
# no Debian port in bookworm: Debian's cross glibc for the workloads, the
# big-endian boards' init.c for /init (no busybox); unwind tables asked
# for explicitly, as gcc 12 does not add them by default on riscv64
riscv64) cc=riscv64-linux-gnu-gcc agent=riscv64 cflags=-fasynchronous-unwind-tables ;;
*) echo "mkinitramfs.sh: unknown arch $arch" >&2; exit 2 ;;
esac
tcarch=$agent   # toolchains/cc.sh names the targets as the agents do
agent=$top/dist/perflens-agent-$agent

root=$out/root
rm -rf "$root"
src=$top/test/workloads/burn.c
musl=(env PERFLENS_STRIP=0 "$top/toolchains/cc.sh" "$tcarch" -O1 -g -pthread -Wall -Werror -DBURN_LFIND $cflags)

if [ -z "$cc" ]; then # big-endian: static musl only
	mkdir -p "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
	"${musl[@]}" -fno-omit-frame-pointer -o "$root/burn-musl" "$src"
	stubs=()
	[ "$arch" = armeb ] && stubs=("$here/aeabi-unwind-stubs.c")
	PERFLENS_LTO=0 "${musl[@]}" -fomit-frame-pointer -funwind-tables \
		-o "$root/burn-musl-nofp" "$src" "${stubs[@]}"
	PERFLENS_STRIP=0 "$top/toolchains/cc.sh" "$tcarch" -O2 -Wall -Werror -o "$root/init" "$here/init.c"
	"$top/toolchains/cc.sh" "$tcarch" -O2 -Wall -Werror -o "$root/detach" "$here/detach.c"
	cp "$agent" "$root/perflens-agent"
	chmod 755 "$root/init" "$root/perflens-agent"
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out/initrd.gz.tmp"
	mv "$out/initrd.gz.tmp" "$out/initrd.gz"
	exit 0
fi

mkdir -p "$root/bin" "$root/lib" "$root/modules" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"

# workloads
base="-O1 -g -pthread -fno-inline-functions-called-once -Wall -Werror $cflags"
$cc $base -DBURN_LFIND -fno-omit-frame-pointer -o "$root/burn" "$src"
$cc $base -DBURN_LFIND -fomit-frame-pointer -o "$root/burn-nofp" "$src"
$cc $base -DBURN_HOT_ONLY -fomit-frame-pointer -fPIC -shared -Wl,-soname,libboardhot.so \
	-o "$root/lib/libboardhot.so" "$src"
$cc $base -DBURN_LFIND -DBURN_HOT_EXTERN -fomit-frame-pointer -o "$root/burn-lib" "$src" \
	-L"$root/lib" -lboardhot
$cc $base -fno-omit-frame-pointer -o "$root/naps" "$top/test/workloads/naps.c"
$cc $base -o "$root/rss" "$top/test/workloads/rss.c"
$cc $base -o "$root/periodic" "$top/test/workloads/periodic.c"
$cc $base -o "$root/irqload" "$top/test/workloads/irqload.c"
cp "$here/periods.sh" "$root/periods"
chmod 755 "$root/periods"
# lld packs the text segment into a file page it shares with .rodata, so
# the mapping of the code starts below its PT_LOAD: the viewer must take
# the load bias from that segment (a wrong one named other functions).
"${musl[@]}" -fno-omit-frame-pointer -o "$root/burn-musl" "$src"
# starts the --all row's workload and exits (detach.c)
"$top/toolchains/cc.sh" "$tcarch" -O2 -Wall -Werror -o "$root/detach" "$here/detach.c"

# the cross libc the workloads were linked against, and its loader
interp=$(readelf -l "$root/burn" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
for f in "$interp" libc.so.6; do
	p=$($cc -print-file-name="$(basename "$f")")
	[ -f "$p" ] || { echo "mkinitramfs.sh: $cc has no $(basename "$f")" >&2; exit 1; }
	cp -L "$p" "$root/lib/$(basename "$f")"
done
[ "$(dirname "$interp")" = /lib ] ||
	{ echo "mkinitramfs.sh: unexpected interpreter $interp" >&2; exit 1; }

cp "$agent" "$root/perflens-agent"
if [ "$arch" = riscv64 ]; then
	# the riscv64 board: glibc workloads as above, the rest as the
	# big-endian boards (their init.c; eth0 from the kernel's ip=)
	PERFLENS_STRIP=0 "$top/toolchains/cc.sh" "$tcarch" -O2 -Wall -Werror -o "$root/init" "$here/init.c"
	chmod 755 "$root/init" "$root/perflens-agent"
	rmdir "$root/bin" "$root/modules"
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out/initrd.gz.tmp"
	mv "$out/initrd.gz.tmp" "$out/initrd.gz"
	exit 0
fi
cp "$fetched/busybox" "$root/bin/busybox"
cp "$fetched"/modules/*.ko "$root/modules/"
cp "$fetched/modules.order" "$root/modules.order"
cp "$here/init.sh" "$root/init"
cp "$here/board-up.sh" "$root/board-up.sh"
chmod 755 "$root/init" "$root/bin/busybox" "$root/perflens-agent"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
