/* perf-data-reader.c — pl_perf_data_read (see perf-data-reader.h): the
 * reader itself.  It opens the file, takes the next record of the data
 * section (next_record, consume_record), sends perf's own records (pipe-mode
 * attrs and features, build-ids, rounds) to the header code and the kernel's
 * to the record decoder, orders them by time within FINISHED_ROUND windows
 * when asked, and inflates PERF_RECORD_COMPRESSED streams.  The parts are
 * listed in perf-data-private.h.
 */
#include <string.h>
#include <sys/types.h>

#include "perf-data-private.h"

static gboolean handle_compressed(Reader *r, const uint8_t *rec, size_t size, uint16_t type,
				  uint64_t off, GError **error);

/* One record, in delivery order.  rec points at its header; size is its
 * checked length (≥ 8).  off is its offset, for messages. */
static gboolean handle_record(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			      gboolean in_compressed, GError **error)
{
	uint16_t type = (uint16_t)ld32(rec, r->be);
	r->st->records++;
	if (type < G_N_ELEMENTS(r->st->by_type))
		r->st->by_type[type]++;

	if (type < PD_REC_KERNEL_MAX) {
		if (!pd_emit_header(r, error))
			return FALSE;
		switch (pd_decode_record(r, rec, size, off, error)) {
		case PD_DECODE_ERROR:
			return FALSE;
		case PD_DECODE_NONE:
			return TRUE;
		case PD_DECODE_MSG:
			break;
		}
		return pd_emit(r, error);
	}

	const uint8_t *b = rec + PD_RECORD_HEADER_SIZE;
	switch (type) {
	case PD_REC_HEADER_ATTR:
		return pd_header_attr_record(r, rec, size, off, error);
	case PD_REC_HEADER_FEATURE: {
		if (size < PD_RECORD_HEADER_SIZE + 8)
			return pd_corrupt(error, r->path, off, "HEADER_FEATURE record too short");
		uint64_t feat = ld64(b, r->be);
		if (feat >= PD_FEAT_BITS || !pd_feature_wanted((int)feat))
			return TRUE;
		return pd_parse_feature(r, (int)feat, b + 8, size - PD_RECORD_HEADER_SIZE - 8,
					off + 16, error);
	}
	case PD_REC_HEADER_BUILD_ID: {
		guint before = r->build_ids->len;
		if (!pd_parse_build_id_entry(r, rec, size, off, error))
			return FALSE;
		/* Pipe mode sends these at the end, after the header messages. */
		if (r->header_sent)
			return pd_emit_build_id(r, g_ptr_array_index(r->build_ids, before), error);
		return TRUE;
	}
	case PD_REC_EVENT_UPDATE:
		pd_event_update_record(r, rec, size);
		return TRUE;
	case PD_REC_FINISHED_ROUND:
		r->st->rounds++;
		return TRUE;
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		if (in_compressed)
			return pd_corrupt(error, r->path, off,
					  "a compressed record inside a compressed one");
		return handle_compressed(r, rec, size, type, off, error);
	default:
		if (type >= PD_REC_MAX)
			r->st->unknown_records++;
		return TRUE;
	}
}

/* ================================================================ ordering */

static int queued_cmp(gconstpointer a, gconstpointer b)
{
	const PdQueued *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Gives back the pages of the mapped data that no queued record and no
 * later read needs: the file is read once, front to back, so peak memory
 * stays the reorder window's, not the file's. */
static void map_release(Reader *r)
{
	if (!r->f.map)
		return;
	const uint8_t *low = r->f.win + r->f.win_start; /* the next record to read */
	for (guint j = 0; j < r->queue->len; j++) {
		const uint8_t *p = g_array_index(r->queue, PdQueued, j).ptr;
		if (p && p < low)
			low = p;
	}
	pd_file_release(&r->f, low);
}

/* Delivers queued records with time ≤ limit, in time order; keeps the rest. */
static gboolean flush_queue(Reader *r, uint64_t limit, GError **error)
{
	if (!r->queue || r->queue->len == 0)
		return TRUE;
	g_array_sort(r->queue, queued_cmp);
	guint i = 0;
	for (; i < r->queue->len; i++) {
		PdQueued *q = &g_array_index(r->queue, PdQueued, i);
		if (q->time > limit)
			break;
		const uint8_t *rec = q->ptr ? q->ptr : r->arena->data + q->off;
		if (!handle_record(r, rec, q->size, q->file_off, FALSE, error))
			return FALSE;
	}
	if (i == r->queue->len) {
		g_array_set_size(r->queue, 0);
		g_byte_array_set_size(r->arena, 0);
		r->held = 0;
		map_release(r);
		return TRUE;
	}
	/* Keep the rest in a fresh arena so memory tracks what is held. */
	GByteArray *na = g_byte_array_new();
	guint k = 0;
	r->held = 0;
	for (guint j = i; j < r->queue->len; j++, k++) {
		PdQueued q = g_array_index(r->queue, PdQueued, j);
		if (!q.ptr) {
			size_t noff = na->len;
			g_byte_array_append(na, r->arena->data + q.off, q.size);
			q.off = noff;
		}
		r->held += q.size;
		g_array_index(r->queue, PdQueued, k) = q;
	}
	g_array_set_size(r->queue, k);
	g_byte_array_unref(r->arena);
	r->arena = na;
	map_release(r);
	return TRUE;
}

/* Entry point for every record of the stream: queue it or handle it. */
static gboolean dispatch(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			 gboolean in_compressed, GError **error)
{
	uint16_t type = (uint16_t)ld32(rec, r->be);
	uint64_t t;
	if (r->reorder && r->header_sent && pd_record_time(r, rec, size, &t)) {
		PdQueued q = { t, r->seq++, off, 0, NULL, (uint16_t)size };
		if (r->f.map && !in_compressed && rec >= r->f.map &&
		    rec < r->f.map + r->f.map_len) {
			q.ptr = rec; /* stays where it is: no copy */
		} else {
			q.off = r->arena->len;
			g_byte_array_append(r->arena, rec, (guint)size);
		}
		r->held += size;
		g_array_append_val(r->queue, q);
		if (t > r->max_time)
			r->max_time = t;
		if (r->held > PL_PERF_REORDER_MAX_BYTES) {
			r->st->reorder_overflows++;
			return flush_queue(r, G_MAXUINT64, error);
		}
		return TRUE;
	}
	if (r->reorder && type == PD_REC_FINISHED_ROUND) {
		/* perf's rule: what is older than the newest record of the round
		 * before cannot be overtaken any more. */
		if (!flush_queue(r, r->next_flush, error))
			return FALSE;
		r->next_flush = r->max_time;
	}
	if (r->reorder && type < PD_REC_KERNEL_MAX && !r->header_sent) {
		/* The first kernel record: header messages go out first, then
		 * this record may be queued. */
		if (!pd_emit_header(r, error))
			return FALSE;
		return dispatch(r, rec, size, off, in_compressed, error);
	}
	return handle_record(r, rec, size, off, in_compressed, error);
}

/* ================================================================ compressed */

/* Feeds the zstd stream; records may span compressed records (perf
 * compresses its ring buffers as one stream), so the tail that is not yet a
 * whole record stays in zout for the next one. */
static gboolean handle_compressed(Reader *r, const uint8_t *rec, size_t size, uint16_t type,
				  uint64_t off, GError **error)
{
	const uint8_t *src = rec + PD_RECORD_HEADER_SIZE;
	size_t n = size - PD_RECORD_HEADER_SIZE;
	if (type == PD_REC_COMPRESSED2) {
		if (n < 8)
			return pd_corrupt(error, r->path, off, "COMPRESSED2 record too short");
		uint64_t dsz = ld64(src, r->be);
		if (dsz > n - 8)
			return pd_corrupt(error, r->path, off,
					  "COMPRESSED2 data size %" G_GUINT64_FORMAT
					  " exceeds its record", dsz);
		src += 8;
		n = (size_t)dsz;
	}
	r->st->compressed_records++;
	if (!r->zd) {
		r->zd = ZSTD_createDStream();
		ZSTD_initDStream(r->zd);
		r->zout = g_malloc(ZOUT_SIZE + 65536);
		r->zout_len = 0;
	}
	ZSTD_inBuffer in = { src, n, 0 };
	while (in.pos < in.size) {
		ZSTD_outBuffer out = { r->zout, ZOUT_SIZE + 65536, r->zout_len };
		size_t ret = ZSTD_decompressStream(r->zd, &out, &in);
		if (ZSTD_isError(ret))
			return pd_corrupt(error, r->path, off, "zstd: %s", ZSTD_getErrorName(ret));
		r->zout_len = out.pos;
		size_t pos = 0;
		while (r->zout_len - pos >= PD_RECORD_HEADER_SIZE) {
			uint16_t rs = ld16(r->zout + pos + 6, r->be);
			if (rs < PD_RECORD_HEADER_SIZE)
				return pd_corrupt(error, r->path, off,
						  "record of size %u inside compressed data", rs);
			if (rs > r->zout_len - pos)
				break;
			uint16_t rt = (uint16_t)ld32(r->zout + pos, r->be);
			if (rt == PD_REC_AUXTRACE || rt == PD_REC_HEADER_TRACING_DATA)
				return g_set_error(error, PL_PERF_DATA_ERROR,
						   PL_PERF_DATA_ERROR_UNSUPPORTED,
						   "%s: AUX/tracing data inside compressed "
						   "records is not supported",
						   r->path),
				       FALSE;
			if (!dispatch(r, r->zout + pos, rs, off, TRUE, error))
				return FALSE;
			pos += rs;
			r->st->data_bytes += rs;
		}
		memmove(r->zout, r->zout + pos, r->zout_len - pos);
		r->zout_len -= pos;
		if (out.pos == out.size && r->zout_len == out.size)
			return pd_corrupt(error, r->path, off,
					  "compressed data does not form records");
	}
	return TRUE;
}

/* ================================================================ data stream */

static gboolean check_cancel(Reader *r, uint64_t pos, GError **error)
{
	if (pos < r->next_progress)
		return TRUE;
	r->next_progress = pos + PROGRESS_STEP;
	const PlPerfDataReadOptions *o = r->opts;
	gboolean go = TRUE;
	if (o && o->progress)
		go = o->progress(pos - r->f.data_begin, r->f.data_end - r->f.data_begin,
				 o->progress_user);
	if (o && o->cancellable && g_cancellable_is_cancelled(o->cancellable))
		go = FALSE;
	if (!go)
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_CANCELLED,
			    "reading %s was cancelled", r->path);
	return go;
}

/* A record of the data section, in file order. */
typedef struct {
	const uint8_t *p; /* its header, in the window or the mapping; NULL: the end */
	uint16_t size;
	uint64_t off;   /* its file offset */
	uint64_t extra; /* bytes after it outside its size (AUXTRACE, tracing data) */
} PdRecord;

/* The next whole record of the data section, left in place until
 * consume_record: TRUE with rec->p set, or NULL at the end of the data;
 * FALSE with the error set (truncated, damaged, cancelled). */
static gboolean next_record(Reader *r, PdRecord *rec, GError **error)
{
	PdFile *f = &r->f;
	rec->p = NULL;
	uint64_t off = f->win_pos - (f->win_len - f->win_start);
	if (!check_cancel(r, off, error))
		return FALSE;
	gboolean eof;
	if (!pd_file_need(f, PD_RECORD_HEADER_SIZE, &eof, error))
		return FALSE;
	size_t have = f->win_len - f->win_start;
	if (eof && have == 0)
		return TRUE;
	if (eof)
		return pd_corrupt(error, r->path, off,
				  "the data ends inside a record header (%zu of 8 bytes): the file "
				  "is truncated",
				  have);
	const uint8_t *h = f->win + f->win_start;
	uint16_t size = ld16(h + 6, r->be);
	uint32_t type = ld32(h, r->be);
	if (size < PD_RECORD_HEADER_SIZE)
		return pd_corrupt(error, r->path, off,
				  "record of type %u claims %u bytes, less than its own header",
				  type, size);
	if (!pd_file_need(f, size, &eof, error))
		return FALSE;
	if (eof)
		return pd_corrupt(error, r->path, off,
				  "a %u-byte record of type %u runs past the end of the data "
				  "(%" G_GUINT64_FORMAT " bytes left): the file is truncated",
				  size, type, f->data_end - off);
	h = f->win + f->win_start;
	rec->extra = 0;
	if (type == PD_REC_AUXTRACE && size >= 16)
		rec->extra = ld64(h + 8, r->be);
	else if (type == PD_REC_HEADER_TRACING_DATA && r->pipe && size >= 12)
		rec->extra = (ld32(h + 8, r->be) + 7ull) & ~7ull;
	rec->p = h;
	rec->size = size;
	rec->off = off;
	return TRUE;
}

/* Moves past rec and what follows it outside its size. */
static gboolean consume_record(Reader *r, const PdRecord *rec, GError **error)
{
	r->f.win_start += rec->size;
	r->st->data_bytes += rec->size;
	return !rec->extra || pd_file_skip(&r->f, rec->extra, rec->off, error);
}

static gboolean read_data(Reader *r, GError **error)
{
	pd_file_start_data(&r->f, r->pipe);
	r->next_progress = r->f.data_begin;
	for (;;) {
		PdRecord rec;
		if (!next_record(r, &rec, error))
			return FALSE;
		if (!rec.p)
			break;
		if (!dispatch(r, rec.p, rec.size, rec.off, FALSE, error) ||
		    !consume_record(r, &rec, error))
			return FALSE;
	}
	if (r->reorder && !flush_queue(r, G_MAXUINT64, error))
		return FALSE;
	/* A file with no kernel record still describes its session. */
	return pd_emit_header(r, error);
}

/* ================================================================ entry point */

static gboolean read_all(Reader *r, GError **error)
{
	if (!pd_file_open(&r->f, r->path, error))
		return FALSE;
	r->st->file_size = r->f.file_size;

	uint8_t h[PD_FILE_HEADER_SIZE];
	if (r->f.file_size < PD_PIPE_HEADER_SIZE)
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_NOT_PERF,
				   "%s is not a perf.data file: only %" G_GUINT64_FORMAT
				   " bytes long",
				   r->path, r->f.file_size),
		       FALSE;
	if (!pd_file_read_at(&r->f, 0, h, PD_PIPE_HEADER_SIZE, error))
		return FALSE;
	if (!memcmp(h, PD_MAGIC_LE, 8))
		r->be = FALSE;
	else if (!memcmp(h, PD_MAGIC_BE, 8))
		r->be = TRUE;
	else if (!memcmp(h, PD_MAGIC_V1, 8))
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
				   "%s uses perf's first file format (before Linux 3.x); "
				   "re-record it with a recent perf",
				   r->path),
		       FALSE;
	else
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_NOT_PERF,
				   "%s is not a perf.data file (no PERFILE2 magic at its start)",
				   r->path),
		       FALSE;
	r->st->big_endian = r->be;
	uint64_t hsize = ld64(h + 8, r->be);
	if (hsize == PD_PIPE_HEADER_SIZE) {
		r->pipe = TRUE;
		r->st->pipe_mode = TRUE;
		r->f.data_begin = PD_PIPE_HEADER_SIZE;
		r->f.data_end = r->f.file_size;
	} else {
		if (r->f.file_size < PD_FILE_HEADER_SIZE)
			return pd_corrupt(error, r->path, 0,
					  "the file ends inside its %u-byte header",
					  PD_FILE_HEADER_SIZE);
		if (!pd_file_read_at(&r->f, 0, h, PD_FILE_HEADER_SIZE, error) ||
		    !pd_read_file_header(r, h, error))
			return FALSE;
		if (!pd_emit_header(r, error))
			return FALSE;
		for (guint i = 0; i < r->build_ids->len; i++)
			if (!pd_emit_build_id(r, g_ptr_array_index(r->build_ids, i), error))
				return FALSE;
	}
	return read_data(r, error);
}

gboolean pl_perf_data_read(const char *path, const PlPerfDataReadOptions *opts,
			   PlPerfDataSink sink, gpointer user, PlPerfDataStats *stats,
			   GError **error)
{
	g_return_val_if_fail(path && sink, FALSE);
	PlPerfDataStats local;
	Reader r = { 0 };
	r.path = path;
	r.opts = opts;
	r.sink = sink;
	r.user = user;
	r.st = stats ? stats : &local;
	memset(r.st, 0, sizeof(*r.st));
	r.f.fd = -1;
	r.attrs = g_array_new(FALSE, TRUE, sizeof(PdAttr));
	g_array_set_clear_func(r.attrs, pd_attr_clear);
	r.ids = g_array_new(FALSE, FALSE, sizeof(PdId));
	r.build_ids = g_ptr_array_new_with_free_func(pd_build_id_free);
	r.bid_by_path = g_hash_table_new(g_str_hash, g_str_equal);
	r.names_by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	r.msg = g_malloc0(sizeof(struct pl_msg));
	r.reorder = opts && opts->reorder;
	if (r.reorder) {
		r.queue = g_array_new(FALSE, FALSE, sizeof(PdQueued));
		r.arena = g_byte_array_new();
	}

	gboolean ok = read_all(&r, error);
	r.st->nr_attrs = r.attrs->len;

	g_array_unref(r.attrs);
	g_array_unref(r.ids);
	g_hash_table_unref(r.bid_by_path);
	g_ptr_array_unref(r.build_ids);
	g_hash_table_unref(r.names_by_id);
	g_free(r.msg);
	if (pd_file_close(&r.f)) {
		/* whatever went wrong after it, this is why */
		g_clear_error(error);
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO,
			    "%s changed (was cut short) while it was being read: read it "
			    "again once the program writing it has finished", path);
		ok = FALSE;
	}
	g_free(r.zout);
	if (r.zd)
		ZSTD_freeDStream(r.zd);
	if (r.queue)
		g_array_unref(r.queue);
	if (r.arena)
		g_byte_array_unref(r.arena);
	g_free(r.hostname);
	g_free(r.osrelease);
	g_free(r.version);
	g_free(r.arch);
	g_free(r.cmdline);
	g_free(r.agent_version);
	g_free(r.command);
	return ok;
}
