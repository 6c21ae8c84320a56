/* pl-block-view.c — the Block I/O page (see the header). */
#include "pl-block-view.h"
#include "pl-lazy-page.h"

#include <math.h>

#define ROW_H 48.0
#define LABEL_W 96.0
#define PAD 4.0
#define SLOWEST 20u

struct _PlBlockView {
	GtkWidget parent_instance;
	GtkWidget *scroll;
	GtkLabel *summary, *table;
	GtkWidget *chart;
	PlBlockIo *io;
	PlProfile *profile; /* the one read (the session's: not owned) */
	guint64 t0, t1;
};

G_DEFINE_FINAL_TYPE(PlBlockView, pl_block_view, GTK_TYPE_WIDGET)

/* One row per device: each request a point at its issue time, as high as
 * its latency on a log scale from 10 µs to 10 s. */
static void draw_chart(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
	PlBlockView *self = data;
	const PlBlockIo *b = self->io;
	if (!b || !b->devices->len || self->t1 <= self->t0)
		return;
	double x0 = LABEL_W, w = width - LABEL_W - PAD;
	if (w <= 1)
		return;
	double scale = w / (double)(self->t1 - self->t0);
	const PlFilter *pick = pl_lazy_page_get_pick(GTK_WIDGET(self));
	gboolean picked = pl_lazy_page_has_pick(GTK_WIDGET(self));
	if (pick->t0 || pick->t1) {
		/* the window's range, over every device's row */
		guint64 a = MAX(pick->t0, self->t0), z = pick->t1 ? MIN(pick->t1, self->t1) : self->t1;
		cairo_set_source_rgba(cr, 0.2, 0.4, 0.9, 0.18);
		cairo_rectangle(cr, x0 + (double)(a - self->t0) * scale, 0,
				z > a ? (double)(z - a) * scale : 1, b->devices->len * ROW_H);
		cairo_fill(cr);
	}
	PangoLayout *text = gtk_widget_create_pango_layout(GTK_WIDGET(area), NULL);
	for (guint d = 0; d < b->devices->len; d++) {
		const PlBlockDevice *dev = &g_array_index(b->devices, PlBlockDevice, d);
		double y = d * ROW_H;
		g_autofree char *name = pl_block_dev_name(dev->dev);
		pango_layout_set_text(text, name, -1);
		cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
		cairo_move_to(cr, PAD, y + 4);
		pango_cairo_show_layout(cr, text);
		cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.12);
		cairo_rectangle(cr, x0, y + 2, w, ROW_H - 4);
		cairo_fill(cr);
		for (guint i = 0; i < b->requests->len; i++) {
			const PlBlockRequest *r = &g_array_index(b->requests, PlBlockRequest, i);
			if (r->dev != dev->dev || !r->complete)
				continue;
			double lat = (double)(r->complete - r->issue);
			double f = (log10(MAX(lat, 1e4)) - 4) / 6; /* 10 µs .. 10 s */
			f = CLAMP(f, 0, 1);
			double x = x0 + (double)(r->issue > self->t0 ? r->issue - self->t0 : 0) * scale;
			/* the pick's requests stand out; the others stay, faded */
			double alpha = !picked || pl_filter_keeps(pick, r->tid, r->issue) ? 1 : 0.25;
			if (r->op == PL_BLOCK_READ)
				cairo_set_source_rgba(cr, 0.2, 0.5, 0.2, alpha);
			else
				cairo_set_source_rgba(cr, 0.8, 0.4, 0.1, alpha);
			cairo_rectangle(cr, x - 1, y + ROW_H - 4 - f * (ROW_H - 8) - 1, 2, 2);
			cairo_fill(cr);
		}
	}
	g_object_unref(text);
	(void)height;
}

static void append_stack(GString *t, PlProfile *p, guint32 stack)
{
	g_autoptr(GArray) fns = pl_profile_dup_stack_functions(p, stack, 12);
	for (guint f = 0; f < fns->len; f++)
		g_string_append_printf(t, "%s%s", f ? " < " : "",
				       pl_profile_get_function_label(p, g_array_index(fns, guint32, f)));
}

/* Block requests are the board's: the thread current at issue is the
 * submitter only when it dispatched the request itself, a kworker when
 * the queue ran later, so a thread's pick would drop most of its I/O;
 * `perflens report --block` and `export block-csv` count the whole
 * session too.  The page says so rather than seem to follow the pick. */
static void append_whole_session(PlBlockView *self, GString *m, PlProfile *p,
				 const PlFilter *pick, const GPtrArray *slow)
{
	g_string_append(m, "\n<b>The whole session</b>, not only the window's ");
	if (pick->tid) {
		PlThread *th = pl_profile_lookup_thread(p, pick->tid);
		g_autofree char *name = g_markup_escape_text(th && th->name ? th->name : "?", -1);
		g_string_append_printf(m, "thread (%s %u)%s", name, pick->tid,
				       pick->t0 || pick->t1 ? " and " : "");
	}
	if (pick->t0 || pick->t1)
		g_string_append_printf(m, "range (%.3f s to %.3f s)",
				       pick->t0 > self->t0 ? (pick->t0 - self->t0) / 1e9 : 0.0,
				       ((pick->t1 ? pick->t1 : self->t1) - self->t0) / 1e9);
	guint done = 0, in = 0;
	for (guint i = 0; i < self->io->requests->len; i++) {
		const PlBlockRequest *r = &g_array_index(self->io->requests, PlBlockRequest, i);
		done += r->complete != 0;
		in += r->complete && pl_filter_keeps(pick, r->tid, r->issue);
	}
	g_string_append_printf(m, ": a request's thread is whichever ran the queue when it went "
			       "to the driver (often a kworker, not the thread that asked for the "
			       "I/O), so the counts and latencies are the board's, as "
			       "<tt>perflens report --block</tt> gives them.  Of the %u completed "
			       "requests, %u were issued in the pick: drawn in full colour%s.",
			       done, in, slow->len ? ", marked ▶ among the slowest" : "");
}

static void fill(PlBlockView *self, PlProfile *p)
{
	const PlBlockIo *b = self->io;
	guint64 done = 0, open = 0;
	GString *t = g_string_new(NULL);
	g_string_append_printf(t, "%-16s %8s %7s %7s %7s %7s %10s %11s %6s %9s %9s %9s %9s\n",
			       "Device", "Requests", "Reads", "Writes", "Flushes", "Discard",
			       "Read KiB", "Written KiB", "Errors", "p50 ms", "p90 ms", "p99 ms",
			       "Max ms");
	for (guint i = 0; i < b->devices->len; i++) {
		const PlBlockDevice *d = &g_array_index(b->devices, PlBlockDevice, i);
		g_autofree char *name = pl_block_dev_name(d->dev);
		done += d->requests;
		open += d->in_flight_at_end;
		g_string_append_printf(
			t, "%-16s %8" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT
			" %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %10.1f %11.1f %6" G_GUINT64_FORMAT
			" %9.3f %9.3f %9.3f %9.3f\n",
			name, d->requests, d->by_op[PL_BLOCK_READ], d->by_op[PL_BLOCK_WRITE],
			d->by_op[PL_BLOCK_FLUSH], d->by_op[PL_BLOCK_DISCARD], d->bytes_read / 1024.0,
			d->bytes_written / 1024.0, d->errors, d->p50_ns / 1e6, d->p90_ns / 1e6,
			d->p99_ns / 1e6, d->max_ns / 1e6);
	}
	g_autoptr(GPtrArray) slow = pl_block_io_slowest(b, G_MAXUINT32, SLOWEST);
	const PlFilter *pick = pl_lazy_page_get_pick(GTK_WIDGET(self));
	gboolean picked = pl_lazy_page_has_pick(GTK_WIDGET(self));
	g_string_append_printf(t, "\nSlowest %u (the stack that issued each, innermost first%s)\n",
			       slow->len, picked ? "; ▶ issued by the picked thread in the "
						   "picked range" : "");
	for (guint i = 0; i < slow->len; i++) {
		const PlBlockRequest *r = slow->pdata[i];
		PlThread *th = pl_profile_lookup_thread(p, r->tid);
		g_autofree char *name = pl_block_dev_name(r->dev);
		if (picked)
			g_string_append(t, pl_filter_keeps(pick, r->tid, r->issue) ? "▶ " : "  ");
		g_string_append_printf(t, "%10.3f ms  %-10s %-5s %8.1f KiB  %s (%u)  ",
				       (r->complete - r->issue) / 1e6, name, r->rwbs,
				       r->bytes / 1024.0, th && th->name ? th->name : "?", r->tid);
		append_stack(t, p, r->stack);
		g_string_append_c(t, '\n');
	}
	gtk_label_set_text(self->table, t->str);
	g_string_free(t, TRUE);
	GString *m = g_string_new(NULL);
	g_string_append_printf(m,
			       "<b>%" G_GUINT64_FORMAT " block requests</b> completed on %u "
			       "devices, from issue to completion.  Unpaired: %" G_GUINT64_FORMAT
			       " completions whose issue came before the recording, %"
			       G_GUINT64_FORMAT " requests still in flight at its end.",
			       done, b->devices->len, b->complete_without_issue, open);
	if (picked)
		append_whole_session(self, m, p, pick, slow);
	if (b->lost)
		g_string_append_printf(m, "\n<b>The recording lost %" G_GUINT64_FORMAT
				       " samples</b>: some requests are missing.", b->lost);
	gtk_label_set_markup(self->summary, m->str);
	g_string_free(m, TRUE);
}

void pl_block_view_set_profile(PlBlockView *self, PlProfile *profile)
{
	g_clear_pointer(&self->io, pl_block_io_free);
	self->profile = profile;
	if (profile) {
		self->io = pl_block_io_new(profile);
		self->t0 = pl_profile_get_stats(profile)->first_time;
		self->t1 = pl_profile_get_stats(profile)->last_time;
	}
	gboolean have = self->io && self->io->recorded;
	pl_lazy_page_show(GTK_WIDGET(self), have);
	if (have) {
		fill(self, profile);
		gtk_widget_set_size_request(self->chart, -1, (int)(self->io->devices->len * ROW_H));
	} else {
		gtk_label_set_text(self->summary, "");
		gtk_label_set_text(self->table, "");
		gtk_widget_set_size_request(self->chart, -1, 0);
	}
	gtk_widget_queue_draw(self->chart);
}

const PlBlockIo *pl_block_view_get_io(PlBlockView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->io;
}

const char *pl_block_view_get_summary(PlBlockView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return gtk_label_get_text(self->summary);
}

const char *pl_block_view_get_table(PlBlockView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return gtk_label_get_text(self->table);
}

GtkWidget *pl_block_view_new(void)
{
	return g_object_new(PL_TYPE_BLOCK_VIEW, NULL);
}

static void pl_block_view_dispose(GObject *obj)
{
	PlBlockView *self = PL_BLOCK_VIEW(obj);
	g_clear_pointer(&self->scroll, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_BLOCK_VIEW);
	g_clear_pointer(&self->io, pl_block_io_free);
	G_OBJECT_CLASS(pl_block_view_parent_class)->dispose(obj);
}

static void pl_block_view_class_init(PlBlockViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_block_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-block-view.ui");
	gtk_widget_class_bind_template_child(wc, PlBlockView, scroll);
	gtk_widget_class_bind_template_child(wc, PlBlockView, summary);
	gtk_widget_class_bind_template_child(wc, PlBlockView, table);
	gtk_widget_class_bind_template_child(wc, PlBlockView, chart);
}

static void pl_block_view_init(PlBlockView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->chart), draw_chart, self, NULL);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void set_profile(GtkWidget *page, PlProfile *profile)
{
	pl_block_view_set_profile((PlBlockView *)page, profile);
}

/* The pick changes what is marked, not what is read: the requests stay. */
static void refresh(GtkWidget *page)
{
	PlBlockView *self = PL_BLOCK_VIEW(page);
	if (self->io && self->io->recorded)
		fill(self, self->profile);
	gtk_widget_queue_draw(self->chart);
}

void pl_block_view_set_session(PlBlockView *self, PlProfileSession *session)
{
	pl_lazy_page_follow(GTK_WIDGET(self), session, set_profile, pl_block_io_tracepoints);
	pl_lazy_page_follow_pick(GTK_WIDGET(self), session, refresh);
}
