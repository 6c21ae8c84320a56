/* pl-unwind-starts.c — stacks that reached a start no name marks
 * (pl-profile-private.h).
 *
 * A thread's start.  Debian's armhf libc is stripped and marks
 * start_thread EXIDX_CANTUNWIND (as gcc marks memcpy): a walk ends there
 * at a bare return address, no name says "start", and the stack would
 * count as stopped short.  A broken walk ends wherever it failed, so the
 * stacks of its thread end at many addresses; a thread's start is one
 * place, where nearly all of them end (its first few stacks, taken while
 * the thread starts up, may end elsewhere).  So: in a thread that is not
 * a process's main thread (whose start is main or _start, named), the
 * stacks that end at one return address in libc where no function is
 * named have reached the thread's start, when that address ends at least
 * UQ_THREAD_START_SHARE of the thread's stacks with user frames, and at
 * least UQ_THREAD_START_MIN.  (A libc function that calls back into the
 * program, as qsort, is named: only a stripped local function, as
 * start_thread, has no name.)
 *
 * A process's start-up.  Before main, the dynamic loader maps the
 * libraries and runs their constructors: those stacks end in the loader,
 * which Debian strips, so a finished walk there cannot be told from a
 * broken one by a name.  The main thread's stacks that end in the loader
 * before its first stack that ends anywhere else (the program's _start,
 * main) are its start-up, and reached the process's start; later ones
 * (lazy binding) are judged as any other.  A process whose stacks never
 * leave the loader in the recording has none counted.
 *
 * The samples are scanned once each: the state per thread is kept and
 * brought up to date with the samples that came since (a live session). */
#include "pl-profile.h"
#include "pl-profile-private.h"

#include <string.h>

#define UQ_THREAD_START_MIN 10
#define UQ_THREAD_START_SHARE 90 /* percent */

/* How often the stacks of one thread end at one return address. */
typedef struct {
	guint64 n;
	guint32 func;
} EndCount;

typedef struct {
	guint64 user;     /* stacks with a user frame outermost */
	GHashTable *ends; /* return address → EndCount */
	/* a main thread: the times of its stacks that end in the loader,
	 * and of the first that ends elsewhere (G_MAXUINT64: none yet) */
	GArray *in_loader;
	const char *loader; /* the loader's module basename */
	guint64 left_loader;
	/* the return address counted last and its count: a thread's stacks
	 * mostly end at the same one (its start routine's caller) */
	guint64 last_pc;
	EndCount *last;
} ThreadEnds;

/* The outermost user frame of an address stack, as a thread-start test
 * reads it. */
typedef struct {
	gboolean user; /* the stack ends in user space */
	gboolean is_return;
	guint64 pc;
	guint32 func; /* its outermost function (inline frames climbed) */
	gboolean loader; /* that function is the dynamic loader's */
} StackEnd;

struct PlUnwindStarts {
	guint scanned;       /* samples looked at */
	GHashTable *threads; /* tid → ThreadEnds */
	GPtrArray *stacks;   /* by stack id: StackEnd (g_free), NULL until a sample has it;
			      * a sample's is looked up once per sample, by index */
	GHashTable *modules; /* module basename → PlThreadStarts, made from threads */
	guint modules_at;    /* scanned when modules was made */
};

static void thread_ends_free(gpointer p)
{
	ThreadEnds *t = p;
	g_hash_table_destroy(t->ends);
	g_array_free(t->in_loader, TRUE);
	g_free(t);
}

static void unwind_starts_free(gpointer data)
{
	PlUnwindStarts *s = data;
	if (!s)
		return;
	g_hash_table_destroy(s->threads);
	g_ptr_array_unref(s->stacks);
	g_clear_pointer(&s->modules, g_hash_table_destroy);
	g_free(s);
}

/* The function of a call-tree node's outermost ancestor (inline frames
 * climbed), PL_NO_ID when none. */
static guint32 top_function(PlProfile *p, guint32 node)
{
	while (node && node != PL_NO_ID) {
		const PlNode *nd = pl_profile_get_node(p, node);
		if (!nd->parent || nd->parent == PL_NO_ID)
			return nd->func;
		node = nd->parent;
	}
	return PL_NO_ID;
}

static gboolean is_loader(const char *module);
static const char *module_of(PlProfile *p, guint32 func);

static const StackEnd *stack_end(PlUnwindStarts *s, PlProfile *p, guint32 stack)
{
	if (stack >= s->stacks->len)
		g_ptr_array_set_size(s->stacks, MAX(stack + 1, s->stacks->len * 2));
	StackEnd *e = s->stacks->pdata[stack];
	if (e)
		return e;
	e = g_new0(StackEnd, 1);
	e->func = PL_NO_ID;
	PlStackFrame fr = { 0 }, last = { 0 };
	gboolean have = FALSE;
	for (guint32 id = stack; id != PL_NO_ID && pl_profile_get_stack_frame(p, id, &fr);
	     id = fr.parent) {
		if (fr.root || !fr.pc)
			break;
		last = fr;
		have = TRUE;
	}
	if (have && !last.kernel) {
		e->user = TRUE;
		e->is_return = last.is_return;
		e->pc = last.pc;
		e->func = top_function(p, last.node);
	}
	e->loader = is_loader(module_of(p, e->func));
	s->stacks->pdata[stack] = e;
	return e;
}

static gboolean is_libc(const char *module)
{
	return module && (g_str_has_prefix(module, "libc.") || g_str_has_prefix(module, "libc-") ||
			  g_str_has_prefix(module, "libpthread") || g_str_has_prefix(module, "ld-musl"));
}

/* The dynamic loader (musl's is its libc). */
static gboolean is_loader(const char *module)
{
	return module && (g_str_has_prefix(module, "ld-linux") || g_str_has_prefix(module, "ld.so") ||
			  g_str_has_prefix(module, "ld-musl"));
}

static const char *module_of(PlProfile *p, guint32 func)
{
	return func != PL_NO_ID ? pl_profile_get_function(p, func)->module : NULL;
}

static PlThreadStarts *module_starts(GHashTable *modules, const char *module)
{
	PlThreadStarts *c = g_hash_table_lookup(modules, module);
	if (!c) {
		c = g_new0(PlThreadStarts, 1);
		g_hash_table_insert(modules, (gpointer)module, c);
	}
	return c;
}

/* A non-main thread's stacks at its start (above) into modules. */
static void count_thread_start(PlProfile *self, const ThreadEnds *t, GHashTable *modules)
{
	const EndCount *top = NULL;
	GHashTableIter ei;
	gpointer ek, ev;
	g_hash_table_iter_init(&ei, t->ends);
	while (g_hash_table_iter_next(&ei, &ek, &ev))
		if (!top || ((const EndCount *)ev)->n > top->n)
			top = ev;
	if (!top || top->n < UQ_THREAD_START_MIN || top->func == PL_NO_ID ||
	    top->n * 100 < t->user * UQ_THREAD_START_SHARE)
		return;
	const PlFunction *f = pl_profile_get_function(self, top->func);
	if (f->name || !is_libc(f->module))
		return;
	PlThreadStarts *c = module_starts(modules, f->module);
	c->stacks += top->n;
	c->threads++;
}

/* A main thread's start-up stacks in the loader (above) into modules. */
static void count_start_up(const ThreadEnds *t, GHashTable *modules)
{
	guint64 n = 0;
	for (guint i = 0; t->in_loader && i < t->in_loader->len; i++)
		n += g_array_index(t->in_loader, guint64, i) < t->left_loader;
	if (!n || t->left_loader == G_MAXUINT64)
		return;
	PlThreadStarts *c = module_starts(modules, t->loader);
	c->stacks += n;
	c->processes++;
}

GHashTable *pl_profile_thread_starts(PlProfile *self)
{
	PlUnwindStarts *s = self->uq_starts;
	if (!s) {
		s = self->uq_starts = g_new0(PlUnwindStarts, 1);
		self->uq_starts_free = unwind_starts_free;
		s->threads = g_hash_table_new_full(NULL, NULL, NULL, thread_ends_free);
		s->stacks = g_ptr_array_new_with_free_func(g_free);
	}
	guint n;
	const PlSample *smp = pl_profile_get_samples(self, &n);
	const PlSampleCtx *smp_cx = pl_profile_get_sample_ctx(self);
	if (n < s->scanned) { /* not the samples seen before: start again */
		g_hash_table_remove_all(s->threads);
		g_ptr_array_set_size(s->stacks, 0);
		g_clear_pointer(&s->modules, g_hash_table_destroy);
		s->scanned = 0;
	}
	/* samples come in runs of one thread: its state is looked up once a run */
	ThreadEnds *t = NULL;
	guint32 t_tid = 0;
	for (guint i = s->scanned; i < n; i++) {
		if (smp[i].stack == PL_NO_ID)
			continue;
		const StackEnd *se = stack_end(s, self, smp[i].stack);
		if (!se->user)
			continue;
		guint32 tid = pl_sample_tid(smp_cx, &smp[i]);
		if (!t || t_tid != tid)
			t = g_hash_table_lookup(s->threads, GUINT_TO_POINTER(tid));
		t_tid = tid;
		if (!t) {
			t = g_new0(ThreadEnds, 1);
			t->ends = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
			t->in_loader = g_array_new(FALSE, FALSE, sizeof(guint64));
			t->left_loader = G_MAXUINT64;
			g_hash_table_insert(s->threads, GUINT_TO_POINTER(tid), t);
		}
		t->user++;
		const char *module = module_of(self, se->func);
		if (se->loader && smp[i].time < t->left_loader) {
			g_array_append_val(t->in_loader, smp[i].time);
			t->loader = module;
		} else if (!se->loader) {
			t->left_loader = MIN(t->left_loader, smp[i].time);
		}
		if (!se->is_return)
			continue;
		EndCount *c = t->last && t->last_pc == se->pc ? t->last
							     : g_hash_table_lookup(t->ends, &se->pc);
		if (!c) {
			c = g_new0(EndCount, 1);
			c->func = se->func;
			g_hash_table_insert(t->ends, g_memdup2(&se->pc, sizeof(se->pc)), c);
		}
		t->last_pc = se->pc;
		t->last = c;
		c->n++;
	}
	s->scanned = n;
	if (s->modules && s->modules_at == n)
		return s->modules;
	g_clear_pointer(&s->modules, g_hash_table_destroy);
	s->modules = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	s->modules_at = n;
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, s->threads);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		const ThreadEnds *te = val;
		const PlThread *th = pl_profile_lookup_thread(self, GPOINTER_TO_UINT(key));
		if (th && th->tid != th->pid)
			count_thread_start(self, te, s->modules);
		else if (th)
			count_start_up(te, s->modules);
	}
	return s->modules;
}
