# Shared by the toolchains/ scripts; sourced, never run.
#
# Everything third-party lives under $PL_TC_CACHE (never in the work tree):
#   apt/                 private deb-src config, lists and apt cache (the system's
#                        apt configuration is never touched)
#   src/<pkg>_<version>/ downloaded Debian source packages (as apt-get source left them)
#   <key>/               one finished sysroot per target; <key> names the target and the
#                        source versions, so a new Debian upload gives a new directory
#   tmp/                 half-built sysroots; renamed into place only when complete

PL_TC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PL_TC_CACHE=${PERFLENS_TC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/toolchains}
PL_TC_ARCHES="x86_64 aarch64 aarch64_be armv7l armeb riscv64"

pl_die() { echo "toolchains: error: $*" >&2; exit 1; }
pl_log() { [ -n "${PL_TC_QUIET:-}" ] || echo "toolchains: $*" >&2; }

# ---------------------------------------------------------------------------
# Per-target table (see shared/TOOLCHAINS.md)
# Sets: PL_TRIPLE PL_MUSL_ARCH PL_CFLAGS_ARCH PL_LINKER PL_LDFLAGS_ARCH
#       PL_KHDR_PKG (kernel headers package) PL_QEMU PL_BUILTINS_SET PL_BIG_ENDIAN
# ---------------------------------------------------------------------------
pl_arch() {
    PL_ARCH=$1
    PL_BIG_ENDIAN=0
    case "$1" in
    x86_64)
        PL_TRIPLE=x86_64-linux-musl
        PL_CFLAGS_ARCH=""
        PL_LINKER=lld
        PL_LDFLAGS_ARCH=""
        PL_KHDR_PKG=linux-libc-dev
        PL_QEMU=""
        PL_BUILTINS_SET=x86_64
        ;;
    aarch64|aarch64_be)
        PL_TRIPLE=$1-linux-musl
        PL_CFLAGS_ARCH="-mno-outline-atomics"
        PL_LINKER=lld
        PL_LDFLAGS_ARCH="-Wl,-z,max-page-size=4096"
        PL_KHDR_PKG=linux-libc-dev-arm64-cross
        PL_QEMU=qemu-$1
        PL_BUILTINS_SET=aarch64
        [ "$1" = aarch64_be ] && PL_BIG_ENDIAN=1
        ;;
    armv7l|armeb)
        PL_CFLAGS_ARCH="-march=armv7-a -mfpu=vfpv3-d16 -mfloat-abi=hard -mthumb"
        PL_KHDR_PKG=linux-libc-dev-armhf-cross
        PL_BUILTINS_SET=arm
        if [ "$1" = armv7l ]; then
            PL_TRIPLE=armv7-linux-musleabihf
            PL_LINKER=lld
            PL_QEMU=qemu-arm
        else
            # lld 14 has no --be8 and silently makes a BE32 image (SIGILL); GNU ld
            # gets "-EB --be8" from clang.
            PL_TRIPLE=armebv7-linux-musleabihf
            PL_LINKER=bfd
            PL_QEMU=qemu-armeb
            PL_BIG_ENDIAN=1
        fi
        PL_LDFLAGS_ARCH=""
        ;;
    riscv64)
        # rv64gc, lp64d (clang's and musl's default for riscv64 Linux).
        # -mno-relax: lld 14 implements no RISC-V linker relaxation and
        # refuses the R_RISCV_ALIGN relocations relaxable code carries; the
        # attribute also reaches LTO's code generation.
        PL_TRIPLE=riscv64-linux-musl
        PL_CFLAGS_ARCH="-mno-relax"
        PL_LINKER=lld
        PL_LDFLAGS_ARCH="-Wl,-z,max-page-size=4096"
        PL_KHDR_PKG=linux-libc-dev-riscv64-cross
        PL_QEMU=qemu-riscv64
        PL_BUILTINS_SET=riscv64
        ;;
    *) pl_die "unknown target '$1' (expected one of: $PL_TC_ARCHES)" ;;
    esac
    case "$PL_LINKER" in
    lld) PL_FUSE_LD="-fuse-ld=lld" ;;
    bfd) PL_FUSE_LD="-fuse-ld=bfd --ld-path=/usr/bin/arm-linux-gnueabihf-ld" ;;
    esac
}

# ---------------------------------------------------------------------------
# Private deb-src configuration
# ---------------------------------------------------------------------------
PL_APT_DIR=$PL_TC_CACHE/apt

pl_apt() {
    apt-get -q -o Dir::Etc::SourceList=/dev/null \
        -o Dir::Etc::SourceParts="$PL_APT_DIR/sources.list.d" \
        -o Dir::State::Lists="$PL_APT_DIR/lists" \
        -o Dir::Cache="$PL_APT_DIR/cache" \
        -o APT::Sandbox::User=root "$@"
}
pl_apt_cache() {
    apt-cache -o Dir::Etc::SourceList=/dev/null \
        -o Dir::Etc::SourceParts="$PL_APT_DIR/sources.list.d" \
        -o Dir::State::Lists="$PL_APT_DIR/lists" \
        -o Dir::Cache="$PL_APT_DIR/cache" "$@"
}

# Copy the system's Debian entries (suites of this release only) as deb-src.
pl_apt_write_sources() {
    local codename out
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || pl_die "cannot read VERSION_CODENAME from /etc/os-release"
    mkdir -p "$PL_APT_DIR/sources.list.d" "$PL_APT_DIR/lists/partial" \
        "$PL_APT_DIR/cache/archives/partial"
    out=$PL_APT_DIR/sources.list.d/perflens-debsrc.sources
    {
        # deb822 files: keep stanzas whose Suites are this release, Types -> deb-src
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            awk -v cn="$codename" '
                function flush() {
                    if (st != "" && keep && isdeb) print st;
                    st = ""; keep = 0; isdeb = 0
                }
                /^[ \t]*$/ { flush(); next }
                /^#/ { next }
                /^Types:/ { if ($0 ~ /(^|[ \t])deb([ \t]|$)/) isdeb = 1; st = st "Types: deb-src\n"; next }
                /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == cn || index($i, cn "-") == 1) keep = 1 }
                /^Enabled:[ \t]*no/ { keep = 0; isdeb = 0 }
                { st = st $0 "\n" }
                END { flush() }' "$f"
        done
        # one-line format
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -f "$f" ] || continue
            awk -v cn="$codename" '
                $1 != "deb" { next }
                {
                    n = 2; opts = ""
                    if ($2 ~ /^\[/) { while ($n !~ /\]$/) { opts = opts " " $n; n++ } opts = opts " " $n; n++ }
                    uri = $n; suite = $(n + 1)
                    if (suite != cn && index(suite, cn "-") != 1) next
                    comps = ""; for (i = n + 2; i <= NF; i++) comps = comps " " $i
                    sub(/^ /, "", opts); sub(/^\[/, "", opts); sub(/\]$/, "", opts)
                    printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n", uri, suite, comps
                    if (opts ~ /signed-by=/) { s = opts; sub(/.*signed-by=/, "", s); sub(/ .*/, "", s); printf "Signed-By: %s\n", s }
                    printf "\n"
                }' "$f"
        done
    } > "$out.tmp"
    grep -q '^URIs:' "$out.tmp" ||
        pl_die "no Debian '$codename' entry found in /etc/apt to derive a deb-src entry from"
    mv "$out.tmp" "$out"
}

# Make sure the private source lists exist. They are fetched once and kept (the
# versions in them are part of every cache key); PERFLENS_TC_REFRESH=1 forces a
# fresh download, as does a failed source fetch (see pl_fetch_source).
pl_apt_ready() {
    if [ -n "${PERFLENS_TC_REFRESH:-}" ] || ! ls "$PL_APT_DIR"/lists/*_Sources* >/dev/null 2>&1; then
        pl_apt_update
    fi
}
pl_apt_update() {
    pl_apt_write_sources
    pl_log "downloading Debian source indexes (private, into $PL_APT_DIR)"
    pl_apt update >&2 || pl_die "apt-get update of the private deb-src lists failed"
    rm -f "$PL_APT_DIR/srcversions"
    PERFLENS_TC_REFRESH=
}

# Version of a source package as the private lists know it (highest candidate).
# Memoised in apt/srcversions (cleared by pl_apt_update) so that a warm
# sysroot.sh, which cc.sh runs on every call, stays fast.
pl_src_version() {
    local memo=$PL_APT_DIR/srcversions v
    v=$(awk -v p="$1" '$1 == p { print $2 }' "$memo" 2>/dev/null)
    if [ -z "$v" ]; then
        v=$(pl_apt_cache showsrc --only-source "$1" 2>/dev/null |
            awk '/^Version:/ { print $2 }' | sort -V | tail -n 1)
        [ -z "$v" ] || echo "$1 $v" >>"$memo"
    fi
    echo "$v"
}

# A version as used in file names: no epoch (":" upsets make and PATH-like lists).
pl_ver_file() { echo "${1#*:}"; }

# pl_fetch_source PKG [--download-only]: prints the directory holding the source.
pl_fetch_source() {
    local pkg=$1 opt=${2:-} ver dir tmp
    ver=$(pl_src_version "$pkg")
    [ -n "$ver" ] || { pl_apt_update; ver=$(pl_src_version "$pkg"); }
    [ -n "$ver" ] || pl_die "source package '$pkg' not found in the Debian deb-src lists"
    dir=$PL_TC_CACHE/src/${pkg}_$(pl_ver_file "$ver")
    if [ ! -f "$dir/.complete" ]; then
        mkdir -p "$PL_TC_CACHE/src"
        tmp=$(mktemp -d "$dir.tmp.XXXXXX")
        pl_log "fetching source $pkg $ver"
        if ! (cd "$tmp" && pl_apt source $opt "$pkg=$ver" >&2); then
            pl_log "fetch failed; refreshing the source lists and retrying"
            pl_apt_update
            ver=$(pl_src_version "$pkg")
            dir=$PL_TC_CACHE/src/${pkg}_$(pl_ver_file "$ver")
            rm -rf "$tmp"; mkdir -p "$tmp"
            (cd "$tmp" && pl_apt source $opt "$pkg=$ver" >&2) ||
                { rm -rf "$tmp"; pl_die "apt-get source $pkg=$ver failed"; }
        fi
        touch "$tmp/.complete"
        [ -f "$dir/.complete" ] || rm -rf "$dir"   # incomplete, from an older layout
        mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
    fi
    echo "$dir"
}

# Version of an installed binary package (kernel headers go into the key too).
pl_pkg_version() {
    dpkg-query -W -f='${Version}' "$1" 2>/dev/null
}
