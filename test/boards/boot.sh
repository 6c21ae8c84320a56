#!/usr/bin/env bash
# test/boards/boot.sh ARCH FETCHED INITRD PORT TOKEN [TIMEOUT] — boots an
# emulated board in the foreground, its serial console on stdout.  The
# guest's agent (port 9999) is reachable at 127.0.0.1:PORT; restrict=on keeps
# the guest off every other network (unless PL_BOARD_HOST_NET, below).  The guest powers itself off after
# TIMEOUT seconds (default 150) if nobody stops qemu first.
# FETCHED is fetch.sh's directory (arm64, armhf: Debian's kernel packages)
# or kernel.sh's (arm64be, armeb, riscv64: built from Debian's kernel source, with
# virtio-net built in and eth0 configured by the kernel from ip=).
set -euo pipefail
arch=${1:?usage: boot.sh ARCH FETCHED INITRD PORT TOKEN [TIMEOUT]}
fetched=${2:?} initrd=${3:?} port=${4:?} token=${5:?} timeout=${6:-150}
smp=${PL_BOARD_SMP:-1}   # 1 CPU streams fastest (BOARDS.md); 2 for per-CPU tests
# PL_BOARD_QEMU_EXTRA: more qemu options, for experiments (e.g. "-icount
# shift=0": qemu's PMU counts instructions only with precise icount, and
# the guest's clock then follows the instruction count, not the host's)
extra=${PL_BOARD_QEMU_EXTRA:-}
# PL_BOARD_GUEST_PORT: the guest port PORT forwards to (22 for a board
# reached over SSH, whose /init runs dropbear; default the agent's 9999)
gport=${PL_BOARD_GUEST_PORT:-9999}
# PL_BOARD_PORT2: a second host port, forwarded to the guest's 9998 (the
# boot row's flight recorder, beside the agent the board's /init starts)
fwd2=${PL_BOARD_PORT2:+,hostfwd=tcp:127.0.0.1:$PL_BOARD_PORT2-:9998}
# PL_BOARD_HOST_NET=1: the guest may dial the host, whose loopback user-mode
# networking shows at 10.0.2.2 (the fleet row: the board's agent reports to
# the host's collector); restrict=on otherwise keeps it off every network
restrict=restrict=on
[ -n "${PL_BOARD_HOST_NET:-}" ] && restrict=restrict=off
net="-netdev user,id=n0,$restrict,hostfwd=tcp:127.0.0.1:$port-:$gport$fwd2 -device virtio-net-pci,netdev=n0,romfile="
# the big-endian and riscv64 boards' /init has no `ip`: the kernel sets eth0 up (IP_PNP)
ipcfg="ip=10.0.2.15::10.0.2.2:255.255.255.0::eth0:off"
# PL_BOARD_INIT, PL_BOARD_INIT_ARGS: the kernel hands over to this program
# instead of /init (the boot row: the agent, `--boot ... /init`), with
# these arguments: the kernel passes what follows `--` on its command line
# to init as argv (init/main.c: set_init_arg; no second `--` in them, it
# would end them there)
# PL_BOARD_APPEND: more kernel parameters, for the board's /init (the fleet
# row's pl.server=, pl.labels=, pl.run=: init.c)
append="rdinit=${PL_BOARD_INIT:-/init} panic=-1 quiet pl.token=$token pl.timeout=$timeout${PL_BOARD_APPEND:+ $PL_BOARD_APPEND}${PL_BOARD_INIT_ARGS:+ -- $PL_BOARD_INIT_ARGS}"
case "$arch" in
arm64)
	exec qemu-system-aarch64 -M virt -cpu cortex-a57 -m 512 -smp "$smp" -nographic -no-reboot \
		-kernel "$fetched/vmlinuz" -initrd "$initrd" -append "console=ttyAMA0 $append" $net $extra ;;
armhf)
	# highmem=off: otherwise the PCI controller lands above 4 GB, out of
	# reach of the non-LPAE armmp kernel, and there is no eth0
	exec qemu-system-arm -M virt,highmem=off -cpu cortex-a15 -m 512 -smp "$smp" -nographic -no-reboot \
		-kernel "$fetched/vmlinuz" -initrd "$initrd" -append "console=ttyAMA0 $append" $net $extra ;;
arm64be)
	exec qemu-system-aarch64 -M virt -cpu cortex-a57 -m 512 -smp "$smp" -nographic -no-reboot \
		-kernel "$fetched/Image" -initrd "$initrd" -append "console=ttyAMA0 $ipcfg $append" $net $extra ;;
armeb)
	exec qemu-system-arm -M virt,highmem=off -cpu cortex-a15 -m 512 -smp "$smp" -nographic -no-reboot \
		-kernel "$fetched/zImage" -initrd "$initrd" -append "console=ttyAMA0 $ipcfg $append" $net $extra ;;
riscv64)
	# OpenSBI (Debian's opensbi package) as the M-mode firmware, the kernel
	# in S-mode; sscofpmf: the counter-overflow interrupt the SBI PMU
	# driver needs to sample hardware events (without it they only count)
	exec qemu-system-riscv64 -M virt -cpu rv64,sscofpmf=true -m 512 -smp "$smp" -nographic -no-reboot \
		-bios /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin \
		-kernel "$fetched/Image" -initrd "$initrd" -append "console=ttyS0 $ipcfg $append" $net $extra ;;
*) echo "boot.sh: unknown arch $arch" >&2; exit 2 ;;
esac
