/* pl-proc-irq-counts.c — /proc/interrupts and /proc/softirqs, read by the
 * agent at a --irq session's start and end, against the recorded runs
 * (pl-proc-irq-counts.h). */
#include "pl-proc-irq-counts.h"

#include <string.h>

/* ─── the parser ───────────────────────────────────────────────────────── */

static void line_free(gpointer p)
{
	PlProcIrqLine *l = p;
	g_free(l->key);
	g_free(l->desc);
	g_free(l->counts);
	g_free(l);
}

void pl_proc_irq_table_free(PlProcIrqTable *t)
{
	if (!t)
		return;
	g_free(t->cpu);
	g_ptr_array_free(t->lines, TRUE);
	g_free(t);
}

static gboolean is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* An unsigned decimal token at *p (< end), at most 20 digits, that ends at
 * a space or the line's end; *p moves past it.  FALSE: not one. */
static gboolean take_count(const char **p, const char *end, guint64 *v)
{
	const char *q = *p;
	guint64 x = 0;
	int digits = 0;
	while (q < end && g_ascii_isdigit(*q)) {
		if (++digits > 20 || x > (G_MAXUINT64 - 9) / 10)
			return FALSE;
		x = x * 10 + (guint64)(*q - '0');
		q++;
	}
	if (!digits || (q < end && !is_space(*q)))
		return FALSE;
	*v = x;
	*p = q;
	return TRUE;
}

/* The header "           CPU0       CPU1": the CPU of each column. */
static gboolean parse_header(PlProcIrqTable *t, const char *p, const char *end)
{
	GArray *cpus = g_array_new(FALSE, FALSE, sizeof(guint));
	while (p < end) {
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		guint64 n;
		if (end - p < 4 || memcmp(p, "CPU", 3) != 0 || (p += 3, !take_count(&p, end, &n)) ||
		    n >= PL_PROC_IRQ_MAX_CPUS || cpus->len >= PL_PROC_IRQ_MAX_CPUS) {
			g_array_free(cpus, TRUE);
			return FALSE;
		}
		guint c = (guint)n;
		g_array_append_val(cpus, c);
	}
	t->ncols = cpus->len;
	t->cpu = (guint *)(gpointer)g_array_free(cpus, FALSE);
	return t->ncols > 0;
}

static void parse_row(PlProcIrqTable *t, const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	const char *colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p || colon - p > 32)
		return;
	for (const char *k = p; k < colon; k++)
		if (is_space(*k))
			return;
	PlProcIrqLine *l = g_new0(PlProcIrqLine, 1);
	l->key = g_strndup(p, (gsize)(colon - p));
	l->counts = g_new0(guint64, t->ncols);
	p = colon + 1;
	while (l->n < t->ncols) {
		while (p < end && is_space(*p))
			p++;
		if (!take_count(&p, end, &l->counts[l->n]))
			break;
		l->n++;
	}
	while (p < end && is_space(*p))
		p++;
	const char *e = end;
	while (e > p && (is_space(e[-1]) || e[-1] == '\r'))
		e--;
	l->desc = g_strndup(p, (gsize)(e - p));
	l->handlers = 1;
	for (const char *c = l->desc; *c; c++)
		l->handlers += *c == ',';
	if (!l->n) {
		line_free(l);
		return;
	}
	g_ptr_array_add(t->lines, l);
}

PlProcIrqTable *pl_proc_irq_table_parse(const char *text, gsize len, GError **error)
{
	PlProcIrqTable *t = g_new0(PlProcIrqTable, 1);
	t->lines = g_ptr_array_new_with_free_func(line_free);
	const char *p = text, *end = text ? text + len : text;
	gboolean header = FALSE;
	while (p && p < end && t->lines->len < PL_PROC_IRQ_MAX_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		while (q < le && is_space(*q))
			q++;
		if (q < le) {
			if (!header) {
				if (!parse_header(t, p, le))
					break;
				header = TRUE;
			} else {
				parse_row(t, p, le);
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!header) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "no \"CPU0 CPU1 …\" header line: not the kernel's interrupt counts");
		pl_proc_irq_table_free(t);
		return NULL;
	}
	return t;
}

/* ─── the comparison ──────────────────────────────────────────────────── */

static void row_free(gpointer p)
{
	PlProcIrqRow *r = p;
	g_free(r->key);
	g_free(r->desc);
	g_array_free(r->cpus, TRUE);
	g_free(r);
}

void pl_proc_irq_compare_free(PlProcIrqCompare *c)
{
	if (!c)
		return;
	g_ptr_array_free(c->rows, TRUE);
	g_array_free(c->missing, TRUE);
	g_free(c->problem);
	g_free(c);
}

gboolean pl_proc_irq_filter_narrows(const PlFilter *f)
{
	return f && (f->tid || f->t0 || f->t1);
}

/* The kernel's per-CPU counts are unsigned int: a smaller second value
 * below 2^32 wrapped once. */
static gint64 count_delta(guint64 a, guint64 b)
{
	if (b < a && a <= G_MAXUINT32 && b <= G_MAXUINT32)
		return (gint64)(b + ((guint64)1 << 32) - a);
	return (gint64)b - (gint64)a;
}

static const PlProcIrqLine *find_line(const PlProcIrqTable *t, const char *key)
{
	for (guint i = 0; i < t->lines->len; i++) {
		const PlProcIrqLine *l = t->lines->pdata[i];
		if (!strcmp(l->key, key))
			return l;
	}
	return NULL;
}

static guint col_of(const PlProcIrqTable *t, guint cpu)
{
	for (guint i = 0; i < t->ncols; i++)
		if (t->cpu[i] == cpu)
			return i;
	return G_MAXUINT;
}

/* The softirq vector named key, or G_MAXUINT. */
static guint vector_of(const char *key)
{
	for (guint v = 0; v < PL_SOFTIRQ_VECTORS; v++)
		if (!strcmp(pl_softirq_name(v), key))
			return v;
	return G_MAXUINT;
}

/* Interrupts of line or vector number recorded on cpu: a shared line runs
 * each of its handlers per interrupt, so its most-run handler's count. */
static guint64 recorded_on(const PlIrqStats *s, PlIrqKind kind, guint32 number, guint cpu)
{
	guint64 most = 0, sum = 0;
	for (guint i = 0; i < s->sources->len; i++) {
		const PlIrqSource *src = s->sources->pdata[i];
		if (src->kind != kind || src->number != number || cpu >= src->cpus->len)
			continue;
		guint64 n = g_array_index(src->cpus, PlIrqCpu, cpu).count;
		most = MAX(most, n);
		sum += n;
	}
	return kind == PL_IRQ_HARD ? most : sum;
}

static void compare_file(PlProcIrqCompare *c, PlProfile *profile, PlProcIrqFile f,
			 const PlProcIrqTable *a, const PlProcIrqTable *b)
{
	PlFilter span = { 0, PL_NO_ID, c->t0[f], c->t1[f] + 1 };
	g_autoptr(PlIrqStats) s = pl_irq_stats_new_filtered(profile, &span);
	PlIrqKind kind = f == PL_PROC_INTERRUPTS ? PL_IRQ_HARD : PL_IRQ_SOFT;
	guint ncpus = 0;
	for (guint i = 0; i < b->ncols; i++)
		ncpus = MAX(ncpus, b->cpu[i] + 1);
	c->ncpus = MAX(c->ncpus, ncpus);
	for (guint i = 0; i < b->lines->len; i++) {
		const PlProcIrqLine *lb = b->lines->pdata[i];
		const PlProcIrqLine *la = find_line(a, lb->key);
		if (!la)
			continue; /* a line that came during the session: no start */
		PlProcIrqRow *r = g_new0(PlProcIrqRow, 1);
		r->kind = kind;
		r->key = g_strdup(lb->key);
		r->desc = g_strdup(lb->desc);
		r->handlers = lb->handlers;
		r->cpus = g_array_new(FALSE, TRUE, sizeof(PlProcIrqCpuCount));
		g_array_set_size(r->cpus, ncpus);
		guint64 number = 0;
		const char *e = NULL;
		if (kind == PL_IRQ_HARD) {
			number = g_ascii_strtoull(lb->key, (char **)&e, 10);
			r->traced = e && !*e && number <= G_MAXUINT32;
		} else {
			number = vector_of(lb->key);
			r->traced = number != G_MAXUINT;
		}
		r->number = r->traced ? (guint32)number : 0;
		if (lb->n < b->ncols || la->n < a->ncols) {
			/* a total, not per CPU ("ERR:", "MIS:") */
			r->proc = count_delta(la->counts[0], lb->counts[0]);
			r->traced = FALSE;
		} else {
			for (guint k = 0; k < b->ncols; k++) {
				guint cpu = b->cpu[k], ka = col_of(a, cpu);
				PlProcIrqCpuCount *pc = &g_array_index(r->cpus, PlProcIrqCpuCount, cpu);
				pc->proc = count_delta(ka == G_MAXUINT ? 0 : la->counts[ka],
						       lb->counts[k]);
				r->proc += pc->proc;
				if (r->traced) {
					pc->recorded = recorded_on(s, kind, r->number, cpu);
					r->recorded += pc->recorded;
				}
			}
		}
		if (r->traced) {
			r->missing = r->proc - (gint64)r->recorded;
			c->proc_total += r->proc;
			c->recorded_total += r->recorded;
			c->missing_total += r->missing;
			if (c->missing->len < c->ncpus)
				g_array_set_size(c->missing, c->ncpus);
			for (guint cpu = 0; cpu < ncpus; cpu++) {
				const PlProcIrqCpuCount *pc =
					&g_array_index(r->cpus, PlProcIrqCpuCount, cpu);
				g_array_index(c->missing, gint64, cpu) +=
					pc->proc - (gint64)pc->recorded;
			}
		} else {
			c->untraced += r->proc;
		}
		g_ptr_array_add(c->rows, r);
	}
}

PlProcIrqCompare *pl_proc_irq_compare_new(PlProfile *profile)
{
	PlProcIrqCompare *c = g_new0(PlProcIrqCompare, 1);
	c->rows = g_ptr_array_new_with_free_func(row_free);
	c->missing = g_array_new(FALSE, TRUE, sizeof(gint64));
	const PlProcIrqReads *r = pl_profile_get_proc_irq_reads(profile);
	if (!r)
		return c;
	static const char *const paths[] = { "/proc/interrupts", "/proc/softirqs" };
	for (guint f = 0; f < PL_PROC_NFILES; f++) {
		const PlProcIrqRead *a = &r->first[f], *b = &r->last[f];
		if (!a->text && !b->text)
			continue;
		if (!a->whole || !b->whole || b->time < a->time) {
			g_free(c->problem);
			c->problem = g_strdup_printf("%s came %s: not compared", paths[f],
						     a->whole && !b->text ? "once only (the session "
									    "did not end cleanly)"
									  : "in pieces");
			continue;
		}
		g_autoptr(GError) error = NULL;
		g_autoptr(PlProcIrqTable) ta =
			pl_proc_irq_table_parse((const char *)a->text->data, a->text->len, &error);
		g_autoptr(PlProcIrqTable) tb =
			ta ? pl_proc_irq_table_parse((const char *)b->text->data, b->text->len,
						     &error)
			   : NULL;
		if (!tb) {
			g_free(c->problem);
			c->problem = g_strdup_printf("%s: %s", paths[f], error->message);
			continue;
		}
		c->t0[f] = a->time;
		c->t1[f] = b->time;
		compare_file(c, profile, f, ta, tb);
		c->have = TRUE;
	}
	if (c->missing->len < c->ncpus)
		g_array_set_size(c->missing, c->ncpus);
	/* the losses in the span (either file's) */
	guint64 lo = G_MAXUINT64, hi = 0;
	for (guint f = 0; f < PL_PROC_NFILES; f++)
		if (c->t1[f]) {
			lo = MIN(lo, c->t0[f]);
			hi = MAX(hi, c->t1[f]);
		}
	guint n;
	const PlLossMark *mk = pl_profile_get_loss_marks(profile, &n);
	for (guint i = 0; i < n; i++)
		if (mk[i].kind != PL_LOSS_THROTTLE && mk[i].time >= lo && mk[i].time <= hi)
			c->lost += mk[i].count;
	return c;
}

const PlProcIrqRow *pl_proc_irq_compare_find(const PlProcIrqCompare *c, PlIrqKind kind,
					     const char *key)
{
	for (guint i = 0; i < c->rows->len; i++) {
		const PlProcIrqRow *r = c->rows->pdata[i];
		if (r->kind == kind && !strcmp(r->key, key))
			return r;
	}
	return NULL;
}

char *pl_proc_irq_compare_dup_summary(const PlProcIrqCompare *c, gboolean filtered)
{
	if (!c->have)
		return c->problem ? g_strdup_printf("/proc's interrupt counts: %s", c->problem) : NULL;
	if (filtered)
		return g_strdup("/proc's interrupt counts are read at the session's start and end: "
				"they compare with the whole session only (leave out --tid, --from "
				"and --to, or pick the whole session, to see them)");
	GString *s = g_string_new(NULL);
	guint64 t0 = c->t0[0] ? c->t0[0] : c->t0[1], t1 = c->t1[0] ? c->t1[0] : c->t1[1];
	double secs = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	if (c->missing_total <= 0) {
		g_string_printf(s, "/proc counted %" G_GINT64_FORMAT " interrupts in the %.3f s "
			       "between the agent's reads: the recording holds them all",
			       c->proc_total, secs);
	} else {
		g_string_printf(s, "/proc counted %" G_GINT64_FORMAT " interrupts in the %.3f s "
			       "between the agent's reads that the recording lacks (", c->missing_total,
			       secs);
		for (guint cpu = 0; cpu < c->missing->len; cpu++)
			g_string_append_printf(s, "%scpu%u %" G_GINT64_FORMAT, cpu ? ", " : "", cpu,
					       g_array_index(c->missing, gint64, cpu));
		g_string_append(s, "): ");
		if (c->lost >= (guint64)c->missing_total) {
			/* idle is not blamed for what the ring dropped */
			g_string_append_printf(s, "the recording lost %" G_GUINT64_FORMAT " samples "
					       "in that time (the ring was full): they may all be "
					       "losses, not idle.  Hint: record fewer events (a lower "
					       "--frequency, no --block) so the agent keeps up; /proc's "
					       "column is the count to quote",
					       c->lost);
		} else {
			if (c->lost)
				g_string_append_printf(
					s, "the recording lost %" G_GUINT64_FORMAT " samples in that "
					   "time (the ring was full), so up to that many are losses; "
					   "the other %" G_GINT64_FORMAT " or more were ",
					c->lost, c->missing_total - (gint64)c->lost);
			g_string_append(s, "taken while the CPU idled: this kernel gives no "
					   "tracepoint sample for those; the counts above are samples, "
					   "/proc's are totals.  Hint: quote /proc's column for how "
					   "often; the recorded runs give the time and what was "
					   "interrupted, of the busy CPUs' interrupts");
		}
	}
	if (c->untraced)
		g_string_append_printf(s, "; %" G_GINT64_FORMAT " more in /proc rows no tracepoint "
				       "reports (NMI, LOC, IPIs …)", c->untraced);
	return g_string_free(s, FALSE);
}
