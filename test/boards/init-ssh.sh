#!/bin/busybox sh
# /init of the emulated board reached over SSH (put there by
# mkinitramfs-ssh.sh): the network as init.sh brings it up, then Debian's
# dropbear on port 22 as the board's only server — no agent runs until the
# host's `perflens record ssh://root@…` copies one and starts it with
# --stdio.  The host key is made here, at boot, as a board does on its
# first start, and its public half printed on the console (PL-HOSTKEY),
# where the host's test reads it into its known_hosts.  Powers off when
# dropbear ends or the watchdog fires (pl.timeout=S on the kernel command
# line), so qemu always exits.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
hostname dropbear-arm64 # the name the viewer shows (the kernel's is "(none)")
echo "PL-BOOT uptime=$(cut -d' ' -f1 /proc/uptime) kernel=$(uname -r) machine=$(uname -m)"

timeout=150
for a in $(cat /proc/cmdline); do
	case "$a" in pl.timeout=*) timeout=${a#pl.timeout=} ;; esac
done
(sleep "$timeout"; echo "PL-WATCHDOG after ${timeout}s"; poweroff -f) &

while read -r m; do
	insmod "/modules/$m" || echo "PL-ERROR insmod $m failed"
done </modules.order
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up && ip route add default via 10.0.2.2 ||
	echo "PL-ERROR no eth0: $(ls /sys/class/net)"
# as init.sh: otherwise the emulated kernel lowers the sampling rate limit
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
echo "PL-PARANOID $(cat /proc/sys/kernel/perf_event_paranoid) max_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)"

mkdir -p /etc/dropbear /var/run /var/log
# the user pl (mkinitramfs-ssh.sh) owns its home: the agent is copied there
chown -R 1000:1000 /home/pl
key=/etc/dropbear/dropbear_ed25519_host_key
if dropbearkey -t ed25519 -f "$key" >/dev/null 2>&1; then
	echo "PL-HOSTKEY $(dropbearkey -y -f "$key" | grep '^ssh-ed25519 ' | cut -d' ' -f1-2)"
else
	echo "PL-ERROR dropbearkey failed"
fi
echo "PL-SSHD-START uptime=$(cut -d' ' -f1 /proc/uptime)"
# -F foreground, -E log to the console, -s keys only (no passwords), -j -k
# no port forwarding: the host only runs commands
/sbin/dropbear -F -E -s -j -k -p 22 -r "$key"
echo "PL-SSHD-EXIT status=$?"
poweroff -f
