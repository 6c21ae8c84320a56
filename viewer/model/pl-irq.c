/* pl-irq.c — hardirq and softirq time per CPU from the irq tracepoints
 * (pl-irq.h). */
#include "pl-irq.h"

#include <string.h>

#include "pl-tracepoint.h"

const char *const pl_irq_tracepoints[] = {
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_entry",     "irq:softirq_exit",
	NULL,
};

const char *pl_softirq_name(guint vec)
{
	static const char *const names[PL_SOFTIRQ_VECTORS] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
	};
	return vec < PL_SOFTIRQ_VECTORS ? names[vec] : NULL;
}

enum { EV_NONE, EV_HARD_ENTRY, EV_HARD_EXIT, EV_SOFT_ENTRY, EV_SOFT_EXIT };

static int event_kind(const char *name)
{
	if (!name)
		return EV_NONE;
	if (!strcmp(name, "irq:irq_handler_entry"))
		return EV_HARD_ENTRY;
	if (!strcmp(name, "irq:irq_handler_exit"))
		return EV_HARD_EXIT;
	if (!strcmp(name, "irq:softirq_entry"))
		return EV_SOFT_ENTRY;
	if (!strcmp(name, "irq:softirq_exit"))
		return EV_SOFT_EXIT;
	return EV_NONE;
}

/* An open handler run on one CPU. */
typedef struct {
	gboolean open;
	guint64 start;
	guint32 number, source, stack;
	guint64 nested_ns; /* softirq: time of the hardirqs inside it */
	gboolean kept;     /* its entry is the filter's: counted, timed, drawn */
} Open;

typedef struct {
	Open hard, soft;
} CpuState;

typedef struct {
	PlIrqStats *s;
	GHashTable *index; /* "kind:number:name" -> source index + 1 */
	GArray *cpus;      /* CpuState */
} Builder;

static void source_free(gpointer p)
{
	PlIrqSource *src = p;
	g_free(src->name);
	g_array_free(src->cpus, TRUE);
	g_free(src);
}

void pl_irq_stats_free(PlIrqStats *s)
{
	if (!s)
		return;
	g_ptr_array_free(s->sources, TRUE);
	g_array_free(s->spans, TRUE);
	g_free(s);
}

static PlIrqCpu *source_cpu(PlIrqSource *src, guint cpu)
{
	if (src->cpus->len <= cpu)
		g_array_set_size(src->cpus, cpu + 1);
	return &g_array_index(src->cpus, PlIrqCpu, cpu);
}

static guint32 source_get(Builder *b, PlIrqKind kind, guint32 number, const char *name)
{
	g_autofree char *key = g_strdup_printf("%d:%u:%s", kind, number, name ? name : "");
	gpointer v = g_hash_table_lookup(b->index, key);
	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	PlIrqSource *src = g_new0(PlIrqSource, 1);
	src->kind = kind;
	src->number = number;
	if (kind == PL_IRQ_SOFT)
		src->name = pl_softirq_name(number) ? g_strdup(pl_softirq_name(number))
						    : g_strdup_printf("vector %u", number);
	else
		src->name = g_strdup(name && *name ? name : "?");
	src->cpus = g_array_new(FALSE, TRUE, sizeof(PlIrqCpu));
	g_ptr_array_add(b->s->sources, src);
	guint32 idx = b->s->sources->len - 1;
	g_hash_table_insert(b->index, g_steal_pointer(&key), GUINT_TO_POINTER(idx + 1));
	return idx;
}

static CpuState *cpu_state(Builder *b, guint cpu)
{
	if (b->cpus->len <= cpu)
		g_array_set_size(b->cpus, cpu + 1);
	return &g_array_index(b->cpus, CpuState, cpu);
}

/* A run closed by its exit at time t: its time, and a span for the
 * timeline. */
static guint64 close_run(Builder *b, Open *o, guint cpu, guint64 t, guint32 depth)
{
	PlIrqSource *src = b->s->sources->pdata[o->source];
	guint64 d = t > o->start ? t - o->start : 0;
	guint64 own = d > o->nested_ns ? d - o->nested_ns : 0;
	src->paired++;
	src->time_ns += own;
	src->max_ns = MAX(src->max_ns, own);
	source_cpu(src, cpu)->time_ns += own;
	if (b->s->spans->len < PL_MAX_IRQ_SPANS) {
		PlIrqSpan sp = { o->start, t, cpu, o->source, o->stack, depth };
		g_array_append_val(b->s->spans, sp);
	} else {
		b->s->spans_dropped++;
	}
	o->open = FALSE;
	return d;
}

static gint span_cmp(gconstpointer a, gconstpointer b)
{
	const PlIrqSpan *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : (gint)x->depth - (gint)y->depth;
}

static gint source_cmp(gconstpointer a, gconstpointer b)
{
	const PlIrqSource *x = *(PlIrqSource *const *)a, *y = *(PlIrqSource *const *)b;
	if (x->kind != y->kind)
		return x->kind == PL_IRQ_HARD ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns > y->time_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->number < y->number ? -1 : x->number > y->number;
}

PlIrqStats *pl_irq_stats_new(PlProfile *profile)
{
	return pl_irq_stats_new_filtered(profile, NULL);
}

/* e is one of the filter's: its entry (or a lone exit) on the interrupted
 * thread, in the range */
static gboolean event_kept(const PlTraceEvent *e, const PlFilter *f)
{
	return pl_filter_keeps(f, e->tid, e->time);
}

PlIrqStats *pl_irq_stats_new_filtered(PlProfile *profile, const PlFilter *filter)
{
	PlIrqStats *s = g_new0(PlIrqStats, 1);
	s->sources = g_ptr_array_new_with_free_func(source_free);
	s->spans = g_array_new(FALSE, FALSE, sizeof(PlIrqSpan));
	const PlProfileStats *st = pl_profile_get_stats(profile);
	s->t0 = st->first_time;
	s->t1 = st->last_time;
	if (filter) {
		/* the shares are of the range's CPU time */
		s->t0 = MAX(s->t0, filter->t0);
		if (filter->t1)
			s->t1 = MIN(s->t1, filter->t1);
		s->t1 = MAX(s->t1, s->t0);
	}
	s->per_task = st->target != PL_TARGET_ALL;
	for (guint k = 0; k < G_N_ELEMENTS(st->lost); k++)
		s->lost += st->lost[k];
	Builder b = { s, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		      g_array_new(FALSE, TRUE, sizeof(CpuState)) };
	gboolean be = pl_profile_is_big_endian(profile);
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	/* the kinds of the profile's events, looked up once */
	g_autoptr(GHashTable) kinds = g_hash_table_new(NULL, NULL);
	g_autofree int *kind_of = g_new(int, n ? n : 1);
	/* The agent enables and disables the four tracepoints one after the
	 * other: at the recording's edges one of a pair may be on while the
	 * other is not yet (or no longer).  Per CPU and kind, the exits' first
	 * and last times bound where a missing exit means a lost event. */
	g_autoptr(GArray) exit_span = g_array_new(FALSE, TRUE, sizeof(guint64) * 6);
	for (guint i = 0; i < n; i++) {
		const PlTraceEvent *e = &ev[i];
		gpointer kv;
		int kind;
		if (g_hash_table_lookup_extended(kinds, GUINT_TO_POINTER(e->event), NULL, &kv)) {
			kind = GPOINTER_TO_INT(kv);
		} else {
			const PlEvent *pe = pl_profile_lookup_event(profile, e->event);
			kind = event_kind(pe ? pe->name : NULL);
			g_hash_table_insert(kinds, GUINT_TO_POINTER(e->event), GINT_TO_POINTER(kind));
		}
		kind_of[i] = kind;
		if (kind == EV_NONE)
			continue;
		if (exit_span->len <= e->cpu)
			g_array_set_size(exit_span, e->cpu + 1);
		guint64 *sp = (guint64 *)(gpointer)(exit_span->data + e->cpu * sizeof(guint64) * 6);
		if (kind == EV_HARD_ENTRY || kind == EV_SOFT_ENTRY) {
			/* [4], [5]: the first entry of each kind */
			guint f = kind == EV_SOFT_ENTRY ? 5 : 4;
			if (!sp[f])
				sp[f] = e->time;
			continue;
		}
		guint k = kind == EV_SOFT_EXIT ? 2 : 0;
		if (!sp[k] || e->time < sp[k])
			sp[k] = e->time;
		sp[k + 1] = MAX(sp[k + 1], e->time);
	}
	for (guint i = 0; i < n; i++) {
		const PlTraceEvent *e = &ev[i];
		int kind = kind_of[i];
		if (kind == EV_NONE)
			continue;
		if (kind == EV_HARD_ENTRY || kind == EV_HARD_EXIT)
			s->have_hard = TRUE;
		else
			s->have_soft = TRUE;
		const PlTraceFormat *fmt = pl_profile_get_trace_format(profile, e->event);
		const guint8 *raw = pl_profile_get_trace_raw(profile, e);
		gboolean hard = kind == EV_HARD_ENTRY || kind == EV_HARD_EXIT;
		const PlTraceField *nf = pl_trace_format_find(fmt, hard ? "irq" : "vec");
		gint64 number;
		if (!nf || !pl_trace_field_int(nf, raw, e->raw_len, be, &number)) {
			s->undecoded++;
			continue;
		}
		s->ncpus = MAX(s->ncpus, e->cpu + 1);
		CpuState *c = cpu_state(&b, e->cpu);
		Open *o = hard ? &c->hard : &c->soft;
		if (kind == EV_HARD_ENTRY || kind == EV_SOFT_ENTRY) {
			g_autofree char *name = NULL;
			if (hard) {
				const PlTraceField *f = pl_trace_format_find(fmt, "name");
				name = f ? pl_trace_field_dup_string(f, raw, e->raw_len, be) : NULL;
			}
			guint32 idx = source_get(&b, hard ? PL_IRQ_HARD : PL_IRQ_SOFT, (guint32)number,
						 name);
			PlIrqSource *src = s->sources->pdata[idx];
			gboolean kept = event_kept(e, filter);
			if (kept) {
				src->count++;
				source_cpu(src, e->cpu)->count++;
			}
			if (o->open && o->kept) {
				/* its exit never came: before the exits were on, after
				 * they were off, or lost */
				const guint64 *sp =
					e->cpu < exit_span->len
						? (const guint64 *)(gpointer)(exit_span->data +
									      e->cpu * sizeof(guint64) * 6)
						: NULL;
				guint k = hard ? 0 : 2;
				if (!sp || !sp[k] || o->start < sp[k])
					s->exit_before_start++;
				else if (e->time > sp[k + 1])
					s->open_at_end++;
				else
					s->mismatched++;
			}
			*o = (Open){ TRUE, e->time, (guint32)number, idx, e->stack, 0, kept };
			continue;
		}
		if (!o->open) {
			if (!event_kept(e, filter))
				continue;
			/* after the first entry of its kind on that CPU, its own
			 * entry was lost; before, it ran when the recording began */
			const guint64 *sp = (const guint64 *)(gpointer)(exit_span->data +
									e->cpu * sizeof(guint64) * 6);
			guint64 first = sp[hard ? 4 : 5];
			if (first && first < e->time)
				s->mismatched++;
			else
				s->exit_before_start++;
			continue;
		}
		if (o->number != (guint32)number) {
			s->mismatched += o->kept;
			o->open = FALSE;
			continue;
		}
		gboolean inside_soft = hard && c->soft.open && c->soft.start <= o->start;
		if (!o->kept) {
			/* a run the filter leaves out: only its time inside a
			 * softirq the filter keeps is taken from that one's */
			guint64 d = e->time > o->start ? e->time - o->start : 0;
			if (inside_soft)
				c->soft.nested_ns += d;
			o->open = FALSE;
			continue;
		}
		guint64 d = close_run(&b, o, e->cpu, e->time, inside_soft);
		if (inside_soft) {
			c->soft.nested_ns += d;
			s->nested++;
		}
	}
	for (guint c = 0; c < b.cpus->len; c++) {
		CpuState *cs = &g_array_index(b.cpus, CpuState, c);
		s->open_at_end += (cs->hard.open && cs->hard.kept) + (cs->soft.open && cs->soft.kept);
	}
	for (guint i = 0; i < s->sources->len; i++) {
		PlIrqSource *src = s->sources->pdata[i];
		source_cpu(src, s->ncpus ? s->ncpus - 1 : 0);
		if (src->kind == PL_IRQ_HARD) {
			s->hard_count += src->count;
			s->hard_ns += src->time_ns;
		} else {
			s->soft_count += src->count;
			s->soft_ns += src->time_ns;
		}
	}
	/* spans keep their source index: sort a copy of the order, then remap */
	guint ns = s->sources->len;
	g_autofree PlIrqSource **before = g_memdup2(s->sources->pdata, ns * sizeof(gpointer));
	g_ptr_array_sort(s->sources, source_cmp);
	g_autofree guint32 *remap = g_new0(guint32, ns ? ns : 1);
	for (guint i = 0; i < ns; i++)
		for (guint j = 0; j < ns; j++)
			if (s->sources->pdata[j] == before[i])
				remap[i] = j;
	for (guint i = 0; i < s->spans->len; i++) {
		PlIrqSpan *sp = &g_array_index(s->spans, PlIrqSpan, i);
		sp->source = remap[sp->source];
	}
	g_array_sort(s->spans, span_cmp);
	g_hash_table_destroy(b.index);
	g_array_free(b.cpus, TRUE);
	return s;
}

guint64 pl_irq_stats_count(const PlIrqStats *s, PlIrqKind kind, guint32 number, guint cpu)
{
	guint64 n = 0;
	for (guint i = 0; i < s->sources->len; i++) {
		const PlIrqSource *src = s->sources->pdata[i];
		if (src->kind != kind || src->number != number)
			continue;
		if (cpu == G_MAXUINT)
			n += src->count;
		else if (cpu < src->cpus->len)
			n += g_array_index(src->cpus, PlIrqCpu, cpu).count;
	}
	return n;
}

double pl_irq_stats_seconds(const PlIrqStats *s)
{
	return s->t1 > s->t0 ? (double)(s->t1 - s->t0) / 1e9 : 0;
}
