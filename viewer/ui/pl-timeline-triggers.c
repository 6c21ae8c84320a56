/* pl-timeline-triggers.c — triggers on the thread timeline; see
 * pl-timeline-triggers.h. */
#include "pl-timeline-triggers.h"

#include <math.h>

#include "msg.h"

static const GdkRGBA trigger_rgba = { 0.90, 0.12, 0.15, 1 };

static double trigger_x(const PlTimelineScale *s, guint64 t)
{
	double span = s->t1 > s->t0 ? (double)(s->t1 - s->t0) : 1;
	t = CLAMP(t, s->t0, s->t1);
	return s->x0 + (double)(t - s->t0) / span * (s->x1 - s->x0);
}

static const char *kind_name(guint8 kind)
{
	switch (kind) {
	case PL_TRIGGER_MARKER: return "a marker";
	case PL_TRIGGER_SYSCALL: return "a slow system call";
	case PL_TRIGGER_EXIT: return "the command's exit";
	case PL_TRIGGER_SIGNAL: return "SIGUSR1";
	case PL_TRIGGER_VIEWER: return "a viewer's Save now";
	case PL_TRIGGER_EVENT: return "an event";
	case PL_TRIGGER_CPU: return "a CPU share";
	default: return "a trigger";
	}
}

char *pl_timeline_triggers_dup_text(PlProfile *p, guint64 t0, guint i)
{
	guint n = 0;
	const PlTrigger *tr = p ? pl_profile_get_triggers(p, &n) : NULL;
	if (i >= n)
		return NULL;
	const PlTrigger *t = &tr[i];
	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "Trigger %s (%s) fired at %+.3f s", t->spec ? t->spec : "?",
			       kind_name(t->kind),
			       ((double)t->time - (double)t0) / 1e9);
	if (t->detail && *t->detail)
		g_string_append_printf(s, "\n%s", t->detail);
	if (t->to >= t->from && t->to)
		g_string_append_printf(s, "\nthe snapshot keeps %.3f s before it, %.3f s after",
				       t->time > t->from ? (double)(t->time - t->from) / 1e9 : 0.0,
				       t->to > t->time ? (double)(t->to - t->time) / 1e9 : 0.0);
	return g_string_free(s, FALSE);
}

guint pl_timeline_triggers_draw(PlProfile *p, const PlTimelineScale *s, cairo_t *cr,
				PangoLayout *pl, double top, double band_h, double bottom)
{
	guint n = 0;
	const PlTrigger *tr = p ? pl_profile_get_triggers(p, &n) : NULL;
	const GdkRGBA *c = &trigger_rgba;
	for (guint i = 0; i < n; i++) {
		double x = floor(trigger_x(s, tr[i].time)) + 0.5;
		cairo_set_source_rgba(cr, c->red, c->green, c->blue, 0.85);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, x, top);
		cairo_line_to(cr, x, bottom);
		cairo_stroke(cr);
		/* the flag, and the trigger as written beside it while room */
		cairo_move_to(cr, x, top + 2);
		cairo_line_to(cr, x + 9, top + 6);
		cairo_line_to(cr, x, top + 10);
		cairo_close_path(cr);
		cairo_fill(cr);
		double room = (i + 1 < n ? trigger_x(s, tr[i + 1].time) : s->x1) - x - 14;
		if (room < 30 || !tr[i].spec)
			continue;
		/* white on the trigger's red, over the axis's labels */
		pango_layout_set_text(pl, tr[i].spec, -1);
		pango_layout_set_width(pl, (int)(MIN(room, 220) * PANGO_SCALE));
		int tw, th;
		pango_layout_get_pixel_size(pl, &tw, &th);
		cairo_rectangle(cr, x + 10, top + (band_h - th) / 2 - 1, tw + 6, th + 2);
		cairo_fill(cr);
		cairo_set_source_rgba(cr, 1, 1, 1, 1);
		cairo_move_to(cr, x + 13, top + (band_h - th) / 2);
		pango_cairo_show_layout(cr, pl);
	}
	return n;
}

char *pl_timeline_triggers_dup_at(PlProfile *p, const PlTimelineScale *s, double x,
				  double slack_px)
{
	guint n = 0, best = G_MAXUINT;
	const PlTrigger *tr = p ? pl_profile_get_triggers(p, &n) : NULL;
	double best_d = slack_px;
	for (guint i = 0; i < n; i++) {
		double d = fabs(trigger_x(s, tr[i].time) - x);
		if (d <= best_d) {
			best_d = d;
			best = i;
		}
	}
	return best == G_MAXUINT ? NULL : pl_timeline_triggers_dup_text(p, s->t0, best);
}
