/* perf-data-writer.c — PerfLens messages → perf.data (see perf-data-writer.h).
 *
 * Everything is written little-endian through explicit stores, whatever
 * the host, with the magic that says so.
 */
#include "perf-data-writer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>

#include "perf-data-format.h"

#define MAX_RECORD 65535u

typedef struct {
	gboolean described, used;
	gboolean creation; /* PL_ROLE_CREATE: thread creations, not CPU samples: left out */
	char *name;
	uint32_t type;
	uint64_t config, config1, config2, period;
	gboolean freq, exclude_kernel;
} WEvent;

typedef struct {
	char *path;
	uint8_t len;
	uint8_t id[PL_MAX_BUILD_ID];
	gboolean kernel;
} WBuildId;

struct _PlPerfDataWriter {
	char *path;
	FILE *f;
	gboolean failed, finished;
	gboolean regular; /* path is a regular file: an unfinished one is removed */
	uint64_t data_size;
	PlPerfDataWriterStats st;

	/* from HELLO / SESSION */
	char *arch, *hostname, *osrelease, *version, *command;
	uint32_t ncpus, clock_id;
	uint8_t callgraph;
	gboolean have_session;
	uint32_t stack_size;
	uint8_t stacks;
	uint64_t regs_user;
	guint nr_regs;

	gboolean frozen; /* sample layout fixed by the first data record */
	uint64_t sample_type;
	uint64_t trailer_id;

	GArray *events; /* WEvent by index */
	GPtrArray *build_ids;
	GHashTable *bid_by_path;
	uint64_t first_time, last_time;

	uint8_t *rec; /* one record being built */
};

/* ================================================================ buffers */

typedef struct {
	uint8_t *p;
	size_t len, cap;
} WBuf;

static uint8_t *wb_put(WBuf *b, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = MAX(b->cap * 2, b->len + n + 256);
		b->p = g_realloc(b->p, b->cap);
	}
	uint8_t *r = b->p + b->len;
	memset(r, 0, n);
	b->len += n;
	return r;
}
static void wb_u32(WBuf *b, uint32_t v)
{
	pl_put_le32(wb_put(b, 4), v);
}
static void wb_u64(WBuf *b, uint64_t v)
{
	pl_put_le64(wb_put(b, 8), v);
}
/* perf's do_write_string: u32 padded length, bytes, NULs to NAME_ALIGN. */
static void wb_string(WBuf *b, const char *s)
{
	size_t n = strlen(s ? s : "");
	size_t len = (n + 1 + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
	wb_u32(b, (uint32_t)len);
	memcpy(wb_put(b, len), s ? s : "", n);
}

/* ================================================================ errors */

static gboolean fail_io(PlPerfDataWriter *w, GError **error)
{
	int e = errno;
	w->failed = TRUE;
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s",
		    w->path, g_strerror(e));
	return FALSE;
}

static gboolean put(PlPerfDataWriter *w, const void *p, size_t n, GError **error)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return fail_io(w, error);
	return TRUE;
}

/* ================================================================ lifecycle */

PlPerfDataWriter *pl_perf_data_writer_new(const char *path, GError **error)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		int e = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot create %s: %s", path, g_strerror(e));
		return NULL;
	}
	PlPerfDataWriter *w = g_new0(PlPerfDataWriter, 1);
	w->path = g_strdup(path);
	w->f = f;
	/* only a file this writer made is removed when it fails: "-o /dev/null"
	 * must not take the device with it */
	struct stat st;
	w->regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	w->events = g_array_new(FALSE, TRUE, sizeof(WEvent));
	w->build_ids = g_ptr_array_new();
	w->bid_by_path = g_hash_table_new(g_str_hash, g_str_equal);
	w->rec = g_malloc(MAX_RECORD + 8);
	w->clock_id = CLOCK_MONOTONIC;
	w->first_time = G_MAXUINT64;
	/* The header is rewritten at finish; until then the file is marked
	 * unusable (zero magic). */
	uint8_t zero[PD_FILE_HEADER_SIZE] = { 0 };
	GError *local = NULL;
	if (!put(w, zero, sizeof(zero), &local)) {
		g_propagate_error(error, local);
		pl_perf_data_writer_free(w);
		return NULL;
	}
	return w;
}

void pl_perf_data_writer_free(PlPerfDataWriter *w)
{
	if (!w)
		return;
	if (w->f) {
		fclose(w->f);
		if (!w->finished && w->regular)
			unlink(w->path);
	}
	for (guint i = 0; i < w->events->len; i++)
		g_free(g_array_index(w->events, WEvent, i).name);
	g_array_unref(w->events);
	for (guint i = 0; i < w->build_ids->len; i++) {
		WBuildId *b = g_ptr_array_index(w->build_ids, i);
		g_free(b->path);
		g_free(b);
	}
	g_ptr_array_unref(w->build_ids);
	g_hash_table_unref(w->bid_by_path);
	g_free(w->rec);
	g_free(w->path);
	g_free(w->arch);
	g_free(w->hostname);
	g_free(w->osrelease);
	g_free(w->version);
	g_free(w->command);
	g_free(w);
}

void pl_perf_data_writer_get_stats(const PlPerfDataWriter *w, PlPerfDataWriterStats *st)
{
	*st = w->st;
}

/* ================================================================ state */

static char *dup_str(struct pl_str s)
{
	return g_strndup(s.p ? s.p : "", s.len);
}

static WEvent *event_slot(PlPerfDataWriter *w, uint32_t index, GError **error)
{
	if (index >= PL_PERF_WRITER_MAX_EVENTS) {
		w->failed = TRUE;
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "event index %u is over the %u events a perf.data export supports",
			    index, PL_PERF_WRITER_MAX_EVENTS);
		return NULL;
	}
	if (index >= w->events->len)
		g_array_set_size(w->events, index + 1);
	return &g_array_index(w->events, WEvent, index);
}

static void add_build_id(PlPerfDataWriter *w, const char *path, size_t path_len,
			 const uint8_t *id, uint8_t len, gboolean kernel)
{
	if (!len || !path_len)
		return;
	g_autofree char *p = g_strndup(path, path_len);
	/* perf maps the kernel as "[kernel.kallsyms]_text" but looks its
	 * build-id up as "[kernel.kallsyms]". */
	if (kernel && g_str_has_prefix(p, "[kernel.kallsyms]"))
		p[strlen("[kernel.kallsyms]")] = 0;
	if (g_hash_table_contains(w->bid_by_path, p))
		return;
	WBuildId *b = g_new0(WBuildId, 1);
	b->path = g_steal_pointer(&p);
	b->len = MIN(len, PL_MAX_BUILD_ID);
	memcpy(b->id, id, b->len);
	b->kernel = kernel;
	g_ptr_array_add(w->build_ids, b);
	g_hash_table_insert(w->bid_by_path, b->path, b);
}

/* Fixes the sample layout: called at the first record. */
static void freeze(PlPerfDataWriter *w)
{
	if (w->frozen)
		return;
	w->frozen = TRUE;
	w->sample_type = PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME |
			 PD_SAMPLE_CPU | PD_SAMPLE_PERIOD;
	if (!w->have_session || w->callgraph != PL_CG_NONE)
		w->sample_type |= PD_SAMPLE_CALLCHAIN;
	if (w->callgraph == PL_CG_DWARF && w->regs_user) {
		w->sample_type |= PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;
		w->nr_regs = (guint)__builtin_popcountll(w->regs_user);
	}
	/* Non-sample records name the first event described (any known id
	 * will do for perf; it must only exist). */
	w->trailer_id = 1;
	for (guint i = 0; i < w->events->len; i++) {
		if (g_array_index(w->events, WEvent, i).described) {
			w->trailer_id = i + 1;
			break;
		}
	}
}

/* ================================================================ records */

typedef struct {
	uint8_t *p;
	size_t len;
} Rec;

static void r_u32(Rec *r, uint32_t v)
{
	pl_put_le32(r->p + r->len, v);
	r->len += 4;
}
static void r_u64(Rec *r, uint64_t v)
{
	pl_put_le64(r->p + r->len, v);
	r->len += 8;
}
static void r_bytes(Rec *r, const void *s, size_t n)
{
	memcpy(r->p + r->len, s, n);
	r->len += n;
}
/* A NUL-terminated string padded to 8 bytes (perf's records). */
static void r_str8(Rec *r, struct pl_str s)
{
	size_t n = MIN(s.len, 4096u);
	size_t padded = (n + 1 + 7) & ~(size_t)7;
	memset(r->p + r->len, 0, padded);
	memcpy(r->p + r->len, s.p, n);
	r->len += padded;
}

static Rec rec_begin(PlPerfDataWriter *w)
{
	Rec r = { w->rec, PD_RECORD_HEADER_SIZE };
	return r;
}

/* sample_id trailer of non-sample records: TID TIME CPU IDENTIFIER. */
static void r_trailer(PlPerfDataWriter *w, Rec *r, uint32_t pid, uint32_t tid, uint64_t time,
		      uint32_t cpu)
{
	r_u32(r, pid);
	r_u32(r, tid);
	r_u64(r, time);
	r_u32(r, cpu);
	r_u32(r, 0);
	r_u64(r, w->trailer_id);
}

static gboolean rec_end(PlPerfDataWriter *w, Rec *r, uint32_t type, uint16_t misc,
			GError **error)
{
	g_assert(r->len <= MAX_RECORD && r->len % 8 == 0);
	pl_put_le32(r->p, type);
	pl_put_le16(r->p + 4, misc);
	pl_put_le16(r->p + 6, (uint16_t)r->len);
	w->data_size += r->len;
	w->st.records++;
	return put(w, r->p, r->len, error);
}

static void note_time(PlPerfDataWriter *w, uint64_t t)
{
	if (t && t < w->first_time)
		w->first_time = t;
	if (t > w->last_time)
		w->last_time = t;
}

static gboolean write_sample(PlPerfDataWriter *w, const struct pl_msg_sample *s, GError **error)
{
	WEvent *e = event_slot(w, s->event, error);
	if (!e)
		return FALSE;
	if (e->creation) {
		/* a tracepoint attr without tracing data makes perf refuse the
		 * file, and these are not samples of CPU time anyway */
		w->st.ignored++;
		return TRUE;
	}
	e->used = TRUE;
	Rec r = rec_begin(w);
	r_u64(&r, (uint64_t)s->event + 1);
	r_u64(&r, s->ip);
	r_u32(&r, s->pid);
	r_u32(&r, s->tid);
	r_u64(&r, s->time);
	r_u32(&r, s->cpu);
	r_u32(&r, 0);
	/* A zero period would make the sample weigh nothing in perf report. */
	r_u64(&r, s->period ? s->period : 1);
	if (w->sample_type & PD_SAMPLE_CALLCHAIN) {
		uint32_t nr = MIN(s->nr_callchain, PL_MAX_CALLCHAIN);
		r_u64(&r, nr);
		for (uint32_t i = 0; i < nr; i++)
			r_u64(&r, s->callchain[i]);
	}
	if (w->sample_type & PD_SAMPLE_REGS_USER) {
		if (s->regs_abi && s->nr_regs == w->nr_regs) {
			r_u64(&r, s->regs_abi);
			for (uint32_t i = 0; i < s->nr_regs; i++)
				r_u64(&r, s->regs[i]);
		} else {
			if (s->regs_abi)
				w->st.regs_dropped++;
			r_u64(&r, 0);
		}
	}
	if (w->sample_type & PD_SAMPLE_STACK_USER) {
		size_t n = s->stack ? s->stack_size : 0;
		/* size, data rounded to 8, dyn_size: must fit the u16 size. */
		size_t room = MAX_RECORD - r.len - 16;
		room &= ~(size_t)7;
		if (n > room) {
			n = room;
			w->st.stacks_cut++;
		}
		if (n) {
			size_t padded = (n + 7) & ~(size_t)7;
			r_u64(&r, padded);
			memset(r.p + r.len, 0, padded);
			r_bytes(&r, s->stack, n);
			r.len += padded - n;
			r_u64(&r, n);
		} else {
			r_u64(&r, 0);
		}
	}
	note_time(w, s->time);
	w->st.samples++;
	return rec_end(w, &r, PD_REC_SAMPLE, s->cpumode, error);
}

static gboolean write_mmap(PlPerfDataWriter *w, const struct pl_msg_mmap *m, GError **error)
{
	Rec r = rec_begin(w);
	uint16_t misc = m->cpumode ? m->cpumode : PD_MISC_USER;
	r_u32(&r, m->pid);
	r_u32(&r, m->tid);
	r_u64(&r, m->start);
	r_u64(&r, m->len);
	r_u64(&r, m->pgoff);
	gboolean kernel = (m->cpumode & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL;
	if (m->build_id_len)
		add_build_id(w, m->filename.p, m->filename.len, m->build_id, m->build_id_len,
			     kernel);
	/* Kernel maps go by the table entry alone, as perf's own do. */
	if (m->build_id_len && !kernel) {
		uint8_t u[24] = { 0 };
		u[0] = MIN(m->build_id_len, PL_MAX_BUILD_ID);
		memcpy(u + 4, m->build_id, u[0]);
		r_bytes(&r, u, sizeof(u));
		misc |= PD_MISC_MMAP_BUILD_ID;
	} else {
		r_u32(&r, m->maj);
		r_u32(&r, m->min);
		r_u64(&r, m->ino);
		r_u64(&r, 0);
	}
	r_u32(&r, m->prot);
	r_u32(&r, m->flags);
	r_str8(&r, m->filename);
	r_trailer(w, &r, m->pid, m->tid, m->time, 0);
	return rec_end(w, &r, PD_REC_MMAP2, misc, error);
}

static gboolean write_data_msg(PlPerfDataWriter *w, const struct pl_msg *m, GError **error)
{
	freeze(w);
	Rec r = rec_begin(w);
	switch (m->type) {
	case PL_MSG_SAMPLE:
		return write_sample(w, &m->u.sample, error);
	case PL_MSG_MMAP:
		return write_mmap(w, &m->u.mmap, error);
	case PL_MSG_COMM: {
		const struct pl_msg_comm *c = &m->u.comm;
		r_u32(&r, c->pid);
		r_u32(&r, c->tid);
		struct pl_str s = c->comm;
		s.len = MIN(s.len, 15u); /* TASK_COMM_LEN - 1, as the kernel sends */
		r_str8(&r, s);
		r_trailer(w, &r, c->pid, c->tid, c->time, 0);
		return rec_end(w, &r, PD_REC_COMM, c->exec ? PD_MISC_COMM_EXEC : 0, error);
	}
	case PL_MSG_TASK: {
		const struct pl_msg_task *t = &m->u.task;
		r_u32(&r, t->pid);
		r_u32(&r, t->ppid);
		r_u32(&r, t->tid);
		r_u32(&r, t->ptid);
		r_u64(&r, t->time);
		r_trailer(w, &r, t->pid, t->tid, t->time, 0);
		return rec_end(w, &r, t->kind == PL_TASK_EXIT ? PD_REC_EXIT : PD_REC_FORK, 0,
			       error);
	}
	case PL_MSG_SWITCH: {
		const struct pl_msg_switch *s = &m->u.sw;
		gboolean wide = s->other_pid || s->other_tid;
		if (wide) {
			r_u32(&r, s->other_pid);
			r_u32(&r, s->other_tid);
		}
		r_trailer(w, &r, s->pid, s->tid, s->time, s->cpu);
		uint16_t misc = ((s->flags & PL_SWITCH_OUT) ? PD_MISC_SWITCH_OUT : 0) |
				((s->flags & PL_SWITCH_PREEMPT) ? PD_MISC_SWITCH_OUT_PREEMPT : 0);
		return rec_end(w, &r, wide ? PD_REC_SWITCH_CPU_WIDE : PD_REC_SWITCH, misc, error);
	}
	case PL_MSG_LOST: {
		const struct pl_msg_lost *l = &m->u.lost;
		if (l->kind == PL_LOST_RING) {
			r_u64(&r, w->trailer_id);
			r_u64(&r, l->count);
		} else {
			/* The agent's own drops are lost samples to perf. */
			r_u64(&r, l->count);
		}
		r_trailer(w, &r, 0, 0, l->time, l->cpu);
		return rec_end(w, &r, l->kind == PL_LOST_RING ? PD_REC_LOST : PD_REC_LOST_SAMPLES,
			       0, error);
	}
	case PL_MSG_THROTTLE: {
		const struct pl_msg_throttle *t = &m->u.throttle;
		r_u64(&r, t->time);
		r_u64(&r, (uint64_t)t->event + 1);
		r_u64(&r, (uint64_t)t->event + 1);
		r_trailer(w, &r, 0, 0, t->time, 0);
		return rec_end(w, &r, t->unthrottle ? PD_REC_UNTHROTTLE : PD_REC_THROTTLE, 0,
			       error);
	}
	default:
		return TRUE;
	}
}

gboolean pl_perf_data_writer_add(PlPerfDataWriter *w, const struct pl_msg *m, GError **error)
{
	if (w->failed || w->finished) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "%s: the perf.data writer already %s", w->path,
			    w->finished ? "finished" : "failed");
		return FALSE;
	}
	switch (m->type) {
	case PL_MSG_HELLO: {
		const struct pl_msg_hello *h = &m->u.hello;
		g_free(w->arch);
		w->arch = dup_str(h->machine);
		g_free(w->hostname);
		w->hostname = dup_str(h->hostname);
		g_free(w->osrelease);
		w->osrelease = dup_str(h->kernel_release);
		g_free(w->version);
		w->version = dup_str(h->agent_version);
		w->ncpus = h->ncpus;
		w->clock_id = h->clock_id;
		return TRUE;
	}
	case PL_MSG_SESSION: {
		const struct pl_msg_session *s = &m->u.session;
		if (w->frozen)
			return TRUE; /* a second session cannot change the layout */
		w->have_session = TRUE;
		w->callgraph = s->callgraph;
		w->stack_size = s->stack_size;
		w->stacks = s->stacks;
		w->regs_user = s->sample_regs_user;
		g_free(w->command);
		w->command = dup_str(s->command);
		return TRUE;
	}
	case PL_MSG_EVENT_DESC: {
		const struct pl_msg_event_desc *d = &m->u.event_desc;
		WEvent *e = event_slot(w, d->index, error);
		if (!e)
			return FALSE;
		e->creation = d->role == PL_ROLE_CREATE;
		e->described = !e->creation;
		g_free(e->name);
		e->name = dup_str(d->name);
		e->type = d->type;
		e->config = d->config;
		e->config1 = d->config1;
		e->config2 = d->config2;
		e->freq = d->freq;
		e->period = d->period_or_freq;
		e->exclude_kernel = d->exclude_kernel;
		return TRUE;
	}
	case PL_MSG_BUILD_ID:
		add_build_id(w, m->u.build_id.path.p, m->u.build_id.path.len, m->u.build_id.id,
			     m->u.build_id.len, m->u.build_id.source == PL_BUILD_ID_KERNEL);
		return TRUE;
	case PL_MSG_SAMPLE:
	case PL_MSG_MMAP:
	case PL_MSG_COMM:
	case PL_MSG_TASK:
	case PL_MSG_SWITCH:
	case PL_MSG_LOST:
	case PL_MSG_THROTTLE:
		return write_data_msg(w, m, error);
	default:
		w->st.ignored++;
		return TRUE;
	}
}

/* ================================================================ finish */

static void put_attr(PlPerfDataWriter *w, WBuf *b, const WEvent *e)
{
	uint8_t *a = wb_put(b, PD_ATTR_SIZE_VER7);
	pl_put_le32(a + PD_ATTR_TYPE, e->type);
	pl_put_le32(a + PD_ATTR_SIZE, PD_ATTR_SIZE_VER7);
	pl_put_le64(a + PD_ATTR_CONFIG, e->config);
	pl_put_le64(a + PD_ATTR_PERIOD, e->period ? e->period : 1);
	pl_put_le64(a + PD_ATTR_SAMPLE_TYPE, w->sample_type);
	uint64_t f = 1ull << PD_ATTR_F_SAMPLE_ID_ALL | 1ull << PD_ATTR_F_MMAP |
		     1ull << PD_ATTR_F_COMM | 1ull << PD_ATTR_F_TASK | 1ull << PD_ATTR_F_MMAP2 |
		     1ull << PD_ATTR_F_COMM_EXEC;
	if (e->freq)
		f |= 1ull << PD_ATTR_F_FREQ;
	if (e->exclude_kernel)
		f |= 1ull << PD_ATTR_F_EXCLUDE_KERNEL;
	if (w->stacks == PL_STACKS_USER)
		f |= 1ull << PD_ATTR_F_EXCLUDE_CALLCHAIN_KERNEL;
	/* dwarf mode: the kernel walks only its own stack, as perf asks it. */
	if (w->stacks == PL_STACKS_KERNEL || (w->sample_type & PD_SAMPLE_STACK_USER))
		f |= 1ull << PD_ATTR_F_EXCLUDE_CALLCHAIN_USER;
	if (w->clock_id != CLOCK_MONOTONIC) {
		f |= 1ull << PD_ATTR_F_USE_CLOCKID;
		pl_put_le32(a + PD_ATTR_CLOCKID, w->clock_id);
	}
	pl_put_le64(a + PD_ATTR_FLAGS, f);
	pl_put_le64(a + PD_ATTR_CONFIG1, e->config1);
	pl_put_le64(a + PD_ATTR_CONFIG2, e->config2);
	if (w->sample_type & PD_SAMPLE_REGS_USER)
		pl_put_le64(a + PD_ATTR_REGS_USER, w->regs_user);
	if (w->sample_type & PD_SAMPLE_STACK_USER)
		pl_put_le32(a + PD_ATTR_STACK_USER, w->stack_size ? w->stack_size : 8192);
}

/* The events as attrs: every described or used index, in index order. */
static void collect_events(PlPerfDataWriter *w, GArray *idx)
{
	if (w->trailer_id)
		event_slot(w, (uint32_t)w->trailer_id - 1, NULL)->used = TRUE;
	for (guint i = 0; i < w->events->len; i++) {
		WEvent *e = &g_array_index(w->events, WEvent, i);
		if ((!e->described && !e->used) || e->creation)
			continue;
		if (!e->described) {
			/* A sample named an event never described: call it what
			 * perf would show for an unknown software event. */
			e->name = g_strdup_printf("event%u", i);
			e->type = 1;  /* PERF_TYPE_SOFTWARE */
			e->config = 0; /* cpu-clock */
		}
		g_array_append_val(idx, i);
	}
}

gboolean pl_perf_data_writer_finish(PlPerfDataWriter *w, GError **error)
{
	if (w->failed || w->finished) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: writer already %s",
			    w->path, w->finished ? "finished" : "failed");
		return FALSE;
	}
	freeze(w);
	g_autoptr(GArray) idx = g_array_new(FALSE, FALSE, sizeof(guint));
	collect_events(w, idx);

	uint64_t data_off = PD_FILE_HEADER_SIZE;
	uint64_t feat_off = data_off + w->data_size;

	/* Feature payloads, in bit order. */
	int feats[] = { PD_FEAT_BUILD_ID,    PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE,
			PD_FEAT_VERSION,     PD_FEAT_ARCH,     PD_FEAT_NRCPUS,
			PD_FEAT_CMDLINE,     PD_FEAT_EVENT_DESC, PD_FEAT_SAMPLE_TIME };
	const int nfeat = G_N_ELEMENTS(feats);
	WBuf payload[G_N_ELEMENTS(feats)];
	memset(payload, 0, sizeof(payload));
	for (int k = 0; k < nfeat; k++) {
		WBuf *b = &payload[k];
		switch (feats[k]) {
		case PD_FEAT_BUILD_ID:
			for (guint i = 0; i < w->build_ids->len; i++) {
				const WBuildId *bid = g_ptr_array_index(w->build_ids, i);
				size_t n = strlen(bid->path);
				size_t plen = (n + 1 + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
				size_t size = PD_BUILD_ID_ENTRY_FIXED + plen;
				uint8_t *e = wb_put(b, size);
				pl_put_le32(e, PD_REC_HEADER_BUILD_ID);
				pl_put_le16(e + 4, (bid->kernel ? PD_MISC_KERNEL : PD_MISC_USER) |
							   PD_MISC_BUILD_ID_SIZE);
				pl_put_le16(e + 6, (uint16_t)MIN(size, 65535u));
				pl_put_le32(e + 8, (uint32_t)-1); /* the host machine */
				memcpy(e + 12, bid->id, bid->len);
				e[12 + 20] = bid->len;
				memcpy(e + PD_BUILD_ID_ENTRY_FIXED, bid->path, n);
			}
			break;
		case PD_FEAT_HOSTNAME: wb_string(b, w->hostname); break;
		case PD_FEAT_OSRELEASE: wb_string(b, w->osrelease); break;
		case PD_FEAT_VERSION: {
			/* our reader calls a perf.data's agent "perf VERSION" */
			const char *v = w->version && *w->version ? w->version : "perflens";
			wb_string(b, g_str_has_prefix(v, "perf ") ? v + 5 : v);
			break;
		}
		case PD_FEAT_ARCH: wb_string(b, w->arch); break;
		case PD_FEAT_NRCPUS:
			wb_u32(b, w->ncpus ? w->ncpus : 1);
			wb_u32(b, w->ncpus ? w->ncpus : 1);
			break;
		case PD_FEAT_CMDLINE:
			wb_u32(b, 2);
			wb_string(b, "perflens");
			wb_string(b, w->command ? w->command : "");
			break;
		case PD_FEAT_EVENT_DESC:
			wb_u32(b, idx->len);
			wb_u32(b, PD_ATTR_SIZE_VER7);
			for (guint i = 0; i < idx->len; i++) {
				guint ei = g_array_index(idx, guint, i);
				const WEvent *e = &g_array_index(w->events, WEvent, ei);
				put_attr(w, b, e);
				wb_u32(b, 1);
				wb_string(b, e->name);
				wb_u64(b, ei + 1);
			}
			break;
		case PD_FEAT_SAMPLE_TIME:
			wb_u64(b, w->first_time == G_MAXUINT64 ? 0 : w->first_time);
			wb_u64(b, w->last_time);
			break;
		}
	}
	gboolean ok = TRUE;
	uint64_t pos = feat_off + (uint64_t)nfeat * 16;
	for (int k = 0; k < nfeat && ok; k++) {
		uint8_t sec[16];
		pl_put_le64(sec, pos);
		pl_put_le64(sec + 8, payload[k].len);
		pos += payload[k].len;
		ok = put(w, sec, sizeof(sec), error);
	}
	for (int k = 0; k < nfeat && ok; k++)
		ok = put(w, payload[k].p, payload[k].len, error);
	for (int k = 0; k < nfeat; k++)
		g_free(payload[k].p);
	if (!ok)
		return FALSE;

	/* ids, then the attrs pointing at them */
	uint64_t ids_off = pos;
	WBuf ids = { 0 }, attrs = { 0 };
	for (guint i = 0; i < idx->len; i++)
		wb_u64(&ids, g_array_index(idx, guint, i) + 1);
	uint64_t attrs_off = ids_off + ids.len;
	for (guint i = 0; i < idx->len; i++) {
		guint ei = g_array_index(idx, guint, i);
		put_attr(w, &attrs, &g_array_index(w->events, WEvent, ei));
		wb_u64(&attrs, ids_off + 8ull * i);
		wb_u64(&attrs, 8);
	}
	ok = put(w, ids.p, ids.len, error) && put(w, attrs.p, attrs.len, error);
	size_t attrs_len = attrs.len;
	g_free(ids.p);
	g_free(attrs.p);
	if (!ok)
		return FALSE;

	uint8_t h[PD_FILE_HEADER_SIZE] = { 0 };
	memcpy(h, PD_MAGIC_LE, 8);
	pl_put_le64(h + 8, PD_FILE_HEADER_SIZE);
	pl_put_le64(h + 16, PD_ATTR_SIZE_VER7 + 16);
	pl_put_le64(h + 24, attrs_off);
	pl_put_le64(h + 32, attrs_len);
	pl_put_le64(h + 40, data_off);
	pl_put_le64(h + 48, w->data_size);
	uint64_t bits = 0;
	for (int k = 0; k < nfeat; k++)
		bits |= 1ull << feats[k];
	pl_put_le64(h + 72, bits);
	if (fflush(w->f) != 0 || fseeko(w->f, 0, SEEK_SET) != 0)
		return fail_io(w, error);
	if (!put(w, h, sizeof(h), error))
		return FALSE;
	/* on the disk before it is called written (a special file has no sync) */
	if (fflush(w->f) != 0 || (w->regular && fsync(fileno(w->f)) != 0))
		return fail_io(w, error);
	FILE *f = w->f;
	w->f = NULL;
	if (fclose(f) != 0) {
		fail_io(w, error);
		if (w->regular)
			unlink(w->path);
		return FALSE;
	}
	w->finished = TRUE;
	return TRUE;
}
