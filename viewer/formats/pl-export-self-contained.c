/* pl-export-self-contained.c — self-contained sessions (pl-export-self-contained.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "block.h"
#include "pl-capture.h"
#include "pl-disasm.h"
#include "pl-export-self-contained.h"
#include "pl-sym-embed.h"

/* ─── what goes into the table besides the answers ──────────────────── */

static void add_source(PlProfile *p, PlSymEmbed *t, const char *file, PlSelfContainedStats *st)
{
	if (!file || pl_sym_embed_get_source(t, file, NULL))
		return;
	g_autofree char *local = pl_symbols_find_source(pl_profile_get_symbols(p), file);
	g_autofree char *text = NULL;
	gsize len = 0;
	GStatBuf sb;
	/* the bound is checked on the size before the file is read */
	if (!local || g_stat(local, &sb) != 0 || (guint64)sb.st_size > PL_SYM_EMBED_MAX_SOURCE ||
	    !g_file_get_contents(local, &text, &len, NULL) ||
	    !pl_sym_embed_put_source(t, file, text, len))
		st->skipped_sources++;
}

/* Sources and objdump listings of the hottest functions (by self, then by
 * total: the first top of each), made while the files are here. */
static void add_hot_functions(PlProfile *p, PlSymEmbed *t, guint top, PlSelfContainedStats *st)
{
	PlFilter all = PL_FILTER_ALL;
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &all);
	g_autoptr(GHashTable) done = g_hash_table_new(NULL, NULL);
	for (int by_total = 0; by_total < 2; by_total++) {
		g_autoptr(GArray) rows = pl_aggregate_functions(agg, by_total);
		for (guint i = 0; i < rows->len && i < top; i++) {
			guint32 f = g_array_index(rows, PlRow, i).id;
			const PlFunction *fn = pl_profile_get_function(p, f);
			if (!fn->name || !g_hash_table_add(done, GUINT_TO_POINTER(f)))
				continue;
			g_autoptr(GArray) addrs = pl_aggregate_addresses(agg, f);
			for (guint j = 0; j < addrs->len; j++)
				add_source(p, t, g_array_index(addrs, PlAddrRow, j).file, st);
			g_autoptr(GError) e = NULL;
			g_autoptr(PlAnnotation) an = pl_disasm_annotate(p, agg, f, &e);
			if (!an)
				continue; /* no local file, a kernel function: the view says so */
			g_autoptr(GArray) el = g_array_sized_new(FALSE, FALSE, sizeof(PlSymEmbedLine),
								 an->lines->len);
			for (guint j = 0; j < an->lines->len; j++) {
				const PlDisasmLine *d = &g_array_index(an->lines, PlDisasmLine, j);
				PlSymEmbedLine l = { d->text, d->is_insn, d->addr };
				g_array_append_val(el, l);
			}
			pl_sym_embed_put_disasm(t, an->module, an->symbol,
						(const PlSymEmbedLine *)(void *)el->data, el->len);
		}
	}
}

/* An export of an export: what its table carried beyond the answers goes
 * on (the answers themselves were recorded again by the load). */
static void carry_over(PlSymEmbed *from, PlSymEmbed *to)
{
	const PlSymEmbedOrigin *o = pl_sym_embed_get_origin(from);
	pl_sym_embed_set_origin(to, o->host, o->time, o->version, o->source);
	for (guint i = 0; i < pl_sym_embed_n_modules(from); i++)
		pl_sym_embed_put_module(to, pl_sym_embed_get_module(from, i));
}

static void add_modules(PlProfile *p, PlSymEmbed *t)
{
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(pl_profile_get_symbols(p));
	for (guint i = 0; i < rows->len; i++) {
		const PlModuleReport *r = g_ptr_array_index(rows, i);
		PlSymEmbedModule m = { r->module, r->local_path, r->debug_path, r->problem,
				       r->fetched_from, r->has_symbols, r->has_lines, r->has_cfi,
				       r->has_ehabi, r->build_id_match, r->samples };
		pl_sym_embed_put_module(t, &m);
	}
}

/* ─── writing the capture ────────────────────────────────────────────── */

typedef struct {
	int fd;
	const char *path; /* the temporary file, for errors */
	struct pl_block_enc enc;
	GBytes *table;
	gboolean table_written;
	GError *error;
	guint64 messages;
	struct pl_msg tmp; /* a sample re-encoded without its wire-level fields */
} Writer;

static gboolean write_all(Writer *w, const void *p, size_t n)
{
	const guint8 *b = p;
	while (n) {
		ssize_t r = write(w->fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			g_set_error(&w->error, G_IO_ERROR, g_io_error_from_errno(e),
				    "cannot write %s: %s (free some space, or choose another place)",
				    w->path, g_strerror(e));
			return FALSE;
		}
		b += r;
		n -= (size_t)r;
	}
	return TRUE;
}

static gboolean flush_block(Writer *w)
{
	if (pl_block_enc_empty(&w->enc))
		return TRUE;
	const uint8_t *out;
	size_t n;
	if (pl_block_enc_finish(&w->enc, &out, &n) != 0) {
		g_set_error(&w->error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "cannot compress a block of %s", w->path);
		return FALSE;
	}
	return write_all(w, out, n);
}

static gboolean put_msg(Writer *w, const struct pl_msg *m)
{
	for (int tries = 0; tries < 2; tries++) {
		int rc = pl_msg_encode(&w->enc.w, m);
		if (rc == 0)
			return TRUE;
		if (rc != -ENOBUFS || tries)
			break;
		if (!flush_block(w))
			return FALSE;
	}
	g_set_error(&w->error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
		    "a %s message of the capture cannot be written again: the capture is damaged",
		    pl_msg_type_name(m->type) ? pl_msg_type_name(m->type) : "?");
	return FALSE;
}

static gboolean put_table(Writer *w)
{
	gsize len;
	const guint8 *d = g_bytes_get_data(w->table, &len);
	w->table_written = TRUE;
	for (gsize off = 0; off < len;) {
		guint32 n = (guint32)MIN(len - off, (gsize)PL_MAX_CHUNK);
		struct pl_msg m = { .type = PL_MSG_FILE_CHUNK };
		m.u.chunk = (struct pl_msg_file_chunk){
			.kind = PL_CHUNK_SYMBOLIZED, .pid = 0, .addr = 0, .offset = off,
			.total = len, .name = pl_str_c(PL_SYM_EMBED_NAME), .len = n, .data = d + off,
		};
		if (!put_msg(w, &m))
			return FALSE;
		off += n;
	}
	return TRUE;
}

static gboolean write_one(const struct pl_msg *m, gpointer data)
{
	Writer *w = data;
	/* an export of an export: the old table is replaced by the new one */
	if (m->type == PL_MSG_FILE_CHUNK && m->u.chunk.kind == PL_CHUNK_SYMBOLIZED)
		return TRUE;
	/* the table right after HELLO, before any mapping or sample needs it */
	if (!w->table_written && m->type != PL_MSG_HELLO && !put_table(w))
		return FALSE;
	w->messages++;
	if (m->type == PL_MSG_SAMPLE) {
		/* the reader gave it whole: absolute time, its own call chain */
		w->tmp = *m;
		w->tmp.u.sample.flags = 0;
		w->tmp.u.sample.stack_id = 0;
		m = &w->tmp;
	}
	if (!put_msg(w, m))
		return FALSE;
	if (m->type == PL_MSG_HELLO && !w->table_written && !put_table(w))
		return FALSE;
	return TRUE;
}

static gboolean write_capture(const char *in, const char *tmp_path, int fd, GBytes *table,
			      guint32 stream_flags, guint64 *messages, GError **error)
{
	Writer *w = g_new0(Writer, 1); /* tmp is a large struct */
	w->fd = fd;
	w->path = tmp_path;
	w->table = table;
	gboolean ok = FALSE;
	if (pl_block_enc_init(&w->enc, PL_BLOCK_MAX_RAW, 3) != 0) {
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_FAILED,
				    "out of memory for the block encoder");
		g_free(w);
		return FALSE;
	}
	pl_block_enc_set_chain(&w->enc, 1);
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, stream_flags);
	GError *load_err = NULL;
	PlCaptureInfo info;
	if (write_all(w, hdr, sizeof hdr) && pl_capture_load(in, write_one, w, &info, &load_err) &&
	    (w->table_written || put_table(w)) && flush_block(w))
		ok = TRUE;
	if (!ok) {
		if (w->error)
			g_propagate_error(error, g_steal_pointer(&w->error));
		else if (load_err)
			g_propagate_prefixed_error(error, g_steal_pointer(&load_err), "%s: ", in);
		else
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write %s", tmp_path);
	}
	g_clear_error(&load_err);
	g_clear_error(&w->error);
	*messages = w->messages;
	pl_block_enc_free(&w->enc);
	g_free(w);
	return ok;
}

/* ─── the whole ──────────────────────────────────────────────────────── */

gboolean pl_export_self_contained(const char *in, const char *out, const PlLoadParams *params,
				      guint top, PlSelfContainedStats *stats, GError **error)
{
	PlSelfContainedStats own;
	if (!stats)
		stats = &own;
	memset(stats, 0, sizeof *stats);
	g_autoptr(PlSymEmbed) t = pl_sym_embed_new();
	PlLoadParams lp = { 0 };
	if (params)
		lp = *params;
	lp.record = t;
	lp.keep_partial = FALSE; /* a session cut short by corruption is not exported */
	PlCaptureInfo info;
	g_autoptr(PlProfile) p = pl_load_file(in, &lp, &info, NULL, error);
	if (!p)
		return FALSE;
	pl_symbols_set_record(pl_profile_get_symbols(p), NULL);
	PlSymEmbed *old = pl_symbols_get_embedded(pl_profile_get_symbols(p));
	g_autofree char *base = g_path_get_basename(in);
	if (old)
		carry_over(old, t);
	else
		pl_sym_embed_set_origin(t, g_get_host_name(), g_get_real_time() / G_USEC_PER_SEC,
					PL_VIEWER_VERSION, base);
	/* the coverage rows as the load left them (the address counts), then
	 * the listings and sources: the address table of a function resolves
	 * what the Disassembly tab will ask (recorded too) */
	if (!old)
		add_modules(p, t);
	pl_symbols_set_record(pl_profile_get_symbols(p), t);
	add_hot_functions(p, t, top ? top : PL_SELF_CONTAINED_TOP, stats);
	pl_symbols_set_record(pl_profile_get_symbols(p), NULL);
	g_autoptr(GBytes) table = pl_sym_embed_serialize(t);
	stats->frames = pl_sym_embed_n_frames(t);
	stats->unwinds = pl_sym_embed_n_unwinds(t);
	stats->modules = pl_sym_embed_n_modules(t);
	stats->sources = pl_sym_embed_n_sources(t);
	stats->disasm = pl_sym_embed_n_disasm(t);
	stats->table_bytes = g_bytes_get_size(table);
	if (stats->table_bytes > PL_SYM_EMBED_MAX) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
			    "the symbol table of %s would be %" G_GSIZE_FORMAT
			    " MiB, over the %u MiB a file may carry: export a shorter session",
			    in, stats->table_bytes >> 20, PL_SYM_EMBED_MAX >> 20);
		return FALSE;
	}

	/* beside the destination, renamed over it only when complete */
	g_autofree char *dir = g_path_get_dirname(out);
	g_autofree char *obase = g_path_get_basename(out);
	g_autofree char *tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, obase);
	int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
			    "cannot create a file in %s: %s (choose a directory you can write)", dir,
			    g_strerror(e));
		return FALSE;
	}
	gboolean ok = write_capture(in, tmp, fd, table, info.stream_flags, &stats->messages, error);
	if (ok && fsync(fd) != 0) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "cannot sync %s: %s", tmp,
			    g_strerror(e));
		ok = FALSE;
	}
	if (close(fd) != 0 && ok) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "cannot close %s: %s", tmp,
			    g_strerror(e));
		ok = FALSE;
	}
	if (ok && g_rename(tmp, out) != 0) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "cannot rename %s to %s: %s",
			    tmp, out, g_strerror(e));
		ok = FALSE;
	}
	if (!ok)
		g_unlink(tmp);
	return ok;
}

char *pl_session_dup_symbolized_note(PlProfile *p)
{
	PlSymEmbed *t = p ? pl_symbols_get_embedded(pl_profile_get_symbols(p)) : NULL;
	if (!t)
		return NULL;
	const PlSymEmbedOrigin *o = pl_sym_embed_get_origin(t);
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(o->time);
	g_autofree char *when = dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M UTC") : g_strdup("?");
	return g_strdup_printf("symbolized on %s at %s by PerfLens %s, from %s",
			       o->host && *o->host ? o->host : "?", when,
			       o->version && *o->version ? o->version : "?",
			       o->source && *o->source ? o->source : "?");
}
