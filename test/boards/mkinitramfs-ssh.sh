#!/usr/bin/env bash
# test/boards/mkinitramfs-ssh.sh ARCH FETCHED DROPBEAR AUTHORIZED_KEYS OUT —
# the initramfs of a board reached over SSH (test/integration/ssh-board.sh):
# busybox, the virtio modules, Debian's dropbear with its libraries, the
# workload, and init-ssh.sh as /init.  No agent: the host's `perflens
# record ssh://root@…` deploys one from dist/, which is what is tested.
#
#   ARCH             arm64 | armhf (Debian user space: glibc, busybox) |
#                    riscv64 (busybox and dropbear built by userland.sh)
#   FETCHED          the directory `fetch.sh ARCH` printed (kernel, modules,
#                    busybox); riscv64: userland.sh's (no modules: the
#                    kernel kernel.sh built has virtio built in)
#   DROPBEAR         the directory `fetch.sh ARCH dropbear` printed;
#                    riscv64: userland.sh's
#   AUTHORIZED_KEYS  becomes root's ~/.ssh/authorized_keys on the board
#   OUT              output directory; gets root/ (the guest's files: the
#                    host's copies for symbolization) and initrd.gz
#
# /burn is test/workloads/burn.c as mkinitramfs.sh builds it for the fp
# mode (-DBURN_LFIND, frame pointers, dynamic against the cross glibc).
# glibc (and its loader) comes from the cross compiler, as for the
# workloads: dropbear's own libraries need nothing newer (fetch.sh lists
# what they leave for glibc in DROPBEAR/libc-needed).
set -euo pipefail
arch=${1:?usage: mkinitramfs-ssh.sh ARCH FETCHED DROPBEAR AUTHORIZED_KEYS OUT}
fetched=${2:?} dropbear=${3:?} keys=${4:?} out=${5:?}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
case "$arch" in
arm64) cc=aarch64-linux-gnu-gcc cflags= ;;
armhf) cc=arm-linux-gnueabihf-gcc cflags=-marm ;;
riscv64) cc=riscv64-linux-gnu-gcc cflags= ;;
*) echo "mkinitramfs-ssh.sh: no user space for $arch (arm64, armhf or riscv64)" >&2; exit 2 ;;
esac

root=$out/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/lib" "$root/modules" "$root/dev" "$root/proc" \
	"$root/sys" "$root/tmp" "$root/etc" "$root/root/.ssh"

$cc -O1 -g -pthread -fno-inline-functions-called-once -Wall -Werror $cflags -DBURN_LFIND \
	-fno-omit-frame-pointer -o "$root/burn" "$top/test/workloads/burn.c"

# glibc: the loader the workload asks for, and what dropbear leaves for it
interp=$(readelf -l "$root/burn" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ "$(dirname "$interp")" = /lib ] ||
	{ echo "mkinitramfs-ssh.sh: unexpected interpreter $interp" >&2; exit 1; }
for f in "$(basename "$interp")" libc.so.6 $(cat "$dropbear/libc-needed"); do
	[ -e "$root/lib/$f" ] && continue
	p=$($cc -print-file-name="$f")
	[ -f "$p" ] || { echo "mkinitramfs-ssh.sh: $cc has no $f" >&2; exit 1; }
	cp -L "$p" "$root/lib/$f"
done
for l in "$dropbear"/lib/*; do # none when dropbear needs glibc alone
	[ -e "$l" ] && cp "$l" "$root/lib/"
done
cp "$dropbear/sbin/dropbear" "$root/sbin/"
cp "$dropbear/bin/dropbearkey" "$root/bin/"

# root, and the user pl (uid 1000: not root, so Debian's
# perf_event_paranoid=3 refuses it perf events), log in with a key only:
# "x" (no password; dropbear rejects an empty one) and a shell listed in
# /etc/shells (dropbear checks)
printf 'root:x:0:0:root:/root:/bin/sh\npl:x:1000:1000:pl:/home/pl:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\npl:x:1000:\n' >"$root/etc/group"
echo /bin/sh >"$root/etc/shells"
mkdir -p "$root/home/pl/.ssh"
for h in "$root/root" "$root/home/pl"; do
	cp "$keys" "$h/.ssh/authorized_keys"
	chmod 700 "$h" "$h/.ssh"
	chmod 600 "$h/.ssh/authorized_keys"
done

cp "$fetched/busybox" "$root/bin/busybox"
for m in "$fetched"/modules/*.ko; do
	[ -e "$m" ] && cp "$m" "$root/modules/"
done
cp "$fetched/modules.order" "$root/modules.order"
cp "$here/init-ssh.sh" "$root/init"
cp "$here/board-up.sh" "$root/board-up.sh"
chmod 755 "$root/init" "$root/bin/busybox" "$root/sbin/dropbear" "$root/bin/dropbearkey"

# every file root's: /init gives pl its home
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
