#!/bin/busybox sh
# /init of the emulated board (put there by mkinitramfs.sh).  Brings up the
# network the way BOARDS.md found works, starts the agent as a user would
# after scp, and powers off when told or when its watchdog fires, so qemu
# always exits (panic=-1 and -no-reboot turn any end into qemu's exit).
# Settings come from the kernel command line: pl.token=T pl.timeout=S.
. /board-up.sh
# the agent refuses an empty token (exit 2) and, without one, would write
# a generated one to a file the host cannot read: boot.sh always passes one
[ -n "$token" ] || echo "PL-ERROR no pl.token=T on the kernel command line"

echo "PL-AGENT-START uptime=$(cut -d' ' -f1 /proc/uptime)"
# each agent line prefixed with the guest's uptime: the host measures
# "viewer connected -> first sample" on the guest's own clock
{ /perflens-agent --listen --port 9999 --token "$token"; echo "PL-AGENT-EXIT status=$?"; } 2>&1 |
	while IFS= read -r l; do echo "[$(cut -d' ' -f1 /proc/uptime)] $l"; done
poweroff -f
