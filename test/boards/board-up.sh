# board-up.sh — what every emulated board's /init does first (sourced by
# init.sh and init-ssh.sh, copied beside them by mkinitramfs*.sh): /dev,
# /proc and /sys, the console, busybox's applets, the boot line, the
# kernel command line's pl.token=T and pl.timeout=S, the watchdog that
# powers off so qemu always exits, the modules, the network the way
# BOARDS.md found works, and perf's sampling limits.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
echo "PL-BOOT uptime=$(cut -d' ' -f1 /proc/uptime) kernel=$(uname -r) machine=$(uname -m)"
# The kernel's hand-over to init, on its printk clock (its "Run X as init
# process" line), and that clock against /proc/uptime: a line this script
# writes to /dev/kmsg between two reads of the uptime (boards.sh's boot row)
u0=$(cut -d' ' -f1 /proc/uptime)
echo PL-KCLOCK >/dev/kmsg
u1=$(cut -d' ' -f1 /proc/uptime)
dmesg | sed -n 's/^\[ *\([0-9.]*\)\] Run \([^ ]*\) as init process.*/PL-HANDOVER printk=\1 init=\2/p' | head -n 1
dmesg | sed -n "s/^\[ *\([0-9.]*\)\] PL-KCLOCK.*/PL-KCLOCK printk=\1 uptime=$u0..$u1/p" | tail -n 1

token=; timeout=150
for a in $(cat /proc/cmdline); do
	case "$a" in
	pl.token=*) token=${a#pl.token=} ;;
	pl.timeout=*) timeout=${a#pl.timeout=} ;;
	esac
done
(sleep "$timeout"; echo "PL-WATCHDOG after ${timeout}s"; poweroff -f) &

while read -r m; do
	insmod "/modules/$m" || echo "PL-ERROR insmod $m failed"
done </modules.order
ip link set lo up
# a kernel built here (kernel.sh: virtio-net and IP_PNP built in) has set
# eth0 up from its ip= parameter already
if ip addr show dev eth0 2>/dev/null | grep -q 'inet 10\.0\.2\.15/'; then
	:
else
	ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up && ip route add default via 10.0.2.2 ||
		echo "PL-ERROR no eth0: $(ls /sys/class/net)"
fi
# Otherwise the emulated kernel, seeing slow sampling interrupts, lowers
# perf_event_max_sample_rate within seconds and requests above it fail.
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
echo "PL-PARANOID $(cat /proc/sys/kernel/perf_event_paranoid) max_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
