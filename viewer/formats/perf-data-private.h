/* perf-data-private.h — what the perf.data reader's files share: the
 * bounds-checked cursor, the parsed header (attrs, ids, build-ids, feature
 * values), the mapped file and the Reader state.  Not installed; included by
 * perf-data-{file,header,records,reader}.c only, never by another header.
 * Calls point one way: the reader calls the three others, the records call
 * the header and the file, the header calls the file, the file none of them.
 *
 *   perf-data-file.c     the file as bytes: read_at(), the data section
 *                        mapped (or streamed through a window), SIGBUS guard,
 *                        and the error domain (PL_PERF_DATA_ERROR)
 *   perf-data-header.c   file header, attrs and ids, the feature table, and
 *                        the HELLO/SESSION/EVENT_DESC/BUILD_ID messages
 *   perf-data-records.c  one kernel record → one struct pl_msg (pure: no I/O)
 *   perf-data-reader.c   pl_perf_data_read: next record, ordering, zstd
 *
 * The file is never trusted: every field is read through a PdCur, which
 * knows the file's byte order, and every count is checked against the bytes
 * that would hold it before it is used.
 */
#ifndef PL_PERF_DATA_PRIVATE_H
#define PL_PERF_DATA_PRIVATE_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <zstd.h>

#include "perf-data-format.h"
#include "perf-data-reader.h"

#define WINDOW_SIZE (4u << 20)
#define PROGRESS_STEP (8u << 20)
#define MAX_ATTRS 4096u
#define MAX_ATTR_SIZE 4096u
#define MAX_IDS (1u << 20)
#define MAX_FEATURE_SIZE (64u << 20)
#define MAX_EVENT_NAME 1024u
#define ZOUT_SIZE (1u << 20)

/* ================================================================ cursor */

typedef struct {
	const uint8_t *p, *end;
	gboolean be; /* the file is big-endian */
	gboolean bad;
} PdCur;

static inline void cur_init(PdCur *c, const uint8_t *p, size_t n, gboolean be)
{
	c->p = p;
	c->end = p + n;
	c->be = be;
	c->bad = FALSE;
}

static inline size_t cur_left(const PdCur *c)
{
	return (size_t)(c->end - c->p);
}

static inline const uint8_t *cur_take(PdCur *c, size_t n)
{
	if (c->bad || cur_left(c) < n) {
		c->bad = TRUE;
		return NULL;
	}
	const uint8_t *r = c->p;
	c->p += n;
	return r;
}

static inline uint16_t ld16(const uint8_t *p, gboolean be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : pl_get_le16(p);
}
static inline uint32_t ld32(const uint8_t *p, gboolean be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : pl_get_le32(p);
}
static inline uint64_t ld64(const uint8_t *p, gboolean be)
{
	return be ? (uint64_t)ld32(p, TRUE) << 32 | ld32(p + 4, TRUE) : pl_get_le64(p);
}

static inline uint32_t cur_u32(PdCur *c)
{
	const uint8_t *p = cur_take(c, 4);
	return p ? ld32(p, c->be) : 0;
}
static inline uint64_t cur_u64(PdCur *c)
{
	const uint8_t *p = cur_take(c, 8);
	return p ? ld64(p, c->be) : 0;
}
static inline void cur_skip(PdCur *c, uint64_t n)
{
	if (n > cur_left(c))
		c->bad = TRUE;
	else
		cur_take(c, (size_t)n);
}
/* n u64 entries: checked against what is left before multiplying. */
static inline const uint8_t *cur_take_u64s(PdCur *c, uint64_t n)
{
	if (n > cur_left(c) / 8) {
		c->bad = TRUE;
		return NULL;
	}
	return cur_take(c, (size_t)n * 8);
}

/* A NUL-terminated string in at most `n` bytes (the rest of its field).
 * Capped at PL_MAX_STR: longer names are cut, never overrun. */
static inline struct pl_str str_in(const uint8_t *p, size_t n)
{
	struct pl_str s = { (const char *)p, (uint32_t)strnlen((const char *)p, n) };
	if (s.len > PL_MAX_STR)
		s.len = PL_MAX_STR;
	return s;
}

/* perf's do_write_string: u32 len (padded), then len bytes, NUL inside. */
static inline char *cur_string(PdCur *c)
{
	uint32_t len = cur_u32(c);
	const uint8_t *p = cur_take(c, len);
	if (!p)
		return NULL;
	return g_strndup((const char *)p, MIN(strnlen((const char *)p, len), PL_MAX_STR));
}

/* ================================================================ state */

typedef struct {
	uint32_t type, size;
	uint64_t config, period, sample_type, read_format, flags;
	uint64_t config1, config2, branch_sample_type, regs_user, regs_intr;
	uint32_t stack_user;
	int32_t clockid;
	guint nr_regs_user, nr_regs_intr;
	guint id_trailer; /* bytes of the sample_id trailer on non-sample records */
	char *name;
} PdAttr;

typedef struct {
	uint64_t id;
	guint index;
} PdId;

typedef struct {
	int8_t pid_is_minus1;
	uint16_t misc;
	int32_t pid;
	uint8_t len;
	uint8_t id[PL_MAX_BUILD_ID];
	char *path;
} PdBuildId;

/* A record held back for time ordering. */
typedef struct {
	uint64_t time, seq, file_off;
	size_t off; /* in the arena, when ptr is NULL */
	const uint8_t *ptr; /* else: the record in the mapped file */
	uint16_t size;
} PdQueued;

/* The open file (perf-data-file.c).  The data section is either mapped
 * whole (map != NULL: win points into the mapping and is never written) or
 * read through a WINDOW_SIZE buffer; either way the next unread byte is
 * win[win_start] and win[win_len] is at file offset win_pos. */
typedef struct {
	const char *path;
	int fd;
	guint64 file_size;
	uint64_t data_begin, data_end;

	uint8_t *win;
	size_t win_start, win_len;
	uint64_t win_pos;
	uint8_t *map; /* the mapping, or NULL */
	size_t map_len;
	size_t map_dropped; /* bytes at its start already given back (MADV_DONTNEED) */
	int guard;          /* its SIGBUS guard slot */
} PdFile;

typedef struct {
	const char *path;
	const PlPerfDataReadOptions *opts;
	PlPerfDataSink sink;
	gpointer user;
	PlPerfDataStats *st;

	PdFile f;
	gboolean be;
	gboolean pipe;

	GArray *attrs; /* PdAttr */
	GArray *ids;   /* PdId, sorted by id once the header is read */
	gboolean ids_sorted;

	/* features */
	char *hostname, *osrelease, *version, *arch, *cmdline;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t first_sample, last_sample;
	gboolean have_clock_data;
	uint32_t clock_data_clockid;
	uint64_t clock_tod_ns, clock_clockid_ns;
	GPtrArray *build_ids;   /* PdBuildId*, feature order */
	GHashTable *bid_by_path; /* path → PdBuildId* (borrowed from build_ids) */
	GHashTable *names_by_id; /* EVENT_DESC names: guint64* id → char* */
	char *agent_version;
	char *command;

	gboolean header_sent;
	struct pl_msg *msg; /* one, reused: the pl_msg union is large */
	uint64_t next_progress;

	/* zstd (PERF_RECORD_COMPRESSED) */
	ZSTD_DStream *zd;
	uint8_t *zout;
	size_t zout_len;

	/* reordering */
	gboolean reorder;
	GArray *queue;     /* PdQueued */
	GByteArray *arena; /* their bytes (those not in the mapping) */
	uint64_t held;     /* bytes of the queued records, wherever they are */
	uint64_t seq;
	uint64_t max_time, next_flush;
} Reader;

/* Sets a PL_PERF_DATA_ERROR_CORRUPT error naming path and off; FALSE. */
gboolean pd_corrupt(GError **error, const char *path, uint64_t off, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);

static inline gboolean pd_emit(Reader *r, GError **error)
{
	return r->sink(r->msg, r->user, error);
}

static inline PdAttr *pd_attr_at(Reader *r, guint i)
{
	return &g_array_index(r->attrs, PdAttr, i);
}

static inline gboolean attr_bit(const PdAttr *a, int bit)
{
	return (a->flags >> bit) & 1;
}

/* ================================================================ perf-data-file.c */

/* Opens path read-only and learns its size; FALSE with the error set (a
 * directory is perf's unsupported directory format). */
gboolean pd_file_open(PdFile *f, const char *path, GError **error);
/* One pread, retried when a signal interrupts it: bytes read (0 at the end
 * of the file), or -1 with the error set. */
ssize_t pd_file_pread(PdFile *f, void *buf, size_t n, uint64_t off, GError **error);
/* Exactly n bytes at off; a short file is corrupt. */
gboolean pd_file_read_at(PdFile *f, uint64_t off, void *buf, size_t n, GError **error);
/* A section loaded after checking it lies inside the file and under cap;
 * g_free it.  NULL with the error set. */
uint8_t *pd_file_load(PdFile *f, uint64_t off, uint64_t size, uint64_t cap, const char *what,
		      GError **error);
/* Starts reading [data_begin, data_end): mapped under the SIGBUS guard when
 * it can be (a regular file, not pipe mode, a free guard slot), else
 * through the window. */
void pd_file_start_data(PdFile *f, gboolean pipe);
/* Makes n bytes available at win + win_start; *eof at the end of the data. */
gboolean pd_file_need(PdFile *f, size_t n, gboolean *eof, GError **error);
/* Skips n bytes that follow a record outside its size. */
gboolean pd_file_skip(PdFile *f, uint64_t n, uint64_t off, GError **error);
/* Gives back the mapped pages before low (nothing read or held needs them). */
void pd_file_release(PdFile *f, const uint8_t *low);
/* Closes the file and unmaps it; TRUE if the guard caught a fault, i.e.
 * the file was cut short while it was mapped. */
gboolean pd_file_close(PdFile *f);

/* ================================================================ perf-data-header.c */

void pd_attr_clear(gpointer p);
void pd_build_id_free(gpointer p);
/* Attr index for an event id; -1 if none.  A file with one attr needs no
 * ids at all. */
int pd_attr_for_id(Reader *r, uint64_t id);
/* The 104-byte file header h: attrs, ids and feature sections loaded and
 * parsed, data section bounds set in r->f. */
gboolean pd_read_file_header(Reader *r, const uint8_t *h, GError **error);
/* The feature table: TRUE if feature feat has a parser. */
gboolean pd_feature_wanted(int feat);
gboolean pd_parse_feature(Reader *r, int feat, const uint8_t *p, size_t n, uint64_t off,
			  GError **error);
gboolean pd_parse_build_id_entry(Reader *r, const uint8_t *p, size_t n, uint64_t off,
				 GError **error);
/* Pipe mode's PERF_RECORD_HEADER_ATTR and EVENT_UPDATE (names). */
gboolean pd_header_attr_record(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			       GError **error);
void pd_event_update_record(Reader *r, const uint8_t *rec, size_t size);
/* HELLO, SESSION and one EVENT_DESC per attr, once. */
gboolean pd_emit_header(Reader *r, GError **error);
gboolean pd_emit_build_id(Reader *r, const PdBuildId *b, GError **error);

/* ================================================================ perf-data-records.c */

typedef enum {
	PD_DECODE_ERROR, /* error set */
	PD_DECODE_NONE,  /* nothing to deliver (unknown event id, unused type) */
	PD_DECODE_MSG,   /* r->msg holds the message */
} PdDecode;

/* A kernel record (type < PD_REC_KERNEL_MAX) of size bytes (≥ 8, checked)
 * at file offset off, decoded into r->msg. */
PdDecode pd_decode_record(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			  GError **error);
/* Time of a record for ordering, or FALSE if it has none. */
gboolean pd_record_time(Reader *r, const uint8_t *rec, size_t size, uint64_t *t);

#endif
