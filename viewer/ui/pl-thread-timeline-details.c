/* pl-thread-timeline-details.c — a thread's facts, popped up by a right
 * click on its lane: runtime, on/off-CPU time, sampled time, its parent
 * and the stack that created it (pl-thread-timeline-private.h). */
#include "pl-thread-timeline-private.h"

#include "pl-ui-util.h"

/* The stack that created the thread (the agent samples the parent at
 * clone()), innermost first, or why there is none. */
#define CREATION_MAX_FRAMES 10
static void append_creation(GString *s, PlProfile *p, const PlThread *t)
{
	const char *why = NULL;
	guint32 stack = pl_profile_thread_creation_stack(p, t->tid, &why);
	if (stack == PL_NO_ID) {
		g_autofree char *w = g_markup_escape_text(why ? why : "", -1);
		if (why)
			g_string_append_printf(
				s, "\nCreated by: <span alpha='70%%'>not recorded: %s</span>", w);
		else
			g_string_append(
				s, "\nCreated by: <span alpha='70%'>created before the session "
				   "started</span>");
		return;
	}
	g_autoptr(GArray) funcs = pl_profile_dup_stack_functions(p, stack, 0);
	g_string_append(s, "\nCreated by: ");
	for (guint i = 0; i < funcs->len && i < CREATION_MAX_FRAMES; i++) {
		g_autofree char *f = g_markup_escape_text(
			pl_function_names_label(p, g_array_index(funcs, guint32, i)), -1);
		g_string_append_printf(s, "%s%s", i ? " \u2190 " : "", f);
	}
	if (funcs->len > CREATION_MAX_FRAMES)
		g_string_append_printf(s, " \u2190 <span alpha='70%%'>%u more</span>",
				       funcs->len - CREATION_MAX_FRAMES);
	if (!funcs->len)
		g_string_append(s, "<span alpha='70%'>(no frames)</span>");
}

/* A thread's facts for the right-click popover, as Pango markup. */
static char *thread_details(PlThreadTimeline *self, PlThread *t)
{
	PlProfile *p = self->profile;
	guint64 t0 = self->t_start;
	/* first and last seen: fork/exit when recorded, else its switches and
	 * samples */
	guint64 first = t->start, last = t->exited ? t->end : 0;
	if (t->intervals->len) {
		const PlInterval *a = &g_array_index(t->intervals, PlInterval, 0);
		const PlInterval *b =
			&g_array_index(t->intervals, PlInterval, t->intervals->len - 1);
		if (!first || a->start < first)
			first = a->start;
		last = MAX(last, b->end);
	}
	guint n = 0;
	const PlSample *smp = pl_profile_get_samples(p, &n);
	const PlSampleCtx *smp_cx = pl_profile_get_sample_ctx(p);
	guint32 ev = pl_profile_get_main_event(p);
	guint64 weight = 0, count = 0;
	for (guint i = 0; i < n; i++) {
		if (pl_sample_tid(smp_cx, &smp[i]) != t->tid)
			continue;
		if (!first || smp[i].time < first)
			first = smp[i].time;
		last = MAX(last, smp[i].time);
		if ((ev == PL_NO_ID || pl_profile_get_stack_event(p, smp[i].stack) == ev) &&
		    pl_thread_timeline_kept(self, &smp[i])) {
			weight += pl_sample_weight(smp_cx, &smp[i]);
			count++;
		}
	}
	GString *s = g_string_new(NULL);
	g_autofree char *name = g_markup_escape_text(t->name ? t->name : "?", -1);
	g_string_append_printf(s, "<b>%s</b>   tid %u, pid %u%s\n", name, t->tid, t->pid,
			       t->tid == t->pid ? " (main thread)" : "");
	if (first && last >= first)
		g_string_append_printf(s,
				       "Runtime: %.3f s  <span alpha='70%%'>(first to last seen, "
				       "+%.3f s to +%.3f s%s)</span>\n",
				       (last - first) / 1e9, first > t0 ? (first - t0) / 1e9 : 0,
				       last > t0 ? (last - t0) / 1e9 : 0,
				       t->exited ? ", exited" : "");
	if (t->on_cpu_ns || t->off_cpu_ns)
		g_string_append_printf(s, "On CPU: %.3f s   Off CPU: %.3f s  <span alpha='70%%'>"
					  "(context switches)</span>\n",
				       t->on_cpu_ns / 1e9, t->off_cpu_ns / 1e9);
	const PlEvent *e = ev != PL_NO_ID ? pl_profile_lookup_event(p, ev) : NULL;
	if (pl_window_weight_is_time(p))
		g_string_append_printf(
			s,
			"Sampled on CPU: %.3f s  <span alpha='70%%'>(%" G_GUINT64_FORMAT
			" %s samples)</span>\n",
			weight / 1e9, count, e && e->name ? e->name : "");
	else
		g_string_append_printf(s, "Samples: %" G_GUINT64_FORMAT " %s\n", count,
				       e && e->name ? e->name : "");
	if (t->ptid) {
		PlThread *c = pl_profile_lookup_thread(p, t->ptid);
		g_autofree char *cname = g_markup_escape_text(c && c->name ? c->name : "?", -1);
		g_string_append_printf(s, "Parent: %s (tid %u), forked at +%.3f s", cname, t->ptid,
				       t->start > t0 ? (t->start - t0) / 1e9 : 0);
	} else if (t->tid == t->pid) {
		PlProcess *pr = NULL;
		GPtrArray *procs = pl_profile_get_processes(p);
		for (guint i = 0; procs && i < procs->len; i++)
			if (((PlProcess *)procs->pdata[i])->pid == t->pid)
				pr = procs->pdata[i];
		if (pr && pr->ppid)
			g_string_append_printf(s, "Parent process: pid %u%s", pr->ppid,
					       pr->start ? "" : " (forked before the recording)");
		else
			g_string_append(s, "Parent: not recorded (started before the recording)");
	} else {
		g_string_append(s, "Parent: not recorded (created before the recording)");
	}
	append_creation(s, p, t);
	return g_string_free(s, FALSE);
}

static Lane *lane_of(PlThreadTimeline *self, guint32 tid)
{
	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		if (!l->is_process && l->tid == tid)
			return l;
	}
	return NULL;
}

static void popup_details(PlThreadTimeline *self, PlThread *t, double x, double y)
{
	g_autofree char *text = thread_details(self, t);
	GtkWidget *label = gtk_label_new(NULL);
	gtk_label_set_markup(GTK_LABEL(label), text);
	/* a deep creation stack wraps instead of making the popover screen-wide */
	gtk_label_set_wrap(GTK_LABEL(label), TRUE);
	gtk_label_set_max_width_chars(GTK_LABEL(label), 90);
	gtk_widget_set_margin_start(label, 4);
	gtk_widget_set_margin_end(label, 4);
	if (self->popover)
		gtk_widget_unparent(self->popover);
	self->popover = gtk_popover_new();
	gtk_popover_set_child(GTK_POPOVER(self->popover), label);
	gtk_widget_set_parent(self->popover, GTK_WIDGET(self));
	gtk_popover_set_pointing_to(GTK_POPOVER(self->popover),
				    &(GdkRectangle){ (int)x, (int)y, 1, 1 });
	gtk_popover_popup(GTK_POPOVER(self->popover));
}

void pl_thread_timeline_on_right_click(GtkGestureClick *g, int n, double x, double y,
				       PlThreadTimeline *self)
{
	Lane *l = pl_thread_timeline_lane_at(self, y);
	if (!l || l->is_process || !self->profile)
		return;
	popup_details(self, l->thread, x, y);
}

char *pl_thread_timeline_dup_thread_details(PlThreadTimeline *self, guint32 tid)
{
	Lane *l = self->profile ? lane_of(self, tid) : NULL;
	if (!l)
		return NULL;
	g_autofree char *markup = thread_details(self, l->thread);
	char *text = NULL;
	if (!pango_parse_markup(markup, -1, 0, NULL, &text, NULL, NULL))
		return NULL;
	return text;
}

GtkWidget *pl_thread_timeline_show_thread_details(PlThreadTimeline *self, guint32 tid)
{
	Lane *l = self->profile ? lane_of(self, tid) : NULL;
	if (!l)
		return NULL;
	popup_details(self, l->thread, LABEL_W / 2, l->y + LANE_H / 2);
	return self->popover;
}

