#!/bin/busybox sh
# /init of the emulated board (put there by mkinitramfs.sh).  Brings up the
# network the way BOARDS.md found works, starts the agent as a user would
# after scp, and powers off when told or when its watchdog fires, so qemu
# always exits (panic=-1 and -no-reboot turn any end into qemu's exit).
# Settings come from the kernel command line: pl.token=T pl.timeout=S.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
echo "PL-BOOT uptime=$(cut -d' ' -f1 /proc/uptime) kernel=$(uname -r) machine=$(uname -m)"

token=; timeout=150
for a in $(cat /proc/cmdline); do
	case "$a" in
	pl.token=*) token=${a#pl.token=} ;;
	pl.timeout=*) timeout=${a#pl.timeout=} ;;
	esac
done
(sleep "$timeout"; echo "PL-WATCHDOG after ${timeout}s"; poweroff -f) &
# the agent refuses an empty token (exit 2) and, without one, would write
# a generated one to a file the host cannot read: boot.sh always passes one
[ -n "$token" ] || echo "PL-ERROR no pl.token=T on the kernel command line"

while read -r m; do
	insmod "/modules/$m" || echo "PL-ERROR insmod $m failed"
done </modules.order
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up && ip route add default via 10.0.2.2 ||
	echo "PL-ERROR no eth0: $(ls /sys/class/net)"
# Otherwise the emulated kernel, seeing slow sampling interrupts, lowers
# perf_event_max_sample_rate within seconds and requests above it fail.
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
echo "PL-PARANOID $(cat /proc/sys/kernel/perf_event_paranoid) max_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)"

echo "PL-AGENT-START uptime=$(cut -d' ' -f1 /proc/uptime)"
# each agent line prefixed with the guest's uptime: the host measures
# "viewer connected -> first sample" on the guest's own clock
{ /perflens-agent --listen --port 9999 --token "$token"; echo "PL-AGENT-EXIT status=$?"; } 2>&1 |
	while IFS= read -r l; do echo "[$(cut -d' ' -f1 /proc/uptime)] $l"; done
poweroff -f
