#!/usr/bin/env bash
# test/boards/fetch.sh ARCH — fetches what an emulated board boots: Debian's
# kernel for ARCH (arm64: the -unsigned arm64 image; armhf: armmp), the few
# modules the guest needs for networking, and a static busybox.  Prints the
# directory that holds them:
#
#   DIR/vmlinuz  DIR/modules/*.ko  DIR/modules.order  DIR/busybox  DIR/versions
#
# DIR is ~/.cache/perflens/boards/<arch>-<kernel pkg>_<version>-busybox_<version>,
# so a new kernel in the archive gets a new directory and a warm run touches
# no network.  Packages come through a private apt configuration (its own
# lists, status and architectures) under ~/.cache/perflens/boards/apt: the
# machine's dpkg is never told about arm64/armhf (`dpkg --add-architecture`
# once made the system's `apt-get update` fail on a half-synced mirror).
# The kernel package is resolved through the metapackage, never a hard-coded
# version: old versions leave the archive.
#
# test/boards/fetch.sh ARCH dropbear — instead, Debian's dropbear SSH server
# for ARCH (`dropbear-bin`) and the libraries it needs beyond glibc (the
# Depends closure of the package, less libc6: the board's glibc is the
# cross sysroot's), for a board reached over ssh:// (ssh-board.sh).  Prints
# the directory that holds them:
#
#   DIR/sbin/dropbear  DIR/bin/dropbearkey  DIR/lib/<soname>...
#   DIR/libc-needed (the sonames left for glibc)  DIR/versions
#
# DIR is ~/.cache/perflens/boards/<arch>-dropbear-bin_<version>-<hash of
# the libraries' versions>; every NEEDED entry of the programs and the
# libraries is checked to be in DIR/lib or glibc's (readelf -d).
set -euo pipefail

arch=${1:?usage: fetch.sh arm64|armhf [dropbear]}
what=${2:-kernel}
case "$arch" in
arm64) meta=linux-image-arm64 ;;
armhf) meta=linux-image-armmp ;;
*) echo "fetch.sh: unknown arch $arch (arm64 or armhf)" >&2; exit 2 ;;
esac
case "$what" in
kernel | dropbear) ;;
*) echo "fetch.sh: unknown package set $what (dropbear, or none for the kernel)" >&2; exit 2 ;;
esac

cache=${PL_BOARDS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/boards}
apt=$cache/apt
mkdir -p "$apt/etc/sources.list.d" "$apt/etc/preferences.d" "$apt/state/lists/partial" \
	"$apt/cache/archives/partial" "$apt/debs"
[ -f "$apt/state/status" ] || : >"$apt/state/status"

# The machine's own sources (same mirror, same suites), read for the two
# ARM architectures only.
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	grep -qs 'debian' "$f" || continue
	case "$f" in
	/etc/apt/sources.list) cp "$f" "$apt/etc/sources.list" ;;
	*) cp "$f" "$apt/etc/sources.list.d/" ;;
	esac
done
[ -f "$apt/etc/sources.list" ] || : >"$apt/etc/sources.list"
cat >"$apt/apt.conf" <<CONF
Dir::State "$apt/state";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
Dir::Etc::SourceList "$apt/etc/sources.list";
Dir::Etc::SourceParts "$apt/etc/sources.list.d";
Dir::Etc::Preferences "$apt/etc/preferences";
Dir::Etc::PreferencesParts "$apt/etc/preferences.d";
APT::Architecture "$arch";
APT::Architectures { "arm64"; "armhf"; };
Acquire::Languages "none";
APT::Sandbox::User "root";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
CONF
export APT_CONFIG=$apt/apt.conf

candidate() { # PKG -> version apt would download
	apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'
}

# PKG... -> the version apt would download of each: ver[PKG], vers ("PKG
# VERSION" lines, for the cache key and DIR/versions) and want (apt-get
# download's PKG:ARCH=VERSION words).  A package without one is an error.
declare -A ver
resolve() {
	local p v
	vers="" want=()
	for p in "$@"; do
		v=$(candidate "$p:$arch")
		[ -n "$v" ] && [ "$v" != "(none)" ] || { echo "fetch.sh: no candidate for $p:$arch" >&2; exit 1; }
		ver[$p]=$v
		vers="$vers$p $v"$'\n'
		want+=("$p:$arch=$v")
	done
}

# KEY DEBS -> dir, the cache directory of KEY: printed, and the script done,
# when it is complete; else want downloaded into DEBS (default $tmp/debs),
# and $tmp made, where the caller builds DIR's contents as $tmp/out (removed
# on exit; publish moves it into place).
cached_or_download() {
	dir=$cache/${1//[^A-Za-z0-9._+-]/_}
	if [ -f "$dir/versions" ]; then
		echo "$dir" | tee "$resolved"; exit 0
	fi
	echo "fetch.sh: downloading ${want[*]}" >&2
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	local debs=${2:-$tmp/debs}
	mkdir -p "$debs" "$tmp/out"
	(cd "$debs" && apt-get -q download "${want[@]}" >&2)
}

publish() { # $tmp/out becomes dir, which the current lists now lead to
	rm -rf "$dir"
	mv "$tmp/out" "$dir"
	echo "$dir" | tee "$resolved"
}

# dropbear-bin and the closure of its Depends but libc6 (see the header).
fetch_dropbear() {
	local todo=(dropbear-bin) pkgs=() p d
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]} todo=("${todo[@]:1}")
		case " ${pkgs[*]} " in *" $p "*) continue ;; esac
		pkgs+=("$p")
		for d in $(apt-cache depends "$p:$arch" 2>/dev/null |
			awk '$1 == "Depends:" { sub(/:.*/, "", $2); print $2 }'); do
			# glibc is the cross sysroot's (the workloads link against it)
			case "$d" in libc6 | libgcc-s1 | "<"*) continue ;; esac
			todo+=("$d")
		done
	done
	resolve "${pkgs[@]}"
	cached_or_download "$arch-dropbear-bin_${ver[dropbear-bin]}-$(printf '%s' "$vers" | sha256sum | cut -c1-12)"
	mkdir -p "$tmp/x" "$tmp/out/sbin" "$tmp/out/bin" "$tmp/out/lib"
	for f in "$tmp/debs/"*.deb; do dpkg-deb -x "$f" "$tmp/x"; done
	cp "$tmp/x/usr/sbin/dropbear" "$tmp/out/sbin/"
	cp "$tmp/x/usr/bin/dropbearkey" "$tmp/out/bin/"
	# each shared library under its soname (the packages ship the
	# soname as a symlink to the versioned file)
	local f so
	while IFS= read -r f; do
		so=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
		[ -n "$so" ] && [ ! -e "$tmp/out/lib/$so" ] && cp -L "$f" "$tmp/out/lib/$so"
	done < <(find "$tmp/x" -name 'lib*.so*' -type f)
	# every NEEDED is in lib/ or left for glibc: nothing else may be missing
	local needed missing=""
	needed=$(for f in "$tmp/out/sbin/"* "$tmp/out/bin/"* "$tmp/out/lib/"*; do
		readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
	done | sort -u)
	: >"$tmp/out/libc-needed"
	for so in $needed; do
		[ -e "$tmp/out/lib/$so" ] && continue
		case "$so" in
		libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | libutil.so.* | ld-linux*)
			echo "$so" >>"$tmp/out/libc-needed" ;;
		*) missing="$missing $so" ;;
		esac
	done
	[ -z "$missing" ] || { echo "fetch.sh: dropbear needs$missing, which no fetched package holds" >&2; exit 1; }
	printf '%s' "$vers" >"$tmp/out/versions"
	publish
}

# Lists younger than a week are good enough: a warm run needs no network.
stamp=$apt/state/updated
resolved=$apt/resolved-$arch   # the cache directory the current lists lead to
[ "$what" = kernel ] || resolved=$resolved-$what
if [ -n "$(find "$stamp" -mtime -7 2>/dev/null)" ] && [ -f "$resolved" ] &&
	[ -f "$(cat "$resolved")/versions" ]; then
	cat "$resolved"; exit 0     # warm: no network, no apt-cache (seconds each)
fi
if [ -z "$(find "$stamp" -mtime -7 2>/dev/null)" ]; then
	echo "fetch.sh: updating the private arm64/armhf package lists" >&2
	# A mirror caught mid-sync fails one index: what was read is enough.
	apt-get -q -o APT::Get::List-Cleanup=0 update >&2 || true
	if ls "$apt/state/lists/"*Packages* >/dev/null 2>&1; then
		touch "$stamp"
	else
		echo "fetch.sh: cannot read Debian's arm64/armhf package lists (no network?)" >&2
		exit 1
	fi
fi

[ "$what" = dropbear ] && { fetch_dropbear; exit 0; }
# metapackage -> the versioned image it depends on (arm64: its -unsigned twin)
kpkg=$(apt-cache depends "$meta:$arch" 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/ { sub(/:.*/, "", $2); print $2; exit }')
[ -n "$kpkg" ] || { echo "fetch.sh: $meta:$arch names no kernel image package" >&2; exit 1; }
if [ "$arch" = arm64 ]; then
	case "$kpkg" in *-unsigned) ;; *) kpkg=$kpkg-unsigned ;; esac
fi
resolve "$kpkg" busybox-static
kver=${ver[$kpkg]} bver=${ver[busybox-static]}
# the kernel's .deb goes to apt/debs (removed once unpacked), dropbear's to $tmp
cached_or_download "$arch-${kpkg}_$kver-busybox_$bver" "$apt/debs"
kdeb=$(ls "$apt/debs/${kpkg}_"*"_$arch.deb" | grep -F "_${kver//:/%3a}_" | head -1)
bdeb=$(ls "$apt/debs/busybox-static_"*"_$arch.deb" | grep -F "_${bver//:/%3a}_" | head -1)

# Only the kernel, the module index and the modules for virtio networking.
mkdir -p "$tmp/k" "$tmp/b" "$tmp/out/modules"
dpkg-deb --fsys-tarfile "$kdeb" | tar -x -C "$tmp/k" --wildcards \
	'./boot/vmlinuz-*' \
	'./lib/modules/*/kernel/drivers/virtio/*' './lib/modules/*/kernel/drivers/net/virtio_net.ko' \
	'./lib/modules/*/kernel/net/core/failover.ko' './lib/modules/*/kernel/drivers/net/net_failover.ko'
dpkg-deb --fsys-tarfile "$bdeb" | tar -x -C "$tmp/b" ./bin/busybox
cp "$tmp"/k/boot/vmlinuz-* "$tmp/out/vmlinuz"
cp "$tmp/b/bin/busybox" "$tmp/out/busybox"

# Load order: each wanted module after the modules named in its .modinfo
# "depends=" (the package has no modules.dep: depmod makes it at install).
mdir=$(echo "$tmp"/k/lib/modules/*)
declare -A path
while IFS= read -r f; do path[$(basename "$f" .ko)]=$f; done < <(find "$mdir" -name '*.ko')
order=()
add() { # module name
	local m=$1 d o
	for o in "${order[@]}"; do [ "$o" = "$m" ] && return 0; done
	[ -n "${path[$m]:-}" ] || { echo "fetch.sh: module $m needed but not in $kpkg" >&2; exit 1; }
	for d in $(tr '\0' '\n' <"${path[$m]}" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add "$d"
	done
	order+=("$m")
}
for w in virtio_mmio virtio_pci virtio_net; do add "$w"; done
: >"$tmp/out/modules.order"
for m in "${order[@]}"; do
	cp "${path[$m]}" "$tmp/out/modules/"
	echo "$m.ko" >>"$tmp/out/modules.order"
done
printf 'kernel %s %s\nbusybox busybox-static %s\nuname %s\n' "$kpkg" "$kver" "$bver" \
	"$(basename "$mdir")" >"$tmp/out/versions"
# the .debs are not needed again: this directory is the cache
rm -f "$kdeb" "$bdeb"
publish
