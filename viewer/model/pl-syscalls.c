/* pl-syscalls.c — system call names and the slow calls of a profile; see
 * pl-syscalls.h. */
#include "pl-syscalls.h"

#include <elf.h>
#include <string.h>

#include <gio/gio.h>

#include "pl-tracepoint.h"

typedef struct {
	guint nr;
	const char *name;
} PlSyscallName;

#include "pl-syscall-names.h" /* generated: gen-syscall-names.sh */

static const PlSyscallName *table_for(guint e_machine, gsize *n)
{
	switch (e_machine) {
	case EM_X86_64:
		*n = G_N_ELEMENTS(pl_sc_x86_64);
		return pl_sc_x86_64;
	case EM_AARCH64:
	case EM_RISCV: /* asm-generic too; its own riscv_flush_icache (259) is unnamed */
		*n = G_N_ELEMENTS(pl_sc_generic);
		return pl_sc_generic;
	case EM_ARM:
		*n = G_N_ELEMENTS(pl_sc_arm);
		return pl_sc_arm;
	}
	*n = 0;
	return NULL;
}

const char *pl_syscall_name(guint e_machine, guint64 nr)
{
	gsize n, lo = 0;
	const PlSyscallName *t = table_for(e_machine, &n);
	while (t && lo < n) { /* sorted by number */
		gsize mid = lo + (n - lo) / 2;
		if (t[mid].nr == nr)
			return t[mid].name;
		if (t[mid].nr < nr)
			lo = mid + 1;
		else
			n = mid;
	}
	return NULL;
}

gboolean pl_syscall_numbers(guint e_machine, const char *name, GString *out)
{
	gsize n;
	const PlSyscallName *t = table_for(e_machine, &n);
	g_autofree char *t64 = g_strconcat(name, "_time64", NULL);
	gboolean any = FALSE;
	for (gsize i = 0; i < n; i++)
		if (!strcmp(t[i].name, name) || (e_machine == EM_ARM && !strcmp(t[i].name, t64))) {
			g_string_append_printf(out, "%s%u", out->len ? "," : "", t[i].nr);
			any = TRUE;
		}
	return any;
}

/* the agent's room for the numbers (agent/perf.h PLA_SYS_LIST, less a
 * number's worth: it refuses a longer list) */
#define AGENT_LIST_MAX 180

char *pl_syscalls_event_spec(guint e_machine, const char *list, const char *slower_than,
			     GError **error)
{
	const char *dur = slower_than && *slower_than ? slower_than : "1ms";
	gsize digits = strspn(dur, "0123456789");
	const char *unit = dur + digits;
	if (!digits || (*unit && strcmp(unit, "ns") && strcmp(unit, "us") && strcmp(unit, "ms") &&
			strcmp(unit, "s"))) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "--slower-than '%s' is not a duration: give 1ms, 250us, 2s", dur);
		return NULL;
	}
	g_autoptr(GString) nrs = g_string_new(NULL);
	g_auto(GStrv) names = g_strsplit(list ? list : "", ",", -1);
	gboolean all = FALSE;
	for (guint i = 0; names[i]; i++) {
		const char *n = g_strstrip(names[i]);
		if (!*n)
			continue;
		if (!strcmp(n, "all")) {
			all = TRUE;
		} else if (strspn(n, "0123456789") == strlen(n)) {
			g_string_append_printf(nrs, "%s%s", nrs->len ? "," : "", n);
		} else if (!pl_syscall_numbers(e_machine, n, nrs)) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    e_machine ? "no system call '%s' on the board's architecture "
						"(ELF machine %u): check the name, or give its number"
					      : "no system call '%s': the board's architecture "
						"(ELF machine %u) is unknown here: give numbers",
				    n, e_machine);
			return NULL;
		}
	}
	if (all || !nrs->len) {
		if (!all) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "--syscalls needs names (read,write,fsync), numbers or all");
			return NULL;
		}
		return g_strdup_printf(PL_SLOW_SYSCALLS_EVENT ":%s", dur);
	}
	if (nrs->len > AGENT_LIST_MAX) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "--syscalls: too many calls for the agent (%zu characters of numbers, "
			    "at most %d): use --syscalls all", nrs->len, AGENT_LIST_MAX);
		return NULL;
	}
	return g_strdup_printf(PL_SLOW_SYSCALLS_EVENT ":%s:%s", dur, nrs->str);
}

static guint64 u64_at(const guint8 *p, gboolean be)
{
	guint64 v = 0;
	for (guint i = 0; i < 8; i++)
		v |= (guint64)p[be ? 7 - i : i] << (8 * i);
	return v;
}

GArray *pl_slow_calls_new(PlProfile *profile)
{
	GArray *calls = g_array_new(FALSE, TRUE, sizeof(PlSlowCall));
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	gboolean be = pl_profile_is_big_endian(profile);
	for (guint i = 0; i < n; i++) {
		const PlEvent *e = pl_profile_lookup_event(profile, ev[i].event);
		/* msg.h struct pl_slow_syscall: 9 words; a shorter payload is
		 * not one (bounds first) */
		if (!e || g_strcmp0(e->name, PL_SLOW_SYSCALLS_EVENT) ||
		    ev[i].raw_len < sizeof(struct pl_slow_syscall))
			continue;
		const guint8 *raw = pl_profile_get_trace_raw(profile, &ev[i]);
		PlSlowCall c = { ev[i].time, ev[i].pid, ev[i].tid, ev[i].stack, u64_at(raw, be),
				 u64_at(raw + 8, be), (gint64)u64_at(raw + 16, be), { 0 } };
		for (guint a = 0; a < 6; a++)
			c.args[a] = u64_at(raw + 24 + 8 * a, be);
		g_array_append_val(calls, c);
	}
	return calls;
}

PlAggregate *pl_slow_calls_aggregate(PlProfile *profile, GArray *calls)
{
	PlAggregate *agg = g_new0(PlAggregate, 1);
	agg->profile = profile;
	agg->filter = PL_FILTER_ALL;
	/* every array an aggregate has, so that any reader of one may read
	 * this one (the functions and lines stay empty) */
	agg->n_nodes = pl_profile_get_n_nodes(profile);
	agg->n_functions = pl_profile_get_n_functions(profile);
	agg->n_locations = pl_profile_get_n_locations(profile);
	agg->self = g_new0(PlCount, MAX(agg->n_nodes, 1));
	agg->total = g_new0(PlCount, MAX(agg->n_nodes, 1));
	agg->func_self = g_new0(PlCount, agg->n_functions + 1);
	agg->func_total = g_new0(PlCount, agg->n_functions + 1);
	agg->line_self = g_new0(PlCount, agg->n_locations + 1);
	agg->line_total = g_new0(PlCount, agg->n_locations + 1);
	agg->threads = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	for (guint i = 0; i < calls->len; i++) {
		const PlSlowCall *c = &g_array_index(calls, PlSlowCall, i);
		PlCount one = { 1, c->duration_ns };
		agg->all.samples++;
		agg->all.weight += c->duration_ns;
		PlCount *tc = g_hash_table_lookup(agg->threads, GUINT_TO_POINTER(c->tid));
		if (!tc) {
			tc = g_new0(PlCount, 1);
			g_hash_table_insert(agg->threads, GUINT_TO_POINTER(c->tid), tc);
		}
		tc->samples++;
		tc->weight += c->duration_ns;
		/* a call without a stack weighs on the root only */
		guint32 leaf = pl_profile_get_stack_node(profile, c->stack);
		if (leaf == PL_NO_ID || leaf >= agg->n_nodes)
			leaf = 0;
		agg->self[leaf].samples += one.samples;
		agg->self[leaf].weight += one.weight;
		for (guint32 n = leaf; n != PL_NO_ID && n < agg->n_nodes;
		     n = pl_profile_get_node(profile, n)->parent) {
			agg->total[n].samples += one.samples;
			agg->total[n].weight += one.weight;
			if (n == 0)
				break;
		}
	}
	return agg;
}

static gint interval_by_start(gconstpointer a, gconstpointer b)
{
	const PlMarkerInterval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

guint pl_markers_add_slow_calls(PlMarkers *m, PlProfile *profile)
{
	g_autoptr(GArray) calls = pl_slow_calls_new(profile);
	guint em = pl_profile_get_e_machine(profile);
	for (guint i = 0; i < calls->len; i++) {
		const PlSlowCall *c = &g_array_index(calls, PlSlowCall, i);
		const char *name = pl_syscall_name(em, c->nr);
		PlMarkerInterval iv = { c->time, c->time + c->duration_ns, c->pid, c->tid, 0,
					name ? g_strconcat(name, PL_SLOW_CALL_SUFFIX, NULL)
					     : g_strdup_printf("syscall %" G_GUINT64_FORMAT
							       PL_SLOW_CALL_SUFFIX, c->nr) };
		g_array_append_val(m->intervals, iv);
	}
	if (calls->len)
		g_array_sort(m->intervals, interval_by_start);
	return calls->len;
}
