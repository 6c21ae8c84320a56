/* pl-view-state.c — a window's call-tree transforms and their file (see
 * the header). */
#include "pl-view-state.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

struct _PlViewState {
	GObject parent_instance;
	PlStackFilter *sf;
	char *session; /* NULL: nothing kept */
	char *error;
};

G_DEFINE_FINAL_TYPE(PlViewState, pl_view_state, G_TYPE_OBJECT)

enum { SIG_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

char *pl_view_state_path_for(const char *session_path)
{
	return g_strconcat(session_path, ".view", NULL);
}

static void set_error(PlViewState *self, char *msg)
{
	g_free(self->error);
	self->error = msg;
}

/* Writes the stack beside the session (0600: it names the session's
 * functions), or removes the file of an empty stack. */
static void save(PlViewState *self)
{
	if (!self->session)
		return;
	g_autofree char *vp = pl_view_state_path_for(self->session);
	const PlTransforms *t = pl_view_state_get_transforms(self);
	if (pl_transforms_get_n(t) == 0) {
		if (g_unlink(vp) != 0 && errno != ENOENT)
			set_error(self, g_strdup_printf("Cannot remove %s: %s", vp,
							g_strerror(errno)));
		return;
	}
	g_autofree char *text = pl_transforms_serialize(t);
	g_autoptr(GError) error = NULL;
	if (!g_file_set_contents_full(vp, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
		set_error(self, g_strdup_printf("The transforms are not kept with the session: %s",
						error->message));
}

static void changed(PlViewState *self)
{
	g_clear_pointer(&self->error, g_free); /* a failure is told once */
	save(self);
	g_signal_emit(self, signals[SIG_CHANGED], 0);
}

PlViewState *pl_view_state_new(void)
{
	return g_object_new(PL_TYPE_VIEW_STATE, NULL);
}

const PlStackFilter *pl_view_state_get_stack_filter(PlViewState *self)
{
	return self->sf;
}

const PlTransforms *pl_view_state_get_transforms(PlViewState *self)
{
	return pl_stack_filter_get_transforms(self->sf);
}

guint pl_view_state_get_n(PlViewState *self)
{
	return pl_transforms_get_n(pl_view_state_get_transforms(self));
}

gboolean pl_view_state_push(PlViewState *self, PlTransformKind kind, const char *arg,
			    GError **error)
{
	if (!pl_transforms_push(pl_stack_filter_get_transforms(self->sf), kind, arg, error))
		return FALSE;
	changed(self);
	return TRUE;
}

gboolean pl_view_state_push_text(PlViewState *self, const char *text, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text ? text : "", "\t", 2);
	PlTransformKind kind;
	if (!parts[0] || !pl_transform_kind_from_name(parts[0], &kind)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "unknown call-tree transform '%s'", parts[0] ? parts[0] : "");
		return FALSE;
	}
	return pl_view_state_push(self, kind, parts[1], error);
}

void pl_view_state_remove(PlViewState *self, guint i)
{
	if (i >= pl_view_state_get_n(self))
		return;
	pl_transforms_remove(pl_stack_filter_get_transforms(self->sf), i);
	changed(self);
}

void pl_view_state_reset(PlViewState *self)
{
	if (pl_view_state_get_n(self) == 0)
		return;
	pl_stack_filter_free(self->sf);
	self->sf = pl_stack_filter_new();
	changed(self);
}

/* The stack saved beside path, or NULL (none, or unreadable: then why in
 * self->error). */
static PlTransforms *load(PlViewState *self, const char *path)
{
	g_autofree char *vp = pl_view_state_path_for(path);
	g_autofree char *text = NULL;
	g_autoptr(GError) error = NULL;
	if (!g_file_get_contents(vp, &text, NULL, &error)) {
		if (!g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			set_error(self, g_strdup_printf("The session's transforms were not restored: %s",
							error->message));
		return NULL;
	}
	PlTransforms *t = pl_transforms_parse(text, &error);
	if (!t)
		set_error(self, g_strdup_printf("The session's transforms were not restored: %s: %s",
						vp, error->message));
	return t;
}

void pl_view_state_set_session(PlViewState *self, const char *path)
{
	g_clear_pointer(&self->error, g_free);
	g_free(self->session);
	self->session = NULL; /* nothing written while the stack is replaced */
	pl_stack_filter_free(self->sf);
	self->sf = pl_stack_filter_new();
	g_autoptr(PlTransforms) t = path ? load(self, path) : NULL;
	PlTransforms *into = pl_stack_filter_get_transforms(self->sf);
	for (guint i = 0; t && i < pl_transforms_get_n(t); i++)
		/* parsed, so valid */
		pl_transforms_push(into, pl_transforms_get_kind(t, i), pl_transforms_get_arg(t, i),
				   NULL);
	self->session = g_strdup(path);
	g_signal_emit(self, signals[SIG_CHANGED], 0);
}

void pl_view_state_keep_in(PlViewState *self, const char *path)
{
	g_free(self->session);
	self->session = g_strdup(path);
	if (pl_view_state_get_n(self))
		save(self);
}

const char *pl_view_state_get_error(PlViewState *self)
{
	return self->error;
}

static void pl_view_state_finalize(GObject *obj)
{
	PlViewState *self = PL_VIEW_STATE(obj);
	pl_stack_filter_free(self->sf);
	g_free(self->session);
	g_free(self->error);
	G_OBJECT_CLASS(pl_view_state_parent_class)->finalize(obj);
}

static void pl_view_state_class_init(PlViewStateClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = pl_view_state_finalize;
	signals[SIG_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
					    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void pl_view_state_init(PlViewState *self)
{
	self->sf = pl_stack_filter_new();
}
