/* pl-fleet-profile.c — see pl-fleet-profile.h. */
#include "pl-fleet-profile.h"

#include <elf.h>
#include <gio/gio.h>
#include <string.h>

#include "msg.h"
#include "pl-fleet-rowbinary.h"
#include "pl-fleet-schema.h"
#include "pl-sym-embed.h"

#define PID 1
#define FIRST_PC 0x100000u
#define PC_STEP 0x10u

static struct pl_str str_of(const char *s)
{
	return (struct pl_str){ s, (uint32_t)strlen(s) };
}

/* A profile being made of stored stacks: each distinct frame label gets
 * an address, and the embedded table the answer for it in every process
 * that uses it (the table is asked per process). */
typedef struct {
	PlProfile *p;
	PlSymEmbed *embed;   /* the profile's symbols own it */
	GHashTable *pcs;     /* label (borrowed from the caller) -> address */
	GHashTable *put;     /* (pid, address) already in the table */
	struct pl_msg *sm;   /* a sample is large: not on the stack */
} Builder;

static void builder_init(Builder *b, const char *event, const char *name)
{
	b->p = pl_profile_new(NULL);
	struct pl_msg m = { .type = PL_MSG_HELLO };
	m.u.hello = (struct pl_msg_hello){
		.protocol_version = PL_PROTOCOL_VERSION,
		.agent_version = str_of("fleet"),
		.machine = str_of("fleet"),
		.e_machine = EM_X86_64,
		.byte_order = PL_LITTLE_ENDIAN,
		.word_size = 8,
		.page_size = 4096,
		.kernel_release = str_of(""),
		.hostname = str_of(name ? name : "fleet"),
		.ncpus = 1,
	};
	pl_profile_ingest(&m, b->p);
	memset(&m, 0, sizeof m);
	m.type = PL_MSG_EVENT_DESC;
	m.u.event_desc.index = 0;
	m.u.event_desc.role = PL_ROLE_SAMPLED;
	m.u.event_desc.name = str_of(event ? event : "samples");
	pl_profile_ingest(&m, b->p);
	/* the profile's symbols answer from this table alone; a frame's
	 * answer goes in before the first sample that needs it */
	b->embed = pl_sym_embed_new();
	pl_symbols_set_embedded(pl_profile_get_symbols(b->p), b->embed);
	b->pcs = g_hash_table_new(g_str_hash, g_str_equal);
	b->put = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	b->sm = g_new0(struct pl_msg, 1);
	b->sm->type = PL_MSG_SAMPLE;
	b->sm->u.sample.cpumode = 2; /* PERF_RECORD_MISC_USER */
}

/* The address of a frame label in process pid. */
static guint64 pc_of(Builder *b, guint32 pid, const char *label)
{
	gpointer v;
	guint64 pc;
	if (g_hash_table_lookup_extended(b->pcs, label, NULL, &v)) {
		pc = GPOINTER_TO_SIZE(v);
	} else {
		pc = FIRST_PC + PC_STEP * g_hash_table_size(b->pcs);
		g_hash_table_insert(b->pcs, (gpointer)label, GSIZE_TO_POINTER(pc));
	}
	/* addresses stay far below 2^32: pid and address fit one key */
	gint64 key = (gint64)(((guint64)pid << 32) | pc);
	if (g_hash_table_contains(b->put, &key))
		return pc;
	g_hash_table_add(b->put, g_memdup2(&key, sizeof key));
	const char *sp = strrchr(label, ' ');
	g_autofree char *name = sp ? g_strndup(label, (gsize)(sp - label)) : g_strdup(label);
	PlFrameInfo fr = { .function = *name ? name : NULL,
			   .module = sp ? sp + 1 : "[unknown]",
			   .rel_addr = pc };
	/* the leaf is asked as an address, its callers as return addresses */
	pl_sym_embed_put_frames(b->embed, pid, pc, FALSE, &fr, 1);
	pl_sym_embed_put_frames(b->embed, pid, pc, TRUE, &fr, 1);
	return pc;
}

/* One sample of frames (innermost first, NULL-terminated; labels live as
 * long as the builder). */
static void builder_add(Builder *b, guint32 pid, guint32 tid, guint32 cpu, guint64 time,
			guint64 period, char **frames)
{
	struct pl_msg_sample *s = &b->sm->u.sample;
	guint n = 0;
	for (; frames && frames[n] && n < PL_MAX_CALLCHAIN; n++)
		s->callchain[n] = pc_of(b, pid, frames[n]);
	if (n == 0)
		s->callchain[n++] = pc_of(b, pid, "[unknown]");
	s->nr_callchain = n;
	s->ip = s->callchain[0];
	s->pid = pid;
	s->tid = tid;
	s->cpu = cpu;
	s->time = time;
	s->period = period;
	pl_profile_ingest(b->sm, b->p);
}

static PlProfile *builder_finish(Builder *b)
{
	g_hash_table_destroy(b->pcs);
	g_hash_table_destroy(b->put);
	g_free(b->sm);
	pl_profile_finish(b->p);
	return b->p;
}

static void builder_abandon(Builder *b)
{
	pl_profile_free(builder_finish(b));
}

PlProfile *pl_fleet_profile_new(GPtrArray *stacks, const char *event, const char *name,
				guint64 max_samples, GError **error)
{
	guint64 total = 0;
	for (guint i = 0; i < stacks->len; i++)
		total += ((const PlFleetStack *)stacks->pdata[i])->count;
	if (total > max_samples) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
			    "%" G_GUINT64_FORMAT " samples are selected, over the %" G_GUINT64_FORMAT
			    " a profile is built from: narrow --where or --since, or export "
			    "--format collapsed (any size)",
			    total, max_samples);
		return NULL;
	}
	Builder b = { 0 };
	builder_init(&b, event, name);
	guint64 time = 0;
	for (guint i = 0; i < stacks->len; i++) {
		const PlFleetStack *st = stacks->pdata[i];
		for (guint64 k = 0; k < st->count; k++)
			builder_add(&b, PID, PID, 0, ++time, 1, st->frames);
	}
	return builder_finish(&b);
}

PlProfile *pl_fleet_profile_new_weighted(GPtrArray *stacks, const char *event, const char *name)
{
	Builder b = { 0 };
	builder_init(&b, event, name);
	guint64 time = 0;
	for (guint i = 0; i < stacks->len; i++) {
		const PlFleetStack *st = stacks->pdata[i];
		if (st->count)
			builder_add(&b, PID, PID, 0, ++time, st->count, st->frames);
	}
	return builder_finish(&b);
}

/* ─── one stored session ─────────────────────────────────────────────── */

static void strv_free(gpointer p)
{
	g_strfreev(p);
}

/* stack hash -> frames (GStrv) of the stacks session's samples use. */
static GHashTable *session_stacks(PlClickhouse *ch, const char *session_sql, GError **error)
{
	g_autofree char *q = g_strdup_printf(
		"SELECT stack, fr FROM (SELECT DISTINCT stack FROM perflens_samples WHERE %s) "
		"ANY LEFT JOIN (SELECT stack, any(frames) AS fr FROM perflens_stacks GROUP BY "
		"stack) USING stack FORMAT RowBinary",
		session_sql);
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(ch, q, NULL, 0, &out, error))
		return NULL;
	g_autoptr(GHashTable) h = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, strv_free);
	PlRbCursor c = { out->data, out->data + out->len, FALSE };
	while (c.p < c.end && !c.bad) {
		guint64 stack = pl_rb_int(&c, 8);
		guint64 n = pl_rb_len(&c);
		if (c.bad || n > (guint64)(c.end - c.p)) {
			c.bad = TRUE;
			break;
		}
		char **frames = g_new0(char *, n + 1);
		for (guint64 i = 0; i < n && !c.bad; i++) {
			gsize len = 0;
			const char *s = pl_rb_str(&c, &len);
			if (s)
				frames[i] = g_strndup(s, len);
		}
		g_hash_table_insert(h, g_memdup2(&stack, sizeof stack), frames);
	}
	if (c.bad || c.p != c.end) {
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_REFUSED,
			    "ClickHouse's answer for the stacks of a session is not the rows asked for");
		return NULL;
	}
	return g_steal_pointer(&h);
}

PlProfile *pl_fleet_session_profile(PlClickhouse *ch, const char *session, guint64 max_samples,
				    GError **error)
{
	guint64 id = pl_fleet_session_id(session);
	g_autofree char *cond = g_strdup_printf("session = %" G_GUINT64_FORMAT, id);
	g_autofree char *count_q = g_strdup_printf(
		"SELECT count() FROM perflens_samples WHERE %s", cond);
	g_autofree char *count = pl_clickhouse_query_value(ch, count_q, error);
	if (!count)
		return NULL;
	guint64 n = g_ascii_strtoull(count, NULL, 10);
	if (n == 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "the fleet store holds no samples of session %s (perflens fleet "
			    "sessions lists the stored ones)",
			    session);
		return NULL;
	}
	if (n > max_samples) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
			    "session %s holds %" G_GUINT64_FORMAT " samples, over the %" G_GUINT64_FORMAT
			    " a profile is built from: export it with perflens fleet export "
			    "--session (collapsed: any size)",
			    session, n, max_samples);
		return NULL;
	}
	g_autoptr(GHashTable) stacks = session_stacks(ch, cond, error);
	if (!stacks)
		return NULL;
	/* the event is the session's (RowBinary: its name as the agent gave it) */
	g_autofree char *event_q = g_strdup_printf(
		"SELECT any(event) FROM perflens_sessions WHERE %s FORMAT RowBinary", cond);
	g_autoptr(GByteArray) event_out = NULL;
	if (!pl_clickhouse_run(ch, event_q, NULL, 0, &event_out, error))
		return NULL;
	PlRbCursor ec = { event_out->data, event_out->data + event_out->len, FALSE };
	gsize elen = 0;
	const char *ev = pl_rb_str(&ec, &elen);
	g_autofree char *event = g_strndup(ev ? ev : "", ev ? elen : 0);
	/* in time order, as a recording is ingested */
	g_autofree char *q = g_strdup_printf(
		"SELECT time, time_ns, pid, tid, cpu, stack, value FROM perflens_samples "
		"WHERE %s ORDER BY time, time_ns, tid FORMAT RowBinary",
		cond);
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(ch, q, NULL, 0, &out, error))
		return NULL;
	PlRbCursor c = { out->data, out->data + out->len, FALSE };
	Builder b = { 0 };
	gboolean started = FALSE;
	while (c.p < c.end && !c.bad) {
		guint64 secs = pl_rb_int(&c, 4), ns = pl_rb_int(&c, 4);
		guint32 pid = (guint32)pl_rb_int(&c, 4), tid = (guint32)pl_rb_int(&c, 4);
		guint32 cpu = (guint32)pl_rb_int(&c, 2);
		guint64 stack = pl_rb_int(&c, 8), value = pl_rb_int(&c, 8);
		if (c.bad)
			break;
		if (!started) {
			builder_init(&b, *event ? event : NULL, session);
			started = TRUE;
		}
		builder_add(&b, pid, tid, cpu, secs * 1000000000ull + ns, value,
			    g_hash_table_lookup(stacks, &stack));
	}
	if (c.bad || c.p != c.end || !started) {
		if (started)
			builder_abandon(&b);
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_REFUSED,
			    "ClickHouse's answer for the samples of session %s is not the rows "
			    "asked for",
			    session);
		return NULL;
	}
	return builder_finish(&b);
}
