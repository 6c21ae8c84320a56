#!/usr/bin/env bash
# test/boards/userland.sh ARCH — busybox and dropbear for a board whose
# architecture Debian 12 has no port for (riscv64: bookworm has no riscv64
# binary packages, so fetch.sh's dropbear-bin and busybox-static do not
# exist for it), built here from Debian's own source packages with Debian's
# cross compiler, against the cross glibc the board's workloads use.
# Prints the directory that holds them, laid out as fetch.sh's two kinds
# are, so that mkinitramfs-ssh.sh takes it for both:
#
#   DIR/busybox                  static (Debian's busybox-static config)
#   DIR/sbin/dropbear DIR/bin/dropbearkey
#                                dynamic against the cross glibc
#   DIR/lib/ (empty)             nothing beyond glibc is needed
#   DIR/libc-needed              the sonames they leave for glibc
#   DIR/modules/ (empty) DIR/modules.order (empty)
#                                the kernel (kernel.sh) has virtio built in
#   DIR/versions
#
# DIR is ~/.cache/perflens/boards/<arch>-userland-busybox_<ver>-dropbear_<ver>-<hash>,
# the hash over this script and the cross compiler's version.  Sources come
# through toolchains/lib.sh's private deb-src configuration; builds are
# copies, never in the source tree.
#
# dropbear is configured as Debian's package is (its debian/localoptions.h)
# but for three things: no zlib and the bundled libtom (no riscv64 packages
# of either), and no password logins (DROPBEAR_SVR_PASSWORD_AUTH 0): the
# cross glibc has no crypt() (Debian's libcrypt is libxcrypt, not built for
# riscv64), and the boards' dropbear runs with -s (keys only) anyway.
set -euo pipefail
arch=${1:?usage: userland.sh riscv64}
case "$arch" in
riscv64) triple=riscv64-linux-gnu karch=riscv ;;
*) echo "userland.sh: $arch has Debian packages (fetch.sh ARCH, fetch.sh ARCH dropbear)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../toolchains/lib.sh
. "$here/../../toolchains/lib.sh"
cc=$triple-gcc
command -v "$cc" >/dev/null || pl_die "$cc missing (test/boards/deps.sh installs gcc-$triple)"

cache=${PL_BOARDS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/boards}
pl_apt_ready
bb=$(pl_fetch_source busybox)
db=$(pl_fetch_source dropbear)
recipe=$({ cat "$0"; "$cc" --version | head -n 1; } | sha256sum | cut -c1-10)
dir=$cache/$arch-userland-$(basename "$bb")-$(basename "$db")-$recipe
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/tmp-userland.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
srcdir() { find "$1" -mindepth 1 -maxdepth 1 -type d -name "$2-*" | head -n 1; }
bbs=$(srcdir "$bb" busybox) dbs=$(srcdir "$db" dropbear)
[ -n "$bbs" ] && [ -n "$dbs" ] || pl_die "an unpacked source is missing under $PL_TC_CACHE/src"
mkdir -p "$tmp/out/sbin" "$tmp/out/bin" "$tmp/out/lib" "$tmp/out/modules"
jobs=$(nproc)

echo "userland: building busybox ($(basename "$bb"), Debian's static config) for $arch" >&2
cp -a "$bbs" "$tmp/busybox"
(
	cd "$tmp/busybox"
	cp debian/config/pkg/static .config
	# options the config predates take their defaults
	yes '' | make ARCH=$karch CROSS_COMPILE=$triple- oldconfig >/dev/null
	nice make -j"$jobs" ARCH=$karch CROSS_COMPILE=$triple- busybox
) >"$tmp/busybox.log" 2>&1 || { tail -n 20 "$tmp/busybox.log" >&2; pl_die "busybox did not build for $arch ($tmp/busybox.log above)"; }
cp "$tmp/busybox/busybox" "$tmp/out/busybox"

echo "userland: building dropbear ($(basename "$db")) for $arch" >&2
cp -a "$dbs" "$tmp/dropbear"
(
	cd "$tmp/dropbear"
	{ cat debian/localoptions.h; echo '#define DROPBEAR_SVR_PASSWORD_AUTH 0'; } >localoptions.h
	./configure --host=$triple CC="$cc" CFLAGS='-O2 -g' --disable-zlib --disable-pam \
		--disable-lastlog --disable-utmp --disable-utmpx --disable-wtmp --disable-wtmpx
	nice make -j"$jobs" PROGRAMS='dropbear dropbearkey'
) >"$tmp/dropbear.log" 2>&1 || { tail -n 20 "$tmp/dropbear.log" >&2; pl_die "dropbear did not build for $arch"; }
cp "$tmp/dropbear/dropbear" "$tmp/out/sbin/"
cp "$tmp/dropbear/dropbearkey" "$tmp/out/bin/"

# what the board's /lib must hold: every NEEDED entry is glibc's
: >"$tmp/out/libc-needed"
for f in "$tmp/out/sbin/dropbear" "$tmp/out/bin/dropbearkey"; do
	for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case "$n" in
		libc.so.* | ld-linux-*) grep -qxF "$n" "$tmp/out/libc-needed" || echo "$n" >>"$tmp/out/libc-needed" ;;
		*) pl_die "$(basename "$f") needs $n, which is not glibc's" ;;
		esac
	done
done
readelf -d "$tmp/out/busybox" | grep -q '(NEEDED)' && pl_die "busybox is not static"
: >"$tmp/out/modules.order"
{
	echo "busybox $(basename "$bb")"
	echo "dropbear $(basename "$db")"
	echo "cc $("$cc" --version | head -n 1)"
} >"$tmp/out/versions"
touch "$tmp/out/.complete"
rm -rf "$dir"
mv -T "$tmp/out" "$dir"
echo "$dir"
