#!/bin/busybox sh
# /init of the emulated board reached over SSH (put there by
# mkinitramfs-ssh.sh): the network as init.sh brings it up, then
# dropbear (Debian's, or on riscv64 built from Debian's source by
# userland.sh) on port 22 as the board's only server — no agent runs until the
# host's `perflens record ssh://root@…` copies one and starts it with
# --stdio.  The host key is made here, at boot, as a board does on its
# first start, and its public half printed on the console (PL-HOSTKEY),
# where the host's test reads it into its known_hosts.  Powers off when
# dropbear ends or the watchdog fires (pl.timeout=S on the kernel command
# line), so qemu always exits.
. /board-up.sh
hostname "dropbear-$(uname -m)" # the name the viewer shows (the kernel's is "(none)")

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
# no port forwarding: the host only runs commands.  A dropbear built with
# no password logins at all (userland.sh's) has no -s and refuses it.
nopw=-s
/sbin/dropbear -h 2>&1 | grep -q '^-s' || nopw=
/sbin/dropbear -F -E $nopw -j -k -p 22 -r "$key"
echo "PL-SSHD-EXIT status=$?"
poweroff -f
