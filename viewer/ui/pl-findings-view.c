/* pl-findings-view.c — the Findings page (see the header).
 *
 * Rows are rebuilt from the model each time the findings are computed:
 * a finding is an icon, its rule's title, what it saw, the detail lines
 * and a button to the view that shows it; a periodic task is its numbers
 * and its worst activations, each with a button that selects its thread
 * and time in every view (the flame graph then holds the stacks of that
 * activation).
 */
#include "pl-findings-view.h"

#include <string.h>

#include "pl-findings-job.h"
#include "pl-findings.h"
#include "pl-periods.h"

#define WORST_SHOWN 5 /* activations listed per task */

enum { SIG_SHOW, SIG_COMPUTED, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct {
	char *view;
	guint32 tid;
	guint64 t0, t1;
} Target;

struct _PlFindingsView {
	GtkWidget parent_instance;
	GtkWidget *scroller;
	GtkLabel *summary;
	GtkBox *list;
	GtkWidget *periods_title;
	GtkLabel *periods_summary;
	GtkBox *periods;
	PlProfile *profile; /* borrowed */
	guint64 seen_samples, seen_switches; /* what the last computation saw */
	gboolean warnings;
	GPtrArray *finding_buttons; /* GtkButton*, borrowed (children) */
	GPtrArray *findings;        /* PlFinding*, owned */
	GPtrArray *task_buttons;    /* the first worst activation's button per task */
	gboolean dirty;             /* a live profile grew while the page was hidden */
	gboolean pending;           /* a profile whose findings are not shown yet */
	PlProfileSession *session;  /* weak: its findings, when it has them */
};

G_DEFINE_FINAL_TYPE(PlFindingsView, pl_findings_view, GTK_TYPE_WIDGET)

static const struct {
	const char *view, *title;
} view_titles[] = {
	{ "flame", "Flame graph" }, { "counters", "Counters" }, { "health", "Health" },
	{ "symbols", "Symbols" },   { "functions", "Functions" }, { "irq", "Interrupts" },
};

static const char *view_title(const char *view)
{
	for (guint i = 0; i < G_N_ELEMENTS(view_titles); i++)
		if (!strcmp(view_titles[i].view, view))
			return view_titles[i].title;
	return view;
}

static void target_free(gpointer p)
{
	Target *t = p;
	g_free(t->view);
	g_free(t);
}

static void on_button(GtkButton *b, PlFindingsView *self)
{
	const Target *t = g_object_get_data(G_OBJECT(b), "pl-target");
	if (t)
		g_signal_emit(self, signals[SIG_SHOW], 0, t->view, t->tid, t->t0, t->t1);
}

static GtkWidget *target_button(PlFindingsView *self, const char *label, const char *tooltip,
				const char *view, guint32 tid, guint64 t0, guint64 t1)
{
	GtkWidget *b = gtk_button_new_with_label(label);
	gtk_widget_set_valign(b, GTK_ALIGN_START);
	gtk_widget_set_tooltip_text(b, tooltip);
	Target *t = g_new0(Target, 1);
	t->view = g_strdup(view);
	t->tid = tid;
	t->t0 = t0;
	t->t1 = t1;
	g_object_set_data_full(G_OBJECT(b), "pl-target", t, target_free);
	g_signal_connect(b, "clicked", G_CALLBACK(on_button), self);
	return b;
}

static GtkWidget *text_label(const char *text, gboolean dim)
{
	GtkWidget *l = gtk_label_new(text);
	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_wrap(GTK_LABEL(l), TRUE);
	gtk_label_set_wrap_mode(GTK_LABEL(l), PANGO_WRAP_WORD_CHAR);
	gtk_label_set_selectable(GTK_LABEL(l), TRUE);
	if (dim)
		gtk_widget_add_css_class(l, "dim-label");
	return l;
}

static void clear_box(GtkBox *box)
{
	GtkWidget *c;
	while ((c = gtk_widget_get_first_child(GTK_WIDGET(box))))
		gtk_box_remove(box, c);
}

/* ─── findings ──────────────────────────────────────────────────────── */

/* The rows lines[from, to) of a detail's table (pl-findings.h) as a grid:
 * a proportional font lines up no columns made of spaces. */
static GtkWidget *detail_grid(char **lines, guint from, guint to)
{
	GtkWidget *grid = gtk_grid_new();
	gtk_grid_set_column_spacing(GTK_GRID(grid), 14);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 1);
	gtk_widget_set_halign(grid, GTK_ALIGN_START);
	for (guint i = from; i < to; i++) {
		g_auto(GStrv) cells = g_strsplit(lines[i], "\t", -1);
		for (guint c = 0; cells[c]; c++) {
			GtkWidget *l = gtk_label_new(cells[c]);
			gtk_label_set_xalign(GTK_LABEL(l), c ? 1 : 0);
			gtk_label_set_selectable(GTK_LABEL(l), TRUE);
			gtk_widget_add_css_class(l, "dim-label");
			gtk_widget_add_css_class(l, "numeric");
			gtk_grid_attach(GTK_GRID(grid), l, (int)c, (int)(i - from), 1, 1);
		}
	}
	return grid;
}

/* A finding's detail lines: text, and each run of table rows a grid. */
static void append_detail(GtkBox *col, const char *detail)
{
	g_auto(GStrv) lines = g_strsplit(detail, "\n", -1);
	GString *text = g_string_new(NULL);
	for (guint i = 0; lines[i];) {
		if (!strchr(lines[i], '\t')) {
			g_string_append_printf(text, "%s%s", text->len ? "\n" : "", lines[i++]);
			continue;
		}
		if (text->len) {
			gtk_box_append(col, text_label(text->str, TRUE));
			g_string_truncate(text, 0);
		}
		guint end = i;
		while (lines[end] && strchr(lines[end], '\t'))
			end++;
		gtk_box_append(col, detail_grid(lines, i, end));
		i = end;
	}
	if (text->len)
		gtk_box_append(col, text_label(text->str, TRUE));
	g_string_free(text, TRUE);
}

static const char *rule_title(const char *id)
{
	const PlFindingRule *r = pl_findings_lookup(id);
	return r ? r->title : id;
}

static GtkWidget *finding_row(PlFindingsView *self, const PlFinding *f)
{
	GtkWidget *frame = gtk_frame_new(NULL);
	GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10);
	gtk_widget_set_margin_start(row, 8);
	gtk_widget_set_margin_end(row, 8);
	gtk_widget_set_margin_top(row, 6);
	gtk_widget_set_margin_bottom(row, 6);
	gboolean warn = f->severity == PL_FINDING_WARNING;
	GtkWidget *icon = gtk_label_new(warn ? "⚠" : "ℹ");
	gtk_widget_set_valign(icon, GTK_ALIGN_START);
	gtk_widget_add_css_class(icon, warn ? "warning" : "dim-label");
	gtk_widget_add_css_class(icon, "title-3");
	gtk_box_append(GTK_BOX(row), icon);

	GtkWidget *col = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
	gtk_widget_set_hexpand(col, TRUE);
	g_autofree char *esc = g_markup_escape_text(rule_title(f->rule), -1);
	g_autofree char *head = g_strdup_printf("<b>%s</b>  <small>(%s%s)</small>", esc, f->rule,
						warn ? "" : ", about the recording");
	GtkWidget *title = gtk_label_new(NULL);
	gtk_label_set_markup(GTK_LABEL(title), head);
	gtk_label_set_xalign(GTK_LABEL(title), 0);
	gtk_label_set_wrap(GTK_LABEL(title), TRUE);
	gtk_box_append(GTK_BOX(col), title);
	gtk_box_append(GTK_BOX(col), text_label(f->what, FALSE));
	if (f->detail)
		append_detail(GTK_BOX(col), f->detail);
	gtk_box_append(GTK_BOX(row), col);

	g_autofree char *blabel = g_strdup_printf("Show in %s", view_title(f->view));
	g_autofree char *tip =
		g_strdup_printf("%s%s%s (the report: %s)", view_title(f->view),
				f->tid ? ", this thread" : "",
				f->t1 ? ", this time range" : "", f->where);
	GtkWidget *b = target_button(self, blabel, tip, f->view, f->tid, f->t0, f->t1);
	g_ptr_array_add(self->finding_buttons, b);
	gtk_box_append(GTK_BOX(row), b);
	gtk_frame_set_child(GTK_FRAME(frame), row);
	return frame;
}

/* ─── periodic tasks ────────────────────────────────────────────────── */

static gint cmp_worst(gconstpointer pa, gconstpointer pb)
{
	const PlActivation *a = *(const PlActivation *const *)pa, *b = *(const PlActivation *const *)pb;
	if (a->miss != b->miss)
		return a->miss ? -1 : 1;
	if (a->miss && a->lateness_ns != b->lateness_ns)
		return a->lateness_ns > b->lateness_ns ? -1 : 1;
	if (a->exec_ns != b->exec_ns)
		return a->exec_ns > b->exec_ns ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static GtkWidget *task_row(PlFindingsView *self, const PlPeriodicTask *t, guint64 origin)
{
	GtkWidget *frame = gtk_frame_new(NULL);
	GtkWidget *col = gtk_box_new(GTK_ORIENTATION_VERTICAL, 3);
	gtk_widget_set_margin_start(col, 8);
	gtk_widget_set_margin_end(col, 8);
	gtk_widget_set_margin_top(col, 6);
	gtk_widget_set_margin_bottom(col, 6);
	g_autofree char *who = t->marker ? g_strdup_printf("Markers “%s” on thread %u %s", t->marker,
							   t->tid, t->thread)
					 : g_strdup_printf("Thread %u %s", t->tid, t->thread);
	g_autofree char *esc = g_markup_escape_text(who, -1);
	guint n = t->acts->len;
	g_autofree char *head = g_strdup_printf(
		"<b>%s</b> — every %.3f ms (%s), %u activations, <b>%u deadline miss%s</b>", esc,
		t->period_ns / 1e6, t->source == PL_PERIOD_GIVEN ? "given" : "detected", n, t->misses,
		t->misses == 1 ? "" : "es");
	GtkWidget *title = gtk_label_new(NULL);
	gtk_label_set_markup(GTK_LABEL(title), head);
	gtk_label_set_xalign(GTK_LABEL(title), 0);
	gtk_label_set_wrap(GTK_LABEL(title), TRUE);
	gtk_box_append(GTK_BOX(col), title);
	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "release jitter  p50 %.3f  p99 %.3f  max %.3f ms\n",
			       t->jitter_p50 / 1e6, t->jitter_p99 / 1e6, t->jitter_max / 1e6);
	if (t->with_wake)
		g_string_append_printf(s, "response (wake-up to running)  p50 %.3f  p99 %.3f  max %.3f ms\n",
				       t->resp_p50 / 1e6, t->resp_p99 / 1e6, t->resp_max / 1e6);
	g_string_append_printf(s, "execution  p50 %.3f  p99 %.3f  max %.3f ms;  preempted in %u",
			       t->exec_p50 / 1e6, t->exec_p99 / 1e6, t->exec_max / 1e6,
			       t->preempted_acts);
	gtk_box_append(GTK_BOX(col), text_label(s->str, FALSE));
	g_string_free(s, TRUE);

	g_autoptr(GPtrArray) worst = g_ptr_array_sized_new(n);
	for (guint i = 0; i < n; i++)
		g_ptr_array_add(worst, &g_array_index(t->acts, PlActivation, i));
	g_ptr_array_sort(worst, cmp_worst);
	GtkWidget *grid = gtk_grid_new();
	gtk_grid_set_column_spacing(GTK_GRID(grid), 14);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 2);
	gtk_widget_set_margin_top(grid, 4);
	static const char *const heads[] = { "worst activations", "jitter", "execution",
					     "preempted", "deadline", "" };
	for (guint c = 0; c < G_N_ELEMENTS(heads); c++) {
		GtkWidget *h = gtk_label_new(heads[c]);
		gtk_label_set_xalign(GTK_LABEL(h), c ? 1 : 0);
		gtk_widget_add_css_class(h, "dim-label");
		gtk_grid_attach(GTK_GRID(grid), h, (int)c, 0, 1, 1);
	}
	for (guint i = 0; i < worst->len && i < WORST_SHOWN; i++) {
		const PlActivation *a = worst->pdata[i];
		double late = (a->lateness_ns < 0 ? -a->lateness_ns : a->lateness_ns) / 1e6;
		char cells[5][64];
		g_snprintf(cells[0], 64, "at %.6f s", (a->start - MIN(a->start, origin)) / 1e9);
		g_snprintf(cells[1], 64, "%.3f ms", a->jitter_ns / 1e6);
		g_snprintf(cells[2], 64, "%.3f ms", a->exec_ns / 1e6);
		g_snprintf(cells[3], 64, "%u (%.3f ms)", a->preemptions, a->preempted_ns / 1e6);
		g_snprintf(cells[4], 64, a->miss ? "missed by %.3f ms" : "%.3f ms to spare", late);
		for (guint c = 0; c < 5; c++) {
			GtkWidget *l = gtk_label_new(cells[c]);
			gtk_label_set_xalign(GTK_LABEL(l), c ? 1 : 0);
			if (c == 4 && a->miss)
				gtk_widget_add_css_class(l, "error");
			gtk_grid_attach(GTK_GRID(grid), l, (int)c, (int)i + 1, 1, 1);
		}
		GtkWidget *b = target_button(self, "Select",
					     "Select this activation's thread and time in every "
					     "view: the flame graph shows its stacks",
					     "flame", t->tid, a->start, a->end + 1);
		gtk_widget_add_css_class(b, "flat");
		if (!i)
			g_ptr_array_add(self->task_buttons, b);
		gtk_grid_attach(GTK_GRID(grid), b, 5, (int)i + 1, 1, 1);
	}
	gtk_box_append(GTK_BOX(col), grid);
	gtk_frame_set_child(GTK_FRAME(frame), col);
	return frame;
}

static gint cmp_severity(gconstpointer pa, gconstpointer pb)
{
	const PlFinding *a = *(const PlFinding *const *)pa, *b = *(const PlFinding *const *)pb;
	return (int)a->severity - (int)b->severity;
}

/* ─── computing ─────────────────────────────────────────────────────── */

static void clear(PlFindingsView *self)
{
	clear_box(self->list);
	clear_box(self->periods);
	g_ptr_array_set_size(self->finding_buttons, 0);
	g_ptr_array_set_size(self->task_buttons, 0);
	g_clear_pointer(&self->findings, g_ptr_array_unref);
	self->warnings = FALSE;
	self->dirty = FALSE;
	self->pending = FALSE;
}

/* The rows of r (its arrays are shared, not copied), for self->profile. */
static void show(PlFindingsView *self, const PlFindingsResult *r)
{
	PlProfile *p = self->profile;
	clear(self);
	if (!p || !r) {
		gtk_label_set_text(self->summary, "No session.");
		gtk_widget_set_visible(self->periods_title, FALSE);
		gtk_widget_set_visible(GTK_WIDGET(self->periods_summary), FALSE);
		return;
	}
	const PlProfileStats *st = pl_profile_get_stats(p);
	self->seen_samples = r->samples;
	self->seen_switches = r->switches;
	self->findings = g_ptr_array_ref(r->findings);
	guint nrules, nwarn = 0;
	pl_findings_rules(&nrules);
	/* warnings first, then what concerns the recording (a stable sort:
	 * rule order within each) */
	g_ptr_array_sort(self->findings, cmp_severity);
	for (guint i = 0; i < self->findings->len; i++) {
		const PlFinding *f = self->findings->pdata[i];
		nwarn += f->severity == PL_FINDING_WARNING;
		gtk_box_append(self->list, finding_row(self, f));
	}
	self->warnings = nwarn > 0;
	g_autofree char *sum =
		self->findings->len
			? g_strdup_printf("%u rules looked at this recording: %u finding%s, %u about "
					  "the program. Each button shows where it is seen.",
					  nrules, self->findings->len,
					  self->findings->len == 1 ? "" : "s", nwarn)
			: g_strdup_printf("Nothing unusual: %u rules looked at this recording "
					  "(losses, CPU hogs, off-CPU waits, runqueue latency, page "
					  "faults, unwinding, periodic tasks, migrations, "
					  "interrupts).",
					  nrules);
	gtk_label_set_text(self->summary, sum);

	GPtrArray *tasks = r->tasks;
	gtk_widget_set_visible(self->periods_title, TRUE);
	gtk_widget_set_visible(GTK_WIDGET(self->periods_summary), TRUE);
	g_autofree char *psum =
		tasks->len ? g_strdup_printf("%u thread%s or marker pair%s run once per period "
					     "(detected from the wake-ups; perflens report --periods "
					     "lists every activation).",
					     tasks->len, tasks->len == 1 ? "" : "s",
					     tasks->len == 1 ? "" : "s")
			   : g_strdup_printf("None: no thread nor marker pair with at least %d "
					     "activations at a regular interval.",
					     PL_PERIOD_MIN_ACTIVATIONS);
	gtk_label_set_text(self->periods_summary, psum);
	for (guint i = 0; i < tasks->len; i++)
		gtk_box_append(self->periods, task_row(self, tasks->pdata[i], st->first_time));
	g_signal_emit(self, signals[SIG_COMPUTED], 0);
}

/* Computed here, now (a live profile, or no worker's result to wait for). */
static void rebuild(PlFindingsView *self)
{
	g_autoptr(PlFindingsResult) r = self->profile ? pl_findings_result_compute(self->profile)
						      : NULL;
	show(self, r);
}

/* While a worker computes them: the page says so. */
static void show_pending(PlFindingsView *self)
{
	clear(self);
	self->pending = TRUE;
	self->dirty = TRUE; /* computed here when shown, if no result comes */
	self->seen_samples = self->seen_switches = G_MAXUINT64; /* nothing seen of it */
	gtk_label_set_text(self->summary, "Looking at the recording…");
	gtk_widget_set_visible(self->periods_title, FALSE);
	gtk_widget_set_visible(GTK_WIDGET(self->periods_summary), FALSE);
}

void pl_findings_view_set_profile(PlFindingsView *self, PlProfile *p)
{
	if (p && p == self->profile) {
		const PlProfileStats *st = pl_profile_get_stats(p);
		if (st->samples == self->seen_samples && st->switches == self->seen_switches)
			return;
	}
	self->profile = p;
	rebuild(self);
}

gboolean pl_findings_view_is_pending(PlFindingsView *self)
{
	return self->pending;
}

gboolean pl_findings_view_has_warnings(PlFindingsView *self)
{
	return self->warnings;
}

guint pl_findings_view_get_n_findings(PlFindingsView *self)
{
	return self->findings ? self->findings->len : 0;
}

const char *pl_findings_view_get_rule(PlFindingsView *self, guint i)
{
	if (!self->findings || i >= self->findings->len)
		return NULL;
	return ((const PlFinding *)self->findings->pdata[i])->rule;
}

gboolean pl_findings_view_click(PlFindingsView *self, guint i)
{
	if (i >= self->finding_buttons->len)
		return FALSE;
	g_signal_emit_by_name(self->finding_buttons->pdata[i], "clicked");
	return TRUE;
}

guint pl_findings_view_get_n_tasks(PlFindingsView *self)
{
	return self->task_buttons->len;
}

gboolean pl_findings_view_click_worst(PlFindingsView *self, guint task)
{
	if (task >= self->task_buttons->len)
		return FALSE;
	g_signal_emit_by_name(self->task_buttons->pdata[task], "clicked");
	return TRUE;
}

/* ─── the widget ────────────────────────────────────────────────────── */

GtkWidget *pl_findings_view_new(void)
{
	return g_object_new(PL_TYPE_FINDINGS_VIEW, NULL);
}

static void on_map(GtkWidget *w, PlFindingsView *self)
{
	if (!self->dirty)
		return;
	/* a worker's result is on its way: it shows itself */
	if (self->pending && self->session && pl_profile_session_findings_pending(self->session))
		return;
	rebuild(self);
}

static void pl_findings_view_dispose(GObject *obj)
{
	PlFindingsView *self = PL_FINDINGS_VIEW(obj);
	g_clear_pointer(&self->scroller, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_FINDINGS_VIEW);
	g_clear_pointer(&self->findings, g_ptr_array_unref);
	g_clear_pointer(&self->finding_buttons, g_ptr_array_unref);
	g_clear_pointer(&self->task_buttons, g_ptr_array_unref);
	if (self->session)
		g_object_remove_weak_pointer(G_OBJECT(self->session), (gpointer *)&self->session);
	self->session = NULL;
	G_OBJECT_CLASS(pl_findings_view_parent_class)->dispose(obj);
}

static void pl_findings_view_class_init(PlFindingsViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_findings_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-findings-view.ui");
	gtk_widget_class_bind_template_child(wc, PlFindingsView, scroller);
	gtk_widget_class_bind_template_child(wc, PlFindingsView, summary);
	gtk_widget_class_bind_template_child(wc, PlFindingsView, list);
	gtk_widget_class_bind_template_child(wc, PlFindingsView, periods_title);
	gtk_widget_class_bind_template_child(wc, PlFindingsView, periods_summary);
	gtk_widget_class_bind_template_child(wc, PlFindingsView, periods);
	signals[SIG_SHOW] = g_signal_new("show-target", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
					 0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING,
					 G_TYPE_UINT, G_TYPE_UINT64, G_TYPE_UINT64);
	signals[SIG_COMPUTED] = g_signal_new("computed", G_TYPE_FROM_CLASS(klass),
					     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void pl_findings_view_init(PlFindingsView *self)
{
	self->finding_buttons = g_ptr_array_new();
	self->task_buttons = g_ptr_array_new();
	gtk_widget_init_template(GTK_WIDGET(self));
	g_signal_connect(self, "map", G_CALLBACK(on_map), self);
	rebuild(self);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

/* another profile (its address may be the last one's, freed): a file's
 * findings come from the session's worker (notify::findings), a live
 * profile's are computed here as it grows */
static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlFindingsView *self)
{
	self->profile = pl_profile_session_get_profile(s);
	if (!self->profile)
		show(self, NULL);
	else
		show_pending(self);
}

static void on_session_findings(PlProfileSession *s, GParamSpec *ps, PlFindingsView *self)
{
	PlFindingsResult *r = pl_profile_session_get_findings(s);
	if (r && self->profile == pl_profile_session_get_profile(s))
		show(self, r);
}

/* a live profile grew: recomputed now when shown, else when shown next */
static void on_session_updated(PlProfileSession *s, PlFindingsView *self)
{
	if (gtk_widget_get_mapped(GTK_WIDGET(self)))
		pl_findings_view_set_profile(self, pl_profile_session_get_profile(s));
	else
		self->dirty = TRUE;
}

void pl_findings_view_set_session(PlFindingsView *self, PlProfileSession *session)
{
	self->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&self->session);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "notify::findings", G_CALLBACK(on_session_findings), self,
				0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
}
