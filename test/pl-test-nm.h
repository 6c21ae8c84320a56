/* pl-test-nm.h — a symbol's address range as binutils' nm reports it: the
 * oracle tests compare the agent's and the viewer's addresses with.
 * Header-only, libc only (the agent tests link no GLib). */
#ifndef PL_TEST_NM_H
#define PL_TEST_NM_H

#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* [*lo, *hi) of the defined symbol name in the ELF file elf, from
 * `nm -S --defined-only` (link-time addresses: add a mapping's load bias).
 * Returns 1 when found, 0 when not or when nm cannot run (its complaint
 * goes to stderr).  The first of several symbols of that name wins.  No
 * shell: any path works; posix_spawn: safe in a threaded program. */
static inline int pl_sym_range(const char *elf, const char *name, uint64_t *lo, uint64_t *hi)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	char *argv[] = { (char *)"nm", (char *)"-S", (char *)"--defined-only", (char *)"--",
			 (char *)elf, NULL };
	pid_t pid;
	int rc = posix_spawnp(&pid, "nm", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	FILE *p = rc == 0 ? fdopen(fds[0], "r") : NULL;
	if (!p) {
		close(fds[0]);
		if (rc == 0)
			waitpid(pid, NULL, 0);
		return 0;
	}
	char line[512];
	int found = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, s;
		char t, n[256];
		if (!found && sscanf(line, "%llx %llx %c %255s", &a, &s, &t, n) == 4 &&
		    !strcmp(n, name)) {
			*lo = a;
			*hi = a + s;
			found = 1;
		}
	}
	fclose(p);
	waitpid(pid, NULL, 0);
	return found;
}

#endif
