/* pl-diff-controller.c — the window's diff (see pl-diff-controller.h): the
 * other session's load, the two profiles handed to the Diff page, its tab.
 */
#include "pl-diff-controller.h"

#include <gtk/gtk.h>

#include "pl-load-job.h"

struct _PlDiffController {
	GObject parent_instance;

	PlDiffView *diff;
	PlLoadJob *loader;
	PlProfile *base; /* borrowed: the window's profile */
	PlViewState *state; /* the transforms both sides are shaped by */
	/* the diff: the open profile is the base, this one the other */
	PlProfile *diff_other;
	char *diff_path;
	gboolean diff_loading;
	char *diff_error;
};

G_DEFINE_FINAL_TYPE(PlDiffController, pl_diff_controller, G_TYPE_OBJECT)

enum { SIG_STATUS, SIG_SHOWN, N_SIGNALS };
static guint signals[N_SIGNALS];

static const PlStackFilter *stack_filter(PlDiffController *self)
{
	return self->state ? pl_view_state_get_stack_filter(self->state) : NULL;
}

static void status(PlDiffController *self, const char *text)
{
	g_signal_emit(self, signals[SIG_STATUS], 0, text);
}

/* The Diff view has a tab only while a diff is loaded. */
static void show_diff_page(PlDiffController *self, gboolean show)
{
	GtkWidget *w = GTK_WIDGET(self->diff);
	gtk_widget_set_visible(w, show);
	GtkWidget *views = gtk_widget_get_parent(w);
	if (GTK_IS_STACK(views))
		g_object_set(gtk_stack_get_page(GTK_STACK(views), w), "visible", show, NULL);
}

/* The diff borrows the base (the open profile) and owns the other. */
void pl_diff_controller_clear(PlDiffController *self)
{
	pl_diff_view_set_profiles(self->diff, NULL, NULL, NULL);
	g_clear_pointer(&self->diff_other, pl_profile_free);
	g_clear_pointer(&self->diff_path, g_free);
	show_diff_page(self, FALSE);
}

static void diff_load_done(PlLoadJob *loader, const char *path, PlDiffController *self)
{
	const GError *error = pl_load_job_get_error(loader);
	PlProfile *p = pl_load_job_take_profile(loader);
	self->diff_loading = FALSE;
	g_clear_pointer(&self->diff_error, g_free);
	if (!p || !self->base) {
		self->diff_error = g_strdup_printf("Cannot compare with %s: %s", path,
						   error ? error->message : "no session is open");
		status(self, self->diff_error);
		if (p)
			pl_profile_free(p);
		return;
	}
	pl_diff_controller_clear(self);
	self->diff_other = p;
	self->diff_path = g_strdup(path);
	pl_diff_view_set_profiles(self->diff, self->base, p, stack_filter(self));
	show_diff_page(self, TRUE);
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *title = g_strdup_printf("Diff: %s", base);
	GtkWidget *views = gtk_widget_get_parent(GTK_WIDGET(self->diff));
	if (GTK_IS_STACK(views))
		g_object_set(gtk_stack_get_page(GTK_STACK(views), GTK_WIDGET(self->diff)), "title",
			     "Diff", NULL);
	g_signal_emit(self, signals[SIG_SHOWN], 0);
	status(self, title);
}

gboolean pl_diff_controller_compare(PlDiffController *self, const char *path)
{
	if (!self->base || self->diff_loading)
		return FALSE;
	self->diff_loading = TRUE;
	g_autofree char *msg = g_strdup_printf("Loading %s to compare…", path);
	status(self, msg);
	pl_load_job_load(self->loader, path);
	return TRUE;
}

static void on_transforms_changed(PlViewState *st, PlDiffController *self)
{
	if (self->base && self->diff_other)
		pl_diff_view_set_profiles(self->diff, self->base, self->diff_other,
					  stack_filter(self));
}

void pl_diff_controller_set_view_state(PlDiffController *self, PlViewState *state)
{
	if (self->state)
		g_signal_handlers_disconnect_by_data(self->state, self);
	g_set_object(&self->state, state);
	if (state)
		g_signal_connect(state, "changed", G_CALLBACK(on_transforms_changed), self);
	on_transforms_changed(state, self);
}

PlDiffController *pl_diff_controller_new(PlDiffView *view)
{
	PlDiffController *self = g_object_new(PL_TYPE_DIFF_CONTROLLER, NULL);
	self->diff = g_object_ref_sink(view);
	/* no tab until a diff is shown (a stack page is as visible as its child) */
	gtk_widget_set_visible(GTK_WIDGET(self->diff), FALSE);
	return self;
}

PlDiffView *pl_diff_controller_get_view(PlDiffController *self) { return self->diff; }
void pl_diff_controller_set_base(PlDiffController *self, PlProfile *base) { self->base = base; }
gboolean pl_diff_controller_is_loading(PlDiffController *self) { return self->diff_loading; }
const char *pl_diff_controller_get_error(PlDiffController *self) { return self->diff_error; }

static void pl_diff_controller_init(PlDiffController *self)
{
	self->loader = pl_load_job_new();
	g_signal_connect(self->loader, "finished", G_CALLBACK(diff_load_done), self);
}

static void pl_diff_controller_dispose(GObject *obj)
{
	PlDiffController *self = PL_DIFF_CONTROLLER(obj);
	if (self->loader) {
		g_signal_handlers_disconnect_by_data(self->loader, self);
		pl_load_job_cancel(self->loader);
		g_clear_object(&self->loader);
	}
	if (self->state)
		g_signal_handlers_disconnect_by_data(self->state, self);
	g_clear_object(&self->state);
	if (self->diff)
		pl_diff_view_set_profiles(self->diff, NULL, NULL, NULL);
	g_clear_pointer(&self->diff_other, pl_profile_free);
	g_clear_pointer(&self->diff_path, g_free);
	g_clear_pointer(&self->diff_error, g_free);
	g_clear_object(&self->diff);
	self->base = NULL;
	G_OBJECT_CLASS(pl_diff_controller_parent_class)->dispose(obj);
}

static void pl_diff_controller_class_init(PlDiffControllerClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_diff_controller_dispose;
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_STATUS] = g_signal_new("status", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					   G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_SHOWN] = g_signal_new("shown", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					  G_TYPE_NONE, 0);
}
