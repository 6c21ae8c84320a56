/* trigger.c — flight recorder triggers; see trigger.h. */
#include "trigger.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "perf.h"
#include "util.h"

/* ─── the small regex ────────────────────────────────────────────────── */

static int one(char atom, int escaped, char c)
{
	return (!escaped && atom == '.') || atom == c;
}

/* Whether re matches at t (the text ends at end).  Recursion is bounded by
 * the regex's length (a trigger's, ≤ PLA_TRIGGER_TEXT). */
static int match_here(const char *re, const char *t, const char *end)
{
	for (;;) {
		if (!*re)
			return 1;
		if (re[0] == '$' && !re[1])
			return t == end;
		int esc = re[0] == '\\' && re[1];
		char atom = esc ? re[1] : re[0];
		const char *next = re + (esc ? 2 : 1);
		char op = *next;
		if (op == '*' || op == '+' || op == '?') {
			next++;
			const char *p = t;
			if (op == '?')
				return (p < end && one(atom, esc, *p) && match_here(next, p + 1, end)) ||
				       match_here(next, t, end);
			if (op == '+') {
				if (p >= end || !one(atom, esc, *p))
					return 0;
				p++;
			}
			for (;;) { /* shortest first: no backtracking blow-up on these sizes */
				if (match_here(next, p, end))
					return 1;
				if (p >= end || !one(atom, esc, *p))
					return 0;
				p++;
			}
		}
		if (t >= end || !one(atom, esc, *t))
			return 0;
		re = next;
		t++;
	}
}

int pla_regex_search(const char *re, const char *text, size_t len)
{
	const char *end = text + len;
	if (re[0] == '^')
		return match_here(re + 1, text, end);
	for (const char *t = text;; t++) {
		if (match_here(re, t, end))
			return 1;
		if (t >= end)
			return 0;
	}
}

/* ─── parsing ─────────────────────────────────────────────────────────── */

int pla_trigger_parse(const char *text, struct pla_trigger *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (strlen(text) >= sizeof(t->spec)) {
		snprintf(err, errlen, "--trigger '%.40s...' is too long", text);
		return -EINVAL;
	}
	memcpy(t->spec, text, strlen(text) + 1);
	const char *colon = strchr(t->spec, ':');
	size_t kl = colon ? (size_t)(colon - t->spec) : strlen(t->spec);
	t->arg = colon ? colon + 1 : "";
#define IS(k) (kl == sizeof(k) - 1 && !memcmp(t->spec, k, kl))
	if (IS("exit") || IS("signal")) {
		t->kind = IS("exit") ? PL_TRIGGER_EXIT : PL_TRIGGER_SIGNAL;
		if (colon)
			goto bad;
		return 0;
	}
	if (!colon || !*t->arg)
		goto bad;
	if (IS("marker") || IS("proc")) {
		t->kind = IS("marker") ? PL_TRIGGER_MARKER : PL_TRIGGER_PROC;
		return 0;
	}
	if (IS("cpu")) {
		/* SHARE%/DURATION */
		char *end;
		uint64_t pct = pla_strtou64(t->arg, &end, 10);
		int64_t ns = end[0] == '%' && end[1] == '/' ? pla_parse_duration(end + 2) : -1;
		if (end == t->arg || !pct || pct > 100000 || ns < 0)
			goto bad;
		t->kind = PL_TRIGGER_CPU;
		t->permille = (uint32_t)pct * 10;
		t->min_ns = (uint64_t)ns;
		return 0;
	}
	if (IS("event")) {
		t->kind = PL_TRIGGER_EVENT;
		return 0;
	}
	if (IS("syscall")) {
		const char *gt = strchr(t->arg, '>');
		size_t nl = gt ? (size_t)(gt - t->arg) : 0;
		int64_t ns = gt ? pla_parse_duration(gt + 1) : -1;
		if (!gt || nl == 0 || nl >= sizeof(t->name) || ns <= 0)
			goto bad;
		memcpy(t->name, t->arg, nl);
		t->min_ns = (uint64_t)ns;
		t->kind = PL_TRIGGER_SYSCALL;
		if (!strcmp(t->name, "any"))
			return 0;
		char nums[32] = "";
		int n = pla_syscall_numbers(t->name, nums, sizeof(nums));
		if (n <= 0) {
			snprintf(err, errlen, "--trigger %s: system call '%s' unknown to this agent",
				 text, t->name);
			return -EINVAL;
		}
		const char *p = nums;
		for (; t->nnr < 2 && *p; t->nnr++) {
			unsigned v = 0;
			while (*p >= '0' && *p <= '9')
				v = v * 10 + (unsigned)(*p++ - '0');
			t->nr[t->nnr] = (uint16_t)v;
			if (*p == ',')
				p++;
		}
		return 0;
	}
#undef IS
bad:
	snprintf(err, errlen,
		 "--trigger '%s': use marker:REGEX, syscall:NAME>DURATION (fsync>50ms), "
		 "event:NAME, cpu:SHARE%%/DURATION (90%%/2s), proc:REGEX, exit or signal", text);
	return -EINVAL;
}

/* ─── matching ────────────────────────────────────────────────────────── */

const char *pla_marker_text(const struct pl_msg_sample *s, uint64_t regs_mask, uint32_t *len)
{
	typedef unsigned long word;
	const size_t w = sizeof(word);
	if (!(regs_mask >> PLA_SP_REG & 1) || !s->stack || !s->stack_size)
		return NULL;
	uint32_t ri = (uint32_t)__builtin_popcountll(regs_mask & ((1ull << PLA_SP_REG) - 1));
	if (ri >= s->nr_regs)
		return NULL;
	uint64_t sp = s->regs[ri];
	/* the iovecs: {text, len}, {SIG1, 0}, {SIG2, 0} (perflens-marker.h) */
	size_t nw = s->stack_size / w;
	for (size_t i = 2; i + 3 < nw; i++) {
		word v[6];
		memcpy(v, s->stack + (i - 2) * w, sizeof(v));
		if (v[2] != PL_MARKER_SIG1 || v[3] || v[4] != PL_MARKER_SIG2 || v[5])
			continue;
		uint64_t base = v[0], n = v[1];
		if (base < sp || base - sp > s->stack_size || s->stack_size - (base - sp) < n ||
		    n > PL_MAX_STR)
			return NULL;
		*len = (uint32_t)n;
		return (const char *)s->stack + (base - sp);
	}
	return NULL;
}

int pla_trigger_match_comm(const struct pla_trigger *t, const struct pl_msg_comm *c,
			   char *detail, size_t dlen)
{
	if (t->kind != PL_TRIGGER_PROC || !c->exec || c->snapshot ||
	    !pla_regex_search(t->arg, c->comm.p, c->comm.len))
		return 0;
	snprintf(detail, dlen, "%.*s (pid %u) started", (int)(c->comm.len < 64 ? c->comm.len : 64),
		 c->comm.p, c->pid);
	return 1;
}

int pla_trigger_match(const struct pla_trigger *t, const struct pla_trigger_events *ev,
		      const struct pl_msg_sample *s, uint64_t *when, char *detail, size_t dlen)
{
	switch (t->kind) {
	case PL_TRIGGER_MARKER: {
		uint32_t n;
		const char *text;
		if ((int32_t)s->event != ev->marker || !(text = pla_marker_text(s, ev->regs_mask, &n)))
			return 0;
		while (n && (text[n - 1] == '\n' || text[n - 1] == 0))
			n--;
		if (!pla_regex_search(t->arg, text, n))
			return 0;
		*when = s->time;
		snprintf(detail, dlen, "marker \"%.*s\"", (int)(n < 200 ? n : 200), text);
		return 1;
	}
	case PL_TRIGGER_SYSCALL: {
		struct pl_slow_syscall c;
		if ((int32_t)s->event != ev->syscall || s->raw_size != sizeof(c))
			return 0;
		memcpy(&c, s->raw, sizeof(c));
		int hit = t->nnr == 0;
		for (int i = 0; i < t->nnr; i++)
			hit |= c.nr == t->nr[i];
		if (!hit || c.duration_ns < t->min_ns)
			return 0;
		*when = s->time + c.duration_ns;
		unsigned long long us = (unsigned long long)(c.duration_ns / 1000);
		snprintf(detail, dlen, "%s (call %llu) took %llu.%03llu ms",
			 t->nnr ? t->name : "a system call", (unsigned long long)c.nr, us / 1000,
			 us % 1000);
		return 1;
	}
	case PL_TRIGGER_EVENT:
		if (s->event >= ev->nnames || !ev->names[s->event] ||
		    strcmp(ev->names[s->event], t->arg))
			return 0;
		*when = s->time;
		snprintf(detail, dlen, "a hit of %s", t->arg);
		return 1;
	}
	return 0;
}
