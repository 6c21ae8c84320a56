#!/bin/bash
# selftest.sh [ARCH...] — prove each target's toolchain end to end (default: all six).
#
# For every target: get the sysroot (building it if not cached), build
# toolchains/test/hello.c with cc.sh, check with file(1) that it is a static, stripped
# ELF of the right class and byte order, run it (natively for x86_64, under qemu-user
# for the others) and check what it reports: machine, byte order, word size, zstd
# compression, a loopback socket, and perf_event_open = ENOSYS under qemu-user.
# Prints a size table and "N passed, N failed"; exits non-zero if any target failed.
# Binaries are left in toolchains/build/selftest/ (ignored by git).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARCHES=${*:-$PL_TC_ARCHES}
OUTDIR=$PL_TC_DIR/build/selftest
mkdir -p "$OUTDIR"

"$PL_TC_DIR/deps.sh" || pl_die "deps.sh failed"

pass=0 fail=0
table=()
failed=()

# expected: ELF class, byte order (file's words), uname -m, pointer bits
expect() {
    case "$1" in
    x86_64) E_FILE="ELF 64-bit LSB executable, x86-64"; E_MACH=x86_64; E_BITS=64; E_ORDER=little ;;
    aarch64) E_FILE="ELF 64-bit LSB executable, ARM aarch64"; E_MACH=aarch64; E_BITS=64; E_ORDER=little ;;
    aarch64_be) E_FILE="ELF 64-bit MSB executable, ARM aarch64"; E_MACH=aarch64_be; E_BITS=64; E_ORDER=big ;;
    armv7l) E_FILE="ELF 32-bit LSB executable, ARM, EABI5"; E_MACH=armv7l; E_BITS=32; E_ORDER=little ;;
    riscv64) E_FILE="ELF 64-bit LSB executable, UCB RISC-V"; E_MACH=riscv64; E_BITS=64; E_ORDER=little ;;
    armeb) E_FILE="ELF 32-bit MSB executable, ARM, EABI5 BE8"; E_MACH=armv7b; E_BITS=32; E_ORDER=big ;;
    esac
}

for arch in $ARCHES; do
    ( pl_arch "$arch" ) || { fail=$((fail + 1)); failed+=("$arch: unknown target"); continue; }
    pl_arch "$arch"
    expect "$arch"
    echo "=== $arch" >&2
    why=
    t0=$(date +%s.%N)
    sysroot=$("$PL_TC_DIR/sysroot.sh" "$arch" | tail -n 1) || why="sysroot build failed"
    t1=$(date +%s.%N)
    bin=$OUTDIR/hello-$arch
    rm -f "$bin"
    if [ -z "$why" ]; then
        PERFLENS_SYSROOT=$sysroot "$PL_TC_DIR/cc.sh" "$arch" -Wall -Wextra -Werror \
            -o "$bin" "$PL_TC_DIR/test/hello.c" || why="compile/link failed"
    fi
    if [ -z "$why" ]; then
        desc=$(file -b "$bin")
        echo "file: $desc" >&2
        case "$desc" in "$E_FILE"*) ;; *) why="file says '$desc', expected '$E_FILE'" ;; esac
        case "$desc" in *"statically linked"*) ;; *) why="not statically linked: $desc" ;; esac
        case "$desc" in *", stripped"*) ;; *) why="not stripped: $desc" ;; esac
    fi
    if [ -z "$why" ]; then
        if [ -n "$PL_QEMU" ]; then
            command -v "$PL_QEMU" >/dev/null || why="$PL_QEMU not found"
            run=("$PL_QEMU" "$bin")
        else
            run=("$bin")
        fi
    fi
    if [ -z "$why" ]; then
        out=$(timeout 60 "${run[@]}" 2>&1); rc=$?
        printf '%s\n' "$out" | sed 's/^/  | /' >&2
        get() { printf '%s\n' "$out" | sed -n "s/^$1: //p" | head -n 1; }
        if [ $rc -ne 0 ]; then why="exit status $rc"
        elif [ "$(get result)" != ok ]; then why="test program reported failure"
        elif [ "$(get machine)" != "$E_MACH" ]; then why="machine '$(get machine)', expected $E_MACH"
        elif [ "$(get byte-order)" != "$E_ORDER" ]; then why="byte order '$(get byte-order)', expected $E_ORDER"
        elif [ "$(get pointer-bits)" != "$E_BITS" ]; then why="pointer bits '$(get pointer-bits)', expected $E_BITS"
        elif [ -n "$PL_QEMU" ] && [ "$(get perf_event_open)" != ENOSYS ]; then
            why="perf_event_open '$(get perf_event_open)', expected ENOSYS under qemu-user"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        size=$(stat -c %s "$bin")
        table+=("$(awk -v a="$arch" -v s="$size" -v o="$E_ORDER" -v t0="$t0" -v t1="$t1" \
            'BEGIN { printf "%-11s %8d  %6.1f KiB  %-7s %6.1fs", a, s, s / 1024, o, t1 - t0 }')")
        echo "PASS $arch" >&2
    else
        fail=$((fail + 1))
        failed+=("$arch: $why")
        echo "FAIL $arch: $why" >&2
    fi
done

echo
echo "target         bytes         size  order   sysroot"
for row in "${table[@]}"; do echo "$row"; done
for f in "${failed[@]}"; do echo "FAILED $f"; done
echo "toolchains: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
