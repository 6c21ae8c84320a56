/* pl-irq-view.c — the Interrupts page (see the header). */
#include "pl-irq-view.h"
#include "pl-lazy-page.h"
#include "pl-proc-irq-counts.h"
#include "pl-timeline-irq.h"
#include "pl-ui-util.h"

#define LANE_H 14.0
#define CPU_GAP 6.0
#define LABEL_W 64.0
#define PAD 4.0

struct _PlIrqView {
	GtkWidget parent_instance;
	GtkWidget *scroll;
	GtkLabel *summary, *table;
	GtkWidget *lanes;
	PlIrqStats *stats;
	PlTimelineIrq *runs; /* the lanes' runs per CPU, over stats */
	guint *n_drawn;      /* per lane (2 × CPU + soft), at the last draw */
	guint n_columns;
	PlProfile *profile;  /* the one read (the session's: not owned) */
};

G_DEFINE_FINAL_TYPE(PlIrqView, pl_irq_view, GTK_TYPE_WIDGET)

/* Each lane with the timeline's level of detail (pl-timeline-irq.h): at
 * most a rectangle per pixel column plus one per run a pixel wide or
 * more, however many runs a long whole-board recording holds. */
static void draw_lanes(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
	PlIrqView *self = data;
	const PlIrqStats *s = self->stats;
	if (!s || !s->ncpus || s->t1 <= s->t0)
		return;
	double x0 = LABEL_W, w = width - LABEL_W - PAD;
	if (w <= 1)
		return;
	gboolean dark = pl_ui_is_dark(GTK_WIDGET(area));
	PlTimelineScale scale = { s->t0, s->t1, x0, x0 + w };
	PangoLayout *text = gtk_widget_create_pango_layout(GTK_WIDGET(area), NULL);
	for (guint c = 0; c < s->ncpus; c++) {
		double y = c * (2 * LANE_H + CPU_GAP);
		char label[32];
		g_snprintf(label, sizeof(label), "CPU %u", c);
		pango_layout_set_text(text, label, -1);
		cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
		cairo_move_to(cr, PAD, y + LANE_H / 2);
		pango_cairo_show_layout(cr, text);
		cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.12);
		cairo_rectangle(cr, x0, y, w, 2 * LANE_H);
		cairo_fill(cr);
		if (!self->runs)
			continue;
		for (int soft = 0; soft < 2; soft++)
			self->n_drawn[2 * c + soft] = pl_timeline_irq_draw_lane(
				self->runs, &scale, cr, c, !soft, y + (soft ? LANE_H : 0) + 1,
				LANE_H - 2, dark, &self->n_columns);
	}
	g_object_unref(text);
	(void)height;
}

static void fill_table(PlIrqView *self, const PlIrqStats *s)
{
	double cpu_s = pl_irq_stats_seconds(s) * s->ncpus;
	GString *t = g_string_new(NULL);
	for (int kind = PL_IRQ_HARD; kind <= PL_IRQ_SOFT; kind++) {
		g_string_append_printf(t, "%s\n%6s %10s %11s %9s %9s %7s  %-24s %s\n",
				       kind == PL_IRQ_HARD ? "Hardirq handlers"
							   : "Softirqs (without the hardirqs inside)",
				       kind == PL_IRQ_HARD ? "IRQ" : "Vector", "Count", "Total ms",
				       "Avg µs", "Max µs", "Share", "Name", "Count per CPU");
		for (guint i = 0; i < s->sources->len; i++) {
			const PlIrqSource *src = s->sources->pdata[i];
			if ((int)src->kind != kind)
				continue;
			g_string_append_printf(
				t, "%6u %10" G_GUINT64_FORMAT " %11.3f %9.2f %9.2f %6.2f%%  %-24s ",
				src->number, src->count, src->time_ns / 1e6,
				src->paired ? src->time_ns / 1e3 / (double)src->paired : 0.0,
				src->max_ns / 1e3, cpu_s > 0 ? src->time_ns / 1e7 / cpu_s : 0.0,
				src->name);
			for (guint c = 0; c < src->cpus->len; c++)
				g_string_append_printf(t, "%s%u:%" G_GUINT64_FORMAT, c ? " " : "", c,
						       g_array_index(src->cpus, PlIrqCpu, c).count);
			g_string_append_c(t, '\n');
		}
		g_string_append_c(t, '\n');
	}
	gtk_label_set_text(self->table, t->str);
	g_string_free(t, TRUE);
}

void pl_irq_view_set_profile(PlIrqView *self, PlProfile *profile)
{
	g_clear_pointer(&self->runs, pl_timeline_irq_free);
	g_clear_pointer(&self->n_drawn, g_free);
	self->n_columns = 0;
	g_clear_pointer(&self->stats, pl_irq_stats_free);
	self->profile = profile;
	/* the window's thread and range (pl-lazy-page.h) */
	if (profile)
		self->stats = pl_irq_stats_new_filtered(profile,
							pl_lazy_page_get_pick(GTK_WIDGET(self)));
	if (self->stats) {
		self->runs = pl_timeline_irq_new_for_stats(self->stats);
		self->n_drawn = g_new0(guint, 2 * (gsize)self->stats->ncpus + 1);
	}
	const PlIrqStats *s = self->stats;
	gboolean have = s && (s->have_hard || s->have_soft);
	pl_lazy_page_show(GTK_WIDGET(self), have);
	if (!have) {
		gtk_label_set_text(self->summary, "");
		gtk_label_set_text(self->table, "");
		gtk_widget_set_size_request(self->lanes, -1, 0);
		gtk_widget_queue_draw(self->lanes);
		return;
	}
	double secs = pl_irq_stats_seconds(s), cpu_s = secs * s->ncpus;
	GString *m = g_string_new(NULL);
	g_string_append_printf(m,
			       "<b>%" G_GUINT64_FORMAT " hardirqs</b> (%.3f ms, %.3f %% of the "
			       "CPUs' time) and <b>%" G_GUINT64_FORMAT " softirqs</b> (%.3f ms, "
			       "%.3f %%) on %u CPUs over %.3f s.",
			       s->hard_count, s->hard_ns / 1e6,
			       cpu_s > 0 ? s->hard_ns / 1e7 / cpu_s : 0.0, s->soft_count,
			       s->soft_ns / 1e6, cpu_s > 0 ? s->soft_ns / 1e7 / cpu_s : 0.0,
			       s->ncpus, secs);
	if (pl_lazy_page_has_pick(GTK_WIDGET(self)))
		g_string_append(m, " Of the selected thread's and time range's runs (those "
				   "that interrupted the thread, entered in the range).");
	g_string_append_printf(m,
			       "\nUnpaired: %" G_GUINT64_FORMAT " at the recording's start, %"
			       G_GUINT64_FORMAT " at its end (the tracepoints are turned on "
			       "and off one after the other), %" G_GUINT64_FORMAT " dropped "
			       "(an entry or exit was lost). %" G_GUINT64_FORMAT " hardirqs "
			       "interrupted a softirq.",
			       s->exit_before_start, s->open_at_end, s->mismatched, s->nested);
	if (s->lost)
		g_string_append_printf(m, "\n<b>The recording lost %" G_GUINT64_FORMAT
				       " samples</b>: counts are short.", s->lost);
	if (s->per_task)
		g_string_append(m, "\nNot a whole-board recording: only the interrupts that hit "
				   "the target's threads are here.");
	/* /proc's counts between the agent's reads: what idle CPUs' interrupts
	 * the recording lacks (report --irq gives the rows) */
	g_autoptr(PlProcIrqCompare) cmp = pl_proc_irq_compare_new(profile);
	g_autofree char *proc = pl_proc_irq_compare_dup_summary(
		cmp, pl_proc_irq_filter_narrows(pl_lazy_page_get_pick(GTK_WIDGET(self))));
	if (proc) {
		g_autofree char *esc = g_markup_escape_text(proc, -1);
		g_string_append_printf(m, "\n%s.", esc);
	}
	if (s->spans_dropped)
		g_string_append_printf(m, "\nThe lanes show the first %u runs (%" G_GUINT64_FORMAT
				       " more are counted, not drawn).",
				       s->spans->len, s->spans_dropped);
	gtk_label_set_markup(self->summary, m->str);
	g_string_free(m, TRUE);
	fill_table(self, s);
	gtk_widget_set_size_request(self->lanes, -1,
				    (int)(s->ncpus * (2 * LANE_H + CPU_GAP)));
	gtk_widget_queue_draw(self->lanes);
}

const PlIrqStats *pl_irq_view_get_stats(PlIrqView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->stats;
}

guint pl_irq_view_get_n_drawn(PlIrqView *self, guint cpu, gboolean hard, guint *n_runs,
			      guint *n_columns)
{
	gboolean in = self->stats && cpu < self->stats->ncpus && self->runs;
	if (n_columns)
		*n_columns = self->n_columns;
	if (n_runs) {
		*n_runs = 0;
		for (guint k = 0; in && k < pl_timeline_irq_get_n_spans(self->runs, cpu); k++) {
			const PlIrqSpan *sp = pl_timeline_irq_get_span(self->runs, cpu, k);
			const PlIrqSource *src = self->stats->sources->pdata[sp->source];
			*n_runs += (src->kind == PL_IRQ_HARD) == !!hard;
		}
	}
	return in ? self->n_drawn[2 * cpu + !hard] : 0;
}

GtkWidget *pl_irq_view_new(void)
{
	return g_object_new(PL_TYPE_IRQ_VIEW, NULL);
}

static void pl_irq_view_dispose(GObject *obj)
{
	PlIrqView *self = PL_IRQ_VIEW(obj);
	g_clear_pointer(&self->scroll, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_IRQ_VIEW);
	g_clear_pointer(&self->runs, pl_timeline_irq_free);
	g_clear_pointer(&self->n_drawn, g_free);
	g_clear_pointer(&self->stats, pl_irq_stats_free);
	G_OBJECT_CLASS(pl_irq_view_parent_class)->dispose(obj);
}

static void pl_irq_view_class_init(PlIrqViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_irq_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-irq-view.ui");
	gtk_widget_class_bind_template_child(wc, PlIrqView, scroll);
	gtk_widget_class_bind_template_child(wc, PlIrqView, summary);
	gtk_widget_class_bind_template_child(wc, PlIrqView, table);
	gtk_widget_class_bind_template_child(wc, PlIrqView, lanes);
}

static void pl_irq_view_init(PlIrqView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->lanes), draw_lanes, self, NULL);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void set_profile(GtkWidget *page, PlProfile *profile)
{
	pl_irq_view_set_profile((PlIrqView *)page, profile);
}

/* The pairing goes over every event: a new pick is read now when shown,
 * else when next shown. */
static void refresh(GtkWidget *page)
{
	PlIrqView *self = PL_IRQ_VIEW(page);
	if (self->profile)
		pl_irq_view_set_profile(self, self->profile);
}

void pl_irq_view_set_session(PlIrqView *self, PlProfileSession *session)
{
	pl_lazy_page_follow(GTK_WIDGET(self), session, set_profile, pl_irq_tracepoints);
	pl_lazy_page_follow_pick(GTK_WIDGET(self), session, refresh);
}
