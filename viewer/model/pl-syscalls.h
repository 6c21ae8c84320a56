/* pl-syscalls.h — slow system calls: the names of system call
 * numbers for the boards' architectures, and the calls an agent sent
 * (`--syscalls`, msg.h struct pl_slow_syscall) decoded from a profile.
 * No GTK; pure functions over the profile's tracepoint events. */
#ifndef PL_SYSCALLS_H
#define PL_SYSCALLS_H

#include <glib.h>

#include "pl-profile.h"
#include "pl-tracepoint.h"

G_BEGIN_DECLS

/* The name of system call nr on a board (HELLO's e_machine: x86_64,
 * aarch64 either byte order, 32-bit ARM EABI), NULL when unknown. */
const char *pl_syscall_name(guint e_machine, guint64 nr);
/* Appends to out (comma-separated) every number named name on that
 * architecture, and on 32-bit ARM those of name_time64 too (what libc
 * calls there); FALSE when none. */
gboolean pl_syscall_numbers(guint e_machine, const char *name, GString *out);

/* The agent's event spec for `--syscalls LIST --slower-than DUR`
 * ("slow-syscalls:DUR:NR,NR…", agent/perf.c), the names in the
 * comma-separated list translated to the board's numbers (e_machine from
 * HELLO); numbers and "all" pass as they are; slower_than NULL: 1ms.
 * NULL with a sentence for the user when a name is unknown on that
 * architecture, the duration is not one (1ms, 250us, 2s) or the list is
 * too long for the agent. */
char *pl_syscalls_event_spec(guint e_machine, const char *list, const char *slower_than,
			     GError **error);

typedef struct {
	guint64 time; /* entry */
	guint32 pid, tid;
	guint32 stack; /* at entry: an address-trie leaf, as PlSample.stack */
	guint64 nr, duration_ns;
	gint64 ret;
	guint64 args[6];
} PlSlowCall;

/* The slow calls of a profile, in time order (GArray of PlSlowCall). */
GArray *pl_slow_calls_new(PlProfile *profile);

/* The blocked time of calls by call site: an aggregate whose call tree
 * (the profile's) is weighed by each call's duration at its stack at
 * entry, one "sample" per call; all.weight is the sum of the durations.
 * A flame graph draws it as it draws samples.  pl_aggregate_free. */
PlAggregate *pl_slow_calls_aggregate(PlProfile *profile, GArray *calls);

/* Each call as an interval [entry, entry + duration] on its thread
 * (depth 0, named "NAME (slow system call)"), added to m->intervals, which
 * stay sorted by start; returns how many. */
guint pl_markers_add_slow_calls(PlMarkers *m, PlProfile *profile);
#define PL_SLOW_CALL_SUFFIX " (slow system call)"

G_END_DECLS

#endif
