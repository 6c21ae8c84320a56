/* pl-fleet-store.c — see pl-fleet-store.h.
 *
 * A spool file, NNNNNNNNNNNNNNNN.block (its sequence number, 16 digits, so
 * that names sort in order), holds one block:
 *   "PLFLEET2\n", session\0, event\0, little-endian u32 n_labels, each
 *   label "KEY=VALUE"\0, then u32 number, u64 n_samples, u64 value,
 *   u64 n_stacks, u64 samples_len, u64 stacks_len, then the samples' Native
 *   and the stacks' RowBinary bytes.
 * It is read back with every length checked against the file's size.  A
 * "PLFLEET1" file (an earlier PerfLens's rows, strings in every row) is
 * refused with what to do: its rows do not fit the tables this one makes.
 */
#include "pl-fleet-store.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-fleet-schema.h"

#define SPOOL_MAGIC "PLFLEET2\n"
#define SPOOL_MAGIC_V1 "PLFLEET1\n"
/* labels a block may carry, read back: an agent sends a few */
#define SPOOL_MAX_LABELS 4096
/* sessions whose row a store remembers having written */
#define SESSIONS_REMEMBERED 100000
#define SPOOL_SUFFIX ".block"

typedef struct {
	guint64 seq;
	guint64 bytes;
	guint64 samples;
} Spooled;

struct _PlFleetStore {
	PlClickhouse *ch;
	char *dir;
	guint64 max_bytes;
	guint64 spool_bytes;
	guint64 next_seq;
	GQueue spool; /* Spooled*, oldest first */
	GHashTable *sessions; /* guint64* ids whose perflens_sessions row this store wrote */
	PlFleetStoreStats stats;
};

static char *spool_path(PlFleetStore *self, guint64 seq)
{
	return g_strdup_printf("%s/%016" G_GUINT64_FORMAT SPOOL_SUFFIX, self->dir, seq);
}

static gint by_seq(gconstpointer a, gconstpointer b, gpointer unused)
{
	guint64 x = ((const Spooled *)a)->seq, y = ((const Spooled *)b)->seq;
	return x < y ? -1 : x > y;
}

/* ─── the spool's files ─────────────────────────────────────────────── */

static void put_le(GByteArray *g, guint64 v, guint n)
{
	for (guint i = 0; i < n; i++) {
		guint8 x = (guint8)(v >> (8 * i));
		g_byte_array_append(g, &x, 1);
	}
}

static gboolean write_all(int fd, const guint8 *p, gsize n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return FALSE;
		p += w;
		n -= (gsize)w;
	}
	return TRUE;
}

static gboolean fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return FALSE;
	gboolean ok = fsync(fd) == 0;
	return close(fd) == 0 && ok;
}

/* Writes b as spool file seq: whole and on disk, or not at all. */
static gboolean spool_write(PlFleetStore *self, const PlFleetBlock *b, guint64 seq, guint64 *bytes,
			    GError **error)
{
	g_autoptr(GByteArray) head = g_byte_array_new();
	g_byte_array_append(head, (const guint8 *)SPOOL_MAGIC, sizeof SPOOL_MAGIC - 1);
	g_byte_array_append(head, (const guint8 *)b->session, (guint)strlen(b->session) + 1);
	g_byte_array_append(head, (const guint8 *)b->event, (guint)strlen(b->event) + 1);
	put_le(head, g_strv_length(b->labels), 4);
	for (guint i = 0; b->labels[i]; i++)
		g_byte_array_append(head, (const guint8 *)b->labels[i], (guint)strlen(b->labels[i]) + 1);
	put_le(head, b->number, 4);
	put_le(head, b->n_samples, 8);
	put_le(head, b->value, 8);
	put_le(head, b->n_stacks, 8);
	put_le(head, b->samples->len, 8);
	put_le(head, b->stacks->len, 8);
	g_autofree char *path = spool_path(self, seq);
	g_autofree char *tmp = g_strconcat(path, ".tmp", NULL);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	gboolean ok = fd >= 0 && write_all(fd, head->data, head->len) &&
		      write_all(fd, b->samples->data, b->samples->len) &&
		      write_all(fd, b->stacks->data, b->stacks->len) && fsync(fd) == 0;
	int e = errno;
	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = FALSE;
		e = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = FALSE;
		e = errno;
	}
	if (ok && !fsync_dir(self->dir)) {
		ok = FALSE;
		e = errno;
	}
	if (!ok) {
		unlink(tmp);
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
			    "cannot spool a block of session %s to %s: %s (ClickHouse could not take "
			    "it either: free space there or give the spool another directory)",
			    b->session, self->dir, g_strerror(e));
		return FALSE;
	}
	*bytes = head->len + b->samples->len + b->stacks->len;
	return TRUE;
}

typedef struct {
	const guint8 *p, *end;
} Cursor;

static gboolean take(Cursor *c, guint64 *v, guint n)
{
	if ((gsize)(c->end - c->p) < n)
		return FALSE;
	*v = 0;
	for (guint i = 0; i < n; i++)
		*v |= (guint64)c->p[i] << (8 * i);
	c->p += n;
	return TRUE;
}

static const char *take_str(Cursor *c)
{
	const guint8 *z = memchr(c->p, 0, (gsize)(c->end - c->p));
	if (!z)
		return NULL;
	const char *s = (const char *)c->p;
	c->p = z + 1;
	return s;
}

/* Reads spool file seq back into a block, every length checked. */
static PlFleetBlock *spool_read(PlFleetStore *self, guint64 seq, GError **error)
{
	g_autofree char *path = spool_path(self, seq);
	g_autofree char *data = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &data, &len, error))
		return NULL;
	Cursor c = { (const guint8 *)data, (const guint8 *)data + len };
	guint64 number, n_samples, value, n_stacks, samples_len, stacks_len, n_labels = 0;
	const char *session = NULL, *event = NULL;
	g_autoptr(GPtrArray) labels = g_ptr_array_new();
	if (len >= sizeof SPOOL_MAGIC_V1 - 1 &&
	    memcmp(data, SPOOL_MAGIC_V1, sizeof SPOOL_MAGIC_V1 - 1) == 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "the spooled block %s was written by an earlier PerfLens, for the fleet "
			    "tables that carried labels in every sample row: store it with that "
			    "version, or move it away to go on",
			    path);
		return NULL;
	}
	gboolean ok = len >= sizeof SPOOL_MAGIC - 1 &&
		      memcmp(data, SPOOL_MAGIC, sizeof SPOOL_MAGIC - 1) == 0;
	if (ok) {
		c.p += sizeof SPOOL_MAGIC - 1;
		ok = (session = take_str(&c)) && (event = take_str(&c)) && take(&c, &n_labels, 4) &&
		     n_labels <= SPOOL_MAX_LABELS;
		for (guint64 i = 0; ok && i < n_labels; i++) {
			const char *l = take_str(&c);
			ok = l != NULL;
			g_ptr_array_add(labels, (gpointer)l);
		}
		g_ptr_array_add(labels, NULL);
		ok = ok && take(&c, &number, 4) &&
		     take(&c, &n_samples, 8) && take(&c, &value, 8) && take(&c, &n_stacks, 8) &&
		     take(&c, &samples_len, 8) && take(&c, &stacks_len, 8) &&
		     samples_len <= (guint64)(c.end - c.p) &&
		     stacks_len == (guint64)(c.end - c.p) - samples_len && samples_len <= G_MAXUINT &&
		     stacks_len <= G_MAXUINT;
	}
	if (!ok) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "the spooled block %s is not whole or not a PerfLens block: move it "
			    "away to go on",
			    path);
		return NULL;
	}
	PlFleetBlock *b = pl_fleet_block_new(session, (guint32)number, event,
					     (const char *const *)labels->pdata);
	b->n_samples = n_samples;
	b->value = value;
	b->n_stacks = n_stacks;
	g_byte_array_append(b->samples, c.p, (guint)samples_len);
	g_byte_array_append(b->stacks, c.p + samples_len, (guint)stacks_len);
	return b;
}

static gboolean spool_remove(PlFleetStore *self, Spooled *s, GError **error)
{
	g_autofree char *path = spool_path(self, s->seq);
	if (unlink(path) != 0 || !fsync_dir(self->dir)) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
			    "cannot remove the stored block %s from the spool: %s (it would be sent "
			    "again; it would not be counted twice)",
			    path, g_strerror(e));
		return FALSE;
	}
	self->spool_bytes -= s->bytes;
	return TRUE;
}

/* ─── ClickHouse ──────────────────────────────────────────────────────── */

typedef enum { SENT, NOT_NOW, REFUSED } Outcome;

/* How many samples (session, number) has in table (count: "count()" or
 * "sum(samples)"); NULL with err when ClickHouse cannot say. */
static char *stored_count(PlFleetStore *self, const char *table, const char *count,
			  guint64 session, guint32 number, GError **err)
{
	g_autofree char *ask = g_strdup_printf("SELECT %s FROM %s WHERE session = %" G_GUINT64_FORMAT
					       " AND block = %u",
					       count, table, session, number);
	return pl_clickhouse_query_value(self->ch, ask, err);
}

/* b's session's row in perflens_sessions, once per store and session (a
 * store started again writes it again: readers group by session). */
static gboolean put_session(PlFleetStore *self, const PlFleetBlock *b, GError **error)
{
	if (g_hash_table_contains(self->sessions, &b->session_id))
		return TRUE;
	g_autoptr(GByteArray) row = pl_fleet_block_session_row(b);
	if (!pl_clickhouse_run(self->ch,
			       "INSERT INTO perflens_sessions " PL_FLEET_SESSION_COLUMNS " FORMAT RowBinary",
			       row->data, row->len, NULL, error))
		return FALSE;
	/* bounded: a session written again is one session to its readers */
	if (g_hash_table_size(self->sessions) >= SESSIONS_REMEMBERED)
		g_hash_table_remove_all(self->sessions);
	g_hash_table_add(self->sessions, g_memdup2(&b->session_id, sizeof b->session_id));
	return TRUE;
}

/* Inserts b unless (session, number) is stored already.  Stored means in
 * the samples and in their per-minute rollup: a server killed after
 * writing the samples' part and before the view's leaves the block
 * without its rollup, which is made again here from the stored samples.
 * The session's row goes in before its samples, so that a stored sample
 * always has it. */
static Outcome send_block(PlFleetStore *self, const PlFleetBlock *b, GError **error)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *count = stored_count(self, "perflens_samples", "count()", b->session_id,
					      b->number, &err);
	if (count && g_ascii_strtoull(count, NULL, 10) > 0) {
		guint64 n = g_ascii_strtoull(count, NULL, 10);
		if (n != b->n_samples) {
			g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_REFUSED,
				    "block %u of session %s is stored with %" G_GUINT64_FORMAT
				    " samples, not its %" G_GUINT64_FORMAT
				    ": two writers for one session?",
				    b->number, b->session, n, b->n_samples);
			return REFUSED;
		}
		g_autofree char *rolled = stored_count(self, "perflens_minutes", "sum(samples)",
						       b->session_id, b->number, &err);
		if (rolled && g_ascii_strtoull(rolled, NULL, 10) == 0) {
			g_autofree char *mend = g_strdup_printf(
				"INSERT INTO perflens_minutes " PL_FLEET_MINUTES_COLUMNS " "
				PL_FLEET_MINUTES_SELECT " FROM perflens_samples WHERE session = %"
				G_GUINT64_FORMAT " AND block = %u " PL_FLEET_MINUTES_GROUP,
				b->session_id, b->number);
			if (pl_clickhouse_run(self->ch, mend, NULL, 0, NULL, &err))
				self->stats.rollups_mended++;
		}
		if (!err)
			put_session(self, b, &err);
		if (!err) {
			self->stats.blocks_already_stored++;
			return SENT;
		}
	}
	if (count && !err)
		put_session(self, b, &err);
	if (count && !err && b->n_stacks)
		pl_clickhouse_run(self->ch, "INSERT INTO perflens_stacks " PL_FLEET_STACK_COLUMNS " FORMAT RowBinary",
				  b->stacks->data, b->stacks->len, NULL, &err);
	if (count && !err)
		pl_clickhouse_run(self->ch, PL_FLEET_SAMPLES_INSERT, b->samples->data, b->samples->len,
				  NULL, &err);
	if (!err) {
		self->stats.blocks_inserted++;
		self->stats.samples_inserted += b->n_samples;
		return SENT;
	}
	gboolean later = err->domain == PL_CLICKHOUSE_ERROR &&
			 (err->code == PL_CLICKHOUSE_ERROR_UNREACHABLE || err->code == PL_CLICKHOUSE_ERROR_BUSY);
	g_propagate_error(error, g_steal_pointer(&err));
	return later ? NOT_NOW : REFUSED;
}

/* Sends n blocks (n > 1) as one batch when none is stored yet: one
 * statement for the sessions' rows not written yet, one for the stacks,
 * one for the samples (the blocks' Native blocks one after the other,
 * each stored whole or not at all, on one server as on its shard).  When
 * one is stored (a retry), each goes on its own through send_block, which
 * checks it.  *sent: how many blocks, from the first, are stored. */
static Outcome send_batch(PlFleetStore *self, PlFleetBlock *const *blocks, guint n, guint *sent,
			  GError **error)
{
	*sent = 0;
	g_autoptr(GError) err = NULL;
	GString *pairs = g_string_new(NULL);
	for (guint i = 0; i < n; i++)
		g_string_append_printf(pairs, "%s(%" G_GUINT64_FORMAT ", %u)", i ? ", " : "",
				       blocks[i]->session_id, blocks[i]->number);
	g_autofree char *ask = g_strdup_printf(
		"SELECT count() FROM perflens_samples WHERE (session, block) IN (%s)", pairs->str);
	g_string_free(pairs, TRUE);
	g_autofree char *count = pl_clickhouse_query_value(self->ch, ask, &err);
	if (count && g_ascii_strtoull(count, NULL, 10) > 0) {
		for (guint i = 0; i < n; i++) {
			Outcome o = send_block(self, blocks[i], error);
			if (o != SENT)
				return o;
			(*sent)++;
		}
		return SENT;
	}
	g_autoptr(GByteArray) rows = g_byte_array_new();
	g_autoptr(GByteArray) stacks = g_byte_array_new();
	g_autoptr(GByteArray) samples = g_byte_array_new();
	g_autoptr(GHashTable) new_sessions = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (guint i = 0; count && i < n; i++) {
		const PlFleetBlock *b = blocks[i];
		if (!g_hash_table_contains(self->sessions, &b->session_id) &&
		    g_hash_table_add(new_sessions, (gpointer)&b->session_id)) {
			g_autoptr(GByteArray) row = pl_fleet_block_session_row(b);
			g_byte_array_append(rows, row->data, row->len);
		}
		g_byte_array_append(stacks, b->stacks->data, b->stacks->len);
		g_byte_array_append(samples, b->samples->data, b->samples->len);
	}
	if (count && rows->len)
		pl_clickhouse_run(self->ch,
				  "INSERT INTO perflens_sessions " PL_FLEET_SESSION_COLUMNS " FORMAT RowBinary",
				  rows->data, rows->len, NULL, &err);
	if (count && !err) {
		GHashTableIter it;
		gpointer id;
		if (g_hash_table_size(self->sessions) + g_hash_table_size(new_sessions) > SESSIONS_REMEMBERED)
			g_hash_table_remove_all(self->sessions);
		g_hash_table_iter_init(&it, new_sessions);
		while (g_hash_table_iter_next(&it, &id, NULL))
			g_hash_table_add(self->sessions, g_memdup2(id, sizeof(guint64)));
	}
	if (count && !err && stacks->len)
		pl_clickhouse_run(self->ch, "INSERT INTO perflens_stacks " PL_FLEET_STACK_COLUMNS " FORMAT RowBinary",
				  stacks->data, stacks->len, NULL, &err);
	if (count && !err)
		pl_clickhouse_run(self->ch, PL_FLEET_SAMPLES_INSERT, samples->data, samples->len, NULL,
				  &err);
	if (!err) {
		for (guint i = 0; i < n; i++) {
			self->stats.blocks_inserted++;
			self->stats.samples_inserted += blocks[i]->n_samples;
		}
		*sent = n;
		return SENT;
	}
	gboolean later = err->domain == PL_CLICKHOUSE_ERROR &&
			 (err->code == PL_CLICKHOUSE_ERROR_UNREACHABLE || err->code == PL_CLICKHOUSE_ERROR_BUSY);
	g_propagate_error(error, g_steal_pointer(&err));
	return later ? NOT_NOW : REFUSED;
}

static gboolean spool_add(PlFleetStore *self, const PlFleetBlock *b, GError **error)
{
	guint64 bytes = 0, seq = self->next_seq;
	if (!spool_write(self, b, seq, &bytes, error))
		return FALSE;
	self->next_seq++;
	Spooled *s = g_new(Spooled, 1);
	*s = (Spooled){ seq, bytes, b->n_samples };
	g_queue_push_tail(&self->spool, s);
	self->spool_bytes += bytes;
	self->stats.blocks_spooled++;
	/* bounded: the oldest go first, counted (the newest is kept: it is
	 * what the user is looking at now) */
	while (self->spool_bytes > self->max_bytes && self->spool.length > 1) {
		Spooled *old = g_queue_pop_head(&self->spool);
		if (!spool_remove(self, old, error)) {
			g_queue_push_head(&self->spool, old);
			return FALSE;
		}
		self->stats.blocks_dropped++;
		self->stats.samples_dropped += old->samples;
		g_free(old);
	}
	return TRUE;
}

gboolean pl_fleet_store_flush(PlFleetStore *self, GError **error)
{
	while (self->spool.length) {
		Spooled *s = g_queue_peek_head(&self->spool);
		g_autoptr(PlFleetBlock) b = spool_read(self, s->seq, error);
		if (!b)
			return FALSE;
		GError *err = NULL;
		Outcome o = send_block(self, b, &err);
		if (o == NOT_NOW) {
			g_error_free(err);
			return FALSE;
		}
		if (o == REFUSED) {
			g_propagate_error(error, err);
			return FALSE;
		}
		if (!spool_remove(self, s, error))
			return FALSE;
		g_free(g_queue_pop_head(&self->spool));
	}
	return TRUE;
}

gboolean pl_fleet_store_put(PlFleetStore *self, const PlFleetBlock *b, GError **error)
{
	/* in order: a session's blocks reach ClickHouse oldest first */
	if (self->spool.length && !pl_fleet_store_flush(self, NULL))
		return spool_add(self, b, error);
	GError *err = NULL;
	Outcome o = send_block(self, b, &err);
	if (o == SENT)
		return TRUE;
	if (!spool_add(self, b, error)) {
		g_clear_error(&err);
		return FALSE;
	}
	if (o == NOT_NOW) {
		g_error_free(err);
		return TRUE;
	}
	g_propagate_error(error, err);
	return FALSE;
}

gboolean pl_fleet_store_put_all(PlFleetStore *self, GPtrArray *blocks, GError **error)
{
	if (blocks->len == 1)
		return pl_fleet_store_put(self, blocks->pdata[0], error);
	guint sent = 0;
	GError *err = NULL;
	Outcome o = SENT;
	if (blocks->len && (!self->spool.length || pl_fleet_store_flush(self, NULL)))
		o = send_batch(self, (PlFleetBlock *const *)blocks->pdata, blocks->len, &sent, &err);
	/* the spool is not empty: behind it, in order */
	for (guint i = sent; i < blocks->len; i++)
		if (!spool_add(self, blocks->pdata[i], error)) {
			g_clear_error(&err);
			return FALSE;
		}
	if (o == REFUSED) {
		g_propagate_error(error, err);
		return FALSE;
	}
	g_clear_error(&err);
	return TRUE;
}

/* ─── the store ───────────────────────────────────────────────────────── */

PlFleetStore *pl_fleet_store_new(PlClickhouse *ch, const char *spool_dir, guint64 max_bytes,
				 GError **error)
{
	if (g_mkdir_with_parents(spool_dir, 0700) != 0) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
			    "cannot make the spool directory %s: %s", spool_dir, g_strerror(e));
		return NULL;
	}
	g_autoptr(GDir) d = g_dir_open(spool_dir, 0, error);
	if (!d)
		return NULL;
	PlFleetStore *self = g_new0(PlFleetStore, 1);
	self->ch = ch;
	self->dir = g_strdup(spool_dir);
	self->max_bytes = max_bytes;
	g_queue_init(&self->spool);
	self->sessions = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	/* an earlier run's blocks: taken over, in their order */
	const char *name;
	while ((name = g_dir_read_name(d))) {
		if (strlen(name) != 16 + strlen(SPOOL_SUFFIX) || !g_str_has_suffix(name, SPOOL_SUFFIX))
			continue;
		char *end = NULL;
		guint64 seq = g_ascii_strtoull(name, &end, 10);
		if (end != name + 16)
			continue;
		g_autofree char *path = g_build_filename(spool_dir, name, NULL);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		/* its samples, so that dropping it later is counted right; an
		 * unreadable one stays, for flush() to say what is wrong */
		g_autoptr(PlFleetBlock) b = spool_read(self, seq, NULL);
		Spooled *s = g_new(Spooled, 1);
		*s = (Spooled){ seq, (guint64)st.st_size, b ? b->n_samples : 0 };
		g_queue_insert_sorted(&self->spool, s, by_seq, NULL);
		self->spool_bytes += s->bytes;
		self->next_seq = MAX(self->next_seq, seq + 1);
	}
	return self;
}

void pl_fleet_store_free(PlFleetStore *self)
{
	if (!self)
		return;
	g_queue_clear_full(&self->spool, g_free);
	g_hash_table_destroy(self->sessions);
	g_free(self->dir);
	g_free(self);
}

guint pl_fleet_store_get_n_spooled(PlFleetStore *self)
{
	return self->spool.length;
}

const PlFleetStoreStats *pl_fleet_store_get_stats(PlFleetStore *self)
{
	return &self->stats;
}
