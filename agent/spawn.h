/* spawn.h — starting the command of a PL_TARGET_COMMAND session.
 *
 * pla_raise_nofile() raises the agent's RLIMIT_NOFILE to the hard limit
 * (events take one descriptor per thread, CPU and event) and remembers the
 * limit found, once per process; pla_spawn_held() forks the command, which
 * gets that limit back, every signal at its default, an empty mask and
 * priority 0, and waits before its exec until the caller writes one byte
 * to *go_fd: nothing it does is missed.  If the exec fails, its errno comes
 * back on *err_fd (EOF there: the exec succeeded).  The caller owns and
 * closes both fds, and reaps the child.
 */
#ifndef PLA_SPAWN_H
#define PLA_SPAWN_H

#include <sys/types.h>

void pla_raise_nofile(void);
/* Returns the child's pid or -errno.  stdout_taken: the command writes
 * its stdout to the agent's stderr. */
pid_t pla_spawn_held(char *const *argv, int stdout_taken, int *go_fd, int *err_fd);

#endif
