/* pl-load-job.c — a file loading in a worker for the window (see
 * pl-load-job.h): the task, its progress ticks and its cancellation.
 */
#include "pl-load-job.h"

#include <gio/gio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "pl-target-settings.h"

struct _PlLoadJob {
	GObject parent_instance;

	gboolean loading;
	char *loading_path;
	GCancellable *load_cancel;
	guint load_tick;
	/* Messages read by the running load, for the progress line (written
	 * by the worker, read by the main thread). */
	gsize load_progress;
	/* What a debuginfod fetch of the load is doing (written by the
	 * worker's fetch callback, read by the main thread; under lock). */
	GMutex fetch_lock;
	char *fetch_status;
	/* the result, while "finished" runs */
	PlProfile *profile;
	GError *error;
};

G_DEFINE_FINAL_TYPE(PlLoadJob, pl_load_job, G_TYPE_OBJECT)

enum { SIG_PROGRESS, SIG_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void set_fetch_status(PlLoadJob *self, char *text)
{
	g_mutex_lock(&self->fetch_lock);
	g_free(self->fetch_status);
	self->fetch_status = text;
	g_mutex_unlock(&self->fetch_lock);
}

/* A fetch of the load (worker thread): the line the window shows under
 * its progress; the load's cancel ends the fetch (pl-loader.c). */
static gboolean on_fetch(const PlFetchProgress *f, gpointer data)
{
	PlLoadJob *self = data;
	if (f->finished) {
		set_fetch_status(self, f->message ? g_strdup_printf("debuginfod: %s", f->message)
						  : NULL);
		return TRUE;
	}
	g_autofree char *done = g_format_size((guint64)MAX(f->done, 0));
	g_autofree char *total = f->total > 0 ? g_format_size((guint64)f->total) : NULL;
	set_fetch_status(self, g_strdup_printf("fetching the %s of %s from %s: %s%s%s", f->what,
					       f->module, f->url ? f->url : "the servers",
					       f->done > 0 ? done : "connecting",
					       total ? " of " : "", total ? total : ""));
	return TRUE;
}

static void load_thread(GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
	PlLoadJob *self = src;
	const char *path = data;
	GError *error = NULL;
	PlProfile *p = pl_target_load_file_watched(path, cancel, &self->load_progress, on_fetch,
						   self, &error);
#ifdef __GLIBC__
	/* the decoding thread's buffers are free now, but their pages stay in
	 * its arena, which the window's drawing (another thread) cannot use:
	 * hand them back before the views allocate theirs */
	malloc_trim(0);
#endif
	if (!p)
		g_task_return_error(task, error);
	else
		g_task_return_pointer(task, p, (GDestroyNotify)pl_profile_free);
}

static void load_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlLoadJob *self = PL_LOAD_JOB(src);
	const char *path = g_task_get_task_data(G_TASK(res));
	GError *error = NULL;
	PlProfile *p = g_task_propagate_pointer(G_TASK(res), &error);
	self->loading = FALSE;
	g_clear_object(&self->load_cancel);
	self->profile = p;
	self->error = error;
	g_signal_emit(self, signals[SIG_FINISHED], 0, path);
	g_clear_pointer(&self->profile, pl_profile_free);
	g_clear_error(&self->error);
}

static gboolean on_load_tick(gpointer data)
{
	PlLoadJob *self = data;
	if (!self->loading) {
		self->load_tick = 0;
		return G_SOURCE_REMOVE;
	}
	g_signal_emit(self, signals[SIG_PROGRESS], 0);
	return G_SOURCE_CONTINUE;
}

void pl_load_job_cancel(PlLoadJob *self)
{
	if (self->load_cancel)
		g_cancellable_cancel(self->load_cancel);
}

void pl_load_job_load(PlLoadJob *self, const char *path)
{
	if (self->loading)
		pl_load_job_cancel(self);
	self->loading = TRUE;
	g_free(self->loading_path);
	self->loading_path = g_strdup(path);
	__atomic_store_n(&self->load_progress, 0, __ATOMIC_RELAXED);
	set_fetch_status(self, NULL);
	/* once a second: each tick repaints the window, which a software
	 * renderer pays for with the cores the load runs on */
	if (!self->load_tick)
		self->load_tick = g_timeout_add(1000, on_load_tick, self);
	self->load_cancel = g_cancellable_new();
	GTask *task = g_task_new(self, self->load_cancel, load_done, NULL);
	g_task_set_task_data(task, g_strdup(path), g_free);
	g_task_run_in_thread(task, load_thread);
	g_object_unref(task);
}

PlLoadJob *pl_load_job_new(void)
{
	return g_object_new(PL_TYPE_LOAD_JOB, NULL);
}

gboolean pl_load_job_is_loading(PlLoadJob *self) { return self->loading; }
const char *pl_load_job_get_path(PlLoadJob *self) { return self->loading_path; }

gsize pl_load_job_get_progress(PlLoadJob *self)
{
	return __atomic_load_n(&self->load_progress, __ATOMIC_RELAXED);
}

PlProfile *pl_load_job_take_profile(PlLoadJob *self)
{
	return g_steal_pointer(&self->profile);
}

const GError *pl_load_job_get_error(PlLoadJob *self) { return self->error; }

char *pl_load_job_dup_fetch_status(PlLoadJob *self)
{
	g_mutex_lock(&self->fetch_lock);
	char *s = g_strdup(self->fetch_status);
	g_mutex_unlock(&self->fetch_lock);
	return s;
}

static void pl_load_job_init(PlLoadJob *self)
{
	g_mutex_init(&self->fetch_lock);
}

/* after the worker: a running load holds a ref on the loader */
static void pl_load_job_finalize(GObject *obj)
{
	PlLoadJob *self = PL_LOAD_JOB(obj);
	g_free(self->fetch_status);
	g_mutex_clear(&self->fetch_lock);
	G_OBJECT_CLASS(pl_load_job_parent_class)->finalize(obj);
}

static void pl_load_job_dispose(GObject *obj)
{
	PlLoadJob *self = PL_LOAD_JOB(obj);
	if (self->load_tick)
		g_source_remove(self->load_tick);
	self->load_tick = 0;
	g_clear_pointer(&self->loading_path, g_free);
	if (self->load_cancel)
		g_cancellable_cancel(self->load_cancel);
	g_clear_object(&self->load_cancel);
	G_OBJECT_CLASS(pl_load_job_parent_class)->dispose(obj);
}

static void pl_load_job_class_init(PlLoadJobClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_load_job_dispose;
	G_OBJECT_CLASS(klass)->finalize = pl_load_job_finalize;
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_PROGRESS] = g_signal_new("progress", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					     G_TYPE_NONE, 0);
	signals[SIG_FINISHED] = g_signal_new("finished", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					     G_TYPE_NONE, 1, G_TYPE_STRING);
}
