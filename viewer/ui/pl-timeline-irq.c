/* pl-timeline-irq.c — the per-CPU interrupt lanes of the thread timeline
 * (see pl-timeline-irq.h). */
#include "pl-timeline-irq.h"

#include <math.h>
#include <string.h>

struct _PlTimelineIrq {
	PlIrqStats *stats;
	gboolean owns_stats;
	guint ncpus;
	GArray **lane;    /* per CPU: guint32 indices into stats->spans, in start order */
	guint64 *max_ns;  /* per CPU: its longest run (bounds the hit search) */
	guint64 *nested;  /* per span: the hardirq time inside a softirq run */
	gboolean expanded;
	double top, header_h, lane_h;
	guint *n_drawn;   /* per row, at the last draw */
	guint n_columns;
};

/* the Interrupts page's colours (pl-irq-view.c) */
static const GdkRGBA hard_rgba = { 0.85, 0.20, 0.15, 1 };
static const GdkRGBA nested_rgba = { 0.55, 0.20, 0.15, 1 }; /* a hardirq inside a softirq */
static const GdkRGBA soft_rgba = { 0.20, 0.40, 0.80, 1 };
static const GdkRGBA soft_dark_rgba = { 0.35, 0.55, 0.95, 1 };

PlTimelineIrq *pl_timeline_irq_new(PlProfile *profile)
{
	PlIrqStats *s = profile ? pl_irq_stats_new(profile) : NULL;
	PlTimelineIrq *self = s ? pl_timeline_irq_new_for_stats(s) : NULL;
	if (self)
		self->owns_stats = TRUE;
	else
		pl_irq_stats_free(s);
	return self;
}

PlTimelineIrq *pl_timeline_irq_new_for_stats(PlIrqStats *s)
{
	if (!s->spans->len || !s->ncpus)
		return NULL;
	PlTimelineIrq *self = g_new0(PlTimelineIrq, 1);
	self->stats = s;
	self->ncpus = s->ncpus;
	self->lane = g_new0(GArray *, s->ncpus);
	self->max_ns = g_new0(guint64, s->ncpus);
	self->nested = g_new0(guint64, s->spans->len);
	self->n_drawn = g_new0(guint, s->ncpus + 1);
	self->expanded = s->ncpus <= PL_TIMELINE_IRQ_EXPANDED_MAX;
	g_autofree guint32 *last_soft = g_new(guint32, s->ncpus);
	for (guint c = 0; c < s->ncpus; c++) {
		self->lane[c] = g_array_new(FALSE, FALSE, sizeof(guint32));
		last_soft[c] = G_MAXUINT32;
	}
	for (guint i = 0; i < s->spans->len; i++) {
		const PlIrqSpan *sp = &g_array_index(s->spans, PlIrqSpan, i);
		if (sp->cpu >= s->ncpus)
			continue;
		guint32 idx = i;
		g_array_append_val(self->lane[sp->cpu], idx);
		guint64 d = sp->end > sp->start ? sp->end - sp->start : 0;
		self->max_ns[sp->cpu] = MAX(self->max_ns[sp->cpu], d);
		const PlIrqSource *src = s->sources->pdata[sp->source];
		if (src->kind == PL_IRQ_SOFT) {
			last_soft[sp->cpu] = i;
			continue;
		}
		/* a hardirq that interrupted a softirq: inside the softirq run
		 * that CPU began last (runs of one kind never overlap on a CPU) */
		guint32 k = last_soft[sp->cpu];
		const PlIrqSpan *soft = k != G_MAXUINT32 ? &g_array_index(s->spans, PlIrqSpan, k) : NULL;
		if (sp->depth && soft && soft->start <= sp->start && sp->end <= soft->end)
			self->nested[k] += d;
	}
	return self;
}

void pl_timeline_irq_free(PlTimelineIrq *self)
{
	if (!self)
		return;
	for (guint c = 0; c < self->ncpus; c++)
		g_array_free(self->lane[c], TRUE);
	g_free(self->lane);
	g_free(self->max_ns);
	g_free(self->nested);
	g_free(self->n_drawn);
	if (self->owns_stats)
		pl_irq_stats_free(self->stats);
	g_free(self);
}

const PlIrqStats *pl_timeline_irq_get_stats(const PlTimelineIrq *self)
{
	return self->stats;
}

gboolean pl_timeline_irq_get_expanded(const PlTimelineIrq *self)
{
	return self->expanded;
}

void pl_timeline_irq_set_expanded(PlTimelineIrq *self, gboolean expanded)
{
	self->expanded = expanded;
}

double pl_timeline_irq_layout(PlTimelineIrq *self, double top, double header_h, double lane_h)
{
	self->top = top;
	self->header_h = header_h;
	self->lane_h = lane_h;
	return top + header_h + (self->expanded ? self->ncpus * lane_h : 0);
}

int pl_timeline_irq_row_at(const PlTimelineIrq *self, double y)
{
	double bottom = self->top + self->header_h + (self->expanded ? self->ncpus * self->lane_h : 0);
	if (y < self->top || y >= bottom)
		return -1;
	if (y < self->top + self->header_h)
		return 0;
	int r = 1 + (int)((y - self->top - self->header_h) / self->lane_h);
	return MIN(r, (int)self->ncpus);
}

double pl_timeline_irq_get_header_y(const PlTimelineIrq *self)
{
	return self->top + self->header_h / 2;
}

guint pl_timeline_irq_get_n_spans(const PlTimelineIrq *self, guint cpu)
{
	return cpu < self->ncpus ? self->lane[cpu]->len : 0;
}

const PlIrqSpan *pl_timeline_irq_get_span(const PlTimelineIrq *self, guint cpu, guint k)
{
	if (cpu >= self->ncpus || k >= self->lane[cpu]->len)
		return NULL;
	return &g_array_index(self->stats->spans, PlIrqSpan,
			      g_array_index(self->lane[cpu], guint32, k));
}

static guint span_index(const PlTimelineIrq *self, const PlIrqSpan *sp)
{
	return (guint)(sp - (const PlIrqSpan *)(gconstpointer)self->stats->spans->data);
}

guint64 pl_timeline_irq_get_nested_ns(const PlTimelineIrq *self, const PlIrqSpan *sp)
{
	guint i = span_index(self, sp);
	return i < self->stats->spans->len ? self->nested[i] : 0;
}

guint pl_timeline_irq_get_n_drawn(const PlTimelineIrq *self, guint row, guint *n_columns)
{
	if (n_columns)
		*n_columns = self->n_columns;
	return row <= self->ncpus ? self->n_drawn[row] : 0;
}

/* ─── geometry ───────────────────────────────────────────────────────── */

static double time_x(const PlTimelineScale *s, guint64 t)
{
	double span = s->t1 > s->t0 ? (double)(s->t1 - s->t0) : 1;
	t = CLAMP(t, s->t0, s->t1);
	return s->x0 + (double)(t - s->t0) / span * (s->x1 - s->x0);
}

static guint64 x_time(const PlTimelineScale *s, double x)
{
	double f = s->x1 > s->x0 ? (x - s->x0) / (s->x1 - s->x0) : 0;
	f = CLAMP(f, 0, 1);
	return s->t0 + (guint64)(f * (double)(s->t1 - s->t0));
}

static gboolean is_hard(const PlTimelineIrq *self, const PlIrqSpan *sp)
{
	return ((const PlIrqSource *)self->stats->sources->pdata[sp->source])->kind == PL_IRQ_HARD;
}

/* ─── drawing ────────────────────────────────────────────────────────── */

static void set_rgba(cairo_t *cr, const GdkRGBA *c, double alpha)
{
	cairo_set_source_rgba(cr, c->red, c->green, c->blue, c->alpha * alpha);
}

/* One kind of run of a lane (idx, n; idx NULL: every CPU's) in the band
 * [y0, y0 + h): those a pixel wide or more as their rectangles, filled in
 * rgba (when wide), the narrower ones added to their pixel column
 * (when narrow: col, ncol long).  kind 0: softirqs, 1: hardirqs, 2:
 * hardirqs inside a softirq.  Returns the rectangles drawn. */
static guint runs_pass(const PlTimelineIrq *self, const PlTimelineScale *s, cairo_t *cr,
		       const guint32 *idx, guint n, double y0, double h, int kind,
		       const GdkRGBA *rgba, double *col, guint ncol)
{
	const PlIrqSpan *spans = (const PlIrqSpan *)(gconstpointer)self->stats->spans->data;
	guint drawn = 0;
	for (guint k = 0; k < n; k++) {
		const PlIrqSpan *sp = &spans[idx ? idx[k] : k];
		gboolean hard = is_hard(self, sp);
		if (hard != (kind > 0) || (hard && col == NULL && (sp->depth != 0) != (kind == 2)))
			continue;
		double a = time_x(s, sp->start), b = time_x(s, sp->end);
		if (b - a >= 1) {
			if (rgba) {
				cairo_rectangle(cr, a, y0, b - a, h);
				drawn++;
			}
			continue;
		}
		if (col) /* a run of no width still shows */
			col[(guint)CLAMP(floor(a - s->x0), 0, ncol - 1)] += MAX(b - a, 0.01);
	}
	if (drawn) {
		set_rgba(cr, rgba, 1);
		cairo_fill(cr);
	}
	return drawn;
}

/* A lane's runs: the wide softirqs, then the pixel columns of the narrow
 * runs (each drawn once, in the colour of the kind with more time there,
 * more opaque the more of the column's time they fill), then the wide
 * hardirqs over them (over a long softirq, the hardirqs inside it show).
 * cols: 2 × ncol scratch.  Returns the rectangles drawn. */
static guint draw_runs(const PlTimelineIrq *self, const PlTimelineScale *s, cairo_t *cr,
		       const guint32 *idx, guint n, double y0, double h, double *cols, guint ncol,
		       gboolean dark)
{
	const GdkRGBA *soft = dark ? &soft_dark_rgba : &soft_rgba;
	memset(cols, 0, 2 * ncol * sizeof(double));
	guint drawn = runs_pass(self, s, cr, idx, n, y0, h, 0, soft, cols, ncol);
	runs_pass(self, s, cr, idx, n, y0, h, 1, NULL, cols + ncol, ncol);
	for (guint c = 0; c < ncol; c++) {
		double sc = cols[c], hc = cols[ncol + c];
		if (sc <= 0 && hc <= 0)
			continue;
		/* opaque enough not to read as the threads' pale off-CPU blue */
		set_rgba(cr, hc >= sc ? &hard_rgba : soft, 0.75 + 0.25 * MIN(sc + hc, 1.0));
		cairo_rectangle(cr, s->x0 + c, y0, 1, h);
		cairo_fill(cr);
		drawn++;
	}
	drawn += runs_pass(self, s, cr, idx, n, y0, h, 1, &hard_rgba, NULL, ncol);
	drawn += runs_pass(self, s, cr, idx, n, y0, h, 2, &nested_rgba, NULL, ncol);
	return drawn;
}

guint pl_timeline_irq_draw_lane(const PlTimelineIrq *self, const PlTimelineScale *s, cairo_t *cr,
				guint cpu, gboolean hard, double y0, double h, gboolean dark,
				guint *n_columns)
{
	guint ncol = s->x1 > s->x0 ? (guint)ceil(s->x1 - s->x0) + 1 : 1;
	if (n_columns)
		*n_columns = ncol;
	if (cpu >= self->ncpus)
		return 0;
	const guint32 *idx = (const guint32 *)(gpointer)self->lane[cpu]->data;
	guint n = self->lane[cpu]->len;
	const GdkRGBA *soft = dark ? &soft_dark_rgba : &soft_rgba;
	const GdkRGBA *own = hard ? &hard_rgba : soft;
	g_autofree double *col = g_new0(double, ncol);
	/* the wide softirqs and the narrow runs' columns in one pass; the
	 * hardirqs' wide runs come after their columns, nested ones darker */
	guint drawn = runs_pass(self, s, cr, idx, n, y0, h, hard ? 1 : 0, hard ? NULL : soft, col,
				ncol);
	for (guint c = 0; c < ncol; c++) {
		if (col[c] <= 0)
			continue;
		set_rgba(cr, own, 0.75 + 0.25 * MIN(col[c], 1.0));
		cairo_rectangle(cr, s->x0 + c, y0, 1, h);
		cairo_fill(cr);
		drawn++;
	}
	if (hard) {
		drawn += runs_pass(self, s, cr, idx, n, y0, h, 1, &hard_rgba, NULL, ncol);
		drawn += runs_pass(self, s, cr, idx, n, y0, h, 2, &nested_rgba, NULL, ncol);
	}
	return drawn;
}

void pl_timeline_irq_draw(PlTimelineIrq *self, const PlTimelineScale *s, cairo_t *cr,
			  PangoLayout *pl, double w, double label_w, const GdkRGBA *fg,
			  gboolean dark)
{
	memset(self->n_drawn, 0, (self->ncpus + 1) * sizeof(guint));
	guint ncol = s->x1 > s->x0 ? (guint)ceil(s->x1 - s->x0) + 1 : 1;
	self->n_columns = ncol;
	g_autofree double *cols = g_new(double, 2 * ncol);
	const PlIrqStats *st = self->stats;
	double secs = pl_irq_stats_seconds(st);
	char buf[96];

	/* the header row: the group's name, a legend, and collapsed every
	 * CPU's runs */
	set_rgba(cr, fg, 0.07);
	cairo_rectangle(cr, 0, self->top, w, self->header_h);
	cairo_fill(cr);
	PangoFontDescription *bold = pango_font_description_new();
	pango_font_description_set_weight(bold, PANGO_WEIGHT_BOLD);
	pango_layout_set_font_description(pl, bold);
	g_snprintf(buf, sizeof buf, "%s IRQ (%u CPU%s)", self->expanded ? "\u25be" : "\u25b8",
		   self->ncpus, self->ncpus == 1 ? "" : "s");
	set_rgba(cr, fg, 0.95);
	pango_layout_set_text(pl, buf, -1);
	pango_layout_set_width(pl, (int)((label_w - 100) * PANGO_SCALE));
	int tw, th;
	pango_layout_get_pixel_size(pl, &tw, &th);
	cairo_move_to(cr, 6, self->top + (self->header_h - th) / 2);
	pango_cairo_show_layout(cr, pl);
	pango_layout_set_font_description(pl, NULL);
	pango_font_description_free(bold);
	double lx = 6 + tw + 8;
	const struct {
		const GdkRGBA *c;
		const char *text;
	} legend[] = { { &hard_rgba, "hard" }, { dark ? &soft_dark_rgba : &soft_rgba, "soft" } };
	for (guint i = 0; i < G_N_ELEMENTS(legend); i++) {
		set_rgba(cr, legend[i].c, 1);
		cairo_rectangle(cr, lx, self->top + self->header_h / 2 - 4, 10, 8);
		cairo_fill(cr);
		set_rgba(cr, fg, 0.8);
		pango_layout_set_text(pl, legend[i].text, -1);
		pango_layout_set_width(pl, 40 * PANGO_SCALE);
		pango_layout_get_pixel_size(pl, &tw, &th);
		cairo_move_to(cr, lx + 13, self->top + (self->header_h - th) / 2);
		pango_cairo_show_layout(cr, pl);
		lx += 13 + tw + 8;
	}
	if (!self->expanded) {
		self->n_drawn[0] = draw_runs(self, s, cr, NULL, st->spans->len, self->top + 3,
					     self->header_h - 6, cols, ncol, dark);
		return;
	}
	for (guint c = 0; c < self->ncpus; c++) {
		double y = self->top + self->header_h + c * self->lane_h;
		/* its share of the recording in interrupts (own times, as the
		 * report counts them) */
		guint64 own = 0;
		for (guint k = 0; k < self->lane[c]->len; k++) {
			const PlIrqSpan *sp = pl_timeline_irq_get_span(self, c, k);
			guint64 d = sp->end > sp->start ? sp->end - sp->start : 0;
			guint64 nest = self->nested[g_array_index(self->lane[c], guint32, k)];
			own += d > nest ? d - nest : 0;
		}
		g_snprintf(buf, sizeof buf, "CPU %u", c);
		set_rgba(cr, fg, 0.9);
		pango_layout_set_text(pl, buf, -1);
		pango_layout_set_width(pl, (int)((label_w - 90) * PANGO_SCALE));
		pango_layout_get_pixel_size(pl, &tw, &th);
		cairo_move_to(cr, 18, y + (self->lane_h - th) / 2);
		pango_cairo_show_layout(cr, pl);
		g_snprintf(buf, sizeof buf, "%.2f %%", secs > 0 ? own / 1e7 / secs : 0.0);
		set_rgba(cr, fg, 0.55);
		pango_layout_set_text(pl, buf, -1);
		pango_layout_set_width(pl, 62 * PANGO_SCALE);
		pango_layout_get_pixel_size(pl, &tw, &th);
		cairo_move_to(cr, label_w - 70, y + (self->lane_h - th) / 2);
		pango_cairo_show_layout(cr, pl);
		self->n_drawn[1 + c] = draw_runs(self, s, cr, (const guint32 *)(gpointer)self->lane[c]->data,
						 self->lane[c]->len, y + 3, self->lane_h - 6, cols,
						 ncol, dark);
		set_rgba(cr, fg, 0.06);
		cairo_rectangle(cr, label_w, y + self->lane_h - 1, w - label_w, 1);
		cairo_fill(cr);
	}
}

/* ─── hit testing and text ───────────────────────────────────────────── */

/* The best run of CPU cpu's lane at x (see the header) into *best / *best_d. */
static void lane_hit(const PlTimelineIrq *self, const PlTimelineScale *s, guint cpu, double x,
		     double slack_px, const PlIrqSpan **best, double *best_d)
{
	const GArray *ix = self->lane[cpu];
	const PlIrqSpan *spans = (const PlIrqSpan *)(gconstpointer)self->stats->spans->data;
	guint64 t_lo = x_time(s, x - 1 - slack_px), t_hi = x_time(s, x + 1 + slack_px);
	/* the first run that starts after t_hi */
	guint lo = 0, hi = ix->len;
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (spans[g_array_index(ix, guint32, mid)].start <= t_hi)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint k = lo; k-- > 0;) {
		const PlIrqSpan *sp = &spans[g_array_index(ix, guint32, k)];
		if (sp->start + self->max_ns[cpu] < t_lo)
			break; /* no run that began earlier reaches t_lo */
		double a = time_x(s, sp->start), b = MAX(time_x(s, sp->end), a + 1);
		double d = x < a ? a - x : x > b ? x - b : 0;
		if (d <= 1)
			d = 0;
		if (d > slack_px)
			continue;
		guint64 len = sp->end - sp->start, blen = *best ? (*best)->end - (*best)->start : 0;
		if (!*best || d < *best_d ||
		    (d == *best_d && (len > blen || (len == blen && sp->depth > (*best)->depth)))) {
			*best = sp;
			*best_d = d;
		}
	}
}

const PlIrqSpan *pl_timeline_irq_span_at(const PlTimelineIrq *self, const PlTimelineScale *s,
					 double x, double y, double slack_px)
{
	int row = pl_timeline_irq_row_at(self, y);
	if (row < 0 || (row == 0 && self->expanded) || x < s->x0 - slack_px)
		return NULL;
	const PlIrqSpan *best = NULL;
	double best_d = 0;
	for (guint c = 0; c < self->ncpus; c++)
		if (row == 0 || (guint)row == c + 1)
			lane_hit(self, s, c, x, slack_px, &best, &best_d);
	return best;
}

static char *dup_duration(guint64 ns)
{
	return ns < 1000000 ? g_strdup_printf("%.1f µs", ns / 1e3) : g_strdup_printf("%.3f ms", ns / 1e6);
}

char *pl_timeline_irq_dup_text(const PlTimelineIrq *self, const PlIrqSpan *sp, guint64 t0)
{
	const PlIrqSource *src = self->stats->sources->pdata[sp->source];
	guint64 d = sp->end > sp->start ? sp->end - sp->start : 0;
	g_autofree char *dur = dup_duration(d);
	double at = sp->start > t0 ? (sp->start - t0) / 1e6 : 0;
	if (src->kind == PL_IRQ_HARD)
		return g_strdup_printf("hardirq %u %s on CPU %u: %s at +%.3f ms%s · click to select it",
				       src->number, src->name, sp->cpu, dur, at,
				       sp->depth ? ", inside a softirq" : "");
	guint64 nest = pl_timeline_irq_get_nested_ns(self, sp);
	g_autofree char *in = dup_duration(nest);
	return g_strdup_printf("softirq %s (vector %u) on CPU %u: %s at +%.3f ms%s%s%s · click to "
			       "select it",
			       src->name, src->number, sp->cpu, dur, at, nest ? " (" : "",
			       nest ? in : "", nest ? " of it in hardirqs)" : "");
}

void pl_timeline_irq_get_center(const PlTimelineIrq *self, const PlTimelineScale *s,
				const PlIrqSpan *sp, double *x, double *y)
{
	double a = time_x(s, sp->start), b = MAX(time_x(s, sp->end), a + 1);
	*x = (a + b) / 2;
	*y = self->expanded ? self->top + self->header_h + (sp->cpu + 0.5) * self->lane_h
			    : self->top + self->header_h / 2;
}
