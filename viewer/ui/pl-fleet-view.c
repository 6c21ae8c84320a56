/* pl-fleet-view.c — the Fleet page (see the header); layout in
 * pl-fleet-view.ui. */
#include "pl-fleet-view.h"

#include <glib/gstdio.h>
#include <string.h>

#include "pl-fleet-job.h"
#include "pl-fleet-rank-view.h"

struct _PlFleetView {
	GtkBox parent_instance;
	GtkEntry *url, *credentials, *where, *against, *since;
	GtkWidget *show_btn;
	GtkSpinner *spinner;
	GtkLabel *summary, *error, *labels;
	GtkStack *pages;
	PlFlameGraph *flame;
	PlFunctionTable *table;
	PlDiffView *diff;
	GtkWidget *diff_page;
	PlFleetRankView *rank;
	PlFleetAsk asked; /* the form when Show was clicked (strings owned) */

	PlFleetAnswer *answer; /* what is shown */
	PlAggregate *agg;      /* side A's, for the flame graph and the table */
	char *last_error;
	char *shown_line; /* the summary of the answer shown (kept while asking) */
	gboolean busy;
	guint generation; /* a newer question makes an older answer stale */
};

G_DEFINE_FINAL_TYPE(PlFleetView, pl_fleet_view, GTK_TYPE_BOX)

/* ─── the remembered store ───────────────────────────────────────────── */

static char *config_path(void)
{
	return g_build_filename(g_get_user_config_dir(), "perflens", "fleet.ini", NULL);
}

static void load_store(PlFleetView *self)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autofree char *path = config_path();
	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL))
		return;
	g_autofree char *url = g_key_file_get_string(kf, "store", "url", NULL);
	g_autofree char *cred = g_key_file_get_string(kf, "store", "credentials", NULL);
	pl_fleet_view_set_form(self, url, cred, NULL, NULL, NULL);
}

/* A store that answered is kept for the next time; failing to keep it
 * costs the user retyping only, so it is said in the summary line. */
static const char *save_store(PlFleetView *self)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_key_file_set_string(kf, "store", "url", gtk_editable_get_text(GTK_EDITABLE(self->url)));
	g_key_file_set_string(kf, "store", "credentials",
			      gtk_editable_get_text(GTK_EDITABLE(self->credentials)));
	g_autofree char *path = config_path();
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0700) < 0 || !g_key_file_save_to_file(kf, path, NULL))
		return " (the store's address could not be remembered: is the config folder "
		       "writable?)";
	return "";
}

static void ask_clear(PlFleetAsk *a)
{
	g_free((char *)a->url);
	g_free((char *)a->credentials);
	g_free((char *)a->where);
	g_free((char *)a->since);
	*a = (PlFleetAsk){ 0 };
}

/* ─── the answer ─────────────────────────────────────────────────────── */

static void show_error(PlFleetView *self, const char *text)
{
	g_free(self->last_error);
	self->last_error = g_strdup(text);
	gtk_label_set_text(self->error, text ? text : "");
	gtk_widget_set_visible(GTK_WIDGET(self->error), text != NULL);
}

static void set_busy(PlFleetView *self, gboolean busy)
{
	self->busy = busy;
	gtk_spinner_set_spinning(self->spinner, busy);
	gtk_widget_set_sensitive(self->show_btn, !busy);
}

/* Takes answer (NULL: shows nothing). */
static void set_answer(PlFleetView *self, PlFleetAnswer *answer)
{
	/* the widgets let go of the old profiles before they are freed */
	pl_flame_graph_set_data(self->flame, NULL, NULL);
	pl_function_table_set_data(self->table, NULL, NULL);
	pl_diff_view_set_profiles(self->diff, NULL, NULL, NULL);
	g_clear_pointer(&self->agg, pl_aggregate_free);
	g_clear_pointer(&self->answer, pl_fleet_answer_free);
	self->answer = answer;
	/* no Diff tab without a comparison: the page and its child both */
	gboolean diff = answer && answer->b;
	gtk_widget_set_visible(self->diff_page, diff);
	gtk_stack_page_set_visible(gtk_stack_get_page(self->pages, self->diff_page), diff);
	if (!answer) {
		gtk_label_set_text(self->summary, "");
		return;
	}
	self->agg = pl_profile_aggregate(answer->a, &PL_FILTER_ALL);
	pl_flame_graph_set_data(self->flame, answer->a, self->agg);
	pl_function_table_set_data(self->table, answer->a, self->agg);
	if (answer->b)
		pl_diff_view_set_profiles(self->diff, answer->a, answer->b, NULL);
}

/* The store's labels as links; a click puts one into Labels. */
static void show_labels(PlFleetView *self, char **labels)
{
	if (!labels || !*labels) {
		gtk_widget_set_visible(GTK_WIDGET(self->labels), FALSE);
		return;
	}
	GString *m = g_string_new("In the store (click one to pick it):");
	for (guint i = 0; labels[i]; i++) {
		g_autofree char *uri = g_uri_escape_string(labels[i], NULL, FALSE);
		g_autofree char *text = g_markup_escape_text(labels[i], -1);
		g_string_append_printf(m, "  <a href=\"label:%s\">%s</a>", uri, text);
	}
	gtk_label_set_markup(self->labels, m->str);
	gtk_widget_set_visible(GTK_WIDGET(self->labels), TRUE);
	g_string_free(m, TRUE);
}

/* "fw=2.3.1,board=x" with key's match replaced by (or added as) label */
static char *where_with(const char *where, const char *label)
{
	const char *eq = strchr(label, '=');
	g_autofree char *key = eq ? g_strndup(label, (gsize)(eq - label)) : g_strdup(label);
	g_auto(GStrv) parts = g_strsplit(where, ",", -1);
	GString *out = g_string_new(NULL);
	gboolean put = FALSE;
	for (guint i = 0; parts[i]; i++) {
		char *p = g_strstrip(parts[i]);
		if (!*p)
			continue;
		gsize n = strlen(key);
		gboolean same = !strncmp(p, key, n) && (p[n] == '=' || (p[n] == '!' && p[n + 1] == '='));
		g_string_append_printf(out, "%s%s", out->len ? "," : "", same ? label : p);
		put |= same;
	}
	if (!put)
		g_string_append_printf(out, "%s%s", out->len ? "," : "", label);
	return g_string_free(out, FALSE);
}

gboolean pl_fleet_view_pick_label(PlFleetView *self, const char *label)
{
	if (!strchr(label, '='))
		return FALSE;
	g_autofree char *w = where_with(gtk_editable_get_text(GTK_EDITABLE(self->where)), label);
	gtk_editable_set_text(GTK_EDITABLE(self->where), w);
	return TRUE;
}

static gboolean on_label_link(GtkLabel *l, const char *uri, PlFleetView *self)
{
	if (!g_str_has_prefix(uri, "label:"))
		return FALSE;
	g_autofree char *label = g_uri_unescape_string(uri + strlen("label:"), NULL);
	return label && pl_fleet_view_pick_label(self, label);
}

static char *side_text(const char *name, guint64 n, const char *where)
{
	g_autofree char *num = g_strdup_printf("%'" G_GUINT64_FORMAT, n);
	return g_strdup_printf("%s%s samples%s%s", name, num, where && *where ? " where " : "",
			       where && *where ? where : " (every label)");
}

static void job_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlFleetView *self = PL_FLEET_VIEW(src);
	guint gen = GPOINTER_TO_UINT(data);
	g_autoptr(GError) error = NULL;
	PlFleetAnswer *answer = pl_fleet_job_finish(res, &error);
	if (gen != self->generation) {
		pl_fleet_answer_free(answer);
		return;
	}
	set_busy(self, FALSE);
	if (!answer) {
		show_error(self, error->message);
		/* what is still shown is the last answer: its line says which */
		gtk_label_set_text(self->summary, self->shown_line
							  ? self->shown_line
							  : "Nothing shown yet: correct what the line below "
							    "says, then Show.");
		return;
	}
	const char *kept = save_store(self);
	const char *where = gtk_editable_get_text(GTK_EDITABLE(self->where));
	const char *against = gtk_editable_get_text(GTK_EDITABLE(self->against));
	const char *since = gtk_editable_get_text(GTK_EDITABLE(self->since));
	g_autofree char *a = side_text(answer->b ? "A: " : "Fleet: ", answer->total_a, where);
	g_autofree char *b = answer->b ? side_text("B: ", answer->total_b, against) : NULL;
	g_autofree char *range = *since ? g_strdup_printf(", the last %s", since)
					: g_strdup(", all time");
	g_autofree char *line = g_strdup_printf(
		"%s%s%s%s%s%s%s", a, b ? " · " : "", b ? b : "", range,
		answer->source == PL_FLEET_MINUTES ? " (counted from the per-minute rollup)" : "",
		answer->weighted ? " — drawn by weight, each stack once (sample columns count "
				   "stacks)"
				 : "",
		kept);
	set_answer(self, answer);
	/* the boards are ranked within what is shown */
	pl_fleet_rank_view_set_ask(self->rank, &self->asked);
	gtk_label_set_text(self->summary, line);
	g_free(self->shown_line);
	self->shown_line = g_strdup(line);
	show_labels(self, answer->labels);
	if (self->answer->b)
		gtk_stack_set_visible_child_name(self->pages, "diff");
	else if (!g_strcmp0(gtk_stack_get_visible_child_name(self->pages), "diff"))
		gtk_stack_set_visible_child_name(self->pages, "flame");
}

gboolean pl_fleet_view_show(PlFleetView *self)
{
	if (self->busy)
		return FALSE;
	show_error(self, NULL);
	/* a path typed as a shell would take it */
	const char *cred = gtk_editable_get_text(GTK_EDITABLE(self->credentials));
	g_autofree char *home_cred = g_str_has_prefix(cred, "~/")
					     ? g_build_filename(g_get_home_dir(), cred + 2, NULL)
					     : NULL;
	PlFleetAsk ask = {
		.url = gtk_editable_get_text(GTK_EDITABLE(self->url)),
		.credentials = home_cred ? home_cred : cred,
		.where = gtk_editable_get_text(GTK_EDITABLE(self->where)),
		.against = gtk_editable_get_text(GTK_EDITABLE(self->against)),
		.since = gtk_editable_get_text(GTK_EDITABLE(self->since)),
	};
	ask_clear(&self->asked);
	self->asked = (PlFleetAsk){ .url = g_strdup(ask.url), .credentials = g_strdup(ask.credentials),
				    .where = g_strdup(ask.where), .since = g_strdup(ask.since) };
	set_busy(self, TRUE);
	gtk_label_set_text(self->summary, "Asking the fleet store…");
	pl_fleet_job_async(&ask, self, job_done, GUINT_TO_POINTER(++self->generation));
	return TRUE;
}

/* A function of the table: its store label ("NAME MODULE") for the
 * Boards page. */
static char *function_text(PlFleetView *self, guint32 func)
{
	PlProfile *p = self->answer ? self->answer->a : NULL;
	const PlFunction *f = p ? pl_profile_get_function(p, func) : NULL;
	if (!f)
		return NULL;
	return g_strdup_printf("%s %s", pl_profile_get_function_label(p, func),
			       f->module ? f->module : "[unknown]");
}

static void on_function_selected(PlFunctionTable *t, guint func, PlFleetView *self)
{
	g_autofree char *text = function_text(self, func);
	if (text)
		pl_fleet_rank_view_set_function(self->rank, text);
}

/* activated (double click, Enter): ranked at once */
static void on_function_activated(PlFunctionTable *t, guint func, PlFleetView *self)
{
	g_autofree char *text = function_text(self, func);
	if (!text)
		return;
	pl_fleet_rank_view_set_function(self->rank, text);
	gtk_stack_set_visible_child_name(self->pages, "boards");
	pl_fleet_rank_view_rank(self->rank);
}

static void on_show(GtkButton *b, PlFleetView *self)
{
	pl_fleet_view_show(self);
}

/* Enter in a field asks, as Show does */
static void on_activate(GtkEntry *e, PlFleetView *self)
{
	pl_fleet_view_show(self);
}

void pl_fleet_view_set_form(PlFleetView *self, const char *url, const char *credentials,
			    const char *where, const char *against, const char *since)
{
	GtkEntry *e[] = { self->url, self->credentials, self->where, self->against, self->since };
	const char *v[] = { url, credentials, where, against, since };
	for (guint i = 0; i < G_N_ELEMENTS(e); i++)
		if (v[i])
			gtk_editable_set_text(GTK_EDITABLE(e[i]), v[i]);
}

gboolean pl_fleet_view_is_busy(PlFleetView *self) { return self->busy; }
const char *pl_fleet_view_get_error(PlFleetView *self) { return self->last_error; }
guint64 pl_fleet_view_get_total(PlFleetView *self, gboolean side_b)
{
	if (!self->answer)
		return 0;
	return side_b ? self->answer->total_b : self->answer->total_a;
}
PlProfile *pl_fleet_view_get_profile(PlFleetView *self)
{
	return self->answer ? self->answer->a : NULL;
}
GtkWidget *pl_fleet_view_get_show_button(PlFleetView *self) { return self->show_btn; }
char **pl_fleet_view_dup_labels(PlFleetView *self)
{
	return g_strdupv(self->answer ? self->answer->labels : NULL);
}
GtkLabel *pl_fleet_view_get_labels_line(PlFleetView *self) { return self->labels; }
const char *pl_fleet_view_get_where(PlFleetView *self)
{
	return gtk_editable_get_text(GTK_EDITABLE(self->where));
}
PlFlameGraph *pl_fleet_view_get_flame_graph(PlFleetView *self) { return self->flame; }
PlFunctionTable *pl_fleet_view_get_function_table(PlFleetView *self) { return self->table; }
PlDiffView *pl_fleet_view_get_diff_view(PlFleetView *self) { return self->diff; }
PlFleetRankView *pl_fleet_view_get_rank_view(PlFleetView *self) { return self->rank; }
void pl_fleet_view_show_page(PlFleetView *self, const char *name)
{
	gtk_stack_set_visible_child_name(self->pages, name);
}

static void pl_fleet_view_dispose(GObject *obj)
{
	PlFleetView *self = PL_FLEET_VIEW(obj);
	self->generation++; /* an answer still coming is dropped */
	if (self->flame)
		set_answer(self, NULL);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_FLEET_VIEW);
	self->flame = NULL;
	G_OBJECT_CLASS(pl_fleet_view_parent_class)->dispose(obj);
}

static void pl_fleet_view_finalize(GObject *obj)
{
	PlFleetView *self = PL_FLEET_VIEW(obj);
	g_free(self->last_error);
	g_free(self->shown_line);
	ask_clear(&self->asked);
	G_OBJECT_CLASS(pl_fleet_view_parent_class)->finalize(obj);
}

static void pl_fleet_view_class_init(PlFleetViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_fleet_view_dispose;
	G_OBJECT_CLASS(klass)->finalize = pl_fleet_view_finalize;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	g_type_ensure(PL_TYPE_FLAME_GRAPH);
	g_type_ensure(PL_TYPE_FUNCTION_TABLE);
	g_type_ensure(PL_TYPE_DIFF_VIEW);
	g_type_ensure(PL_TYPE_FLEET_RANK_VIEW);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-fleet-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlFleetView, name)
	CHILD(url);
	CHILD(credentials);
	CHILD(where);
	CHILD(against);
	CHILD(since);
	CHILD(show_btn);
	CHILD(spinner);
	CHILD(summary);
	CHILD(error);
	CHILD(labels);
	CHILD(pages);
	CHILD(flame);
	CHILD(table);
	CHILD(diff);
	CHILD(diff_page);
	CHILD(rank);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_show);
	gtk_widget_class_bind_template_callback(wc, on_activate);
	gtk_widget_class_bind_template_callback(wc, on_label_link);
	gtk_widget_class_bind_template_callback(wc, on_function_selected);
	gtk_widget_class_bind_template_callback(wc, on_function_activated);
}

static void pl_fleet_view_init(PlFleetView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_widget_set_visible(self->diff_page, FALSE);
	gtk_stack_page_set_visible(gtk_stack_get_page(self->pages, self->diff_page), FALSE);
	load_store(self);
}

GtkWidget *pl_fleet_view_new(void)
{
	return g_object_new(PL_TYPE_FLEET_VIEW, NULL);
}
