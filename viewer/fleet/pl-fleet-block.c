/* pl-fleet-block.c — see pl-fleet-block.h.  Native is ClickHouse's
 * columnar block format: the number of columns and of rows (LEB128), then
 * each column's name, its type's name (strings) and its values, for
 * numbers the rows' values little-endian one after the other.  RowBinary
 * (the stacks, the session's row) is its plain row format: integers
 * little-endian, strings and arrays a LEB128 length then the bytes or
 * elements. */
#include "pl-fleet-block.h"

#include <string.h>

#include "pl-fleet-rowbinary.h"
#include "pl-fleet-schema.h"

guint64 pl_fleet_stack_hash(const char *const *frames, guint n)
{
	/* FNV-1a 64 over the labels, each ended by a 0 byte so that frame
	 * boundaries count: at 64 bits a fleet's millions of stacks collide
	 * with a chance below 10^-6 */
	guint64 h = 0xcbf29ce484222325ull;
	for (guint i = 0; i < n; i++) {
		for (const guint8 *p = (const guint8 *)frames[i];; p++) {
			h ^= *p;
			h *= 0x100000001b3ull;
			if (!*p)
				break;
		}
	}
	return h;
}

void pl_fleet_block_free(PlFleetBlock *b)
{
	if (!b)
		return;
	g_free(b->session);
	g_free(b->event);
	g_strfreev(b->labels);
	if (b->samples)
		g_byte_array_unref(b->samples);
	if (b->stacks)
		g_byte_array_unref(b->stacks);
	g_free(b);
}

PlFleetBlock *pl_fleet_block_new(const char *session, guint32 number, const char *event,
				 const char *const *labels)
{
	PlFleetBlock *b = g_new0(PlFleetBlock, 1);
	b->session = g_strdup(session);
	b->session_id = pl_fleet_session_id(session);
	b->number = number;
	b->event = g_strdup(event);
	b->labels = labels ? g_strdupv((char **)labels) : g_new0(char *, 1);
	b->samples = g_byte_array_new();
	b->stacks = g_byte_array_new();
	return b;
}

GByteArray *pl_fleet_block_session_row(const PlFleetBlock *b)
{
	GByteArray *row = g_byte_array_new();
	guint n = g_strv_length(b->labels);
	pl_rb_put_int(row, b->session_id, 8);
	pl_rb_put_str(row, b->session);
	pl_rb_put_str(row, b->event);
	pl_rb_put_len(row, n);
	for (guint i = 0; i < n; i++) {
		const char *eq = strchr(b->labels[i], '=');
		gsize len = eq ? (gsize)(eq - b->labels[i]) : strlen(b->labels[i]);
		pl_rb_put_len(row, len);
		g_byte_array_append(row, (const guint8 *)b->labels[i], (guint)len);
	}
	pl_rb_put_len(row, n);
	for (guint i = 0; i < n; i++) {
		const char *eq = strchr(b->labels[i], '=');
		pl_rb_put_str(row, eq ? eq + 1 : "");
	}
	return row;
}

/* ─── the samples, as a Native block ─────────────────────────────────── */

/* One sample's own columns (session and block are the block's). */
typedef struct {
	guint32 secs, ns, pid, tid;
	guint64 stack, value;
	guint16 cpu;
} Row;

/* The Native block of rows into b->samples: columns in the order of
 * PL_FLEET_SAMPLE_COLUMNS, each column's values written in one pass. */
static void encode_rows(PlFleetBlock *b, const GArray *rows)
{
	static const struct {
		const char *name, *type;
		guint size;
	} cols[] = { { "time", "DateTime", 4 }, { "time_ns", "UInt32", 4 },
		     { "session", "UInt64", 8 }, { "block", "UInt32", 4 },
		     { "pid", "UInt32", 4 },	 { "tid", "UInt32", 4 },
		     { "cpu", "UInt16", 2 },	 { "stack", "UInt64", 8 },
		     { "value", "UInt64", 8 } };
	const Row *r = (const Row *)rows->data;
	guint n = rows->len;
	GByteArray *out = b->samples;
	g_byte_array_set_size(out, 0);
	pl_rb_put_len(out, G_N_ELEMENTS(cols));
	pl_rb_put_len(out, n);
	for (guint c = 0; c < G_N_ELEMENTS(cols); c++) {
		pl_rb_put_str(out, cols[c].name);
		pl_rb_put_str(out, cols[c].type);
		guint at = out->len;
		g_byte_array_set_size(out, at + n * cols[c].size);
		guint8 *p = out->data + at;
		for (guint i = 0; i < n; i++, p += cols[c].size) {
			guint64 v = c == 0 ? r[i].secs
				  : c == 1 ? r[i].ns
				  : c == 2 ? b->session_id
				  : c == 3 ? b->number
				  : c == 4 ? r[i].pid
				  : c == 5 ? r[i].tid
				  : c == 6 ? r[i].cpu
				  : c == 7 ? r[i].stack
					   : r[i].value;
			pl_rb_le(p, v, cols[c].size);
		}
	}
}

typedef struct {
	PlProfile *profile;
	GHashTable *by_address; /* address stack (PlSample.stack) + 1 -> its hash (in defined) */
	GHashTable *defined;    /* guint64* hashes already defined in a block (owned) */
} Stacks;

/* The hash of an address stack, defining it in block b when it is new.
 * Address stacks that differ only where the names do not (two return
 * addresses in one function) share one stored stack. */
static guint64 stack_of(Stacks *st, guint32 stack, PlFleetBlock *b)
{
	guint64 *known = g_hash_table_lookup(st->by_address, GUINT_TO_POINTER(stack + 1));
	if (known)
		return *known;
	g_autoptr(GArray) funcs = pl_profile_dup_stack_functions(st->profile, stack, 0);
	g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < funcs->len; i++) {
		guint32 id = g_array_index(funcs, guint32, i);
		const PlFunction *f = pl_profile_get_function(st->profile, id);
		g_ptr_array_add(labels, g_strdup_printf("%s %s", pl_profile_get_function_label(st->profile, id),
							f && f->module ? f->module : "[unknown]"));
	}
	guint64 h = pl_fleet_stack_hash((const char *const *)labels->pdata, labels->len);
	gpointer key = NULL;
	if (!g_hash_table_lookup_extended(st->defined, &h, &key, NULL)) {
		key = g_memdup2(&h, sizeof h);
		g_hash_table_add(st->defined, key);
		pl_rb_put_int(b->stacks, h, 8);
		pl_rb_put_len(b->stacks, labels->len);
		for (guint i = 0; i < labels->len; i++)
			pl_rb_put_str(b->stacks, labels->pdata[i]);
		b->n_stacks++;
	}
	g_hash_table_insert(st->by_address, GUINT_TO_POINTER(stack + 1), key);
	return h;
}

/* The month holding secs, as [*start, *end) in seconds: a block stays in
 * one month, one partition. */
static void month_of(gint64 secs, gint64 *start, gint64 *end)
{
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(secs);
	if (!t) {
		*start = *end = secs; /* out of GLib's range: a block of its own */
		return;
	}
	g_autoptr(GDateTime) first = g_date_time_new_utc(g_date_time_get_year(t),
							g_date_time_get_month(t), 1, 0, 0, 0);
	g_autoptr(GDateTime) next = g_date_time_add_months(first, 1);
	*start = g_date_time_to_unix(first);
	*end = g_date_time_to_unix(next);
}

GPtrArray *pl_fleet_blocks_from_profile(PlProfile *profile, const char *session,
					const char *const *labels, gint64 wall_offset_ns,
					guint max_rows, guint32 first_block)
{
	GPtrArray *blocks = g_ptr_array_new_with_free_func((GDestroyNotify)pl_fleet_block_free);
	guint32 main_event = pl_profile_get_main_event(profile);
	const PlEvent *ev = main_event == PL_NO_ID ? NULL : pl_profile_lookup_event(profile, main_event);
	/* No sampled event has a sample (a session of a program that ended at
	 * once holds only switch samples, which weigh off-CPU nanoseconds, not
	 * counts): nothing to store, never switches counted as CPU samples. */
	if (!ev || !ev->name)
		return blocks;
	const char *event = ev->name;
	Stacks st = { profile, g_hash_table_new(NULL, NULL),
		      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL) };
	guint n = 0;
	const PlSample *s = pl_profile_get_samples(profile, &n);
	const PlSampleCtx *s_cx = pl_profile_get_sample_ctx(profile);
	PlFleetBlock *b = NULL;
	g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(Row));
	/* the current block's month, looked up only when a sample leaves it
	 * (not once per sample) */
	gint64 month_start = 0, month_end = 0;
	guint32 last_tid = G_MAXUINT32, last_pid = 0;
	for (guint i = 0; i < n; i++) {
		if (pl_profile_get_stack_event(profile, s[i].stack) != main_event)
			continue;
		gint64 wall = (gint64)s[i].time + wall_offset_ns;
		gint64 secs = wall / 1000000000;
		gboolean new_month = secs < month_start || secs >= month_end;
		if (new_month)
			month_of(secs, &month_start, &month_end);
		if (!b || b->n_samples >= max_rows || new_month) {
			if (b)
				encode_rows(b, rows);
			g_array_set_size(rows, 0);
			b = pl_fleet_block_new(session, first_block + blocks->len, event, labels);
			g_ptr_array_add(blocks, b);
		}
		guint32 tid = pl_sample_tid(s_cx, &s[i]);
		guint64 weight = pl_sample_weight(s_cx, &s[i]);
		if (tid != last_tid) {
			const PlThread *t = pl_profile_lookup_thread(profile, tid);
			last_tid = tid;
			last_pid = t ? t->pid : 0;
		}
		/* the profile keeps no CPU per sample */
		Row r = { (guint32)secs, (guint32)(wall % 1000000000), last_pid, tid,
			  stack_of(&st, s[i].stack, b), weight, 0 };
		g_array_append_val(rows, r);
		b->n_samples++;
		b->value += weight;
	}
	if (b)
		encode_rows(b, rows);
	g_hash_table_destroy(st.by_address); /* its values are defined's keys */
	g_hash_table_destroy(st.defined);
	return blocks;
}
