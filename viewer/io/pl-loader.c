/* pl-loader.c — the ingest loop shared by the command line and the app
 * (see pl-loader.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "pl-loader.h"
#include "pl-sym-embed.h"
#include "pl-unwind-ahead.h"

typedef struct {
	const PlLoadParams *params;
	PlProfile *p;          /* created at the first message (HELLO names the board) */
	gboolean perf_data;
	gboolean local;        /* HELLO named this host and running kernel */
	gboolean kallsyms_done;
	PlUnwindAhead *ahead;  /* perf.data: DWARF stacks unwound on a second core */
	gboolean ahead_attached;
	gboolean this_host;    /* recorded here: its pids are this machine's */
	GHashTable *perf_maps; /* pids with anonymous code: their /tmp/perf-PID.map goes
				* to the model at the end */
	gsize n;
	gboolean ordered;      /* messages come in ingest order (pl_capture_load_ordered) */
	/* the symbols' debuginfod progress, wrapped for the load's cancel */
	gboolean fetch_hooked;
	PlFetchProgressFunc fetch_fn;
	gpointer fetch_data;
	/* a self-contained session: its table as it arrives, then in use */
	GByteArray *embed_buf;
	guint64 embed_total;
	gboolean embedded;
	GError *embed_error; /* the table is damaged: the load fails with this */
} Loader;

/* ─── this machine's kernel symbols ──────────────────────────────────── */

/* The running kernel's build-id from /sys/kernel/notes (ELF notes), as
 * lower-case hex; NULL when unreadable. */
static char *kernel_build_id(void)
{
	g_autofree guint8 *d = NULL;
	gsize len = 0;
	if (!g_file_get_contents("/sys/kernel/notes", (char **)&d, &len, NULL))
		return NULL;
	for (gsize off = 0; off + 12 <= len;) {
		guint32 namesz, descsz, type;
		memcpy(&namesz, d + off, 4);
		memcpy(&descsz, d + off + 4, 4);
		memcpy(&type, d + off + 8, 4);
		gsize name_off = off + 12, desc_off = name_off + ((namesz + 3u) & ~3u);
		gsize next = desc_off + ((descsz + 3u) & ~3u);
		if (namesz > len || descsz > len || next > len || next <= off)
			return NULL;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(d + name_off, "GNU", 4) &&
		    descsz > 0 && descsz <= 64) {
			GString *h = g_string_new(NULL);
			for (guint32 i = 0; i < descsz; i++)
				g_string_append_printf(h, "%02x", d[desc_off + i]);
			return g_string_free(h, FALSE);
		}
		off = next;
	}
	return NULL;
}

static gboolean feed_local_kallsyms(PlProfile *p)
{
	PlSymbols *sym = pl_profile_get_symbols(p);
	/* perf record keeps a copy in its build-id cache: a plain file reads
	 * ten times faster than /proc/kallsyms, which the kernel formats line
	 * by line (0.15 s for 120k symbols here); PlSymbols reads it (5 MB)
	 * on its second thread, so loading goes on meanwhile */
	g_autofree char *id = kernel_build_id();
	const char *home = g_get_home_dir();
	g_autofree char *cached = id && home ? g_build_filename(home, ".debug", "[kernel.kallsyms]", id,
								  "kallsyms", NULL)
					     : NULL;
	if (cached && pl_symbols_load_kallsyms_file(sym, cached))
		return TRUE;
	g_autofree char *text = NULL;
	gsize len = 0;
	/* /proc files have no size: g_file_get_contents reads to EOF */
	if (!g_file_get_contents("/proc/kallsyms", &text, &len, NULL) || len == 0 ||
	    g_str_has_prefix(text, "0000000000000000 ")) /* kptr_restrict hides addresses */
		return FALSE;
	/* handed over whole, not copied in chunks, and parsed on a second
	 * thread while loading goes on */
	pl_symbols_take_kallsyms(sym, g_steal_pointer(&text), len);
	return TRUE;
}

static gboolean hello_is_local(const struct pl_msg_hello *h)
{
	struct utsname u;
	return uname(&u) == 0 && h->hostname.len == strlen(u.nodename) &&
	       memcmp(h->hostname.p, u.nodename, h->hostname.len) == 0 &&
	       h->kernel_release.len == strlen(u.release) &&
	       memcmp(h->kernel_release.p, u.release, h->kernel_release.len) == 0;
}

static gboolean has_kernel_frames(const struct pl_msg_sample *s)
{
	if ((s->cpumode & 7) == 1) /* PERF_RECORD_MISC_KERNEL */
		return TRUE;
	for (guint i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == (guint64)-128) /* PERF_CONTEXT_KERNEL */
			return TRUE;
	return FALSE;
}

/* ─── this machine's JIT symbol maps ─────────────────────────────────── */

/* perf report names JIT code from /tmp/perf-PID.map, which the JIT (node
 * --perf-basic-prof, a JVM's perf-map-agent, …) writes on the machine it
 * runs on.  For a recording made here (perf.data, or an agent's capture
 * for the processes whose map it did not send), the processes with anonymous
 * code mappings are noted, and their maps fed to the model at the end, as
 * the agent sends them: after every record, so that no exec COMM still
 * held for reordering drops the map (the model then names the addresses
 * it has seen, pl-stack-table.c). */
static void note_anon_code(Loader *l, const struct pl_msg_mmap *mm)
{
	const char *f = mm->filename.p;
	gsize n = mm->filename.len;
	/* an agent's /proc snapshot names anonymous code "" */
	if (n == 0 || (n >= 6 && !memcmp(f, "//anon", 6)) || (n >= 7 && !memcmp(f, "/memfd:", 7)) ||
	    (n >= 5 && !memcmp(f, "[anon", 5))) {
		if (!l->perf_maps)
			l->perf_maps = g_hash_table_new(NULL, NULL);
		g_hash_table_add(l->perf_maps, GUINT_TO_POINTER(mm->pid));
	}
}

static void feed_local_perf_maps(Loader *l)
{
	GHashTableIter it;
	gpointer pid;
	if (!l->perf_maps)
		return;
	g_hash_table_iter_init(&it, l->perf_maps);
	while (g_hash_table_iter_next(&it, &pid, NULL)) {
		g_autofree char *path = g_strdup_printf("/tmp/perf-%u.map", GPOINTER_TO_UINT(pid));
		g_autoptr(GMappedFile) mf = g_mapped_file_new(path, FALSE, NULL);
		gsize len = mf ? MIN(g_mapped_file_get_length(mf), G_MAXUINT32) : 0;
		if (!len)
			continue;
		struct pl_msg m = { .type = PL_MSG_FILE_CHUNK };
		m.u.chunk = (struct pl_msg_file_chunk){
			.kind = PL_CHUNK_PERF_MAP, .pid = GPOINTER_TO_UINT(pid), .offset = 0,
			.total = len, .name = pl_str_c(path), .len = (uint32_t)len,
			.data = (const uint8_t *)g_mapped_file_get_contents(mf),
		};
		pl_profile_ingest(&m, l->p); /* copied: the mapping may go */
	}
}

/* ─── the loop ───────────────────────────────────────────────────────── */

/* A debuginfod fetch during the load: cancelling the load cancels it
 * (libdebuginfod asks at least once a second, also while connecting). */
static gboolean loader_fetch_progress(const PlFetchProgress *f, gpointer data)
{
	Loader *l = data;
	if (g_cancellable_is_cancelled(l->params->cancel))
		return FALSE;
	return l->fetch_fn ? l->fetch_fn(f, l->fetch_data) : TRUE;
}

/* The profile (and for perf.data the unwinding worker, which needs the
 * same options) for the board named host. */
static void start(Loader *l, const char *host)
{
	const PlLoadParams *pp = l->params;
	PlSymOptions own = { 0 };
	const PlSymOptions *o = pp->options;
	if (!o && pp->options_for_host) {
		pp->options_for_host(host, &own, pp->data);
		o = &own;
	}
	l->p = pl_profile_new(o);
	if (pp->record)
		pl_symbols_set_record(pl_profile_get_symbols(l->p), pp->record);
	l->fetch_fn = o ? o->fetch_progress : NULL;
	l->fetch_data = o ? o->fetch_progress_data : NULL;
	/* only perf.data: its reader delivers records in time order, the
	 * order the worker must see them in (see pl-unwind-ahead.c) */
	if (l->perf_data && g_get_num_processors() > 1 && !g_getenv("PERFLENS_NO_UNWIND_AHEAD")) {
		PlSymOptions ao = { 0 };
		ao.host_files = TRUE; /* what pl_profile_new(NULL) means */
		if (o)
			ao = *o;
		/* the worker lives no longer than the load: its debuginfod
		 * fetches (a file missing here, for unwinding) get the
		 * load's cancel for good */
		ao.fetch_progress = loader_fetch_progress;
		ao.fetch_progress_data = l;
		l->ahead = pl_unwind_ahead_new(&ao);
	}
	if (o == &own && pp->options_clear)
		pp->options_clear(&own, pp->data);
}

/* ─── a self-contained session's table ──────────────────────────────── */

static gboolean embed_fail(Loader *l, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean embed_fail(Loader *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!l->embed_error)
		l->embed_error = g_error_new(PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT,
					     "%s", msg);
	return FALSE;
}

/* One chunk of the table (msg.h, PL_CHUNK_SYMBOLIZED): in order, within
 * the announced total; the whole is parsed and handed to the profile's
 * PlSymbols before any mapping or sample that needs it (the exporter
 * writes it right after HELLO).  FALSE stops the load (embed_error). */
static gboolean embed_chunk(Loader *l, const struct pl_msg_file_chunk *c)
{
	if (l->embedded)
		return embed_fail(l, "the file holds a second embedded symbol table: it is damaged; "
				     "export it again from the original");
	if (!l->embed_buf) {
		if (c->offset != 0 || c->total == 0 || c->total > PL_SYM_EMBED_MAX)
			return embed_fail(l, "the embedded symbol table announces %" G_GUINT64_FORMAT
					     " bytes from offset %" G_GUINT64_FORMAT
					     ": the file is damaged; export it again from the original",
					  (guint64)c->total, (guint64)c->offset);
		l->embed_buf = g_byte_array_sized_new((guint)MIN(c->total, 64u << 20));
		l->embed_total = c->total;
	}
	if (c->offset != l->embed_buf->len || c->total != l->embed_total ||
	    c->len > l->embed_total - l->embed_buf->len)
		return embed_fail(l, "the embedded symbol table's chunks are out of order or over "
				     "its size (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				     " bytes): the file is damaged; export it again from the original",
				  (guint64)c->offset, l->embed_total);
	g_byte_array_append(l->embed_buf, c->data, c->len);
	if (l->embed_buf->len < l->embed_total)
		return TRUE;
	GError *e = NULL;
	PlSymEmbed *t = pl_sym_embed_parse(l->embed_buf->data, l->embed_buf->len, &e);
	g_clear_pointer(&l->embed_buf, g_byte_array_unref);
	if (!t) {
		embed_fail(l, "%s", e->message);
		g_error_free(e);
		return FALSE;
	}
	pl_symbols_set_embedded(pl_profile_get_symbols(l->p), t);
	l->embedded = TRUE;
	l->local = FALSE; /* nothing of this machine: the table is the answer */
	return TRUE;
}

static gboolean load_one(const struct pl_msg *m, gpointer data)
{
	Loader *l = data;
	const PlLoadParams *pp = l->params;
	/* from the first message on, so a cancel is seen at once */
	if ((++l->n & 1023) == 1) {
		if (pp->progress)
			__atomic_store_n(pp->progress, l->n, __ATOMIC_RELAXED);
		if (pp->cancel && g_cancellable_is_cancelled(pp->cancel))
			return FALSE;
	}
	if (!l->p) {
		/* HELLO comes first and names the board */
		g_autofree char *host = m->type == PL_MSG_HELLO
						? g_strndup(m->u.hello.hostname.p, m->u.hello.hostname.len)
						: NULL;
		start(l, host);
	}
	if (m->type == PL_MSG_HELLO && !l->embedded) {
		l->this_host = hello_is_local(&m->u.hello);
		if (l->perf_data)
			l->local = l->this_host; /* an agent sends its own kallsyms */
	}
	if (m->type == PL_MSG_FILE_CHUNK && m->u.chunk.kind == PL_CHUNK_SYMBOLIZED) {
		if (!embed_chunk(l, &m->u.chunk))
			return FALSE;
		l->this_host = FALSE;
		g_clear_pointer(&l->perf_maps, g_hash_table_unref);
		return TRUE; /* the model has no use for it */
	}
	if (l->embed_buf && l->embed_buf->len < l->embed_total)
		return embed_fail(l, "the embedded symbol table is cut short (%u of %" G_GUINT64_FORMAT
				     " bytes before the session): the file is damaged; export it "
				     "again from the original",
				  l->embed_buf->len, l->embed_total);
	if (m->type == PL_MSG_MMAP && l->this_host)
		note_anon_code(l, &m->u.mmap);
	/* an agent sends the map of the process it followed; with --all
	 * (or a child of the command) the others are this machine's files,
	 * read at the end as for a perf.data recorded here */
	if (m->type == PL_MSG_FILE_CHUNK && l->perf_maps &&
	    m->u.chunk.kind == PL_CHUNK_PERF_MAP)
		g_hash_table_remove(l->perf_maps, GUINT_TO_POINTER(m->u.chunk.pid));
	/* before the sample is ingested (it may be held back for reordering,
	 * symbolized later: the table is there by then either way) */
	if (m->type == PL_MSG_SAMPLE && l->local && !l->kallsyms_done &&
	    has_kernel_frames(&m->u.sample)) {
		l->kallsyms_done = TRUE;
		l->local = feed_local_kallsyms(l->p);
	}
	/* the model unwinds a sample after its reorder window; the worker
	 * has it from here (the model's PlSymbols exists by the first
	 * sample: HELLO, if any, came before) */
	if (l->ahead && pl_unwind_ahead_feed(l->ahead, m) && !l->ahead_attached) {
		pl_symbols_set_unwind_ahead(pl_profile_get_symbols(l->p), l->ahead);
		l->ahead_attached = TRUE;
	}
	if (m->type == PL_MSG_SAMPLE && pp->cancel && !l->fetch_hooked) {
		PlSymbols *sy = pl_profile_get_symbols(l->p);
		pl_symbols_set_fetch_progress(sy, loader_fetch_progress, l);
		l->fetch_hooked = TRUE;
	}
	if (l->ordered)
		pl_profile_ingest_ordered(m, l->p);
	else
		pl_profile_ingest(m, l->p);
	return TRUE;
}

/* Detaches and stops the worker; the profile stays. */
static void stop_ahead(Loader *l, PlLoadStats *stats)
{
	if (!l->ahead)
		return;
	if (l->ahead_attached)
		pl_symbols_set_unwind_ahead(pl_profile_get_symbols(l->p), NULL);
	l->ahead_attached = FALSE;
	guint64 used = 0, missed = 0;
	pl_unwind_ahead_counts(l->ahead, &used, &missed);
	if (stats) {
		stats->unwind_ahead = TRUE;
		stats->ahead_used = used;
		stats->ahead_missed = missed;
	}
	if (g_getenv("PERFLENS_DEBUG_AHEAD")) {
		struct rusage ru;
		getrusage(RUSAGE_THREAD, &ru);
		fprintf(stderr, "perflens: unwind ahead: %" G_GUINT64_FORMAT " used, %" G_GUINT64_FORMAT
			" unwound by the loader; loader thread cpu %.3f s\n", used, missed,
			ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}
	g_clear_pointer(&l->ahead, pl_unwind_ahead_free);
}

PlProfile *pl_load_file(const char *path, const PlLoadParams *params, PlCaptureInfo *info,
			PlLoadStats *stats, GError **error)
{
	static const PlLoadParams none = { 0 };
	PlCaptureInfo own_info;
	if (!info)
		info = &own_info;
	if (stats)
		memset(stats, 0, sizeof *stats);
	Loader l = { 0 };
	l.params = params ? params : &none;
	l.perf_data = pl_capture_detect(path) == PL_FILE_PERF_DATA;

	GError *local = NULL;
	gboolean ok = pl_capture_load_ordered(path, load_one, &l, info, &l.ordered, &local);
	if (ok && l.embed_buf) /* the file ended inside the table */
		embed_fail(&l, "the embedded symbol table is cut short (%u of %" G_GUINT64_FORMAT
			       " bytes): the file is damaged; export it again from the original",
			   l.embed_buf->len, l.embed_total);
	g_clear_pointer(&l.embed_buf, g_byte_array_unref);
	if (l.embed_error) {
		/* a damaged table is the file's fault, partial or not: never a
		 * session silently symbolized from this machine instead */
		g_clear_error(&local);
		g_clear_pointer(&l.perf_maps, g_hash_table_unref);
		stop_ahead(&l, NULL);
		g_clear_pointer(&l.p, pl_profile_free);
		g_propagate_error(error, l.embed_error);
		return NULL;
	}
	if (l.params->progress)
		__atomic_store_n(l.params->progress, l.n, __ATOMIC_RELAXED);
	gboolean cancelled = g_error_matches(local, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED);
	if (!ok && (cancelled || !l.params->keep_partial || info->messages == 0 || !l.p)) {
		g_clear_pointer(&l.perf_maps, g_hash_table_unref);
		stop_ahead(&l, NULL);
		g_clear_pointer(&l.p, pl_profile_free);
		if (cancelled) {
			g_clear_error(&local);
			g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
		} else {
			g_propagate_error(error, local);
		}
		return NULL;
	}
	g_clear_error(&local); /* keep_partial: corruption mid-file keeps what was read */
	if (!l.p) {
		l.perf_data = FALSE; /* nothing to unwind: no worker */
		start(&l, NULL);     /* an empty capture: a profile all the same */
	}
	pl_profile_finish(l.p); /* the last held samples are unwound here */
	feed_local_perf_maps(&l);
	g_clear_pointer(&l.perf_maps, g_hash_table_unref);
	stop_ahead(&l, stats);
	/* A torn capture with nothing before the tear (a stub of a file, a
	 * recording killed before its first sample) holds no recording: "the
	 * rest is intact" would hide that, a report of 0 samples would pass a
	 * gate, and the app would show an empty window as if it were one. */
	if (info->kind == PL_FILE_PLENS && info->ignored_bytes &&
	    (info->blocks == 0 || pl_profile_get_stats(l.p)->samples == 0)) {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT,
			    "%s holds no samples: it ends after %" G_GUINT64_FORMAT " complete "
			    "block%s and %" G_GUINT64_FORMAT " bytes of a torn one, so the "
			    "recording was cut before its first sample; copy the whole file "
			    "again, or record again",
			    path, info->blocks, info->blocks == 1 ? "" : "s", info->ignored_bytes);
		g_clear_pointer(&l.p, pl_profile_free);
		return NULL;
	}
	if (l.fetch_hooked) /* the Loader ends here: the options' own again */
		pl_symbols_set_fetch_progress(pl_profile_get_symbols(l.p), l.fetch_fn, l.fetch_data);
	if (stats)
		stats->local_kernel = l.kallsyms_done && l.local;
	return l.p;
}
