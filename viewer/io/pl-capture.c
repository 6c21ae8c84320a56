/* pl-capture.c — loading .plens captures (and dispatching perf.data). */
#include "pl-capture.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-capture-private.h"
#include "pl-chain-store.h"
#include "pl-msg-pack.h"
#include "pl-time-order.h"
#include "reader.h"

PlFileKind pl_capture_detect(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PL_FILE_UNKNOWN;
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	if (n != (ssize_t)sizeof(magic))
		return PL_FILE_UNKNOWN;
	if (memcmp(magic, PL_MAGIC, 8) == 0)
		return PL_FILE_PLENS;
	if (memcmp(magic, "PERFILE2", 8) == 0)
		return PL_FILE_PERF_DATA;
	return PL_FILE_UNKNOWN;
}

char *pl_capture_info_dup_note(const PlCaptureInfo *info)
{
	if (!info || info->ignored_bytes == 0)
		return NULL;
	return g_strdup_printf("%" G_GUINT64_FORMAT " bytes after the last complete block ignored "
			       "(the recording was cut short; everything before it is intact)",
			       info->ignored_bytes);
}

/* ─── .plens ─────────────────────────────────────────────────────────── */

/* reader_out (may be NULL) gets the reader before any message is read, and
 * func then finds a sample's chain through it (pl_reader_sample_chain): a
 * chain of the stack dictionary is left there, not copied into each
 * sample. */
static gboolean load_plens(int fd, const char *path, PlMsgFunc func, gpointer user_data,
			   PlCaptureInfo *info, struct pl_reader **reader_out, GError **error)
{
	struct pl_reader r;
	struct pl_msg *m = g_new0(struct pl_msg, 1); /* ~75 KiB: not on the stack */
	gboolean ok = TRUE;
	enum { CHUNK = 1 << 20 };
	g_autofree guint8 *buf = g_malloc(CHUNK);

	if (pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) < 0) {
		g_free(m);
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO, "out of memory");
		return FALSE;
	}
	if (reader_out) {
		pl_reader_set_chains_by_ref(&r, 1);
		*reader_out = &r;
	}
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO,
				    "%s: read failed: %s", path, g_strerror(errno));
			ok = FALSE;
			break;
		}
		if (n == 0)
			break;
		if (pl_reader_feed(&r, buf, (size_t)n) < 0) {
			g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO, "%s: %s", path,
				    pl_reader_error(&r));
			ok = FALSE;
			break;
		}
		int rc;
		while ((rc = pl_reader_next(&r, m)) == 1) {
			info->messages++;
			if (!func(m, user_data)) {
				g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED,
					    "%s: loading stopped", path);
				ok = FALSE;
				goto out;
			}
		}
		if (rc < 0) {
			/* A bad block: the stream cannot be resynchronised, but what
			 * came before it is good.  A bad header is "not a capture". */
			if (!r.have_header)
				g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT,
					    "%s: %s", path, pl_reader_error(&r));
			else
				g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT,
					    "%s is corrupt after %" G_GUINT64_FORMAT
					    " good blocks (%s); the data before it was read — "
					    "re-record, or copy the file again if it was transferred",
					    path, (guint64)r.blocks, pl_reader_error(&r));
			ok = FALSE;
			break;
		}
	}
out:
	info->blocks = r.blocks;
	info->skipped = r.skipped_frames;
	info->stream_flags = r.header.flags;
	if (ok) {
		if (!r.have_header) {
			g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT,
				    "%s is too short to be a PerfLens capture (%zu bytes)", path,
				    pl_reader_pending(&r));
			ok = FALSE;
		} else {
			info->ignored_bytes = pl_reader_pending(&r);
		}
	}
	pl_reader_free(&r);
	g_free(m);
	return ok;
}


/* ─── .plens decoded on a second thread ──────────────────────────────── */

/* A large capture is read and decoded (blocks, batches of samples, the
 * stack dictionary: a third of a load) on a second thread while the
 * caller's callback runs on its own: the decoder packs each message into
 * a chunk (pl-msg-pack.h), the caller unpacks and delivers them in the
 * same order.  A message that does not pack (the rare descriptions,
 * files, logs) ends its chunk and is delivered as the decoder has it,
 * the decoder waiting meanwhile.  A few chunks circulate: memory stays
 * bounded however far the decoder could run ahead.
 *
 * Loaded for the model (pl_capture_load_ordered), the decoder also holds
 * timed messages in the model's ingest order (pl-time-order.h) and passes
 * each one on as the bytes it was held in: the caller's thread, which
 * builds the model (the heavier half of a load), only unpacks.  A
 * sample's call chain travels as its serial in a PlChainStore
 * (pl-chain-store.h) that both threads share: the bytes held and passed
 * on shrink by the chain, and the model finds a stack it has seen by the
 * serial alone. */

#define PIPE_MIN_BYTES (64u << 10) /* smaller files: no thread */
#define PIPE_CHUNK (1u << 20)
#define PIPE_CHUNKS 4

typedef struct {
	guint8 *data;
	gsize len, cap;
	const struct pl_msg *sync; /* delivered after the packed ones; the decoder waits */
	gboolean last;
} PipeChunk;

typedef struct {
	int fd;
	const char *path;
	GAsyncQueue *full, *free, *ack;
	PipeChunk *cur;
	gint stop; /* the caller stopped: the decoder stops too */
	PlTimeOrder *order; /* not NULL: messages go out in the model's ingest order */
	PlChainStore *chains; /* with order: samples' chains by serial */
	struct pl_reader *reader; /* with order: load_plens', chains left in its dictionary */
	guint32 id_serial[PL_MAX_STACK_IDS + 1]; /* the serial a stack id stood for last */
	guint64 id_def[PL_MAX_STACK_IDS + 1];    /* and the dictionary definition it was */
	/* the decoder's result */
	PlCaptureInfo info;
	GError *error;
	gboolean ok;
} Pipe;

static void pipe_send(Pipe *pp, gboolean last)
{
	pp->cur->last = last;
	g_async_queue_push(pp->full, pp->cur);
	pp->cur = last ? NULL : g_async_queue_pop(pp->free);
	if (pp->cur) {
		pp->cur->len = 0;
		pp->cur->sync = NULL;
		pp->cur->last = FALSE;
	}
}

/* Room for one packed message of len bytes in the current batch (sent on
 * first when it would not fit), behind its size; returns where it goes. */
#define SLOT_HEAD sizeof(gsize)
static guint8 *pipe_slot(Pipe *pp, gsize len)
{
	gsize need = SLOT_HEAD + len;
	if (pp->cur->len && pp->cur->len + need > pp->cur->cap)
		pipe_send(pp, FALSE);
	if (need > pp->cur->cap) {
		pp->cur->cap = need;
		pp->cur->data = g_realloc(pp->cur->data, need);
	}
	guint8 *p = pp->cur->data + pp->cur->len;
	memcpy(p, &need, sizeof(need));
	pp->cur->len += need;
	return p + SLOT_HEAD;
}

static gboolean pipe_put(const struct pl_msg *m, gpointer data)
{
	Pipe *pp = data;
	if (g_atomic_int_get(&pp->stop))
		return FALSE;
	if (!pl_msg_packable(m->type)) {
		pp->cur->sync = m;
		pipe_send(pp, FALSE);
		g_async_queue_pop(pp->ack); /* m borrows the reader until delivered */
		return !g_atomic_int_get(&pp->stop);
	}
	pl_msg_pack(pipe_slot(pp, pl_msg_packed_size(m)), m);
	return TRUE;
}

/* A message the orderer held (or gave out at once), copied on as it was
 * packed there. */
static gboolean pipe_put_packed(const guint8 *packed, gsize len, gpointer data)
{
	Pipe *pp = data;
	if (g_atomic_int_get(&pp->stop))
		return FALSE;
	memcpy(pipe_slot(pp, len), packed, len);
	return TRUE;
}

/* The serial of a sample's chain (0: none could be given).  Most chains
 * come from the reader's stack dictionary, left there: a definition seen
 * before has its serial already.  The capture's stack ids are redefined as
 * the agent's dictionary turns over, so a new definition (or a chain that
 * came whole) is compared with the chain its id stood for last (often the
 * same), then interned. */
static guint32 chain_serial(Pipe *pp, const struct pl_msg_sample *s)
{
	guint32 id = s->stack_id <= PL_MAX_STACK_IDS ? s->stack_id : 0;
	guint64 def = pl_reader_chain_def(pp->reader);
	if (def && pp->id_def[id] == def)
		return pp->id_serial[id];
	const guint64 *chain = pl_reader_sample_chain(pp->reader, s);
	guint32 last = id ? pp->id_serial[id] : 0, nr, serial;
	const guint64 *c = last ? pl_chain_store_get(pp->chains, last, &nr) : NULL;
	if (c && nr == s->nr_callchain && !memcmp(c, chain, nr * sizeof(guint64)))
		serial = last;
	else
		serial = pl_chain_store_intern(pp->chains, chain, s->nr_callchain);
	if (id) {
		pp->id_serial[id] = serial;
		pp->id_def[id] = serial ? def : 0;
	}
	return serial;
}

static gboolean pipe_put_ordered(const struct pl_msg *m, gpointer data)
{
	Pipe *pp = data;
	if (m->type == PL_MSG_SAMPLE && m->u.sample.nr_callchain) {
		/* m is load_plens' own message, decoded for this call only */
		struct pl_msg_sample *s = (struct pl_msg_sample *)&m->u.sample;
		guint32 serial = chain_serial(pp, s);
		if (serial) {
			s->stack_id = serial;
			s->flags |= PL_SAMPLE_CHAIN_SERIAL;
		} else if (pl_reader_chain_def(pp->reader)) {
			/* no serial: the message carries its chain itself */
			memcpy(s->callchain, pl_reader_sample_chain(pp->reader, s),
			       s->nr_callchain * sizeof(guint64));
		}
	}
	return pl_time_order_push(pp->order, m, pipe_put, pp);
}

static gpointer pipe_decoder(gpointer data)
{
	Pipe *pp = data;
	pp->cur = g_async_queue_pop(pp->free);
	pp->ok = load_plens(pp->fd, pp->path, pp->order ? pipe_put_ordered : pipe_put, pp,
			    &pp->info, pp->order ? &pp->reader : NULL, &pp->error);
	/* what was read before an error is delivered too, as the model's own
	 * order would at its finish */
	if (pp->order && !g_atomic_int_get(&pp->stop))
		pl_time_order_flush(pp->order, pipe_put, pp);
	pipe_send(pp, TRUE);
	return NULL;
}

/* The caller's side: packed messages unpacked (a sample's chain from the
 * store) and handed to the caller's function. */
typedef struct {
	PlMsgFunc func;
	gpointer user_data;
	struct pl_msg *m;
	PlChainStore *chains;
	guint64 delivered;
} Deliver;

static gboolean deliver_packed(const guint8 *p, gsize len, gpointer data)
{
	Deliver *d = data;
	struct pl_msg *m = d->m;
	pl_msg_unpack(p, m);
	if (m->type == PL_MSG_SAMPLE && (m->u.sample.flags & PL_SAMPLE_CHAIN_SERIAL)) {
		guint32 nr = 0;
		const guint64 *chain = pl_chain_store_get(d->chains, m->u.sample.stack_id, &nr);
		g_assert(chain && nr == m->u.sample.nr_callchain);
		memcpy(m->u.sample.callchain, chain, nr * sizeof(guint64));
	}
	d->delivered++;
	return d->func(m, d->user_data);
}

static gboolean deliver_msg(const struct pl_msg *m, gpointer data)
{
	Deliver *d = data;
	d->delivered++;
	return d->func(m, d->user_data);
}

static gboolean load_plens_threaded(int fd, const char *path, PlMsgFunc func, gpointer user_data,
				    PlCaptureInfo *info, gboolean ordered, GError **error)
{
	Pipe pp = { .fd = fd, .path = path, .info = *info };
	if (ordered) {
		pp.order = pl_time_order_new();
		pp.chains = pl_chain_store_new();
		pl_time_order_set_packed_out(pp.order, pipe_put_packed);
	}
	pp.full = g_async_queue_new();
	pp.free = g_async_queue_new();
	pp.ack = g_async_queue_new();
	PipeChunk chunks[PIPE_CHUNKS];
	for (guint i = 0; i < PIPE_CHUNKS; i++) {
		chunks[i] = (PipeChunk){ g_malloc(PIPE_CHUNK), 0, PIPE_CHUNK, NULL, FALSE };
		g_async_queue_push(pp.free, &chunks[i]);
	}
	/* ~75 KiB: not on the stack */
	Deliver d = { func, user_data, g_new0(struct pl_msg, 1), pp.chains, 0 };
	gboolean stopped = FALSE;
	GThread *th = g_thread_new("pl-capture-decode", pipe_decoder, &pp);
	for (;;) {
		PipeChunk *c = g_async_queue_pop(pp.full);
		for (gsize off = 0; off < c->len && !stopped;) {
			gsize n;
			memcpy(&n, c->data + off, sizeof(n));
			const guint8 *p = c->data + off + SLOT_HEAD;
			off += n;
			if (!deliver_packed(p, n - SLOT_HEAD, &d)) {
				stopped = TRUE;
				g_atomic_int_set(&pp.stop, 1);
			}
		}
		if (c->sync) {
			/* never timed (pl_msg_packable): out at once in either order */
			if (!stopped && !deliver_msg(c->sync, &d)) {
				stopped = TRUE;
				g_atomic_int_set(&pp.stop, 1);
			}
			c->sync = NULL;
			g_async_queue_push(pp.ack, GINT_TO_POINTER(1));
		}
		gboolean last = c->last;
		g_async_queue_push(pp.free, c);
		if (last)
			break;
	}
	g_thread_join(th);
	*info = pp.info;
	info->messages = d.delivered;
	gboolean ok;
	if (stopped) {
		g_clear_error(&pp.error);
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED, "%s: loading stopped",
			    path);
		ok = FALSE;
	} else {
		ok = pp.ok;
		if (!ok)
			g_propagate_error(error, pp.error);
	}
	for (guint i = 0; i < PIPE_CHUNKS; i++)
		g_free(chunks[i].data);
	g_free(d.m);
	g_async_queue_unref(pp.full);
	g_async_queue_unref(pp.free);
	g_async_queue_unref(pp.ack);
	pl_time_order_free(pp.order);
	if (pp.chains && g_getenv("PERFLENS_DEBUG_CHAINS"))
		g_printerr("perflens: %" G_GSIZE_FORMAT " bytes of distinct call chains\n",
			   pl_chain_store_bytes(pp.chains));
	pl_chain_store_free(pp.chains);
	return ok;
}

static gboolean capture_load(const char *path, PlMsgFunc func, gpointer user_data,
			     PlCaptureInfo *info, gboolean *ordered, GError **error)
{
	PlCaptureInfo dummy;
	struct stat st;
	char magic[8];

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO,
			    "cannot open %s: %s", path, g_strerror(errno));
		return FALSE;
	}
	if (fstat(fd, &st) == 0)
		info->file_size = (guint64)st.st_size;
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO,
			    "%s is a directory: give a .plens or perf.data file", path);
		return FALSE;
	}
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	gboolean ok;
	if (n == (ssize_t)sizeof(magic) && memcmp(magic, "PERFILE2", 8) == 0) {
		info->kind = PL_FILE_PERF_DATA;
		ok = pl_capture_load_perf_data(fd, path, func, user_data, info, error);
	} else if (n >= 0 && (n < (ssize_t)sizeof(magic) || memcmp(magic, PL_MAGIC, 8) == 0)) {
		info->kind = PL_FILE_PLENS;
		if (info->file_size >= PIPE_MIN_BYTES && g_get_num_processors() > 1 &&
		    !g_getenv("PERFLENS_NO_DECODE_THREAD")) {
			if (ordered)
				*ordered = TRUE;
			ok = load_plens_threaded(fd, path, func, user_data, info, ordered != NULL,
						 error);
		} else
			ok = load_plens(fd, path, func, user_data, info, NULL, error);
		info->kind = PL_FILE_PLENS;
	} else if (n < 0) {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO, "cannot read %s: %s",
			    path, g_strerror(errno));
		ok = FALSE;
	} else {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT,
			    "%s is neither a PerfLens capture (.plens) nor a perf.data file", path);
		ok = FALSE;
	}
	close(fd);
	return ok;
}

gboolean pl_capture_load(const char *path, PlMsgFunc func, gpointer user_data,
			 PlCaptureInfo *info, GError **error)
{
	return capture_load(path, func, user_data, info, NULL, error);
}

gboolean pl_capture_load_ordered(const char *path, PlMsgFunc func, gpointer user_data,
				 PlCaptureInfo *info, gboolean *ordered, GError **error)
{
	*ordered = FALSE;
	return capture_load(path, func, user_data, info, ordered, error);
}
