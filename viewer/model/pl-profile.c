/* pl-profile.c — the session model object: creating and freeing it, its
 * symbolizer and statistics, and the records it keeps of processes,
 * threads, events, samples, counters and health, found or created by id and
 * handed out sorted; see pl-profile.h.  Messages come in through
 * pl-profile-ingest.c, stacks are interned in pl-stack-table.c, analyses
 * are in pl-profile-aggregate.c. */
#include "pl-profile.h"
#include "pl-profile-private.h"
#include "pl-proc-irq-reads.h"
#include "pl-time-order.h"
#include "pl-tracepoint.h"

#include <string.h>

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
		self->opts.vmlinux = g_strdup(opts->vmlinux);
		self->opts.debuginfod_urls = g_strdup(opts->debuginfod_urls);
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
	self->sample_ctx = g_array_new(FALSE, FALSE, sizeof(PlSampleCtx));
	pl_id_table_init(&self->ctx_tab);
	self->last_ctx = PL_NO_ID;
	self->trace_events = g_array_new(FALSE, FALSE, sizeof(PlTraceEvent));
	self->trace_raw = g_byte_array_new();
	self->trace_formats = g_hash_table_new_full(NULL, NULL, NULL,
						    (GDestroyNotify)pl_trace_format_free);
	self->modules = g_ptr_array_new_with_free_func(pl_profile_module_free);
	self->module_names = g_hash_table_new(g_str_hash, g_str_equal);
	pl_id_table_init(&self->func_tab);
	pl_id_table_init(&self->node_tab);
	pl_id_table_init(&self->addr_tab);
	pl_id_table_init(&self->loc_tab);
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
	self->unwind_stops = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	self->health = g_array_new(FALSE, FALSE, sizeof(struct pl_msg_health));
	self->loss_marks = g_array_new(FALSE, FALSE, sizeof(PlLossMark));
	self->triggers = g_array_new(FALSE, FALSE, sizeof(PlTrigger));
	self->proc_irq_reads = pl_proc_irq_reads_new();
	self->counter_tracks = pl_counter_tracks_new();
	self->stats.log = g_ptr_array_new_with_free_func(g_free);
	self->order = pl_time_order_new();
	self->uq_top = g_array_new(FALSE, FALSE, sizeof(guint32));
	self->uq_root = g_byte_array_new();
	return self;
}

void pl_profile_free(PlProfile *self)
{
	if (!self)
		return;
	pl_time_order_free(self->order);
	g_array_free(self->uq_top, TRUE);
	g_byte_array_free(self->uq_root, TRUE);
	if (self->uq_starts)
		self->uq_starts_free(self->uq_starts);
	g_free(self->stack_memo);
	if (self->serial_memo)
		g_array_free(self->serial_memo, TRUE);
	g_clear_pointer(&self->syms, pl_symbols_free);
	g_free(self->opts.sysroot);
	g_free(self->opts.toolchain_prefix);
	g_free(self->opts.map_file);
	g_free(self->opts.vmlinux);
	g_free(self->opts.debuginfod_urls);
	g_clear_pointer(&self->opts.binaries, g_ptr_array_unref);
	g_clear_pointer(&self->opts.debug_dirs, g_ptr_array_unref);
	g_clear_pointer(&self->opts.source_dirs, g_ptr_array_unref);
	g_clear_pointer(&self->opts.path_maps, g_ptr_array_unref);
	g_string_chunk_free(self->strings);
	g_array_free(self->funcs, TRUE);
	g_ptr_array_free(self->func_labels, TRUE);
	if (self->shown_names)
		self->shown_names_free(self->shown_names);
	g_clear_pointer(&self->shown_labels, g_ptr_array_unref);
	g_array_free(self->nodes, TRUE);
	g_array_free(self->last_child, TRUE);
	g_array_free(self->addrs, TRUE);
	g_array_free(self->locs, TRUE);
	g_array_free(self->node_locs, TRUE);
	g_array_free(self->samples, TRUE);
	g_array_free(self->sample_ctx, TRUE);
	pl_id_table_free(&self->ctx_tab);
	g_array_free(self->trace_events, TRUE);
	g_byte_array_free(self->trace_raw, TRUE);
	g_hash_table_destroy(self->trace_formats);
	g_array_free(self->health, TRUE);
	g_array_free(self->loss_marks, TRUE);
	pl_proc_irq_reads_free(self->proc_irq_reads);
	for (guint i = 0; i < self->triggers->len; i++) {
		g_free(g_array_index(self->triggers, PlTrigger, i).spec);
		g_free(g_array_index(self->triggers, PlTrigger, i).detail);
	}
	g_array_free(self->triggers, TRUE);
	pl_counter_tracks_free(self->counter_tracks);
	g_hash_table_destroy(self->module_names);
	g_hash_table_destroy(self->unwind_stops);
	g_ptr_array_unref(self->modules);
	pl_id_table_free(&self->func_tab);
	pl_id_table_free(&self->node_tab);
	pl_id_table_free(&self->addr_tab);
	pl_id_table_free(&self->loc_tab);
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

void pl_profile_see_time(PlProfile *self, guint64 t)
{
	if (!t)
		return;
	if (!self->stats.first_time || t < self->stats.first_time)
		self->stats.first_time = t;
	if (t > self->stats.last_time)
		self->stats.last_time = t;
}

/* ─── processes and threads ──────────────────────────────────────────── */

PlProcess *pl_profile_process_get(PlProfile *self, guint32 pid)
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

PlThread *pl_profile_thread_get(PlProfile *self, guint32 pid, guint32 tid)
{
	/* samples come in runs of one thread: the last one found is kept
	 * (threads are never removed) */
	PlThread *t = self->last_thread && self->last_thread->tid == tid
			      ? self->last_thread
			      : g_hash_table_lookup(self->threads, GUINT_TO_POINTER(tid));
	if (!t) {
		t = g_new0(PlThread, 1);
		t->tid = tid;
		t->pid = pid;
		t->intervals = g_array_new(FALSE, FALSE, sizeof(PlInterval));
		t->pending = g_array_new(FALSE, FALSE, sizeof(guint));
		t->creation_stack = PL_NO_ID;
		g_hash_table_insert(self->threads, GUINT_TO_POINTER(tid), t);
		g_clear_pointer(&self->sorted_threads, g_ptr_array_unref);
		pl_profile_process_get(self, pid);
	}
	if (pid && !t->pid)
		t->pid = pid;
	self->last_thread = t;
	return t;
}

PlEvent *pl_profile_event_get(PlProfile *self, guint32 index)
{
	if (self->last_event && self->last_event_index == index)
		return self->last_event; /* events are never removed */
	PlEvent *e = g_hash_table_lookup(self->events, GUINT_TO_POINTER(index));
	if (e) {
		self->last_event = e;
		self->last_event_index = index;
	} else {
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

/* ─── accessors ──────────────────────────────────────────────────────── */

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

const PlSampleCtx *pl_profile_get_sample_ctx(PlProfile *self)
{
	return (const PlSampleCtx *)(void *)self->sample_ctx->data;
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

/* ─── health and losses over time ────────────────────────────────────── */

const struct pl_msg_health *pl_profile_get_health_series(PlProfile *self, guint *n)
{
	*n = self->health->len;
	return (const struct pl_msg_health *)(void *)self->health->data;
}

PlCounterTracks *pl_profile_get_counter_tracks(PlProfile *self)
{
	return self->counter_tracks;
}

const PlTrigger *pl_profile_get_triggers(PlProfile *self, guint *n)
{
	*n = self->triggers->len;
	return (const PlTrigger *)(void *)self->triggers->data;
}

const PlProcIrqReads *pl_profile_get_proc_irq_reads(PlProfile *self)
{
	return self->proc_irq_reads;
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

/* ─── tracepoint events (pl-tracepoint.h) ────────────────────────────── */

const PlTraceEvent *pl_profile_get_trace_events(PlProfile *self, guint *n)
{
	*n = self->trace_events->len;
	return (const PlTraceEvent *)(gpointer)self->trace_events->data;
}

const guint8 *pl_profile_get_trace_raw(PlProfile *self, const PlTraceEvent *e)
{
	/* a session whose hits all had empty payloads never grew the array */
	static const guint8 none[1];
	return self->trace_raw->data ? self->trace_raw->data + e->raw_off : none;
}

const PlTraceFormat *pl_profile_get_trace_format(PlProfile *self, guint32 event)
{
	return g_hash_table_lookup(self->trace_formats, GUINT_TO_POINTER(event));
}

guint pl_profile_get_e_machine(PlProfile *self)
{
	return self->have_arch ? self->arch.e_machine : 0;
}

gboolean pl_profile_is_big_endian(PlProfile *self)
{
	return self->have_arch && self->arch.big_endian;
}
