/* boot.h — `--boot [--] /sbin/init ARGS`: the agent as the kernel's init=
 * (or an initramfs's /init), recording the whole system from the first
 * instant of user space.
 *
 * As bootchart does, the real init keeps PID 1: PID 1 mounts what
 * recording needs and the kernel may not have mounted yet (/proc, /sys,
 * tracefs, devtmpfs, a tmpfs for the capture at /run/perflens), forks the
 * recorder, waits until it samples (at most PLA_BOOT_WAIT_MS) and execs
 * the real init.  The recorder is a flight recorder (flight.h) of --all:
 * it saves once, on a trigger (marker:, proc: "a process named ... is
 * up") or at the --duration limit, into --snapshot-dir (default
 * /run/perflens, RAM) and ends, unless --port keeps it for viewers: a
 * SNAPSHOT (perflens snapshot) then gets that file, and later triggers
 * are ignored (a viewer that asks before the boot's trigger fired gets
 * the boot so far, which is then the one saved).  An exec of the real
 * init that fails tries /sbin/init, then /bin/sh: PID 1 never exits (the
 * kernel would panic).
 */
#ifndef PLA_BOOT_H
#define PLA_BOOT_H

#include <stddef.h>

#define PLA_BOOT_WAIT_MS 3000
#define PLA_BOOT_DIR "/run/perflens"

/* Returns in the recorder (the child) the descriptor to tell readiness
 * through (flight config's ready_fd); never returns in PID 1 (the real
 * init runs there, recorded or not).  Not PID 1: -EPERM with a
 * sentence. */
int pla_boot_start(char *const init_argv[], char *err, size_t errlen);

#endif
