#!/bin/bash
# cc.sh ARCH [clang arguments...] — the compiler driver for static agent builds.
#
#   toolchains/cc.sh aarch64 -o dist/perflens-agent-aarch64 agent/*.c common/*.c -Iinclude
#
# Compiles and/or links like cc, for ARCH (x86_64 aarch64 aarch64_be armv7l armeb riscv64),
# against the cached musl + libzstd + compiler-rt sysroot (built on first use by
# sysroot.sh). With -c, -S, -E, -M or -MM only the compile flags are added; otherwise
# the result is a fully static, stripped executable linked with
#   crt1.o crti.o <your objects and -l flags> -lzstd -lc libclang_rt.builtins.a crtn.o
# (with LTO, the bitcode libzstd-lto.a takes the place of libzstd.a).
# The project's flags come first, so later arguments win (e.g. -O0 -g).
#
# Env:
#   PERFLENS_SYSROOT  sysroot to use (skips the cache lookup; the Makefile can set it
#                     once per target from "toolchains/sysroot.sh ARCH | tail -n 1")
#   PERFLENS_LTO=0    no -flto          PERFLENS_STRIP=0   keep symbols (no -s)
# Queries (print and exit): cc.sh ARCH --print-sysroot | --print-cflags | --print-ldflags
#   | --print-libs | --print-qemu
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 1 ] || pl_die "usage: cc.sh ARCH [clang arguments...]   (ARCH: $PL_TC_ARCHES)"
pl_arch "$1"
shift

if [ "${1:-}" = --print-qemu ]; then
    echo "$PL_QEMU"
    exit 0
fi

SYSROOT=${PERFLENS_SYSROOT:-}
if [ -z "$SYSROOT" ]; then
    SYSROOT=$("$PL_TC_DIR/sysroot.sh" "$PL_ARCH" | tail -n 1) ||
        pl_die "could not get the $PL_ARCH sysroot"
fi
[ "$(cat "$SYSROOT/TARGET" 2>/dev/null)" = "$PL_ARCH" ] ||
    pl_die "$SYSROOT is not a sysroot for $PL_ARCH (PERFLENS_SYSROOT for another target?)"

RESDIR=$(clang -print-resource-dir)
LTO=-flto ZSTD=-lzstd-lto
[ "${PERFLENS_LTO:-1}" = 0 ] && LTO= ZSTD=-lzstd

CFLAGS=(--target="$PL_TRIPLE" $PL_CFLAGS_ARCH
    -nostdinc -isystem "$SYSROOT/include" -isystem "$RESDIR/include"
    -Os -ffunction-sections -fdata-sections -fno-pic -fno-asynchronous-unwind-tables
    $LTO)
LDFLAGS=(--sysroot="$SYSROOT" -static -nostdlib $PL_FUSE_LD $PL_LDFLAGS_ARCH
    -Wl,--gc-sections)
[ "${PERFLENS_STRIP:-1}" = 0 ] || LDFLAGS+=(-s)
[ "$PL_LINKER" = lld ] && LDFLAGS+=(-Wl,--icf=all)
# LLVM 14's LTO code generation does not take the ABI from the bitcode on
# RISC-V: it would emit lp64 (soft-float) objects, which lld refuses to
# link with musl's lp64d ones ("different floating-point ABI")
[ "$PL_ARCH" = riscv64 ] && [ -n "$LTO" ] && LDFLAGS+=(-Wl,-mllvm,-target-abi=lp64d)
LIBS=(-L"$SYSROOT/lib" -Wl,--start-group "$ZSTD" -lc
    "$SYSROOT/lib/libclang_rt.builtins.a" -Wl,--end-group)

case "${1:-}" in
--print-sysroot) echo "$SYSROOT"; exit 0 ;;
--print-cflags) echo "${CFLAGS[*]}"; exit 0 ;;
--print-ldflags) echo "${LDFLAGS[*]} $SYSROOT/lib/crt1.o $SYSROOT/lib/crti.o"; exit 0 ;;
--print-libs) echo "${LIBS[*]} $SYSROOT/lib/crtn.o"; exit 0 ;;
esac

link=1 sources=
for a in "$@"; do
    case "$a" in
    -c|-S|-E|-M|-MM|-fsyntax-only) link= ;;
    -x|*.c|*.S|*.s|*.i|-) sources=1 ;;
    esac
done

if [ -z "$link" ]; then
    exec clang "${CFLAGS[@]}" "$@"
fi
if [ -z "$sources" ]; then
    # linking objects only: compile-only flags would draw "unused argument" warnings
    CFLAGS=(--target="$PL_TRIPLE" $PL_CFLAGS_ARCH -Os $LTO)
fi
exec clang "${CFLAGS[@]}" "${LDFLAGS[@]}" \
    "$SYSROOT/lib/crt1.o" "$SYSROOT/lib/crti.o" \
    "$@" \
    "${LIBS[@]}" "$SYSROOT/lib/crtn.o"
