/* pl-unwind-ahead.c — the worker that unwinds DWARF samples ahead of the
 * model, and the hand-over of its answers (contract in pl-unwind-ahead.h).
 *
 * Order is what makes the worker's answer the model's: the worker applies
 * mappings and unwinds samples in stream order, the model in (time, seq)
 * order after its reorder window (and messages with time 0 at once).  The
 * two agree as long as no message that changes mappings (MMAP, exec, exit
 * of a process, a vDSO image) is older than a sample already queued, and
 * no sample is older than such a message already fed: the first keeps the
 * ahead off from then on (answers already computed are dropped), the
 * second leaves that sample to the model.  perf.data read with reordering
 * is in time order, so neither happens there in practice.
 */
#include <string.h>

#include "pl-symbols-types.h"
#include "pl-unwind-ahead.h"
#include "pl-unwind.h"

#define MSG_CHUNK_VDSO 1u
#define SCAN_MAX 64u /* answers looked through for the one asked */

typedef enum { JOB_SAMPLE, JOB_MMAP, JOB_EXEC, JOB_EXIT, JOB_CHUNK, JOB_STOP } JobKind;

typedef struct {
	JobKind kind;
	guint32 pid, tid;
	guint64 a, b, c; /* mmap start, len, pgoff; chunk addr, offset */
	guint chunk_kind;
	char *name;
	guint8 *data; /* build-id of an mmap, bytes of a chunk */
	gsize len;
	/* a sample */
	guint64 regs_mask;
	guint nregs;
	guint64 regs[PL_MAX_REGS];
	guint8 *stack; /* the copy (stack_cap bytes allocated, kept when recycled) */
	gsize stack_size, stack_cap;
	gsize stack_used; /* what the walk read of it */
	/* the worker's answer */
	guint n;
	gboolean truncated;
	guint64 *pcs; /* pcs_small, or allocated when longer */
	guint64 pcs_small[64];
} Job;

#define POOL_MAX 512u /* sample Jobs kept for reuse: no malloc/free per sample */
#define MAX_WAITING (1u << 16) /* mapping Jobs held before the first DWARF sample */

struct _PlUnwindAhead {
	PlSymOptions opts; /* borrowed arrays copied by pl_symbols_new */
	GPtrArray *binaries, *debug_dirs, *source_dirs, *path_maps;
	char *sysroot, *toolchain_prefix, *map_file, *debuginfod_urls;
	PlSymbols *syms; /* the worker's, created at HELLO or first need */
	gboolean have_hello;
	PlTargetArch arch;
	guint64 regs_mask; /* SESSION's sample_regs_user */
	GThread *thread;
	GPtrArray *batch; /* Jobs not yet handed over (loader thread only) */
	guint batched;    /* sample Jobs in batch (loader thread only) */
	GMutex lock;      /* the rest: */
	GCond todo_cond, done_cond;
	GQueue todo;      /* Jobs for the worker, in order */
	GQueue done;      /* answered sample Jobs, in order */
	guint outstanding; /* sample jobs handed over, not yet answered */
	gboolean worker_idle, taker_waiting;
	guint64 pending_bytes; /* stack bytes queued or answered, not taken */
	guint64 max_sample_time, max_map_time;
	gboolean off; /* an order the model would not share was seen */
	guint64 used, missed;
	GPtrArray *pool; /* free sample Jobs (loader thread only) */
};

static void job_free(Job *j)
{
	g_free(j->name);
	g_free(j->data);
	g_free(j->stack);
	if (j->pcs != j->pcs_small)
		g_free(j->pcs);
	g_free(j);
}

/* A sample Job done with: back to the pool (loader thread). */
static void job_recycle(PlUnwindAhead *ua, Job *j)
{
	if (j->kind != JOB_SAMPLE || ua->pool->len >= POOL_MAX) {
		job_free(j);
		return;
	}
	if (j->pcs != j->pcs_small)
		g_clear_pointer(&j->pcs, g_free);
	g_ptr_array_add(ua->pool, j);
}

static gpointer worker(gpointer p)
{
	PlUnwindAhead *ua = p;
	guint64 *pcs = g_new(guint64, PL_MAX_CALLCHAIN);
	GQueue mine = G_QUEUE_INIT, answered = G_QUEUE_INIT;
	gboolean stop = FALSE;
	while (!stop) {
		/* take everything queued at once: one lock per batch, not per job */
		g_mutex_lock(&ua->lock);
		while (!ua->todo.length) {
			ua->worker_idle = TRUE;
			g_cond_wait(&ua->todo_cond, &ua->lock);
		}
		ua->worker_idle = FALSE;
		mine = ua->todo;
		g_queue_init(&ua->todo);
		g_mutex_unlock(&ua->lock);
		Job *j;
		while ((j = g_queue_pop_head(&mine))) {
			switch (j->kind) {
			case JOB_STOP:
				stop = TRUE;
				break;
			case JOB_MMAP:
				pl_symbols_add_mapping(ua->syms, j->pid, j->a, j->b, j->c, j->name,
						       j->data, j->len);
				break;
			case JOB_EXEC:
				pl_symbols_process_exec(ua->syms, j->pid);
				break;
			case JOB_EXIT:
				pl_symbols_process_exit(ua->syms, j->pid);
				break;
			case JOB_CHUNK:
				pl_symbols_add_chunk(ua->syms, j->chunk_kind, j->pid, j->a, j->b,
						     j->data, j->len);
				break;
			case JOB_SAMPLE:
				j->n = pl_symbols_unwind_used(ua->syms, j->pid, j->tid, j->regs_mask,
							      j->regs, j->nregs, j->stack,
							      j->stack_size, pcs, PL_MAX_CALLCHAIN,
							      &j->truncated, &j->stack_used);
				j->pcs = j->n <= G_N_ELEMENTS(j->pcs_small)
						 ? j->pcs_small
						 : g_memdup2(pcs, j->n * sizeof(guint64));
				memcpy(j->pcs, pcs, j->n * sizeof(guint64));
				g_queue_push_tail(&answered, j);
				continue; /* the taker frees it */
			}
			job_free(j);
		}
		g_mutex_lock(&ua->lock);
		ua->outstanding -= answered.length;
		while ((j = g_queue_pop_head(&answered)))
			g_queue_push_tail(&ua->done, j);
		if (ua->taker_waiting)
			g_cond_signal(&ua->done_cond);
		g_mutex_unlock(&ua->lock);
	}
	g_free(pcs);
	return NULL;
}

/* Hands the batch to the worker. */
static void flush(PlUnwindAhead *ua)
{
	if (!ua->batch->len)
		return;
	g_mutex_lock(&ua->lock);
	for (guint i = 0; i < ua->batch->len; i++)
		g_queue_push_tail(&ua->todo, ua->batch->pdata[i]);
	g_ptr_array_set_size(ua->batch, 0);
	/* counted here, under the lock taken anyway, not once per sample */
	ua->outstanding += ua->batched;
	ua->batched = 0;
	if (ua->worker_idle)
		g_cond_signal(&ua->todo_cond);
	g_mutex_unlock(&ua->lock);
}

static GPtrArray *strv_copy(const GPtrArray *a)
{
	GPtrArray *r = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; a && i < a->len; i++)
		g_ptr_array_add(r, g_strdup(g_ptr_array_index(a, i)));
	return r;
}

PlUnwindAhead *pl_unwind_ahead_new(const PlSymOptions *opts)
{
	PlUnwindAhead *ua = g_new0(PlUnwindAhead, 1);
	PlSymOptions none = { 0 };
	if (!opts)
		opts = &none;
	ua->opts = *opts;
	ua->opts.sysroot = ua->sysroot = g_strdup(opts->sysroot);
	ua->opts.toolchain_prefix = ua->toolchain_prefix = g_strdup(opts->toolchain_prefix);
	ua->opts.map_file = ua->map_file = g_strdup(opts->map_file);
	ua->opts.vmlinux = NULL; /* unwinds user stacks only: never names a kernel frame */
	ua->opts.debuginfod_urls = ua->debuginfod_urls = g_strdup(opts->debuginfod_urls);
	ua->opts.binaries = ua->binaries = strv_copy(opts->binaries);
	ua->opts.debug_dirs = ua->debug_dirs = strv_copy(opts->debug_dirs);
	ua->opts.source_dirs = ua->source_dirs = strv_copy(opts->source_dirs);
	ua->opts.path_maps = ua->path_maps = strv_copy(opts->path_maps);
	ua->batch = g_ptr_array_new();
	ua->pool = g_ptr_array_new_with_free_func((GDestroyNotify)job_free);
	g_mutex_init(&ua->lock);
	g_cond_init(&ua->todo_cond);
	g_cond_init(&ua->done_cond);
	return ua;
}

void pl_unwind_ahead_free(PlUnwindAhead *ua)
{
	if (!ua)
		return;
	if (ua->thread) {
		Job *stop = g_new0(Job, 1);
		stop->kind = JOB_STOP;
		g_ptr_array_add(ua->batch, stop);
		flush(ua);
		g_thread_join(ua->thread);
	}
	Job *j;
	for (guint i = 0; i < ua->batch->len; i++)
		job_free(ua->batch->pdata[i]);
	g_ptr_array_unref(ua->batch);
	while ((j = g_queue_pop_head(&ua->todo)))
		job_free(j);
	while ((j = g_queue_pop_head(&ua->done)))
		job_free(j);
	g_ptr_array_unref(ua->pool);
	g_mutex_clear(&ua->lock);
	g_cond_clear(&ua->todo_cond);
	g_cond_clear(&ua->done_cond);
	pl_symbols_free(ua->syms);
	g_ptr_array_unref(ua->binaries);
	g_ptr_array_unref(ua->debug_dirs);
	g_ptr_array_unref(ua->source_dirs);
	g_ptr_array_unref(ua->path_maps);
	g_free(ua->sysroot);
	g_free(ua->toolchain_prefix);
	g_free(ua->map_file);
	g_free(ua->debuginfod_urls);
	g_free(ua);
}

/* The worker's PlSymbols, made as the model makes its own: the HELLO's
 * board, else this host. */
static gboolean ensure_syms(PlUnwindAhead *ua)
{
	if (ua->syms)
		return TRUE;
	if (!ua->have_hello) {
		ua->arch.e_machine = 62; /* EM_X86_64 */
#if defined(__aarch64__)
		ua->arch.e_machine = 183;
#elif defined(__arm__)
		ua->arch.e_machine = 40;
#elif defined(__i386__)
		ua->arch.e_machine = 3;
#endif
		ua->arch.big_endian = G_BYTE_ORDER == G_BIG_ENDIAN;
		ua->arch.word_size = sizeof(void *);
	}
	ua->syms = pl_symbols_new(&ua->opts, &ua->arch);
	return ua->syms != NULL;
}

static void push(PlUnwindAhead *ua, Job *j)
{
	if (!ua->thread && j->kind != JOB_SAMPLE) {
		/* no DWARF sample yet (an fp recording has none): no worker, no
		 * PlSymbols, the mappings wait here for the first one */
		if (ua->batch->len >= MAX_WAITING) {
			ua->off = TRUE;
			job_free(j);
			return;
		}
		g_ptr_array_add(ua->batch, j);
		return;
	}
	if (!ua->thread) {
		ua->thread = g_thread_try_new("pl-unwind", worker, ua, NULL);
		if (!ua->thread) {
			ua->off = TRUE;
			job_free(j);
			return;
		}
	}
	g_ptr_array_add(ua->batch, j);
	if (ua->batch->len >= 64)
		flush(ua);
}

/* A message that changes the mappings, at model time t. */
static gboolean map_change(PlUnwindAhead *ua, guint64 t)
{
	if (ua->off)
		return FALSE;
	if (t < ua->max_sample_time) {
		ua->off = TRUE; /* queued samples would have been unwound without it */
		return FALSE;
	}
	ua->max_map_time = MAX(ua->max_map_time, t);
	return TRUE;
}

gboolean pl_unwind_ahead_feed(PlUnwindAhead *ua, const struct pl_msg *m)
{
	switch (m->type) {
	case PL_MSG_HELLO:
		if (!ua->syms && !ua->have_hello) {
			ua->have_hello = TRUE;
			ua->arch.e_machine = m->u.hello.e_machine;
			ua->arch.big_endian = m->u.hello.byte_order == PL_BIG_ENDIAN;
			ua->arch.word_size = m->u.hello.word_size;
		}
		return FALSE;
	case PL_MSG_SESSION:
		ua->regs_mask = m->u.session.sample_regs_user;
		return FALSE;
	case PL_MSG_MMAP: {
		const struct pl_msg_mmap *mm = &m->u.mmap;
		if (!map_change(ua, mm->snapshot ? 0 : mm->time))
			return FALSE;
		Job *j = g_new0(Job, 1);
		j->kind = JOB_MMAP;
		j->pid = mm->pid;
		j->a = mm->start;
		j->b = mm->len;
		j->c = mm->pgoff;
		j->name = g_strndup(mm->filename.p ? mm->filename.p : "", mm->filename.len);
		j->len = MIN(mm->build_id_len, PL_MAX_BUILD_ID);
		j->data = g_memdup2(mm->build_id, j->len ? j->len : 1);
		push(ua, j);
		return FALSE;
	}
	case PL_MSG_COMM: {
		const struct pl_msg_comm *c = &m->u.comm;
		if (c->pid != c->tid || !c->exec || c->snapshot || !map_change(ua, c->time))
			return FALSE;
		Job *j = g_new0(Job, 1);
		j->kind = JOB_EXEC;
		j->pid = c->pid;
		push(ua, j);
		return FALSE;
	}
	case PL_MSG_TASK: {
		const struct pl_msg_task *k = &m->u.task;
		if (k->kind != PL_TASK_EXIT || k->pid != k->tid || !map_change(ua, k->time))
			return FALSE;
		Job *j = g_new0(Job, 1);
		j->kind = JOB_EXIT;
		j->pid = k->pid;
		push(ua, j);
		return FALSE;
	}
	case PL_MSG_FILE_CHUNK: {
		const struct pl_msg_file_chunk *c = &m->u.chunk;
		if (c->kind != MSG_CHUNK_VDSO || !map_change(ua, 0))
			return FALSE;
		Job *j = g_new0(Job, 1);
		j->kind = JOB_CHUNK;
		j->chunk_kind = c->kind;
		j->pid = c->pid;
		j->a = c->addr;
		j->b = c->offset;
		j->len = c->data ? c->len : 0;
		j->data = g_memdup2(c->data, j->len ? j->len : 1);
		push(ua, j);
		return FALSE;
	}
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *s = &m->u.sample;
		/* what the model unwinds (pl-profile-samples.c is_dwarf_sample) */
		if (s->regs_abi == 0 || s->nr_regs == 0 || s->stack_size == 0 || !s->stack)
			return FALSE;
		if (ua->off || s->time < ua->max_map_time ||
		    ua->pending_bytes + s->stack_size > PL_AHEAD_MAX_BYTES || !ensure_syms(ua))
			return FALSE;
		Job *j = ua->pool->len ? g_ptr_array_steal_index_fast(ua->pool, ua->pool->len - 1)
				       : g_new0(Job, 1);
		j->kind = JOB_SAMPLE;
		j->pid = s->pid;
		j->tid = s->tid;
		j->regs_mask = ua->regs_mask;
		j->nregs = MIN(s->nr_regs, PL_MAX_REGS);
		memcpy(j->regs, s->regs, j->nregs * sizeof(guint64));
		if (j->stack_cap < s->stack_size) {
			g_free(j->stack);
			j->stack_cap = MAX(s->stack_size, 8192u);
			j->stack = g_malloc(j->stack_cap);
		}
		memcpy(j->stack, s->stack, s->stack_size);
		j->stack_size = s->stack_size;
		j->stack_used = 0;
		j->n = 0;
		j->pcs = NULL;
		ua->max_sample_time = MAX(ua->max_sample_time, s->time);
		ua->pending_bytes += j->stack_size;
		ua->batched++; /* before push: a full batch is flushed there */
		push(ua, j);
		return !ua->off;
	}
	default:
		return FALSE;
	}
}

static gboolean job_is(const Job *j, guint32 pid, guint32 tid, guint64 regs_mask,
		       const guint64 *regs, guint nregs, const guint8 *stack, gsize stack_size)
{
	/* the walk is a function of the registers, the size of the copy and
	 * the bytes of it that it read (and of the mappings: see the top) */
	return j->pid == pid && j->tid == tid && j->regs_mask == regs_mask && j->nregs == nregs &&
	       j->stack_size == stack_size && j->stack_used <= stack_size &&
	       !memcmp(j->regs, regs, nregs * sizeof(guint64)) &&
	       !memcmp(j->stack, stack, j->stack_used);
}

/* The worker's answer for this very sample, pl_symbols_unwind's
 * ahead_take (PlUnwindAheadTake, pl-symbols-types.h). */
static gint pl_unwind_ahead_take(PlUnwindAhead *ua, const PlTargetArch *arch, guint32 pid,
				 guint32 tid, guint64 regs_mask, const guint64 *regs, guint nregs,
				 const guint8 *stack, gsize stack_size, guint64 *pcs, guint max,
				 gboolean *truncated)
{
	Job *hit = NULL;
	gboolean usable = !ua->off && ua->syms && regs && stack &&
			  ua->syms->arch.e_machine == arch->e_machine &&
			  ua->syms->arch.big_endian == arch->big_endian &&
			  ua->syms->arch.word_size == arch->word_size &&
			  /* ARM walks restart after EHABI steps, a count the
			   * caller's max also bounds: left to the caller */
			  arch->e_machine != EM_ARM;
	g_mutex_lock(&ua->lock);
	/* the next answer is almost always the one asked for: wait for it */
	if (usable && ua->done.length == 0 && ua->batched) {
		g_mutex_unlock(&ua->lock);
		flush(ua);
		g_mutex_lock(&ua->lock);
	}
	while (usable && ua->done.length == 0 && ua->outstanding > 0) {
		ua->taker_waiting = TRUE;
		g_cond_wait(&ua->done_cond, &ua->lock);
	}
	ua->taker_waiting = FALSE;
	guint i = 0;
	for (GList *l = ua->done.head; usable && l && i < SCAN_MAX; l = l->next, i++)
		if (job_is(l->data, pid, tid, regs_mask, regs, nregs, stack, stack_size)) {
			hit = l->data;
			break;
		}
	/* answers before it are for samples the model dropped or took
	 * earlier: it will unwind those itself if it asks; with the ahead
	 * off, every answer goes */
	guint drop = hit ? i + 1 : ua->off ? ua->done.length : 0;
	GList *gone = NULL;
	for (guint k = 0; k < drop; k++)
		gone = g_list_prepend(gone, g_queue_pop_head(&ua->done));
	g_mutex_unlock(&ua->lock);
	for (GList *l = gone; l; l = l->next) {
		Job *j = l->data;
		ua->pending_bytes -= j->stack_size;
		if (j != hit)
			job_recycle(ua, j);
	}
	g_list_free(gone);
	/* an answer as long as the caller's max may have been cut by it */
	if (!hit || hit->n >= max) {
		ua->missed++;
		if (hit)
			job_recycle(ua, hit);
		return -1;
	}
	memcpy(pcs, hit->pcs, hit->n * sizeof(guint64));
	*truncated = hit->truncated;
	gint n = (gint)hit->n;
	job_recycle(ua, hit);
	ua->used++;
	return n;
}

void pl_symbols_set_unwind_ahead(PlSymbols *self, PlUnwindAhead *ua)
{
	/* the unwinder asks through this hook: it does not know this file */
	self->ahead_take = pl_unwind_ahead_take;
	self->ahead = ua;
}

void pl_unwind_ahead_counts(PlUnwindAhead *ua, guint64 *used, guint64 *missed)
{
	*used = ua->used;
	*missed = ua->missed;
}
