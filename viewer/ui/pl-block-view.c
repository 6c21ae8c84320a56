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
			if (r->op == PL_BLOCK_READ)
				cairo_set_source_rgb(cr, 0.2, 0.5, 0.2);
			else
				cairo_set_source_rgb(cr, 0.8, 0.4, 0.1);
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
	g_string_append_printf(t, "\nSlowest %u (the stack that issued each, innermost first)\n",
			       slow->len);
	for (guint i = 0; i < slow->len; i++) {
		const PlBlockRequest *r = slow->pdata[i];
		PlThread *th = pl_profile_lookup_thread(p, r->tid);
		g_autofree char *name = pl_block_dev_name(r->dev);
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
	if (b->lost)
		g_string_append_printf(m, "\n<b>The recording lost %" G_GUINT64_FORMAT
				       " samples</b>: some requests are missing.", b->lost);
	gtk_label_set_markup(self->summary, m->str);
	g_string_free(m, TRUE);
}

void pl_block_view_set_profile(PlBlockView *self, PlProfile *profile)
{
	g_clear_pointer(&self->io, pl_block_io_free);
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
	return self->io;
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

void pl_block_view_set_session(PlBlockView *self, PlProfileSession *session)
{
	pl_lazy_page_follow(GTK_WIDGET(self), session, set_profile, pl_block_io_tracepoints);
}
