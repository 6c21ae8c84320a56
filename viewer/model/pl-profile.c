/* pl-profile.c — the session model; see pl-profile.h. */
#include "pl-profile.h"
#include "pl-profile-private.h"

#include <string.h>

/* perf's callchain context markers (include/uapi/linux/perf_event.h):
 * entries ≥ PERF_CONTEXT_MAX are markers, not addresses. */
#define CTX_HV ((guint64)-32)
#define CTX_KERNEL ((guint64)-128)
#define CTX_USER ((guint64)-512)
#define CTX_GUEST ((guint64)-2048)
#define CTX_GUEST_KERNEL ((guint64)-2176)
#define CTX_GUEST_USER ((guint64)-2560)
#define CTX_MAX ((guint64)-4095)

#define MAX_INLINE 32 /* frames one address expands to */

/* ─── a small open-addressing table: (u64, u64) → u32 ───────────────── */

typedef struct {
	guint64 *ka, *kb;
	guint32 *val; /* PL_NO_ID: empty */
	gsize cap, n;
} ITab;

static guint64 mix64(guint64 a, guint64 b)
{
	guint64 h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static void itab_init(ITab *t)
{
	t->cap = 1024;
	t->n = 0;
	t->ka = g_new(guint64, t->cap);
	t->kb = g_new(guint64, t->cap);
	t->val = g_new(guint32, t->cap);
	memset(t->val, 0xff, t->cap * sizeof(guint32));
}

static void itab_free(ITab *t)
{
	g_free(t->ka);
	g_free(t->kb);
	g_free(t->val);
}

static guint32 *itab_slot(ITab *t, guint64 a, guint64 b)
{
	gsize i = mix64(a, b) & (t->cap - 1);
	while (t->val[i] != PL_NO_ID && (t->ka[i] != a || t->kb[i] != b))
		i = (i + 1) & (t->cap - 1);
	return &t->val[i];
}

static void itab_grow(ITab *t)
{
	ITab o = *t;
	t->cap *= 2;
	t->ka = g_new(guint64, t->cap);
	t->kb = g_new(guint64, t->cap);
	t->val = g_new(guint32, t->cap);
	memset(t->val, 0xff, t->cap * sizeof(guint32));
	for (gsize i = 0; i < o.cap; i++)
		if (o.val[i] != PL_NO_ID) {
			guint32 *s = itab_slot(t, o.ka[i], o.kb[i]);
			gsize j = (gsize)(s - t->val);
			t->ka[j] = o.ka[i];
			t->kb[j] = o.kb[i];
			*s = o.val[i];
		}
	itab_free(&o);
}

static guint32 itab_lookup(ITab *t, guint64 a, guint64 b)
{
	return *itab_slot(t, a, b);
}

static void itab_insert(ITab *t, guint64 a, guint64 b, guint32 v)
{
	if ((t->n + 1) * 4 > t->cap * 3)
		itab_grow(t);
	guint32 *s = itab_slot(t, a, b);
	gsize j = (gsize)(s - t->val);
	if (*s == PL_NO_ID)
		t->n++;
	t->ka[j] = a;
	t->kb[j] = b;
	*s = v;
}

/* ─── the profile ────────────────────────────────────────────────────── */

enum { AF_RETURN = 1, AF_KERNEL = 2, AF_ROOT = 4 };

/* A message held back for reordering, re-encoded with the wire encoder
 * (compact, and it owns copies of what the original borrowed). */
typedef struct {
	guint64 time, seq;
	guint8 *frame;
	guint32 len;
} Pending;

/* Records reach us in the order the agent drained its per-CPU rings (or
 * perf wrote them), not in time order: a worker's samples can precede the
 * MMAP and exec COMM of its process.  Timed records wait until the stream
 * is this far past them, then go in time order, as perf's ordered events. */
#define REORDER_WINDOW_NS (500ull * 1000 * 1000)
#define REORDER_MAX_HELD 200000u

typedef struct {
	guint32 parent;
	guint32 fnode;     /* call-tree node of the innermost frame of this address */
	guint32 loc_first; /* into self->node_locs */
	guint16 loc_n;
	guint16 event;
	guint64 pc;        /* the address (a root: the pid) */
	guint8 flags;      /* AF_* */
} AddrNode;

struct _PlProfile {
	PlSymOptions opts;
	PlSymbols *syms;
	PlTargetArch arch;
	gboolean have_arch;
	GStringChunk *strings;

	GArray *funcs; /* PlFunction */
	ITab func_tab;
	GPtrArray *func_labels; /* char*, lazily */
	GArray *nodes; /* PlNode */
	GArray *last_child; /* guint32 per node: append children in order */
	ITab node_tab;
	GArray *addrs; /* AddrNode */
	ITab addr_tab;
	GArray *locs; /* PlLocation */
	ITab loc_tab;
	GArray *node_locs; /* guint32 location ids, innermost first per addr node */

	GArray *samples; /* PlSample */
	GPtrArray *modules;       /* PlModule*, in order of first mapping */
	GHashTable *module_names; /* basename → PlModule* (the first of that name) */
	GHashTable *threads;   /* tid → PlThread* */
	GHashTable *processes; /* pid → PlProcess* */
	GHashTable *events;    /* index → PlEvent* */
	GHashTable *counters;  /* event index → GArray<PlCounterPoint> */
	GHashTable *forks;     /* parent tid → ForkMark: its latest child without a stack */
	GHashTable *perf_map_partial; /* pids whose perf map is still coming: resolved
				       * again at the end (a torn capture) */
	GPtrArray *sorted_threads, *sorted_processes, *sorted_events;
	PlProfileStats stats;
	GArray *health;     /* struct pl_msg_health, in arrival order (capped) */
	GArray *loss_marks; /* PlLossMark, in arrival order (capped) */
	/* reordering: see ingest */
	GArray *heap; /* Pending, a binary min-heap on (time, seq) */
	guint64 seq;
	guint64 max_time;
	guint8 *scratch; /* one encoded frame */
	struct pl_msg *decoded;
	guint64 pcs[PL_MAX_CALLCHAIN + 8];
	guint8 pc_flags[PL_MAX_CALLCHAIN + 8];
};

static void ingest_now(PlProfile *self, const struct pl_msg *m);
static void release(PlProfile *self, guint64 limit);

/* A FORK waiting for its creation sample (pl_profile_thread_creation_stack). */
typedef struct {
	guint32 child;
	guint64 time;
} ForkMark;
#define CREATION_MAX_DELAY_NS (100ull * 1000 * 1000)

static void thread_free(gpointer p)
{
	PlThread *t = p;
	g_free(t->name);
	g_array_free(t->intervals, TRUE);
	g_array_free(t->pending, TRUE);
	g_free(t);
}

static void process_free(gpointer p)
{
	PlProcess *pr = p;
	g_free(pr->name);
	g_free(pr);
}

static void module_free(gpointer p)
{
	PlModule *m = p;
	g_free((char *)m->path);
	g_free((char *)m->build_id);
	g_free((char *)m->name);
	g_free(m);
}

static void event_free(gpointer p)
{
	PlEvent *e = p;
	g_free(e->name);
	g_free(e);
}

static GPtrArray *strv_copy(GPtrArray *a)
{
	if (!a)
		return NULL;
	GPtrArray *r = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < a->len; i++)
		g_ptr_array_add(r, g_strdup(a->pdata[i]));
	return r;
}

PlProfile *pl_profile_new(const PlSymOptions *opts)
{
	PlProfile *self = g_new0(PlProfile, 1);
	if (opts) {
		self->opts = *opts;
		self->opts.sysroot = g_strdup(opts->sysroot);
		self->opts.toolchain_prefix = g_strdup(opts->toolchain_prefix);
		self->opts.binaries = strv_copy(opts->binaries);
		self->opts.debug_dirs = strv_copy(opts->debug_dirs);
		self->opts.source_dirs = strv_copy(opts->source_dirs);
		self->opts.path_maps = strv_copy(opts->path_maps);
		self->opts.map_file = g_strdup(opts->map_file);
	} else {
		self->opts.host_files = TRUE;
	}
	self->strings = g_string_chunk_new(16384);
	self->funcs = g_array_new(FALSE, FALSE, sizeof(PlFunction));
	self->func_labels = g_ptr_array_new();
	self->nodes = g_array_new(FALSE, FALSE, sizeof(PlNode));
	self->last_child = g_array_new(FALSE, FALSE, sizeof(guint32));
	self->addrs = g_array_new(FALSE, FALSE, sizeof(AddrNode));
	self->locs = g_array_new(FALSE, FALSE, sizeof(PlLocation));
	self->node_locs = g_array_new(FALSE, FALSE, sizeof(guint32));
	self->samples = g_array_new(FALSE, FALSE, sizeof(PlSample));
	self->modules = g_ptr_array_new_with_free_func(module_free);
	self->module_names = g_hash_table_new(g_str_hash, g_str_equal);
	itab_init(&self->func_tab);
	itab_init(&self->node_tab);
	itab_init(&self->addr_tab);
	itab_init(&self->loc_tab);
	PlNode root = { PL_NO_ID, PL_NO_ID, PL_NO_ID, PL_NO_ID };
	guint32 none = PL_NO_ID;
	g_array_append_val(self->nodes, root);
	g_array_append_val(self->last_child, none);
	self->threads = g_hash_table_new_full(NULL, NULL, NULL, thread_free);
	self->processes = g_hash_table_new_full(NULL, NULL, NULL, process_free);
	self->events = g_hash_table_new_full(NULL, NULL, NULL, event_free);
	self->counters = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
	self->forks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	self->perf_map_partial = g_hash_table_new(NULL, NULL);
	self->health = g_array_new(FALSE, FALSE, sizeof(struct pl_msg_health));
	self->loss_marks = g_array_new(FALSE, FALSE, sizeof(PlLossMark));
	self->stats.log = g_ptr_array_new_with_free_func(g_free);
	self->heap = g_array_new(FALSE, FALSE, sizeof(Pending));
	self->scratch = g_malloc(PL_FRAME_HEADER_SIZE + PL_FRAME_MAX);
	self->decoded = g_new0(struct pl_msg, 1);
	return self;
}

void pl_profile_free(PlProfile *self)
{
	if (!self)
		return;
	for (guint i = 0; i < self->heap->len; i++)
		g_free(g_array_index(self->heap, Pending, i).frame);
	g_array_free(self->heap, TRUE);
	g_free(self->scratch);
	g_free(self->decoded);
	g_clear_pointer(&self->syms, pl_symbols_free);
	g_free(self->opts.sysroot);
	g_free(self->opts.toolchain_prefix);
	g_free(self->opts.map_file);
	g_clear_pointer(&self->opts.binaries, g_ptr_array_unref);
	g_clear_pointer(&self->opts.debug_dirs, g_ptr_array_unref);
	g_clear_pointer(&self->opts.source_dirs, g_ptr_array_unref);
	g_clear_pointer(&self->opts.path_maps, g_ptr_array_unref);
	g_string_chunk_free(self->strings);
	g_array_free(self->funcs, TRUE);
	g_ptr_array_free(self->func_labels, TRUE);
	g_array_free(self->nodes, TRUE);
	g_array_free(self->last_child, TRUE);
	g_array_free(self->addrs, TRUE);
	g_array_free(self->locs, TRUE);
	g_array_free(self->node_locs, TRUE);
	g_array_free(self->samples, TRUE);
	g_array_free(self->health, TRUE);
	g_array_free(self->loss_marks, TRUE);
	g_hash_table_destroy(self->module_names);
	g_ptr_array_unref(self->modules);
	itab_free(&self->func_tab);
	itab_free(&self->node_tab);
	itab_free(&self->addr_tab);
	itab_free(&self->loc_tab);
	g_clear_pointer(&self->sorted_threads, g_ptr_array_unref);
	g_clear_pointer(&self->sorted_processes, g_ptr_array_unref);
	g_clear_pointer(&self->sorted_events, g_ptr_array_unref);
	g_hash_table_destroy(self->threads);
	g_hash_table_destroy(self->processes);
	g_hash_table_destroy(self->events);
	g_hash_table_destroy(self->counters);
	g_hash_table_destroy(self->forks);
	g_hash_table_destroy(self->perf_map_partial);
	PlProfileStats *s = &self->stats;
	g_free(s->creation_missing);
	g_free(s->end_message);
	g_free(s->hostname);
	g_free(s->machine);
	g_free(s->kernel_release);
	g_free(s->agent_version);
	g_free(s->command);
	g_ptr_array_unref(s->log);
	g_free(self);
}

PlSymbols *pl_profile_get_symbols(PlProfile *self)
{
	if (!self->syms) {
		if (!self->have_arch) {
			/* no HELLO (perf.data, or a capture cut before it): this host */
			self->arch.e_machine = 62; /* EM_X86_64 */
#if defined(__aarch64__)
			self->arch.e_machine = 183;
#elif defined(__arm__)
			self->arch.e_machine = 40;
#elif defined(__i386__)
			self->arch.e_machine = 3;
#endif
			self->arch.big_endian = G_BYTE_ORDER == G_BIG_ENDIAN;
			self->arch.word_size = sizeof(void *);
		}
		self->syms = pl_symbols_new(&self->opts, &self->arch);
	}
	return self->syms;
}

const PlProfileStats *pl_profile_get_stats(PlProfile *self)
{
	return &self->stats;
}

static char *str_dup(struct pl_str s)
{
	return g_strndup(s.p ? s.p : "", s.len);
}

static void note(PlProfile *self, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void note(PlProfile *self, const char *fmt, ...)
{
	/* a bounded log: a broken stream must not grow it without end */
	if (self->stats.log->len >= 200)
		return;
	va_list ap;
	va_start(ap, fmt);
	g_ptr_array_add(self->stats.log, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

static void see_time(PlProfile *self, guint64 t)
{
	if (!t)
		return;
	if (!self->stats.first_time || t < self->stats.first_time)
		self->stats.first_time = t;
	if (t > self->stats.last_time)
		self->stats.last_time = t;
}

/* ─── processes and threads ──────────────────────────────────────────── */

static PlProcess *process_get(PlProfile *self, guint32 pid)
{
	PlProcess *p = g_hash_table_lookup(self->processes, GUINT_TO_POINTER(pid));
	if (!p) {
		p = g_new0(PlProcess, 1);
		p->pid = pid;
		g_hash_table_insert(self->processes, GUINT_TO_POINTER(pid), p);
		g_clear_pointer(&self->sorted_processes, g_ptr_array_unref);
	}
	return p;
}

static PlThread *thread_get(PlProfile *self, guint32 pid, guint32 tid)
{
	PlThread *t = g_hash_table_lookup(self->threads, GUINT_TO_POINTER(tid));
	if (!t) {
		t = g_new0(PlThread, 1);
		t->tid = tid;
		t->pid = pid;
		t->intervals = g_array_new(FALSE, FALSE, sizeof(PlInterval));
		t->pending = g_array_new(FALSE, FALSE, sizeof(guint));
		t->creation_stack = PL_NO_ID;
		g_hash_table_insert(self->threads, GUINT_TO_POINTER(tid), t);
		g_clear_pointer(&self->sorted_threads, g_ptr_array_unref);
		process_get(self, pid);
	}
	if (pid && !t->pid)
		t->pid = pid;
	return t;
}

static void ingest_comm(PlProfile *self, const struct pl_msg_comm *c)
{
	PlThread *t = thread_get(self, c->pid, c->tid);
	g_free(t->name);
	t->name = str_dup(c->comm);
	if (c->pid == c->tid) {
		PlProcess *p = process_get(self, c->pid);
		g_free(p->name);
		p->name = str_dup(c->comm);
		if (c->exec && !c->snapshot && self->syms)
			pl_symbols_process_exec(self->syms, c->pid);
	}
}

static void ingest_task(PlProfile *self, const struct pl_msg_task *k)
{
	see_time(self, k->time);
	if (k->kind == PL_TASK_FORK) {
		PlThread *t = thread_get(self, k->pid, k->tid);
		t->ptid = k->ptid;
		t->start = k->time;
		/* its creation sample follows (msg.h, PL_ROLE_CREATE); a table
		 * entry per parent thread, the latest child wins */
		if (k->ptid && k->ptid != k->tid) {
			ForkMark *f = g_hash_table_lookup(self->forks, GUINT_TO_POINTER(k->ptid));
			if (!f) {
				f = g_new(ForkMark, 1);
				g_hash_table_insert(self->forks, GUINT_TO_POINTER(k->ptid), f);
			}
			f->child = k->tid;
			f->time = k->time;
		}
		PlThread *parent = g_hash_table_lookup(self->threads, GUINT_TO_POINTER(k->ptid));
		if (!t->name && parent && parent->name)
			t->name = g_strdup(parent->name); /* a fork inherits the comm */
		if (k->pid == k->tid) {
			PlProcess *p = process_get(self, k->pid);
			p->ppid = k->ppid;
			p->start = k->time;
			PlProcess *pp = g_hash_table_lookup(self->processes,
							   GUINT_TO_POINTER(k->ppid));
			if (!p->name && pp && pp->name)
				p->name = g_strdup(pp->name);
		}
	} else if (k->kind == PL_TASK_EXIT) {
		PlThread *t = thread_get(self, k->pid, k->tid);
		t->end = k->time;
		t->exited = TRUE;
		if (k->pid == k->tid) {
			PlProcess *p = process_get(self, k->pid);
			p->end = k->time;
			p->exited = TRUE;
			if (self->syms)
				pl_symbols_process_exit(self->syms, k->pid);
		}
	}
}

static void add_interval(PlThread *t, guint64 start, guint64 end, gboolean on, gboolean preempt)
{
	if (end < start)
		return;
	PlInterval iv = { start, end, on, preempt };
	g_array_append_val(t->intervals, iv);
	if (on)
		t->on_cpu_ns += end - start;
	else
		t->off_cpu_ns += end - start;
}

static void ingest_switch(PlProfile *self, const struct pl_msg_switch *s)
{
	self->stats.switches++;
	see_time(self, s->time);
	PlThread *t = thread_get(self, s->pid, s->tid);
	gboolean out = (s->flags & PL_SWITCH_OUT) != 0;
	if (t->state == 1 && out) {
		add_interval(t, t->last_switch, s->time, TRUE, FALSE);
	} else if (t->state == 2 && !out) {
		add_interval(t, t->last_switch, s->time, FALSE, t->last_preempt);
		/* the context-switch samples taken when it went off-CPU weigh
		 * the time it stayed off */
		for (guint i = 0; i < t->pending->len; i++) {
			PlSample *sm = &g_array_index(self->samples, PlSample,
						      g_array_index(t->pending, guint, i));
			sm->weight = s->time > sm->time ? s->time - sm->time : 0;
		}
		g_array_set_size(t->pending, 0);
	}
	t->state = out ? 2 : 1;
	t->last_switch = s->time;
	t->last_preempt = (s->flags & PL_SWITCH_PREEMPT) != 0;
}

static void addrs_resolve_again(PlProfile *self, guint32 pid);

void pl_profile_finish(PlProfile *self)
{
	release(self, G_MAXUINT64);
	/* a perf map cut short (a torn capture, a live session stopped while
	 * it came) still names what it holds */
	GHashTableIter pit;
	gpointer pid;
	g_hash_table_iter_init(&pit, self->perf_map_partial);
	while (g_hash_table_iter_next(&pit, &pid, NULL))
		addrs_resolve_again(self, GPOINTER_TO_UINT(pid));
	g_hash_table_remove_all(self->perf_map_partial);
	GHashTableIter it;
	gpointer v;
	guint64 end = self->stats.last_time;
	g_hash_table_iter_init(&it, self->threads);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		PlThread *t = v;
		guint64 tend = t->exited && t->end ? t->end : end;
		if (t->state == 1)
			add_interval(t, t->last_switch, tend, TRUE, FALSE);
		else if (t->state == 2)
			add_interval(t, t->last_switch, tend, FALSE, t->last_preempt);
		if (t->state)
			t->last_switch = tend;
		g_array_set_size(t->pending, 0);
	}
}

static PlEvent *event_get(PlProfile *self, guint32 index)
{
	PlEvent *e = g_hash_table_lookup(self->events, GUINT_TO_POINTER(index));
	if (!e) {
		if (g_hash_table_size(self->events) >= 4096)
			index = 4095; /* a corrupt stream cannot grow the table for ever */
		e = g_hash_table_lookup(self->events, GUINT_TO_POINTER(index));
		if (e)
			return e;
		e = g_new0(PlEvent, 1);
		e->index = index;
		e->name = g_strdup_printf("event%u", index);
		g_hash_table_insert(self->events, GUINT_TO_POINTER(index), e);
		g_clear_pointer(&self->sorted_events, g_ptr_array_unref);
	}
	return e;
}

/* ─── stacks ─────────────────────────────────────────────────────────── */

guint32 pl_profile_function_intern(PlProfile *self, const char *name, const char *module,
				   gboolean inlined)
{
	const char *n = name ? g_string_chunk_insert_const(self->strings, name) : NULL;
	const char *mo = g_string_chunk_insert_const(self->strings, module ? module : "[unknown]");
	guint64 a = (guint64)(guintptr)n, b = ((guint64)(guintptr)mo << 1) | (inlined ? 1 : 0);
	guint32 id = itab_lookup(&self->func_tab, a, b);
	if (id != PL_NO_ID)
		return id;
	PlFunction f = { n, mo, inlined };
	id = self->funcs->len;
	g_array_append_val(self->funcs, f);
	g_ptr_array_add(self->func_labels, NULL);
	itab_insert(&self->func_tab, a, b, id);
	return id;
}

guint32 pl_profile_node_intern(PlProfile *self, guint32 parent, guint32 func)
{
	guint32 id = itab_lookup(&self->node_tab, parent, func);
	if (id != PL_NO_ID)
		return id;
	id = self->nodes->len;
	PlNode n = { parent, func, PL_NO_ID, PL_NO_ID };
	guint32 none = PL_NO_ID;
	g_array_append_val(self->nodes, n);
	g_array_append_val(self->last_child, none);
	guint32 *last = &g_array_index(self->last_child, guint32, parent);
	if (*last == PL_NO_ID)
		g_array_index(self->nodes, PlNode, parent).first_child = id;
	else
		g_array_index(self->nodes, PlNode, *last).next_sibling = id;
	*last = id;
	itab_insert(&self->node_tab, parent, func, id);
	return id;
}

static guint32 location_intern(PlProfile *self, const char *file, guint line)
{
	const char *f = g_string_chunk_insert_const(self->strings, file);
	guint32 id = itab_lookup(&self->loc_tab, (guint64)(guintptr)f, line);
	if (id != PL_NO_ID)
		return id;
	PlLocation l = { f, line };
	id = self->locs->len;
	g_array_append_val(self->locs, l);
	itab_insert(&self->loc_tab, (guint64)(guintptr)f, line, id);
	return id;
}

static guint32 addr_root(PlProfile *self, guint32 event, guint32 pid)
{
	guint64 key = (guint64)event << 32 | pid;
	guint32 id = itab_lookup(&self->addr_tab, key, (guint64)AF_ROOT << 56 | PL_NO_ID);
	if (id != PL_NO_ID)
		return id;
	AddrNode n = { PL_NO_ID, 0, 0, 0, (guint16)MIN(event, G_MAXUINT16), pid, AF_ROOT };
	id = self->addrs->len;
	g_array_append_val(self->addrs, n);
	itab_insert(&self->addr_tab, key, (guint64)AF_ROOT << 56 | PL_NO_ID, id);
	return id;
}

/* Sets an's call-tree node to its parent's extended by fr's frames
 * (innermost first; n == 0: an unknown frame) and appends their source
 * locations. */
static void addr_set_frames(PlProfile *self, AddrNode *an, PlFrameInfo *fr, guint n)
{
	if (n == 0) {
		fr[0] = (PlFrameInfo){ .module = (an->flags & AF_KERNEL) ? "[kernel]" : "[unknown]" };
		n = 1;
	}
	for (guint i = n; i-- > 0;) {
		const char *module = fr[i].module;
		if (!module)
			module = (an->flags & AF_KERNEL) ? "[kernel]" : "[unknown]";
		guint32 f = pl_profile_function_intern(self, fr[i].function, module, fr[i].inlined);
		an->fnode = pl_profile_node_intern(self, an->fnode, f);
	}
	an->loc_first = self->node_locs->len;
	an->loc_n = 0;
	for (guint i = 0; i < n; i++)
		if (fr[i].file && fr[i].line) {
			guint32 l = location_intern(self, fr[i].file, fr[i].line);
			g_array_append_val(self->node_locs, l);
			an->loc_n++;
		}
}

/* Interns (parent, pc) and, the first time, symbolizes pc: its frames
 * (innermost first) extend the parent's call-tree node. */
static guint32 addr_intern(PlProfile *self, guint32 parent, guint32 pid, guint64 pc,
			   guint8 flags)
{
	guint64 kb = (guint64)flags << 56 | parent;
	guint32 id = itab_lookup(&self->addr_tab, pc, kb);
	if (id != PL_NO_ID)
		return id;
	PlFrameInfo fr[MAX_INLINE];
	guint n = pl_symbols_resolve(pl_profile_get_symbols(self), pid, pc,
				     (flags & AF_RETURN) != 0, fr, MAX_INLINE);
	const AddrNode *pn = &g_array_index(self->addrs, AddrNode, parent);
	AddrNode an = { parent, pn->fnode, 0, 0, pn->event, pc, flags };
	addr_set_frames(self, &an, fr, n);
	id = self->addrs->len;
	g_array_append_val(self->addrs, an);
	itab_insert(&self->addr_tab, pc, kb, id);
	return id;
}

/* TRUE when call-tree node n's function may be named by a perf map: it
 * has no name, or it came from one. */
static gboolean perf_map_may_name(PlProfile *self, guint32 n)
{
	const PlFunction *f = &g_array_index(self->funcs, PlFunction,
					     g_array_index(self->nodes, PlNode, n).func);
	return !f->name || (f->module && g_str_has_prefix(f->module, "perf-") &&
			    g_str_has_suffix(f->module, ".map"));
}

/* pid's perf map has arrived whole: its addresses are looked up again.
 * An address is symbolized when it is first interned, but the agent sends
 * /tmp/perf-PID.map when the process ends (perf reads it at report time,
 * after every sample), so without this a JIT's code stays anonymous but
 * for the samples still held for reordering.  Addresses of pid that had
 * no name, or a name from an older copy of the map, are resolved again,
 * and the call-tree nodes of everything interned below a renamed one
 * follow (a parent always precedes its children in self->addrs).
 * Samples name address-trie nodes, so every later aggregate sees the
 * names. */
static void addrs_resolve_again(PlProfile *self, guint32 pid)
{
	guint32 n = self->addrs->len;
	if (n == 0)
		return;
	AddrNode *v = (AddrNode *)(void *)self->addrs->data; /* addrs does not grow here */
	g_autofree guint32 *old = g_new(guint32, n);          /* fnode before this pass */
	g_autofree guint8 *in_pid = g_new0(guint8, n);
	PlSymbols *syms = pl_profile_get_symbols(self);
	for (guint32 x = 0; x < n; x++) {
		old[x] = v[x].fnode;
		if (v[x].flags & AF_ROOT) {
			in_pid[x] = v[x].pc == pid;
			continue;
		}
		if (v[x].parent >= x || !(in_pid[x] = in_pid[v[x].parent]))
			continue;
		guint32 pf = v[v[x].parent].fnode, old_pf = old[v[x].parent];
		if (!(v[x].flags & AF_KERNEL) && perf_map_may_name(self, old[x])) {
			PlFrameInfo fr[MAX_INLINE];
			guint k = pl_symbols_resolve(syms, pid, v[x].pc, (v[x].flags & AF_RETURN) != 0,
						     fr, MAX_INLINE);
			AddrNode an = v[x];
			an.fnode = pf;
			guint locs = self->node_locs->len;
			addr_set_frames(self, &an, fr, k);
			if (an.fnode != v[x].fnode)
				v[x] = an;
			else
				g_array_set_size(self->node_locs, locs); /* nothing changed */
		} else if (pf != old_pf) {
			/* the same frames, under the parent's new node */
			guint32 funcs[MAX_INLINE];
			guint k = 0;
			for (guint32 nd = old[x]; nd != old_pf && nd != 0 && k < MAX_INLINE;
			     nd = g_array_index(self->nodes, PlNode, nd).parent)
				funcs[k++] = g_array_index(self->nodes, PlNode, nd).func;
			guint32 f = pf;
			for (guint i = k; i-- > 0;)
				f = pl_profile_node_intern(self, f, funcs[i]);
			v[x].fnode = f;
		}
	}
}

/* Fills self->pcs (innermost first) from an fp callchain.  After each
 * context marker the first entry is the interrupted IP and the following
 * ones are return addresses. */
static guint callchain_pcs(PlProfile *self, const struct pl_msg_sample *s, gboolean user_too)
{
	guint n = 0;
	guint8 ctx = (s->cpumode & 7) == 1 ? AF_KERNEL : 0; /* PERF_RECORD_MISC_KERNEL */
	gboolean first = TRUE, skip = FALSE;
	for (guint i = 0; i < s->nr_callchain && n < PL_MAX_CALLCHAIN; i++) {
		guint64 pc = s->callchain[i];
		if (pc >= CTX_MAX) {
			first = TRUE;
			skip = FALSE;
			if (pc == CTX_KERNEL)
				ctx = AF_KERNEL;
			else if (pc == CTX_USER)
				ctx = 0;
			else
				skip = TRUE; /* hypervisor, guest: not ours to symbolize */
			if (pc == CTX_USER && !user_too)
				break;
			continue;
		}
		if (skip)
			continue;
		self->pcs[n] = pc;
		self->pc_flags[n] = ctx | (first ? 0 : AF_RETURN);
		n++;
		first = FALSE;
	}
	return n;
}

static gboolean is_dwarf_sample(PlProfile *self, const struct pl_msg_sample *s)
{
	return s->regs_abi != 0 && s->nr_regs > 0 && s->stack_size > 0;
}

/* Index of perf register `bit` in a sample's regs (they come in the order
 * of the mask's set bits), -1 when not sampled. */
static int reg_index(guint64 mask, guint bit, guint nr_regs)
{
	if (bit >= 64 || !(mask >> bit & 1))
		return -1;
	int i = __builtin_popcountll(mask & ((1ull << bit) - 1));
	return (guint)i < nr_regs ? i : -1;
}

/* A creation sample stops in libc's clone wrapper at the syscall, which
 * glibc deliberately leaves without CFI (__clone3 ends its FDE there: the
 * child must not unwind past it), so the unwinder stops at the first
 * frame.  The wrapper has pushed nothing and touched no callee-saved
 * register, so its caller's state is one step away: the return address is
 * at [sp] on x86-64 (sp then moves up 8), in lr on ARM.  Unwinds from
 * there into pcs (the wrapper's own IP first); returns the count, 0 when
 * this architecture or sample does not allow it. */
static guint unwind_past_syscall(PlProfile *self, const struct pl_msg_sample *s, guint64 *pcs,
				 guint max, gboolean *truncated)
{
	guint64 mask = self->stats.sample_regs_user;
	guint64 regs[PL_MAX_REGS];
	const guint8 *stack = s->stack;
	guint32 stack_size = s->stack_size;
	int ip, sp, lr = -1;
	guint e = pl_profile_get_symbols(self) ? self->arch.e_machine : 0;
	if (e == 62) { /* EM_X86_64: perf regs SP 7, IP 8 */
		ip = reg_index(mask, 8, s->nr_regs);
		sp = reg_index(mask, 7, s->nr_regs);
	} else if (e == 183) { /* EM_AARCH64: x30 (lr) 30, sp 31, pc 32 */
		lr = reg_index(mask, 30, s->nr_regs);
		sp = reg_index(mask, 31, s->nr_regs);
		ip = reg_index(mask, 32, s->nr_regs);
	} else if (e == 40) { /* EM_ARM: sp 13, lr 14, pc 15 */
		sp = reg_index(mask, 13, s->nr_regs);
		lr = reg_index(mask, 14, s->nr_regs);
		ip = reg_index(mask, 15, s->nr_regs);
	} else {
		return 0;
	}
	if (ip < 0 || sp < 0 || (e != 62 && lr < 0) || max < 2 || s->nr_regs > PL_MAX_REGS)
		return 0;
	memcpy(regs, s->regs, s->nr_regs * sizeof(regs[0]));
	if (e == 62) {
		if (stack_size < 8)
			return 0;
		guint64 ret = 0;
		for (int i = 0; i < 8; i++) /* x86-64 is little-endian */
			ret |= (guint64)stack[i] << (8 * i);
		regs[ip] = ret;
		regs[sp] += 8;
		stack += 8;
		stack_size -= 8;
	} else {
		regs[ip] = regs[lr];
	}
	pcs[0] = s->regs[ip];
	guint n = pl_symbols_unwind(pl_profile_get_symbols(self), s->pid, s->tid, mask, regs,
				    s->nr_regs, stack, stack_size, pcs + 1, max - 1, truncated);
	return n ? n + 1 : 0;
}

/* Interns the sample's stack; returns its address-trie leaf.  st gets the
 * stack statistics (a scratch copy for samples that must not count). */
static guint32 sample_stack(PlProfile *self, const struct pl_msg_sample *s, PlProfileStats *st)
{
	guint n;
	if (is_dwarf_sample(self, s)) {
		/* kernel part from the callchain, user part unwound from the copy */
		st->dwarf_samples++;
		n = callchain_pcs(self, s, FALSE);
		gboolean truncated = FALSE;
		guint64 upcs[PL_MAX_CALLCHAIN];
		guint un = pl_symbols_unwind(pl_profile_get_symbols(self), s->pid, s->tid,
					     self->stats.sample_regs_user,
					     s->regs, s->nr_regs, s->stack, s->stack_size, upcs,
					     PL_MAX_CALLCHAIN - n, &truncated);
		if (un <= 1 && event_get(self, s->event)->role == PL_ROLE_CREATE) {
			guint un2 = unwind_past_syscall(self, s, upcs, PL_MAX_CALLCHAIN - n,
							&truncated);
			if (un2 > un)
				un = un2;
		}
		if (un == 0) {
			st->dwarf_failed++;
			upcs[0] = s->ip;
			un = 1;
		} else if (truncated) {
			st->dwarf_truncated++;
		}
		for (guint i = 0; i < un && n < PL_MAX_CALLCHAIN; i++) {
			self->pcs[n] = upcs[i];
			self->pc_flags[n] = i ? AF_RETURN : 0;
			n++;
		}
	} else {
		n = callchain_pcs(self, s, TRUE);
	}
	if (n == 0) {
		st->samples_no_stack++;
		self->pcs[0] = s->ip;
		self->pc_flags[0] = (s->cpumode & 7) == 1 ? AF_KERNEL : 0;
		n = 1;
	} else if (n == 1) {
		st->samples_no_stack++;
	}
	guint32 node = addr_root(self, s->event, s->pid);
	for (guint i = n; i-- > 0;)
		node = addr_intern(self, node, s->pid, self->pcs[i], self->pc_flags[i]);
	return node;
}

/* A thread-creation sample: its stack goes to the child (pl-profile.h),
 * nothing is counted as CPU time. */
static void ingest_creation(PlProfile *self, const struct pl_msg_sample *s)
{
	PlProfileStats scratch = { 0 };
	self->stats.creation_samples++;
	see_time(self, s->time);
	guint32 stack = sample_stack(self, s, &scratch);
	ForkMark *f = g_hash_table_lookup(self->forks, GUINT_TO_POINTER(s->tid));
	PlThread *child = f ? g_hash_table_lookup(self->threads, GUINT_TO_POINTER(f->child)) : NULL;
	if (!child || s->time < f->time || s->time - f->time > CREATION_MAX_DELAY_NS ||
	    child->creation_stack != PL_NO_ID) {
		self->stats.creation_unpaired++;
		return;
	}
	child->creation_stack = stack;
	g_hash_table_remove(self->forks, GUINT_TO_POINTER(s->tid));
}

static void ingest_sample(PlProfile *self, const struct pl_msg_sample *s)
{
	PlProfileStats *st = &self->stats;
	PlEvent *ev = event_get(self, s->event);
	if (ev->role == PL_ROLE_CREATE) {
		ingest_creation(self, s);
		return;
	}
	st->samples++;
	see_time(self, s->time);
	guint32 node = sample_stack(self, s, st);

	PlThread *t = thread_get(self, s->pid, s->tid);
	t->samples++;
	ev->samples++;
	PlSample sm = { s->time, s->period ? s->period : 1, s->tid, node };
	if (ev->role == PL_ROLE_SWITCH) {
		/* weighed by the off-CPU time that follows: known at switch-in */
		sm.weight = 0;
		guint idx = self->samples->len;
		if (t->pending->len < 4096)
			g_array_append_val(t->pending, idx);
	}
	g_array_append_val(self->samples, sm);
}

/* ─── ingest ─────────────────────────────────────────────────────────── */

static void ingest_counters(PlProfile *self, const struct pl_msg_counters *c)
{
	see_time(self, c->time);
	for (guint i = 0; i < c->n && i < PL_MAX_COUNTERS; i++) {
		const struct pl_counter_value *v = &c->v[i];
		GArray *a = g_hash_table_lookup(self->counters, GUINT_TO_POINTER(v->event));
		if (!a) {
			if (g_hash_table_size(self->counters) >= 256)
				continue;
			a = g_array_new(FALSE, FALSE, sizeof(PlCounterPoint));
			g_hash_table_insert(self->counters, GUINT_TO_POINTER(v->event), a);
		}
		PlCounterPoint p = { c->time, v->value, v->enabled_ns, v->running_ns };
		g_array_append_val(a, p);
	}
}

/* Modules by file (and build-id) for exports that name them; bounded, as
 * a hostile stream could map endless distinct names. */
static void note_module(PlProfile *self, const char *path, const guint8 *id, gsize id_len)
{
	if (!*path || self->modules->len >= 65536)
		return;
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *hex = NULL;
	if (id_len) {
		hex = g_malloc(id_len * 2 + 1);
		for (gsize i = 0; i < id_len; i++)
			g_snprintf(hex + 2 * i, 3, "%02x", id[i]);
	}
	PlModule *old = g_hash_table_lookup(self->module_names, base);
	if (old && !g_strcmp0(old->path, path) && (!hex || !g_strcmp0(old->build_id, hex)))
		return;
	for (guint i = 0; old && i < self->modules->len; i++) {
		PlModule *m = self->modules->pdata[i];
		if (!g_strcmp0(m->path, path) && !g_strcmp0(m->build_id, hex))
			return;
	}
	PlModule *m = g_new0(PlModule, 1);
	m->path = g_strdup(path);
	m->name = g_steal_pointer(&base);
	m->build_id = g_steal_pointer(&hex);
	g_ptr_array_add(self->modules, m);
	if (!old)
		g_hash_table_insert(self->module_names, (gpointer)m->name, m);
}

/* Losses and throttles over time, for the health graphs.  A storm of
 * LOST records (one per ring per wakeup) must not grow memory without
 * bound: past the cap, counts fold into the last mark. */
static void add_loss_mark(PlProfile *self, guint64 time, guint8 kind, guint64 count)
{
	if (self->loss_marks->len >= PL_MAX_LOSS_MARKS) {
		PlLossMark *last = &g_array_index(self->loss_marks, PlLossMark,
						  self->loss_marks->len - 1);
		last->count += count;
		return;
	}
	PlLossMark mk = { time, count, kind };
	g_array_append_val(self->loss_marks, mk);
}

static void ingest_now(PlProfile *self, const struct pl_msg *m)
{
	PlProfileStats *st = &self->stats;
	switch (m->type) {
	case PL_MSG_HELLO: {
		const struct pl_msg_hello *h = &m->u.hello;
		if (!self->syms) {
			self->arch.e_machine = h->e_machine;
			self->arch.big_endian = h->byte_order == PL_BIG_ENDIAN;
			self->arch.word_size = h->word_size;
			self->have_arch = TRUE;
		}
		g_free(st->hostname);
		g_free(st->machine);
		g_free(st->kernel_release);
		g_free(st->agent_version);
		st->hostname = str_dup(h->hostname);
		st->machine = str_dup(h->machine);
		st->kernel_release = str_dup(h->kernel_release);
		st->agent_version = str_dup(h->agent_version);
		break;
	}
	case PL_MSG_SESSION: {
		const struct pl_msg_session *s = &m->u.session;
		g_free(st->command);
		st->command = str_dup(s->command);
		st->target_pid = s->pid;
		st->callgraph = s->callgraph;
		st->sample_regs_user = s->sample_regs_user;
		st->session_start = s->start_ns;
		st->duration_ms = s->duration_ms;
		st->frequency = s->frequency;
		break;
	}
	case PL_MSG_EVENT_DESC: {
		PlEvent *e = event_get(self, m->u.event_desc.index);
		g_free(e->name);
		e->name = str_dup(m->u.event_desc.name);
		e->role = m->u.event_desc.role;
		if (e->role == PL_ROLE_CREATE)
			st->creation_recorded = TRUE;
		break;
	}
	case PL_MSG_SAMPLE:
		ingest_sample(self, &m->u.sample);
		break;
	case PL_MSG_MMAP: {
		const struct pl_msg_mmap *mm = &m->u.mmap;
		g_autofree char *fn = str_dup(mm->filename);
		note_module(self, fn, mm->build_id, mm->build_id_len);
		pl_symbols_add_mapping(pl_profile_get_symbols(self), mm->pid, mm->start, mm->len,
				       mm->pgoff, fn, mm->build_id, mm->build_id_len);
		break;
	}
	case PL_MSG_COMM:
		ingest_comm(self, &m->u.comm);
		break;
	case PL_MSG_TASK:
		ingest_task(self, &m->u.task);
		break;
	case PL_MSG_SWITCH:
		ingest_switch(self, &m->u.sw);
		break;
	case PL_MSG_LOST:
		if (m->u.lost.kind < G_N_ELEMENTS(st->lost))
			st->lost[m->u.lost.kind] += m->u.lost.count;
		else
			st->lost[0] += m->u.lost.count;
		add_loss_mark(self, m->u.lost.time,
			      m->u.lost.kind < G_N_ELEMENTS(st->lost) ? m->u.lost.kind : 0,
			      m->u.lost.count);
		break;
	case PL_MSG_THROTTLE:
		if (m->u.throttle.unthrottle) {
			st->unthrottled++;
		} else {
			st->throttled++;
			add_loss_mark(self, m->u.throttle.time, PL_LOSS_THROTTLE, 1);
		}
		break;
	case PL_MSG_COUNTERS:
		ingest_counters(self, &m->u.counters);
		break;
	case PL_MSG_HEALTH:
		st->health = m->u.health;
		st->have_health = TRUE;
		/* a day of one-second reports is 8 MB: past the cap only the
		 * last report (stats) is kept, the graphs stop growing */
		if (self->health->len < PL_MAX_HEALTH_POINTS)
			g_array_append_val(self->health, m->u.health);
		break;
	case PL_MSG_FILE_CHUNK: {
		const struct pl_msg_file_chunk *c = &m->u.chunk;
		pl_symbols_add_chunk(pl_profile_get_symbols(self), c->kind, c->pid, c->addr,
				     c->offset, c->data, c->len);
		if (c->kind == PL_CHUNK_PERF_MAP) {
			if (c->total == 0 || c->offset + c->len >= c->total) {
				g_hash_table_remove(self->perf_map_partial, GUINT_TO_POINTER(c->pid));
				addrs_resolve_again(self, c->pid);
			} else {
				g_hash_table_add(self->perf_map_partial, GUINT_TO_POINTER(c->pid));
			}
		}
		break;
	}
	case PL_MSG_END:
		st->end_reason = m->u.end.reason;
		st->end_status = m->u.end.status;
		g_free(st->end_message);
		st->end_message = str_dup(m->u.end.message);
		see_time(self, m->u.end.time);
		break;
	case PL_MSG_LOG: {
		note(self, "agent: %.*s", (int)m->u.log.message.len, m->u.log.message.p);
		/* the agent's reason for recording no thread creations */
		g_autofree char *text = str_dup(m->u.log.message);
		const char *why = strstr(text, PL_NOTE_NO_CREATE);
		if (why) {
			why += strlen(PL_NOTE_NO_CREATE);
			const char *stop = strstr(why, ". ");
			gsize len = stop ? (gsize)(stop - why) : strlen(why);
			while (len && why[len - 1] == '.')
				len--;
			g_free(st->creation_missing);
			st->creation_missing = g_strndup(why, len);
		}
		break;
	}
	default:
		break;
	}
}

static gboolean pending_before(const Pending *a, const Pending *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_push(GArray *h, const Pending *p)
{
	g_array_append_val(h, *p);
	Pending *v = (Pending *)h->data;
	for (guint i = h->len - 1; i > 0;) {
		guint up = (i - 1) / 2;
		if (!pending_before(&v[i], &v[up]))
			break;
		Pending t = v[i];
		v[i] = v[up];
		v[up] = t;
		i = up;
	}
}

static Pending heap_pop(GArray *h)
{
	Pending *v = (Pending *)h->data;
	Pending top = v[0];
	v[0] = v[h->len - 1];
	g_array_set_size(h, h->len - 1);
	v = (Pending *)h->data;
	for (guint i = 0;;) {
		guint l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->len && pending_before(&v[l], &v[m]))
			m = l;
		if (r < h->len && pending_before(&v[r], &v[m]))
			m = r;
		if (m == i)
			break;
		Pending t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
	return top;
}

/* Ingests held messages with time < limit (all with G_MAXUINT64). */
static void release(PlProfile *self, guint64 limit)
{
	while (self->heap->len && g_array_index(self->heap, Pending, 0).time < limit) {
		Pending p = heap_pop(self->heap);
		struct pl_frame_header fh;
		char why[120];
		if (pl_frame_header_parse(p.frame, p.len, &fh, why, sizeof(why)) == 0 &&
		    pl_msg_decode(fh.type, p.frame + PL_FRAME_HEADER_SIZE, fh.len, self->decoded, why,
				  sizeof(why)) == 0)
			ingest_now(self, self->decoded);
		g_free(p.frame);
	}
}

static guint64 msg_time(const struct pl_msg *m)
{
	switch (m->type) {
	case PL_MSG_SAMPLE:
		return m->u.sample.time;
	case PL_MSG_MMAP:
		return m->u.mmap.snapshot ? 0 : m->u.mmap.time;
	case PL_MSG_COMM:
		return m->u.comm.snapshot ? 0 : m->u.comm.time;
	case PL_MSG_TASK:
		return m->u.task.time;
	case PL_MSG_SWITCH:
		return m->u.sw.time;
	default:
		return 0; /* descriptions, totals, files: order does not matter */
	}
}

gboolean pl_profile_ingest(const struct pl_msg *m, gpointer profile)
{
	PlProfile *self = profile;
	guint64 t = msg_time(m);
	if (t == 0) {
		ingest_now(self, m);
		return TRUE;
	}
	struct pl_writer w;
	pl_w_init(&w, self->scratch, PL_FRAME_HEADER_SIZE + PL_FRAME_MAX);
	if (pl_msg_encode(&w, m) < 0) {
		ingest_now(self, m); /* cannot happen for decoded input; do not lose it */
		return TRUE;
	}
	Pending p = { t, self->seq++, g_memdup2(self->scratch, pl_w_len(&w)),
		      (guint32)pl_w_len(&w) };
	heap_push(self->heap, &p);
	if (t > self->max_time)
		self->max_time = t;
	if (self->max_time > REORDER_WINDOW_NS)
		release(self, self->max_time - REORDER_WINDOW_NS);
	/* a stream whose clock stands still must not hold everything */
	while (self->heap->len > REORDER_MAX_HELD)
		release(self, g_array_index(self->heap, Pending, 0).time + 1);
	return TRUE;
}

/* ─── accessors ──────────────────────────────────────────────────────── */

guint pl_profile_get_n_functions(PlProfile *self)
{
	return self->funcs->len;
}

const PlFunction *pl_profile_get_function(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->funcs->len, NULL);
	return &g_array_index(self->funcs, PlFunction, id);
}

const char *pl_profile_get_function_label(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->funcs->len, "?");
	const PlFunction *f = &g_array_index(self->funcs, PlFunction, id);
	if (f->name)
		return f->name;
	const char *l = self->func_labels->pdata[id];
	if (!l) {
		/* "[kernel]" stays as is; "burn" becomes "[burn]" */
		g_autofree char *s = f->module[0] == '[' ? g_strdup(f->module)
							: g_strdup_printf("[%s]", f->module);
		l = g_string_chunk_insert_const(self->strings, s);
		self->func_labels->pdata[id] = (gpointer)l;
	}
	return l;
}

guint32 pl_profile_find_function(PlProfile *self, const char *name)
{
	for (guint i = 0; i < self->funcs->len; i++)
		if (g_strcmp0(g_array_index(self->funcs, PlFunction, i).name, name) == 0)
			return i;
	return PL_NO_ID;
}

guint pl_profile_get_n_nodes(PlProfile *self)
{
	return self->nodes->len;
}

const PlNode *pl_profile_get_node(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->nodes->len, NULL);
	return &g_array_index(self->nodes, PlNode, id);
}

guint32 pl_profile_get_stack_node(PlProfile *self, guint32 stack)
{
	g_return_val_if_fail(stack < self->addrs->len, 0);
	return g_array_index(self->addrs, AddrNode, stack).fnode;
}

guint32 pl_profile_get_stack_event(PlProfile *self, guint32 stack)
{
	g_return_val_if_fail(stack < self->addrs->len, 0);
	return g_array_index(self->addrs, AddrNode, stack).event;
}

guint pl_profile_get_n_stacks(PlProfile *self)
{
	return self->addrs->len;
}

gboolean pl_profile_get_stack_frame(PlProfile *self, guint32 stack, PlStackFrame *out)
{
	if (stack >= self->addrs->len)
		return FALSE;
	const AddrNode *a = &g_array_index(self->addrs, AddrNode, stack);
	guint32 root = stack;
	while (g_array_index(self->addrs, AddrNode, root).parent != PL_NO_ID)
		root = g_array_index(self->addrs, AddrNode, root).parent;
	*out = (PlStackFrame){
		.pc = (a->flags & AF_ROOT) ? 0 : a->pc,
		.parent = a->parent,
		.pid = (guint32)g_array_index(self->addrs, AddrNode, root).pc,
		.event = a->event,
		.node = a->fnode,
		.is_return = (a->flags & AF_RETURN) != 0,
		.kernel = (a->flags & AF_KERNEL) != 0,
		.root = (a->flags & AF_ROOT) != 0,
	};
	return TRUE;
}

GPtrArray *pl_profile_get_modules(PlProfile *self)
{
	return self->modules;
}

const PlModule *pl_profile_lookup_module(PlProfile *self, const char *name)
{
	return name ? g_hash_table_lookup(self->module_names, name) : NULL;
}

guint pl_profile_get_n_locations(PlProfile *self)
{
	return self->locs->len;
}

const PlLocation *pl_profile_get_location(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->locs->len, NULL);
	return &g_array_index(self->locs, PlLocation, id);
}

static int cmp_thread(gconstpointer a, gconstpointer b)
{
	const PlThread *x = *(PlThread *const *)a, *y = *(PlThread *const *)b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_process(gconstpointer a, gconstpointer b)
{
	const PlProcess *x = *(PlProcess *const *)a, *y = *(PlProcess *const *)b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_event(gconstpointer a, gconstpointer b)
{
	const PlEvent *x = *(PlEvent *const *)a, *y = *(PlEvent *const *)b;
	return x->index < y->index ? -1 : x->index > y->index;
}

static GPtrArray *sorted_values(GHashTable *h, GCompareFunc cmp)
{
	GPtrArray *a = g_ptr_array_new();
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, h);
	while (g_hash_table_iter_next(&it, NULL, &v))
		g_ptr_array_add(a, v);
	g_ptr_array_sort(a, cmp);
	return a;
}

GPtrArray *pl_profile_get_threads(PlProfile *self)
{
	if (!self->sorted_threads)
		self->sorted_threads = sorted_values(self->threads, cmp_thread);
	return self->sorted_threads;
}

PlThread *pl_profile_lookup_thread(PlProfile *self, guint32 tid)
{
	return g_hash_table_lookup(self->threads, GUINT_TO_POINTER(tid));
}

GPtrArray *pl_profile_get_processes(PlProfile *self)
{
	if (!self->sorted_processes)
		self->sorted_processes = sorted_values(self->processes, cmp_process);
	return self->sorted_processes;
}

GPtrArray *pl_profile_get_events(PlProfile *self)
{
	if (!self->sorted_events)
		self->sorted_events = sorted_values(self->events, cmp_event);
	return self->sorted_events;
}

const PlEvent *pl_profile_lookup_event(PlProfile *self, guint32 index)
{
	return g_hash_table_lookup(self->events, GUINT_TO_POINTER(index));
}

guint32 pl_profile_get_main_event(PlProfile *self)
{
	GPtrArray *evs = pl_profile_get_events(self);
	const PlEvent *best = NULL;
	for (guint i = 0; i < evs->len; i++) {
		const PlEvent *e = evs->pdata[i];
		/* switch samples weigh off-CPU time: never the default (creation
		 * samples are never counted in e->samples) */
		if (e->role != PL_ROLE_SAMPLED || e->samples == 0)
			continue;
		if (!best || e->samples > best->samples)
			best = e;
	}
	return best ? best->index : PL_NO_ID;
}

const PlSample *pl_profile_get_samples(PlProfile *self, guint *n)
{
	*n = self->samples->len;
	return (const PlSample *)self->samples->data;
}

GArray *pl_profile_get_counter(PlProfile *self, guint32 event)
{
	return g_hash_table_lookup(self->counters, GUINT_TO_POINTER(event));
}

static int cmp_u32(gconstpointer a, gconstpointer b)
{
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
	return x < y ? -1 : x > y;
}

GArray *pl_profile_dup_counter_events(PlProfile *self)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(guint32));
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, self->counters);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		guint32 e = GPOINTER_TO_UINT(k);
		g_array_append_val(a, e);
	}
	g_array_sort(a, cmp_u32);
	return a;
}

/* ─── aggregation ────────────────────────────────────────────────────── */

static inline void count_add(PlCount *c, const PlCount *d)
{
	c->samples += d->samples;
	c->weight += d->weight;
}

PlAggregate *pl_profile_aggregate(PlProfile *self, const PlFilter *filter)
{
	return pl_profile_aggregate_mapped(self, filter, NULL);
}

PlAggregate *pl_profile_aggregate_mapped(PlProfile *self, const PlFilter *filter, guint32 *node_map)
{
	PlAggregate *agg = g_new0(PlAggregate, 1);
	agg->profile = self;
	agg->filter = filter ? *filter : PL_FILTER_ALL;
	agg->node_map = node_map;
	const PlFilter *f = &agg->filter;
	agg->n_nodes = self->nodes->len;
	agg->n_functions = self->funcs->len;
	agg->n_locations = self->locs->len;
	agg->self = g_new0(PlCount, agg->n_nodes);
	agg->total = g_new0(PlCount, agg->n_nodes);
	agg->func_self = g_new0(PlCount, agg->n_functions);
	agg->func_total = g_new0(PlCount, agg->n_functions);
	agg->line_self = g_new0(PlCount, agg->n_locations + 1);
	agg->line_total = g_new0(PlCount, agg->n_locations + 1);
	agg->threads = g_hash_table_new_full(NULL, NULL, NULL, g_free);

	/* 1. samples → per address-stack counts (one pass over the timeline) */
	guint n_addrs = self->addrs->len;
	agg->n_stacks = n_addrs;
	agg->stack_self = g_new0(PlCount, n_addrs);
	PlCount *per_stack = agg->stack_self;
	const AddrNode *addrs = (const AddrNode *)self->addrs->data;
	for (guint i = 0; i < self->samples->len; i++) {
		const PlSample *s = &g_array_index(self->samples, PlSample, i);
		if (f->tid && s->tid != f->tid)
			continue;
		if (f->event != PL_NO_ID && addrs[s->stack].event != f->event)
			continue;
		if (s->time < f->t0 || (f->t1 && s->time >= f->t1))
			continue;
		/* a stack filter's allow rules drop whole samples */
		if (node_map && node_map[addrs[s->stack].fnode] == PL_NO_ID)
			continue;
		PlCount c = { 1, s->weight };
		count_add(&per_stack[s->stack], &c);
		count_add(&agg->all, &c);
		PlCount *tc = g_hash_table_lookup(agg->threads, GUINT_TO_POINTER(s->tid));
		if (!tc) {
			tc = g_new0(PlCount, 1);
			g_hash_table_insert(agg->threads, GUINT_TO_POINTER(s->tid), tc);
		}
		count_add(tc, &c);
	}

	/* 2. distinct stacks → call tree, functions, lines */
	g_autofree guint32 *func_stamp = g_new(guint32, agg->n_functions + 1);
	g_autofree guint32 *loc_stamp = g_new(guint32, agg->n_locations + 1);
	memset(func_stamp, 0xff, (agg->n_functions + 1) * sizeof(guint32));
	memset(loc_stamp, 0xff, (agg->n_locations + 1) * sizeof(guint32));
	const PlNode *nodes = (const PlNode *)self->nodes->data;
	const guint32 *node_locs = (const guint32 *)self->node_locs->data;
	for (guint32 a = 0; a < n_addrs; a++) {
		const PlCount *c = &per_stack[a];
		if (!c->samples)
			continue;
		guint32 leaf = addrs[a].fnode;
		if (node_map)
			leaf = node_map[leaf];
		count_add(&agg->self[leaf], c);
		if (nodes[leaf].func != PL_NO_ID)
			count_add(&agg->func_self[nodes[leaf].func], c);
		for (guint32 n = leaf; n != PL_NO_ID; n = nodes[n].parent) {
			count_add(&agg->total[n], c);
			guint32 fn = nodes[n].func;
			if (fn != PL_NO_ID && func_stamp[fn] != a) {
				func_stamp[fn] = a; /* recursion counts once */
				count_add(&agg->func_total[fn], c);
			}
		}
		if (addrs[a].loc_n)
			count_add(&agg->line_self[node_locs[addrs[a].loc_first]], c);
		for (guint32 x = a; x != PL_NO_ID; x = addrs[x].parent)
			for (guint k = 0; k < addrs[x].loc_n; k++) {
				guint32 l = node_locs[addrs[x].loc_first + k];
				if (loc_stamp[l] != a) {
					loc_stamp[l] = a;
					count_add(&agg->line_total[l], c);
				}
			}
	}
	return agg;
}

void pl_aggregate_free(PlAggregate *agg)
{
	if (!agg)
		return;
	g_free(agg->self);
	g_free(agg->total);
	g_free(agg->func_self);
	g_free(agg->func_total);
	g_free(agg->line_self);
	g_free(agg->line_total);
	g_free(agg->stack_self);
	g_free(agg->node_map);
	g_hash_table_destroy(agg->threads);
	g_free(agg);
}

static int cmp_row_self(gconstpointer a, gconstpointer b, gpointer data)
{
	const PlRow *x = a, *y = b;
	if (x->self.weight != y->self.weight)
		return x->self.weight > y->self.weight ? -1 : 1;
	if (x->total.weight != y->total.weight)
		return x->total.weight > y->total.weight ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_row_total(gconstpointer a, gconstpointer b, gpointer data)
{
	const PlRow *x = a, *y = b;
	if (x->total.weight != y->total.weight)
		return x->total.weight > y->total.weight ? -1 : 1;
	if (x->self.weight != y->self.weight)
		return x->self.weight > y->self.weight ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

GArray *pl_aggregate_functions(PlAggregate *agg, gboolean by_total)
{
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(PlRow));
	for (guint32 i = 0; i < agg->n_functions; i++) {
		if (!agg->func_total[i].samples)
			continue;
		PlRow r = { i, agg->func_self[i], agg->func_total[i] };
		g_array_append_val(rows, r);
	}
	g_array_sort_with_data(rows, by_total ? cmp_row_total : cmp_row_self, NULL);
	return rows;
}

static gboolean has_ancestor_func(const PlNode *nodes, guint32 n, guint32 func)
{
	for (guint32 up = nodes[n].parent; up != 0 && up != PL_NO_ID; up = nodes[up].parent)
		if (nodes[up].func == func)
			return TRUE;
	return FALSE;
}

/* Callers (or callees) of func.  Only the outermost call of func on a
 * stack counts: a recursive stack (F → G → F) holds the same samples twice,
 * and counting both would give a caller more than 100%. */
static GArray *relatives(PlAggregate *agg, guint32 func, gboolean callers)
{
	PlProfile *p = agg->profile;
	const PlNode *nodes = (const PlNode *)p->nodes->data;
	g_autofree PlCount *acc = g_new0(PlCount, agg->n_functions);
	for (guint32 n = 1; n < agg->n_nodes; n++) {
		if (nodes[n].func != func || !agg->total[n].samples ||
		    has_ancestor_func(nodes, n, func))
			continue;
		if (callers) {
			guint32 up = nodes[n].parent;
			if (up != 0 && up != PL_NO_ID)
				count_add(&acc[nodes[up].func], &agg->total[n]);
		} else {
			for (guint32 c = nodes[n].first_child; c != PL_NO_ID; c = nodes[c].next_sibling)
				count_add(&acc[nodes[c].func], &agg->total[c]);
		}
	}
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(PlRow));
	for (guint32 i = 0; i < agg->n_functions; i++)
		if (acc[i].samples) {
			PlRow r = { i, { 0, 0 }, acc[i] };
			g_array_append_val(rows, r);
		}
	g_array_sort_with_data(rows, cmp_row_total, NULL);
	return rows;
}

/* Does one of the frames address node x added to its parent's call-tree
 * node belong to a function named name? */
static gboolean addr_has_func(PlProfile *p, guint32 x, const char *name)
{
	const AddrNode *addrs = (const AddrNode *)p->addrs->data;
	const PlNode *nodes = (const PlNode *)p->nodes->data;
	guint32 stop = addrs[x].parent == PL_NO_ID ? 0 : addrs[addrs[x].parent].fnode;
	for (guint32 n = addrs[x].fnode; n != stop && n != 0 && n != PL_NO_ID; n = nodes[n].parent) {
		guint32 f = nodes[n].func;
		if (f != PL_NO_ID && g_array_index(p->funcs, PlFunction, f).name == name)
			return TRUE;
	}
	return FALSE;
}

static int cmp_addr_row(gconstpointer a, gconstpointer b)
{
	const PlAddrRow *x = a, *y = b;
	int c = g_strcmp0(x->module, y->module);
	if (c)
		return c;
	return x->lookup_addr < y->lookup_addr ? -1 : x->lookup_addr > y->lookup_addr;
}

GArray *pl_aggregate_addresses(PlAggregate *agg, guint32 func)
{
	PlProfile *p = agg->profile;
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(PlAddrRow));
	if (func >= p->funcs->len)
		return rows;
	/* names are interned: one pointer per distinct name */
	const char *name = g_array_index(p->funcs, PlFunction, func).name;
	if (!name)
		return rows;
	const AddrNode *addrs = (const AddrNode *)p->addrs->data;
	guint n = MIN(agg->n_stacks, p->addrs->len);
	g_autofree guint8 *has = g_new0(guint8, n); /* 0 unknown, 1 no, 2 yes */
	g_autoptr(GHashTable) row_of = g_hash_table_new(NULL, NULL); /* addr node+1 → row+1 */
	g_autoptr(GArray) stamps = g_array_new(FALSE, FALSE, sizeof(guint32)); /* per row */
	PlSymbols *syms = pl_profile_get_symbols(p);
	for (guint32 a = 0; a < n; a++) {
		const PlCount *c = &agg->stack_self[a];
		if (!c->samples)
			continue;
		for (guint32 x = a; x != PL_NO_ID; x = addrs[x].parent) {
			if (addrs[x].flags & AF_ROOT)
				break;
			if (!has[x])
				has[x] = addr_has_func(p, x, name) ? 2 : 1;
			if (has[x] != 2)
				continue;
			guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(row_of, GUINT_TO_POINTER(x + 1)));
			if (idx) {
				idx--;
			} else {
				PlFrameInfo fr[MAX_INLINE];
				guint32 root = x;
				while (addrs[root].parent != PL_NO_ID)
					root = addrs[root].parent;
				gboolean ret = (addrs[x].flags & AF_RETURN) != 0;
				guint nf = pl_symbols_resolve(syms, (guint32)addrs[root].pc, addrs[x].pc,
							      ret, fr, MAX_INLINE);
				PlAddrRow r = { 0 };
				r.module = g_string_chunk_insert_const(
					p->strings, nf && fr[0].module ? fr[0].module : "[unknown]");
				r.rel_addr = nf ? fr[0].rel_addr : addrs[x].pc;
				r.lookup_addr = r.rel_addr - (ret && r.rel_addr ? 1 : 0);
				if (nf && fr[nf - 1].function)
					r.outer = g_string_chunk_insert_const(p->strings,
									      fr[nf - 1].function);
				for (guint k = 0; k < nf; k++)
					if (fr[k].function && !strcmp(fr[k].function, name) && fr[k].file) {
						r.file = g_string_chunk_insert_const(p->strings, fr[k].file);
						r.line = fr[k].line;
						break;
					}
				/* the same address under different callers: one row */
				for (idx = 0; idx < rows->len; idx++) {
					const PlAddrRow *o = &g_array_index(rows, PlAddrRow, idx);
					if (o->lookup_addr == r.lookup_addr && o->rel_addr == r.rel_addr &&
					    o->module == r.module)
						break;
				}
				if (idx == rows->len) {
					guint32 none = PL_NO_ID;
					g_array_append_val(rows, r);
					g_array_append_val(stamps, none);
				}
				g_hash_table_insert(row_of, GUINT_TO_POINTER(x + 1),
						    GUINT_TO_POINTER(idx + 1));
			}
			PlAddrRow *r = &g_array_index(rows, PlAddrRow, idx);
			if (x == a)
				count_add(&r->self, c);
			guint32 *st = &g_array_index(stamps, guint32, idx);
			if (*st != a) { /* recursion through one address counts once */
				*st = a;
				count_add(&r->total, c);
			}
		}
	}
	g_array_sort(rows, cmp_addr_row);
	return rows;
}

GArray *pl_aggregate_callers(PlAggregate *agg, guint32 func)
{
	return relatives(agg, func, TRUE);
}

GArray *pl_aggregate_callees(PlAggregate *agg, guint32 func)
{
	return relatives(agg, func, FALSE);
}

GArray *pl_aggregate_lines(PlAggregate *agg)
{
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(PlRow));
	for (guint32 i = 0; i < agg->n_locations; i++)
		if (agg->line_total[i].samples) {
			PlRow r = { i, agg->line_self[i], agg->line_total[i] };
			g_array_append_val(rows, r);
		}
	g_array_sort_with_data(rows, cmp_row_self, NULL);
	return rows;
}

void pl_aggregate_foreach_stack(PlAggregate *agg, PlStackFunc func, gpointer user_data)
{
	const PlNode *nodes = (const PlNode *)agg->profile->nodes->data;
	g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint32 n = 1; n < agg->n_nodes; n++) {
		if (!agg->self[n].samples)
			continue;
		g_array_set_size(path, 0);
		for (guint32 x = n; x != 0 && x != PL_NO_ID; x = nodes[x].parent)
			g_array_append_val(path, nodes[x].func);
		/* reverse: outermost first */
		guint32 *v = (guint32 *)path->data;
		for (guint i = 0, j = path->len - 1; i < j; i++, j--) {
			guint32 t = v[i];
			v[i] = v[j];
			v[j] = t;
		}
		func(v, path->len, &agg->self[n], user_data);
	}
}

/* ─── health and losses over time ────────────────────────────────────── */

const struct pl_msg_health *pl_profile_get_health_series(PlProfile *self, guint *n)
{
	*n = self->health->len;
	return (const struct pl_msg_health *)(void *)self->health->data;
}

const PlLossMark *pl_profile_get_loss_marks(PlProfile *self, guint *n)
{
	*n = self->loss_marks->len;
	return (const PlLossMark *)(void *)self->loss_marks->data;
}

const char *pl_profile_get_toolchain_prefix(PlProfile *self)
{
	return self->opts.toolchain_prefix;
}

/* ─── thread creation ────────────────────────────────────────────────── */

guint32 pl_profile_thread_creation_stack(PlProfile *self, guint32 tid, const char **why)
{
	const PlProfileStats *st = &self->stats;
	PlThread *t = g_hash_table_lookup(self->threads, GUINT_TO_POINTER(tid));
	if (why)
		*why = NULL;
	if (t && t->creation_stack != PL_NO_ID)
		return t->creation_stack;
	if (!why || !t || !t->start || !t->ptid)
		return PL_NO_ID; /* no FORK: it was there before the session */
	if (st->creation_missing)
		*why = st->creation_missing;
	else if (!st->creation_recorded)
		*why = "this recording has no thread creations (an agent older than "
		       "protocol 3, or a perf.data file)";
	else
		*why = "its creation sample was lost (see the recording's losses)";
	return PL_NO_ID;
}

GArray *pl_profile_dup_stack_functions(PlProfile *self, guint32 stack, guint max)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(guint32));
	if (stack >= self->addrs->len)
		return a;
	guint32 n = g_array_index(self->addrs, AddrNode, stack).fnode;
	while (n != 0 && n < self->nodes->len && (max == 0 || a->len < max)) {
		const PlNode *node = &g_array_index(self->nodes, PlNode, n);
		g_array_append_val(a, node->func);
		n = node->parent;
	}
	return a;
}
