/* pl-fleet-block.c — see pl-fleet-block.h.  RowBinary is ClickHouse's
 * plain binary row format: integers little-endian, strings and arrays a
 * LEB128 length then the bytes or elements, DateTime a UInt32 of seconds. */
#include "pl-fleet-block.h"

#include <string.h>

#include "pl-fleet-rowbinary.h"

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
	if (b->samples)
		g_byte_array_unref(b->samples);
	if (b->stacks)
		g_byte_array_unref(b->stacks);
	g_free(b);
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

static PlFleetBlock *block_new(const char *session, guint32 number, const char *event)
{
	PlFleetBlock *b = g_new0(PlFleetBlock, 1);
	b->session = g_strdup(session);
	b->number = number;
	b->event = g_strdup(event);
	b->samples = g_byte_array_new();
	b->stacks = g_byte_array_new();
	return b;
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
	g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; labels && labels[i]; i++) {
		const char *eq = strchr(labels[i], '=');
		g_ptr_array_add(keys, eq ? g_strndup(labels[i], (gsize)(eq - labels[i])) : g_strdup(labels[i]));
		g_ptr_array_add(values, g_strdup(eq ? eq + 1 : ""));
	}
	Stacks st = { profile, g_hash_table_new(NULL, NULL),
		      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL) };
	guint n = 0;
	const PlSample *s = pl_profile_get_samples(profile, &n);
	PlFleetBlock *b = NULL;
	/* the current block's month, looked up only when a sample leaves it
	 * (not once per sample) */
	gint64 month_start = 0, month_end = 0;
	/* the columns every row of a block shares (session … labels), encoded
	 * once per block: a row is then three appends, not a dozen */
	g_autoptr(GByteArray) mid = g_byte_array_new();
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
			b = block_new(session, first_block + blocks->len, event);
			g_ptr_array_add(blocks, b);
			g_byte_array_set_size(mid, 0);
			pl_rb_put_str(mid, session);
			pl_rb_put_int(mid, b->number, 4);
			pl_rb_put_str(mid, event);
			pl_rb_put_len(mid, keys->len);
			for (guint k = 0; k < keys->len; k++)
				pl_rb_put_str(mid, keys->pdata[k]);
			pl_rb_put_len(mid, values->len);
			for (guint k = 0; k < values->len; k++)
				pl_rb_put_str(mid, values->pdata[k]);
		}
		guint64 h = stack_of(&st, s[i].stack, b);
		if (s[i].tid != last_tid) {
			const PlThread *t = pl_profile_lookup_thread(profile, s[i].tid);
			last_tid = s[i].tid;
			last_pid = t ? t->pid : 0;
		}
		guint8 head[8], tail[26];
		pl_rb_le(head, (guint32)secs, 4);
		pl_rb_le(head + 4, (guint32)(wall % 1000000000), 4);
		pl_rb_le(tail, last_pid, 4);
		pl_rb_le(tail + 4, s[i].tid, 4);
		pl_rb_le(tail + 8, 0, 2); /* the profile keeps no CPU per sample */
		pl_rb_le(tail + 10, h, 8);
		pl_rb_le(tail + 18, s[i].weight, 8);
		g_byte_array_append(b->samples, head, sizeof head);
		g_byte_array_append(b->samples, mid->data, mid->len);
		g_byte_array_append(b->samples, tail, sizeof tail);
		b->n_samples++;
		b->value += s[i].weight;
	}
	g_hash_table_destroy(st.by_address); /* its values are defined's keys */
	g_hash_table_destroy(st.defined);
	return blocks;
}
