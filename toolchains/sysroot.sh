#!/bin/bash
# sysroot.sh ARCH — build (or find in the cache) the static sysroot for one target.
#
# ARCH is one of: x86_64 aarch64 aarch64_be armv7l armeb riscv64.
# The sysroot holds musl (headers + libc.a + crt objects), a compression-only
# libzstd.a, compiler-rt's libclang_rt.builtins.a and the Linux UAPI headers:
#   <sysroot>/include/   musl + zstd.h + linux/ asm/ asm-generic/ ...
#   <sysroot>/lib/       crt1.o crti.o crtn.o libc.a libzstd.a libzstd-lto.a
#                        libclang_rt.builtins.a
#   <sysroot>/TARGET     the ARCH name, <sysroot>/VERSIONS what it was built from
#
# Sources come from Debian source packages (musl, libzstd, llvm-toolchain-14) fetched
# with a private deb-src configuration; the result is cached under
#   ${PERFLENS_TC_CACHE:-~/.cache/perflens/toolchains}/<key>
# where <key> names the target, the three source versions and a hash of the recipe
# (these scripts, the kernel headers package version, the clang version).
# The build happens in a scratch directory and the sysroot is renamed into place only
# when complete, so an interrupted run leaves no half-built cache entry.
#
# Progress goes to stderr; the last line of stdout is the sysroot path.
# Env: PERFLENS_TC_CACHE (cache root), PERFLENS_TC_REFRESH=1 (re-download the source
# indexes), PERFLENS_TC_JOBS (parallel compiles, default nproc), PL_TC_QUIET=1.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 1 ] || pl_die "usage: sysroot.sh ARCH   (ARCH: $PL_TC_ARCHES)"
pl_arch "$1"
JOBS=${PERFLENS_TC_JOBS:-$(nproc)}

CLANG=clang
RESDIR=$($CLANG -print-resource-dir)

# ---------------------------------------------------------------------------
# Cache key
# ---------------------------------------------------------------------------
pl_apt_ready
V_MUSL=$(pl_src_version musl)
V_ZSTD=$(pl_src_version libzstd)
V_LLVM=$(pl_src_version llvm-toolchain-14)
if [ -z "$V_MUSL" ] || [ -z "$V_ZSTD" ] || [ -z "$V_LLVM" ]; then
    pl_apt_update
    V_MUSL=$(pl_src_version musl)
    V_ZSTD=$(pl_src_version libzstd)
    V_LLVM=$(pl_src_version llvm-toolchain-14)
fi
V_KHDR=$(pl_pkg_version "$PL_KHDR_PKG")
[ -n "$V_KHDR" ] || pl_die "$PL_KHDR_PKG is not installed: run toolchains/deps.sh"
RECIPE=$( {
    cat "$PL_TC_DIR/sysroot.sh" "$PL_TC_DIR/lib.sh"
    echo "$PL_KHDR_PKG $V_KHDR"
    $CLANG --version | head -n 1
} | sha256sum | cut -c1-10)
KEY="$PL_ARCH-musl$(pl_ver_file "$V_MUSL")-zstd$(pl_ver_file "$V_ZSTD")-llvm$(pl_ver_file "$V_LLVM")-$RECIPE"
OUT=$PL_TC_CACHE/$KEY

if [ -f "$OUT/VERSIONS" ]; then
    echo "$OUT"
    exit 0
fi

# ---------------------------------------------------------------------------
# Build into a scratch directory
# ---------------------------------------------------------------------------
pl_log "building sysroot $KEY"
T0=$(date +%s)
mkdir -p "$PL_TC_CACHE/tmp"
# scratch dirs of runs killed hard (no EXIT trap) more than half a day ago
find "$PL_TC_CACHE/tmp" -mindepth 1 -maxdepth 1 -mmin +720 -exec rm -rf {} + 2>/dev/null || true
WORK=$(mktemp -d "$PL_TC_CACHE/tmp/$PL_ARCH.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DEST=$WORK/sysroot
BLD=$WORK/build
mkdir -p "$DEST/include" "$DEST/lib" "$BLD"

SRC_MUSL=$(pl_fetch_source musl)
SRC_ZSTD=$(pl_fetch_source libzstd)
SRC_LLVM=$(pl_fetch_source llvm-toolchain-14 --download-only)
MUSL_DIR=$(find "$SRC_MUSL" -mindepth 1 -maxdepth 1 -type d -name 'musl-*' | head -n 1)
ZSTD_DIR=$(find "$SRC_ZSTD" -mindepth 1 -maxdepth 1 -type d -name 'libzstd-*' | head -n 1)
[ -n "$MUSL_DIR" ] && [ -n "$ZSTD_DIR" ] || pl_die "unexpected layout of the source packages"

# compiler-rt builtins: only compiler-rt/lib/builtins (2 MB) out of the 130 MB
# tarball; extracted once per llvm version, shared by all targets.
RT_DIR=$SRC_LLVM/compiler-rt-builtins
if [ ! -f "$RT_DIR/.complete" ]; then
    pl_log "extracting compiler-rt/lib/builtins from the llvm-toolchain-14 source"
    tarball=$(ls "$SRC_LLVM"/llvm-toolchain-14_*.orig.tar.xz | head -n 1)
    top=$(tar -tJf "$tarball" 2>/dev/null | head -n 1 || true)
    top=${top%%/*}
    rt_tmp=$(mktemp -d "$RT_DIR.tmp.XXXXXX")
    tar -xJf "$tarball" -C "$rt_tmp" --strip-components=4 \
        "$top/compiler-rt/lib/builtins"
    touch "$rt_tmp/.complete"
    rm -rf "$RT_DIR"
    mv -T "$rt_tmp" "$RT_DIR" 2>/dev/null || rm -rf "$rt_tmp"
fi

TCC="$CLANG --target=$PL_TRIPLE $PL_CFLAGS_ARCH"
# Everything built against the new sysroot: never the host's glibc headers.
HDRS="-nostdinc -isystem $DEST/include -isystem $RESDIR/include"
OPT="-Os -ffunction-sections -fdata-sections -fno-pic -fno-asynchronous-unwind-tables"

# Run the command lines read from stdin, $JOBS at a time.
pl_parallel() {
    xargs -d '\n' -n 1 -P "$JOBS" sh -c || pl_die "compilation failed (see above)"
}

# ---- musl ------------------------------------------------------------------
# -g: musl's configure keeps unwind tables out of the loaded image
# (-fno-unwind-tables), so with -g its frames are described in .debug_frame
# only.  The unstripped workloads on the emulated boards keep it, and the
# viewer's DWARF unwinder carries a static musl program's samples through
# libc (lfind, the syscall wrappers) back to main with it.  Seeing -g,
# musl's configure stops adding -fomit-frame-pointer (1,088 bytes more in
# the aarch64_be agent, over its budget): it is given here.  Stripped
# programs (the agents) keep their size; clang 14 schedules a few
# instructions differently under -g (aarch64_be agent: 163,760 bytes
# either way, 108 of its instructions in another order).
pl_log "[$PL_ARCH] musl $V_MUSL"
mkdir -p "$BLD/musl"
(
    cd "$BLD/musl"
    "$MUSL_DIR/configure" --target="$PL_TRIPLE" --prefix=/ --disable-shared \
        --enable-optimize=size \
        CC="$TCC $PL_FUSE_LD" CFLAGS="-g -fomit-frame-pointer -fno-pic -ffunction-sections -fdata-sections" \
        AR=llvm-ar RANLIB=llvm-ranlib >configure.log 2>&1 ||
        { cat configure.log >&2; exit 1; }
    make -j"$JOBS" >build.log 2>&1 || { tail -n 40 build.log >&2; exit 1; }
    make DESTDIR="$DEST" install-headers install-libs >install.log 2>&1 ||
        { tail -n 40 install.log >&2; exit 1; }
) || pl_die "musl build failed for $PL_ARCH"
# install-libs also installs a dynamic-linker symlink for the host path; drop it.
find "$DEST/lib" -type l -delete

# ---- Linux UAPI headers --------------------------------------------------------
# Only the files of the kernel headers package, never the glibc headers that may sit
# beside them (/usr/include, /usr/<triple>/include). musl's own files win.
pl_log "[$PL_ARCH] kernel headers from $PL_KHDR_PKG $V_KHDR"
dpkg -L "$PL_KHDR_PKG" | while IFS= read -r f; do
    [ -f "$f" ] || continue
    case "$f" in
    /usr/include/x86_64-linux-gnu/*) rel=${f#/usr/include/x86_64-linux-gnu/} ;;
    /usr/include/*-linux-gnu*/*) continue ;;
    /usr/include/*) rel=${f#/usr/include/} ;;
    /usr/*-linux-gnu*/include/*) rel=${f#/usr/*/include/} ;;
    *) continue ;;
    esac
    case "$rel" in *.h) ;; *) continue ;; esac
    [ -e "$DEST/include/$rel" ] && continue
    mkdir -p "$DEST/include/$(dirname "$rel")"
    cp "$f" "$DEST/include/$rel"
done
[ -f "$DEST/include/linux/perf_event.h" ] && [ -f "$DEST/include/asm/unistd.h" ] ||
    pl_die "kernel headers incomplete for $PL_ARCH"

# ---- zstd (compression only) ---------------------------------------------------
# ZSTD_NO_INLINE: zstd force-inlines its match finders into many specialised copies;
# without that the library is ~85 KB instead of ~250 KB (x86_64), at a compression
# speed cost well under 2x, which the agent's data rates do not notice.
# Two archives: libzstd.a (machine code) and libzstd-lto.a (LLVM bitcode, used by
# cc.sh when LTO is on; about 10 KB smaller after LTO).
pl_log "[$PL_ARCH] libzstd $V_ZSTD (compression only)"
mkdir -p "$BLD/zstd" "$BLD/zstd-lto"
ZFLAGS="-Oz -ffunction-sections -fdata-sections -fno-pic -fno-asynchronous-unwind-tables"
ZFLAGS="$ZFLAGS -DZSTD_DISABLE_ASM -DDYNAMIC_BMI2=0 -DZSTD_STRIP_ERROR_STRINGS"
ZFLAGS="$ZFLAGS -DXXH_NAMESPACE=ZSTD_ -DNDEBUG -DZSTD_NO_INLINE"
for f in "$ZSTD_DIR"/lib/common/*.c "$ZSTD_DIR"/lib/compress/*.c; do
    o=$(basename "$(dirname "$f")")_$(basename "${f%.c}").o
    echo "$TCC $HDRS $ZFLAGS -c $f -o $BLD/zstd/$o"
    echo "$TCC $HDRS $ZFLAGS -flto -c $f -o $BLD/zstd-lto/$o"
done | pl_parallel
llvm-ar rcs "$DEST/lib/libzstd.a" "$BLD"/zstd/*.o
llvm-ar rcs "$DEST/lib/libzstd-lto.a" "$BLD"/zstd-lto/*.o
cp "$ZSTD_DIR/lib/zstd.h" "$ZSTD_DIR/lib/zstd_errors.h" "$DEST/include/"

# ---- compiler-rt builtins ------------------------------------------------------
# The file lists are read from compiler-rt's own CMakeLists.txt (the first "set(NAME"
# block of each list, without ${...} references), then combined as its CMake logic
# does for a Linux build of that architecture.
cm_list() {
    awk -v name="$1" '
        !found && $0 ~ "^[ \t]*set\\(" name "([ \t]|$)" { on = 1; found = 1; sub(".*set\\(" name, ""); }
        on { line = $0; sub(/#.*/, "", line)
             n = split(line, w, /[ \t()]+/)
             for (i = 1; i <= n; i++) if (w[i] ~ /\.(c|S)$/) print w[i]
             if ($0 ~ /\)/) on = 0 }' "$RT_DIR/CMakeLists.txt"
}
GENERIC=$(cm_list GENERIC_SOURCES; printf '%s\n' emutls.c enable_execute_stack.c eprintf.c clear_cache.c)
RT_CFLAGS="-std=c11 -fno-builtin -fvisibility=hidden -fomit-frame-pointer -DVISIBILITY_HIDDEN"
case "$PL_BUILTINS_SET" in
x86_64)
    RT_SRCS="$(cm_list GENERIC_TF_SOURCES) $(cm_list x86_ARCH_SOURCES) i386/fp_mode.c
        x86_64/floatdidf.c x86_64/floatdisf.c x86_64/floatundidf.S x86_64/floatundisf.S
        $(cm_list x86_80_BIT_SOURCES) x86_64/floatdixf.c x86_64/floatundixf.S"
    ;;
aarch64)
    # No outline-atomics helpers (lse.S): everything is built -mno-outline-atomics.
    RT_SRCS="$(cm_list GENERIC_TF_SOURCES) cpu_model.c aarch64/fp_mode.c"
    ;;
riscv64)
    # riscv64_SOURCES: the multiply helper, the -msave-restore routines,
    # generic + TF (long double is binary128)
    RT_SRCS="$(cm_list GENERIC_TF_SOURCES) riscv/muldi3.S riscv/save.S riscv/restore.S"
    ;;
arm)
    RT_SRCS="$(cm_list arm_SOURCES) $(cm_list arm_EABI_SOURCES)
        $(cm_list arm_Thumb1_JT_SOURCES) $(cm_list arm_Thumb1_SjLj_EH_SOURCES)
        $(cm_list arm_Thumb1_VFPv2_DP_SOURCES) $(cm_list arm_Thumb1_VFPv2_SP_SOURCES)
        $(cm_list arm_Thumb1_icache_SOURCES)"
    RT_CFLAGS="$RT_CFLAGS -DCOMPILER_RT_ARMHF_TARGET"
    if [ "$PL_BIG_ENDIAN" = 1 ]; then
        # soft-float-only helpers that #error on big-endian
        RT_SRCS=$(printf '%s\n' $RT_SRCS | grep -v -x -e arm/aeabi_cdcmp.S -e arm/aeabi_cfcmp.S)
    fi
    ;;
esac
# A generic C file is replaced by an arch-specific file of the same base name
# (compiler-rt's filter_builtin_sources).
SPECIFIC_BASES=$(printf '%s\n' $RT_SRCS | grep / | sed 's|.*/||; s|\.[cS]$||' | sort -u)
RT_ALL=$( {
    printf '%s\n' $GENERIC | while read -r g; do
        printf '%s\n' "$SPECIFIC_BASES" | grep -q -x "${g%.[cS]}" || echo "$g"
    done
    printf '%s\n' $RT_SRCS
} | sort -u)
[ "$(printf '%s\n' "$RT_ALL" | wc -l)" -gt 100 ] ||
    pl_die "compiler-rt source lists look wrong (CMakeLists.txt changed?)"
pl_log "[$PL_ARCH] compiler-rt builtins ($(printf '%s\n' "$RT_ALL" | wc -l) files)"
mkdir -p "$BLD/rt"
for s in $RT_ALL; do
    [ -f "$RT_DIR/$s" ] || pl_die "compiler-rt source $s missing"
    echo "$TCC $HDRS -Os -ffunction-sections -fdata-sections -fno-pic $RT_CFLAGS -I$RT_DIR -c $RT_DIR/$s -o $BLD/rt/$(echo "$s" | tr / _).o"
done | pl_parallel
llvm-ar rcs "$DEST/lib/libclang_rt.builtins.a" "$BLD"/rt/*.o

# ---------------------------------------------------------------------------
# Publish
# ---------------------------------------------------------------------------
for f in crt1.o crti.o crtn.o libc.a libzstd.a libzstd-lto.a libclang_rt.builtins.a; do
    [ -s "$DEST/lib/$f" ] || pl_die "$f missing from the $PL_ARCH sysroot"
done
echo "$PL_ARCH" >"$DEST/TARGET"
cat >"$DEST/VERSIONS" <<EOF
target        $PL_ARCH ($PL_TRIPLE)
musl          $V_MUSL (Debian source package)
libzstd       $V_ZSTD (Debian source package; lib/common + lib/compress only)
compiler-rt   $V_LLVM (llvm-toolchain-14 Debian source package; lib/builtins only)
kernel hdrs   $PL_KHDR_PKG $V_KHDR
compiler      $($CLANG --version | head -n 1)
built         $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - T0 ))s
EOF
# mv -T is one rename(2): readers see no sysroot or a complete one. If another run
# published the same key meanwhile, keep theirs.
mv -T "$DEST" "$OUT" 2>/dev/null || [ -f "$OUT/VERSIONS" ] ||
    pl_die "cannot publish $OUT (a stale directory of that name? remove it)"
pl_log "[$PL_ARCH] done in $(( $(date +%s) - T0 ))s: $OUT"
echo "$OUT"
