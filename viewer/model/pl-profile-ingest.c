/* pl-profile-ingest.c — messages into the session model: the ingest
 * order (pl-time-order.h: timed records in time order), the dispatch by message type, and
 * what COMM, TASK and SWITCH records do to processes and threads (names,
 * the fork/exit tree, on/off-CPU intervals), counters, losses, health and
 * the agent's log; pl_profile_finish.  SAMPLE messages go on to
 * pl-profile-samples.c, MMAP to pl-modules.c and the symbolizer. */
#include "pl-profile.h"
#include "pl-profile-private.h"
#include "pl-proc-irq-reads.h"
#include "pl-time-order.h"
#include "pl-tracepoint.h"

#include <string.h>

static gboolean ingest_now(const struct pl_msg *m, gpointer profile);

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

/* ─── processes and threads ──────────────────────────────────────────── */

static void ingest_comm(PlProfile *self, const struct pl_msg_comm *c)
{
	PlThread *t = pl_profile_thread_get(self, c->pid, c->tid);
	g_free(t->name);
	t->name = str_dup(c->comm);
	if (c->pid == c->tid) {
		PlProcess *p = pl_profile_process_get(self, c->pid);
		g_free(p->name);
		p->name = str_dup(c->comm);
		if (c->exec && !c->snapshot && self->syms)
			pl_symbols_process_exec(self->syms, c->pid);
	}
}

static void ingest_task(PlProfile *self, const struct pl_msg_task *k)
{
	pl_profile_see_time(self, k->time);
	if (k->kind == PL_TASK_FORK) {
		PlThread *t = pl_profile_thread_get(self, k->pid, k->tid);
		t->ptid = k->ptid;
		t->start = k->time;
		/* its creation sample follows (msg.h, PL_ROLE_CREATE); a table
		 * entry per parent thread, the latest child wins */
		if (k->ptid && k->ptid != k->tid) {
			ForkMark *f = g_hash_table_lookup(self->forks, GUINT_TO_POINTER(k->ptid));
			if (!f) {
				f = g_new0(ForkMark, 1);
				g_hash_table_insert(self->forks, GUINT_TO_POINTER(k->ptid), f);
			}
			f->child = k->tid;
			f->time = k->time;
			if (f->early && k->time >= f->early_time &&
			    k->time - f->early_time <= CREATION_EARLY_NS) {
				/* this FORK's creation sample came first */
				if (t->creation_stack == PL_NO_ID) {
					t->creation_stack = f->early_stack;
					self->stats.creation_unpaired--;
				}
				f->early = FALSE;
			}
		}
		PlThread *parent = g_hash_table_lookup(self->threads, GUINT_TO_POINTER(k->ptid));
		if (!t->name && parent && parent->name)
			t->name = g_strdup(parent->name); /* a fork inherits the comm */
		if (k->pid == k->tid) {
			PlProcess *p = pl_profile_process_get(self, k->pid);
			p->ppid = k->ppid;
			p->start = k->time;
			PlProcess *pp = g_hash_table_lookup(self->processes,
							   GUINT_TO_POINTER(k->ppid));
			if (!p->name && pp && pp->name)
				p->name = g_strdup(pp->name);
		}
	} else if (k->kind == PL_TASK_EXIT) {
		PlThread *t = pl_profile_thread_get(self, k->pid, k->tid);
		t->end = k->time;
		t->exited = TRUE;
		if (k->pid == k->tid) {
			PlProcess *p = pl_profile_process_get(self, k->pid);
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
	pl_profile_see_time(self, s->time);
	PlThread *t = pl_profile_thread_get(self, s->pid, s->tid);
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
			sm->ctx = pl_profile_sample_ctx_add(
				self, s->tid, s->time > sm->time ? s->time - sm->time : 0);
		}
		g_array_set_size(t->pending, 0);
	}
	t->state = out ? 2 : 1;
	t->last_switch = s->time;
	t->last_preempt = (s->flags & PL_SWITCH_PREEMPT) != 0;
}

void pl_profile_finish(PlProfile *self)
{
	pl_time_order_flush(self->order, ingest_now, self);
	/* a perf map cut short (a torn capture, a live session stopped while
	 * it came) still names what it holds */
	GHashTableIter pit;
	gpointer pid;
	g_hash_table_iter_init(&pit, self->perf_map_partial);
	while (g_hash_table_iter_next(&pit, &pid, NULL))
		pl_profile_addrs_resolve_again(self, GPOINTER_TO_UINT(pid));
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

/* ─── ingest ─────────────────────────────────────────────────────────── */

static void ingest_counters(PlProfile *self, const struct pl_msg_counters *c)
{
	pl_profile_see_time(self, c->time);
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

/* A tracepoint's format file (msg.h, PL_CHUNK_TRACE_FORMAT): sent whole,
 * once per event; a later one for the same index replaces it. */
static void ingest_trace_format(PlProfile *self, const struct pl_msg_file_chunk *c)
{
	g_autoptr(GError) error = NULL;
	if (c->offset != 0 || (c->total && c->total != c->len)) {
		note(self, "the format of tracepoint event %u came in pieces: not decoded", c->pid);
		return;
	}
	PlTraceFormat *f = pl_trace_format_parse((const char *)c->data, c->len, &error);
	if (!f) {
		note(self, "the format of tracepoint event %u: %s", c->pid, error->message);
		return;
	}
	g_hash_table_replace(self->trace_formats, GUINT_TO_POINTER(c->pid), f);
}

static gboolean ingest_now(const struct pl_msg *m, gpointer profile)
{
	PlProfile *self = profile;
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
		st->target = s->target;
		st->callgraph = s->callgraph;
		st->sample_regs_user = s->sample_regs_user;
		st->session_start = s->start_ns;
		st->duration_ms = s->duration_ms;
		st->frequency = s->frequency;
		break;
	}
	case PL_MSG_EVENT_DESC: {
		PlEvent *e = pl_profile_event_get(self, m->u.event_desc.index);
		g_free(e->name);
		e->name = str_dup(m->u.event_desc.name);
		e->role = m->u.event_desc.role;
		e->everywhere = e->role == PL_ROLE_TRACEPOINT && e->name &&
				(g_str_has_prefix(e->name, "u:") || g_str_has_prefix(e->name, "k:"));
		if (e->role == PL_ROLE_CREATE)
			st->creation_recorded = TRUE;
		PlTraceFormat *f = e->role == PL_ROLE_TRACEPOINT
					   ? pl_trace_format_builtin(e->name, self->arch.word_size)
					   : NULL;
		if (f) /* no format file comes for these */
			g_hash_table_replace(self->trace_formats, GUINT_TO_POINTER(e->index), f);
		break;
	}
	case PL_MSG_SAMPLE:
		pl_profile_ingest_sample(self, &m->u.sample);
		break;
	case PL_MSG_MMAP: {
		const struct pl_msg_mmap *mm = &m->u.mmap;
		g_autofree char *fn = str_dup(mm->filename);
		pl_profile_note_module(self, fn, mm->build_id, mm->build_id_len);
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
	case PL_MSG_BUILD_ID: /* perf.data's: a --vmlinux is checked against the kernel's */
		if (m->u.build_id.source == PL_BUILD_ID_KERNEL && m->u.build_id.path.len >= 17 &&
		    !memcmp(m->u.build_id.path.p, "[kernel.kallsyms]", 17))
			pl_symbols_set_kernel_build_id(pl_profile_get_symbols(self), m->u.build_id.id,
						       m->u.build_id.len);
		break;
	case PL_MSG_FILE_CHUNK: {
		const struct pl_msg_file_chunk *c = &m->u.chunk;
		if (c->kind == PL_CHUNK_TRACE_FORMAT) {
			ingest_trace_format(self, c);
			break;
		}
		if (c->kind == PL_CHUNK_INTERRUPTS || c->kind == PL_CHUNK_SOFTIRQS) {
			pl_proc_irq_reads_add_chunk(self->proc_irq_reads, c->kind, c->addr, c->offset,
						    c->total, c->data, c->len);
			break;
		}
		pl_symbols_add_chunk(pl_profile_get_symbols(self), c->kind, c->pid, c->addr,
				     c->offset, c->data, c->len);
		if (c->kind == PL_CHUNK_PERF_MAP) {
			if (c->total == 0 || c->offset + c->len >= c->total) {
				g_hash_table_remove(self->perf_map_partial, GUINT_TO_POINTER(c->pid));
				pl_profile_addrs_resolve_again(self, c->pid);
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
		pl_profile_see_time(self, m->u.end.time);
		break;
	case PL_MSG_TRACK_DESC:
		pl_counter_tracks_add_desc(self->counter_tracks, &m->u.track_desc);
		break;
	case PL_MSG_TRACK_VALUES:
		pl_counter_tracks_add_values(self->counter_tracks, &m->u.track_values);
		break;
	case PL_MSG_TRIGGER:
		/* a snapshot tells each firing once: a few at most */
		if (self->triggers->len < 256) {
			PlTrigger t = { m->u.trigger.time, m->u.trigger.from, m->u.trigger.to,
					m->u.trigger.kind, str_dup(m->u.trigger.spec),
					str_dup(m->u.trigger.detail) };
			g_array_append_val(self->triggers, t);
			pl_profile_see_time(self, t.time);
		}
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
	return TRUE;
}

gboolean pl_profile_ingest(const struct pl_msg *m, gpointer profile)
{
	PlProfile *self = profile;
	return pl_time_order_push(self->order, m, ingest_now, self);
}

gboolean pl_profile_ingest_ordered(const struct pl_msg *m, gpointer profile)
{
	PlProfile *self = profile;
	/* what the profile's own order still holds goes first: its messages
	 * came before */
	if (pl_time_order_len(self->order))
		pl_time_order_flush(self->order, ingest_now, self);
	return ingest_now(m, self);
}
