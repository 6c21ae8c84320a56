/* trigger.h — what makes the flight recorder (flight.h) save its ring:
 * `--trigger KIND:ARG`, repeatable.
 *
 *   marker:REGEX           a pl_mark() line matching REGEX (needs --markers,
 *                          which the agent then turns on itself)
 *   syscall:NAME>DURATION  a call of NAME taking DURATION or more
 *                          ("syscall:fsync>50ms"; NAME "any": every call
 *                          timed); the agent times those calls (--syscalls)
 *   event:NAME             any hit of the --event tracepoint or probe NAME
 *   cpu:SHARE%/DURATION    the profiled process above SHARE % of one CPU
 *                          (all its threads: 250% is two and a half) for
 *                          DURATION, measured each second; with --all, the
 *                          whole board above SHARE % of all its CPUs
 *   proc:REGEX             a process whose name (comm) matches REGEX starts
 *                          (an exec; with --boot: "the shell is up")
 *   exit                   the command ends by a signal or a non-zero status
 *   signal                 SIGUSR1 to the agent
 *
 * REGEX is a small one (the agent carries no regex library): c, ., *, +,
 * ?, ^, $ and \c, unanchored unless ^ or $ say otherwise.
 *
 * Matching runs on the drain path: it reads the message only, never
 * allocates, and a marker's text is found in the sample's stack copy as
 * the viewer finds it (msg.h, PL_MARKER_*).
 */
#ifndef PLA_TRIGGER_H
#define PLA_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define PLA_MAX_TRIGGERS 8
#define PLA_TRIGGER_TEXT 128

struct pla_trigger {
	uint8_t kind;             /* enum pl_trigger_kind */
	char spec[PLA_TRIGGER_TEXT]; /* as written */
	const char *arg;          /* in spec: the regex, the event's name */
	uint16_t nr[2];           /* SYSCALL: its numbers (0 with nnr 0: any) */
	uint8_t nnr;
	uint64_t min_ns;          /* SYSCALL: the threshold; CPU: how long */
	uint32_t permille;        /* CPU: the share, ‰ */
	char name[24];            /* SYSCALL: the call's name, for the detail */
};

/* Parses "KIND:ARG".  Returns 0, or -EINVAL with a sentence in err. */
int pla_trigger_parse(const char *text, struct pla_trigger *t, char *err, size_t errlen);

/* 1 when text[0..len) holds a match of re (the small syntax above). */
int pla_regex_search(const char *re, const char *text, size_t len);

/* What a sample says to the triggers: the session's events that matter
 * (-1: none) and where a marker's text is. */
struct pla_trigger_events {
	int32_t marker;  /* the "markers" event's index */
	int32_t syscall; /* the "slow-syscalls" event's index */
	uint64_t regs_mask; /* the sampled user registers (arch.h) */
	const char *names[PL_MAX_EVENTS + 1]; /* each sampled event's name, or NULL */
	uint32_t nnames;
};

/* The marker text of a marker sample (borrowed from its stack copy), or
 * NULL when the copy does not hold it. */
const char *pla_marker_text(const struct pl_msg_sample *s, uint64_t regs_mask, uint32_t *len);

/* Whether COMM message c (an exec) fires proc: trigger t; detail says
 * which process. */
int pla_trigger_match_comm(const struct pla_trigger *t, const struct pl_msg_comm *c,
			   char *detail, size_t dlen);

/* Whether sample s fires trigger t; when it does, *when is the trigger's
 * time and detail says what matched. */
int pla_trigger_match(const struct pla_trigger *t, const struct pla_trigger_events *ev,
		      const struct pl_msg_sample *s, uint64_t *when, char *detail, size_t dlen);

#endif
