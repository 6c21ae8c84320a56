/* perf-data-reader.c — perf.data → struct pl_msg (see perf-data-reader.h).
 *
 * The file is never trusted: every field is read through a PdCur, a
 * bounds-checked cursor that knows the file's byte order, and every count
 * is checked against the bytes that would hold it before it is used.  The
 * data section goes through a window buffer; records are ≤ 64 KiB (u16
 * size) so a window of a few MB always holds a whole one.
 */
#include "perf-data-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "perf-data-format.h"

G_DEFINE_QUARK(pl-perf-data-error-quark, pl_perf_data_error)

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

static void cur_init(PdCur *c, const uint8_t *p, size_t n, gboolean be)
{
	c->p = p;
	c->end = p + n;
	c->be = be;
	c->bad = FALSE;
}

static size_t cur_left(const PdCur *c)
{
	return (size_t)(c->end - c->p);
}

static const uint8_t *cur_take(PdCur *c, size_t n)
{
	if (c->bad || cur_left(c) < n) {
		c->bad = TRUE;
		return NULL;
	}
	const uint8_t *r = c->p;
	c->p += n;
	return r;
}

static uint16_t ld16(const uint8_t *p, gboolean be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : pl_get_le16(p);
}
static uint32_t ld32(const uint8_t *p, gboolean be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : pl_get_le32(p);
}
static uint64_t ld64(const uint8_t *p, gboolean be)
{
	return be ? (uint64_t)ld32(p, TRUE) << 32 | ld32(p + 4, TRUE) : pl_get_le64(p);
}

static uint32_t cur_u32(PdCur *c)
{
	const uint8_t *p = cur_take(c, 4);
	return p ? ld32(p, c->be) : 0;
}
static uint64_t cur_u64(PdCur *c)
{
	const uint8_t *p = cur_take(c, 8);
	return p ? ld64(p, c->be) : 0;
}
static void cur_skip(PdCur *c, uint64_t n)
{
	if (n > cur_left(c))
		c->bad = TRUE;
	else
		cur_take(c, (size_t)n);
}
/* n u64 entries: checked against what is left before multiplying. */
static const uint8_t *cur_take_u64s(PdCur *c, uint64_t n)
{
	if (n > cur_left(c) / 8) {
		c->bad = TRUE;
		return NULL;
	}
	return cur_take(c, (size_t)n * 8);
}

/* A NUL-terminated string in at most `n` bytes (the rest of its field).
 * Capped at PL_MAX_STR: longer names are cut, never overrun. */
static struct pl_str str_in(const uint8_t *p, size_t n)
{
	struct pl_str s = { (const char *)p, (uint32_t)strnlen((const char *)p, n) };
	if (s.len > PL_MAX_STR)
		s.len = PL_MAX_STR;
	return s;
}

/* perf's do_write_string: u32 len (padded), then len bytes, NUL inside. */
static char *cur_string(PdCur *c)
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

typedef struct {
	const char *path;
	const PlPerfDataReadOptions *opts;
	PlPerfDataSink sink;
	gpointer user;
	PlPerfDataStats *st;

	int fd;
	guint64 file_size;
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

	/* data window: read into a buffer, or the whole data section mapped
	 * (then win points into the mapping and is never written) */
	uint8_t *win;
	size_t win_start, win_len;
	uint8_t *map;      /* the mapping, or NULL */
	size_t map_len;
	size_t map_dropped; /* bytes at its start already given back (MADV_DONTNEED) */
	int guard;          /* its SIGBUS guard slot */
	uint64_t win_pos; /* file offset of win[win_len] */
	uint64_t data_end;
	uint64_t next_progress;
	uint64_t data_begin;

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

static gboolean corrupt(GError **error, const Reader *r, uint64_t off, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
static gboolean corrupt(GError **error, const Reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_CORRUPT,
		    "%s is damaged at byte offset %" G_GUINT64_FORMAT ": %s (perf report would "
		    "likely fail on it too; re-record, or copy the file again if it was truncated "
		    "in transfer)",
		    r->path, off, what);
	return FALSE;
}

static void attr_clear(gpointer p)
{
	PdAttr *a = p;
	g_free(a->name);
}

static void build_id_free(gpointer p)
{
	PdBuildId *b = p;
	g_free(b->path);
	g_free(b);
}

/* ================================================================ file access */

/* One pread, retried when a signal interrupts it: bytes read (0 at the
 * end of the file), or -1 with the error set. */
static ssize_t pread_some(Reader *r, void *buf, size_t n, uint64_t off, GError **error)
{
	for (;;) {
		ssize_t k = pread(r->fd, buf, n, (off_t)off);
		if (k >= 0)
			return k;
		if (errno != EINTR) {
			int e = errno;
			g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO,
				    "cannot read %s: %s", r->path, g_strerror(e));
			return -1;
		}
	}
}

static gboolean read_at(Reader *r, uint64_t off, void *buf, size_t n, GError **error)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread_some(r, (uint8_t *)buf + done, n - done, off + done, error);
		if (k < 0)
			return FALSE;
		if (k == 0)
			return corrupt(error, r, off + done, "file ends early");
		done += (size_t)k;
	}
	return TRUE;
}

/* Loads a section after checking it lies inside the file and under cap. */
static uint8_t *load_section(Reader *r, uint64_t off, uint64_t size, uint64_t cap,
			     const char *what, GError **error)
{
	if (off > r->file_size || size > r->file_size - off) {
		corrupt(error, r, off,
			"the %s section (%" G_GUINT64_FORMAT " bytes) lies past the end of the "
			"%" G_GUINT64_FORMAT "-byte file",
			what, size, r->file_size);
		return NULL;
	}
	if (size > cap) {
		corrupt(error, r, off,
			"the %s section is %" G_GUINT64_FORMAT " bytes, over the %" G_GUINT64_FORMAT
			"-byte limit",
			what, size, cap);
		return NULL;
	}
	uint8_t *buf = g_malloc(size ? size : 1);
	if (!read_at(r, off, buf, (size_t)size, error)) {
		g_free(buf);
		return NULL;
	}
	return buf;
}

/* ================================================================ attrs */

/* The bitfield word: each field keeps its byte, but a big-endian compiler
 * numbers bits from the top of each byte, so a big-endian file's bytes are
 * bit-reversed (as perf's swap_bitfield does) and the word is read
 * little-endian: bit n is then field n whatever the file. */
static uint64_t attr_flags(const uint8_t *p, gboolean be)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) {
		uint8_t b = p[i];
		if (be) {
			b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
			b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
			b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
		}
		v |= (uint64_t)b << (8 * i);
	}
	return v;
}

static gboolean attr_bit(const PdAttr *a, int bit)
{
	return (a->flags >> bit) & 1;
}

/* Parses a perf_event_attr from n bytes (its own size field says how many
 * are meaningful; fields past it are zero, as the kernel treats them). */
static gboolean attr_parse(Reader *r, const uint8_t *p, size_t n, uint64_t off, PdAttr *a,
			   GError **error)
{
	memset(a, 0, sizeof(*a));
	if (n < PD_ATTR_SIZE_VER0)
		return corrupt(error, r, off, "event attribute of %zu bytes, less than the %u of "
			       "the oldest format", n, PD_ATTR_SIZE_VER0);
	uint8_t buf[PD_ATTR_SIZE_VER7 + 64];
	memset(buf, 0, sizeof(buf));
	uint32_t asize = ld32(p + PD_ATTR_SIZE, r->be);
	if (asize == 0)
		asize = PD_ATTR_SIZE_VER0;
	memcpy(buf, p, MIN(MIN(n, (size_t)asize), sizeof(buf)));
	gboolean be = r->be;
	a->type = ld32(buf + PD_ATTR_TYPE, be);
	a->size = asize;
	a->config = ld64(buf + PD_ATTR_CONFIG, be);
	a->period = ld64(buf + PD_ATTR_PERIOD, be);
	a->sample_type = ld64(buf + PD_ATTR_SAMPLE_TYPE, be);
	a->read_format = ld64(buf + PD_ATTR_READ_FORMAT, be);
	a->flags = attr_flags(buf + PD_ATTR_FLAGS, be);
	a->config1 = ld64(buf + PD_ATTR_CONFIG1, be);
	a->config2 = ld64(buf + PD_ATTR_CONFIG2, be);
	a->branch_sample_type = ld64(buf + PD_ATTR_BRANCH_SAMPLE_TYPE, be);
	a->regs_user = ld64(buf + PD_ATTR_REGS_USER, be);
	a->stack_user = ld32(buf + PD_ATTR_STACK_USER, be);
	a->clockid = (int32_t)ld32(buf + PD_ATTR_CLOCKID, be);
	a->regs_intr = ld64(buf + PD_ATTR_REGS_INTR, be);
	a->nr_regs_user = (guint)__builtin_popcountll(a->regs_user);
	a->nr_regs_intr = (guint)__builtin_popcountll(a->regs_intr);
	if (attr_bit(a, PD_ATTR_F_SAMPLE_ID_ALL))
		a->id_trailer = 8u * (guint)__builtin_popcountll(a->sample_type &
								 PD_SAMPLE_ID_ALL_MASK);
	if (a->sample_type & ~(uint64_t)PD_SAMPLE_KNOWN)
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
				   "%s: event %u uses sample_type bits 0x%" G_GINT64_MODIFIER
				   "x this reader does not know, so its samples cannot be "
				   "decoded (file from a newer perf?)",
				   r->path, r->attrs->len,
				   a->sample_type & ~(uint64_t)PD_SAMPLE_KNOWN),
		       FALSE;
	return TRUE;
}

static gboolean add_attr(Reader *r, const PdAttr *a, const uint8_t *ids, uint64_t nids,
			 uint64_t off, GError **error)
{
	if (r->attrs->len >= MAX_ATTRS)
		return corrupt(error, r, off, "more than %u events", MAX_ATTRS);
	if (nids > MAX_IDS || r->ids->len + nids > MAX_IDS)
		return corrupt(error, r, off, "more than %u event ids", MAX_IDS);
	guint index = r->attrs->len;
	g_array_append_val(r->attrs, *a);
	for (uint64_t i = 0; i < nids; i++) {
		PdId id = { ld64(ids + 8 * i, r->be), index };
		g_array_append_val(r->ids, id);
	}
	r->ids_sorted = FALSE;
	return TRUE;
}

static int id_cmp(gconstpointer a, gconstpointer b)
{
	uint64_t x = ((const PdId *)a)->id, y = ((const PdId *)b)->id;
	return x < y ? -1 : x > y;
}

/* Attr index for an event id; -1 if none.  A file with one attr needs no
 * ids at all. */
static int attr_for_id(Reader *r, uint64_t id)
{
	if (r->attrs->len == 1)
		return 0;
	if (!r->ids_sorted) {
		g_array_sort(r->ids, id_cmp);
		r->ids_sorted = TRUE;
	}
	guint lo = 0, hi = r->ids->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		uint64_t v = g_array_index(r->ids, PdId, mid).id;
		if (v == id)
			return (int)g_array_index(r->ids, PdId, mid).index;
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static PdAttr *attr_at(Reader *r, guint i)
{
	return &g_array_index(r->attrs, PdAttr, i);
}

/* ================================================================ features */

static gboolean parse_build_id_entry(Reader *r, const uint8_t *p, size_t n, uint64_t off,
				     GError **error)
{
	if (n < PD_BUILD_ID_ENTRY_FIXED)
		return corrupt(error, r, off, "build-id entry of %zu bytes is too short", n);
	uint16_t misc = ld16(p + 4, r->be);
	PdBuildId *b = g_new0(PdBuildId, 1);
	b->misc = misc;
	b->pid = (int32_t)ld32(p + 8, r->be);
	/* Older perf wrote no size byte: a 20-byte SHA-1 is implied. */
	b->len = (misc & PD_MISC_BUILD_ID_SIZE) ? p[12 + 20] : 20;
	if (b->len > PL_MAX_BUILD_ID)
		b->len = PL_MAX_BUILD_ID;
	memcpy(b->id, p + 12, b->len);
	struct pl_str s = str_in(p + PD_BUILD_ID_ENTRY_FIXED, n - PD_BUILD_ID_ENTRY_FIXED);
	b->path = g_strndup(s.p, s.len);
	g_ptr_array_add(r->build_ids, b);
	/* The first entry for a path wins, as in perf's dso list. */
	if (!g_hash_table_contains(r->bid_by_path, b->path))
		g_hash_table_insert(r->bid_by_path, b->path, b);
	r->st->nr_build_ids++;
	return TRUE;
}

static gboolean parse_build_id_table(Reader *r, const uint8_t *p, size_t n, uint64_t off,
				     GError **error)
{
	size_t pos = 0;
	while (n - pos >= PD_RECORD_HEADER_SIZE) {
		uint16_t size = ld16(p + pos + 6, r->be);
		if (size < PD_RECORD_HEADER_SIZE || size > n - pos)
			return corrupt(error, r, off + pos,
				       "build-id entry claims %u bytes, %zu left in its section",
				       size, n - pos);
		if (!parse_build_id_entry(r, p + pos, size, off + pos, error))
			return FALSE;
		pos += size;
	}
	return TRUE;
}

static gboolean parse_event_desc(Reader *r, const uint8_t *p, size_t n, uint64_t off,
				 GError **error)
{
	PdCur c;
	cur_init(&c, p, n, r->be);
	uint32_t nre = cur_u32(&c), sz = cur_u32(&c);
	if (c.bad || nre > MAX_ATTRS || sz < PD_ATTR_SIZE_VER0 || sz > MAX_ATTR_SIZE)
		return corrupt(error, r, off, "EVENT_DESC header: %u events of %u bytes", nre, sz);
	for (uint32_t i = 0; i < nre; i++) {
		cur_take(&c, sz);
		uint32_t nr_ids = cur_u32(&c);
		g_autofree char *name = cur_string(&c);
		const uint8_t *ids = cur_take_u64s(&c, nr_ids);
		if (c.bad)
			return corrupt(error, r, off, "EVENT_DESC entry %u does not fit its section",
				       i);
		for (uint32_t k = 0; k < nr_ids; k++) {
			uint64_t *key = g_new(uint64_t, 1);
			*key = ld64(ids + 8 * k, r->be);
			g_hash_table_replace(r->names_by_id, key, g_strdup(name));
		}
		/* Positional fallback for attrs that carry no ids. */
		if (i < r->attrs->len && !attr_at(r, i)->name && name)
			attr_at(r, i)->name = g_strndup(name, MAX_EVENT_NAME);
	}
	return TRUE;
}

static gboolean parse_feature(Reader *r, int feat, const uint8_t *p, size_t n, uint64_t off,
			      GError **error)
{
	PdCur c;
	cur_init(&c, p, n, r->be);
	char **dst = NULL;
	switch (feat) {
	case PD_FEAT_HOSTNAME: dst = &r->hostname; break;
	case PD_FEAT_OSRELEASE: dst = &r->osrelease; break;
	case PD_FEAT_VERSION: dst = &r->version; break;
	case PD_FEAT_ARCH: dst = &r->arch; break;
	case PD_FEAT_NRCPUS:
		r->nr_cpus_avail = cur_u32(&c);
		r->nr_cpus_online = cur_u32(&c);
		break;
	case PD_FEAT_CMDLINE: {
		uint32_t nr = cur_u32(&c);
		if (nr > PL_MAX_ARGV * 64)
			return corrupt(error, r, off, "CMDLINE claims %u arguments", nr);
		GString *s = g_string_new(NULL);
		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			g_autofree char *a = cur_string(&c);
			if (a && s->len < PL_MAX_STR)
				g_string_append_printf(s, "%s%s", i ? " " : "", a);
		}
		g_free(r->cmdline);
		r->cmdline = g_string_free(s, FALSE);
		break;
	}
	case PD_FEAT_EVENT_DESC:
		return parse_event_desc(r, p, n, off, error);
	case PD_FEAT_BUILD_ID:
		return parse_build_id_table(r, p, n, off, error);
	case PD_FEAT_SAMPLE_TIME:
		r->first_sample = cur_u64(&c);
		r->last_sample = cur_u64(&c);
		break;
	case PD_FEAT_CLOCK_DATA: {
		uint32_t version = cur_u32(&c);
		r->clock_data_clockid = cur_u32(&c);
		r->clock_tod_ns = cur_u64(&c);
		r->clock_clockid_ns = cur_u64(&c);
		r->have_clock_data = !c.bad && version == 1;
		c.bad = FALSE; /* unknown versions are ignored, not fatal */
		break;
	}
	case PD_FEAT_COMPRESSED: {
		cur_u32(&c); /* version */
		uint32_t type = cur_u32(&c);
		if (!c.bad && type != 1)
			return g_set_error(error, PL_PERF_DATA_ERROR,
					   PL_PERF_DATA_ERROR_UNSUPPORTED,
					   "%s is compressed with method %u; only zstd (1) is "
					   "supported: run `perf inject -i FILE -o plain.data` on "
					   "the recording machine",
					   r->path, type),
			       FALSE;
		break;
	}
	case PD_FEAT_DIR_FORMAT:
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
				   "%s is in perf's directory format (perf record --threads), "
				   "which is not supported: record without --threads",
				   r->path),
		       FALSE;
	default:
		return TRUE;
	}
	if (dst) {
		g_free(*dst);
		*dst = cur_string(&c);
	}
	if (c.bad)
		return corrupt(error, r, off, "feature %d section (%zu bytes) is malformed", feat,
			       n);
	return TRUE;
}

static gboolean feature_wanted(int feat)
{
	switch (feat) {
	case PD_FEAT_BUILD_ID:
	case PD_FEAT_HOSTNAME:
	case PD_FEAT_OSRELEASE:
	case PD_FEAT_VERSION:
	case PD_FEAT_ARCH:
	case PD_FEAT_NRCPUS:
	case PD_FEAT_CMDLINE:
	case PD_FEAT_EVENT_DESC:
	case PD_FEAT_SAMPLE_TIME:
	case PD_FEAT_CLOCK_DATA:
	case PD_FEAT_COMPRESSED:
	case PD_FEAT_DIR_FORMAT:
		return TRUE;
	default:
		return FALSE;
	}
}

/* ================================================================ file header */

static gboolean read_file_header(Reader *r, const uint8_t *h, GError **error)
{
	PdCur c;
	cur_init(&c, h + 8, PD_FILE_HEADER_SIZE - 8, r->be);
	uint64_t size = cur_u64(&c), attr_size = cur_u64(&c);
	uint64_t attrs_off = cur_u64(&c), attrs_size = cur_u64(&c);
	uint64_t data_off = cur_u64(&c), data_size = cur_u64(&c);
	cur_u64(&c);
	cur_u64(&c); /* event_types: unused since perf 3.x */
	uint64_t feat[4];
	for (int i = 0; i < 4; i++)
		feat[i] = cur_u64(&c);
	if (size != PD_FILE_HEADER_SIZE)
		return corrupt(error, r, 8, "file header size %" G_GUINT64_FORMAT ", expected %u",
			       size, PD_FILE_HEADER_SIZE);
	if (attr_size < 16 + PD_ATTR_SIZE_VER0 || attr_size > 16 + MAX_ATTR_SIZE)
		return corrupt(error, r, 16, "attribute entry size %" G_GUINT64_FORMAT, attr_size);
	if (attrs_size % attr_size || attrs_size / attr_size > MAX_ATTRS)
		return corrupt(error, r, 32,
			       "attrs section of %" G_GUINT64_FORMAT " bytes is not a whole "
			       "number (≤ %u) of %" G_GUINT64_FORMAT "-byte entries",
			       attrs_size, MAX_ATTRS, attr_size);
	if (attrs_size == 0)
		return corrupt(error, r, 32, "the file lists no events");
	if (data_off > r->file_size || data_size > r->file_size - data_off)
		return corrupt(error, r, 40,
			       "data section [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
			       ") runs past the end of the %" G_GUINT64_FORMAT "-byte file",
			       data_off, data_size, r->file_size);
	if (data_size == 0)
		return corrupt(error, r, 48,
			       "the data section is empty: perf record did not finish writing "
			       "(killed, or disk full?)");

	g_autofree uint8_t *attrs = load_section(
		r, attrs_off, attrs_size, MAX_ATTRS * (16 + MAX_ATTR_SIZE), "attrs", error);
	if (!attrs)
		return FALSE;
	for (uint64_t pos = 0; pos < attrs_size; pos += attr_size) {
		PdAttr a;
		const uint8_t *e = attrs + pos;
		if (!attr_parse(r, e, (size_t)attr_size - 16, attrs_off + pos, &a, error))
			return FALSE;
		uint64_t ids_off = ld64(e + attr_size - 16, r->be);
		uint64_t ids_size = ld64(e + attr_size - 8, r->be);
		if (ids_size % 8)
			return corrupt(error, r, attrs_off + pos + attr_size - 8,
				       "id list of %" G_GUINT64_FORMAT " bytes", ids_size);
		g_autofree uint8_t *ids =
			load_section(r, ids_off, ids_size, MAX_IDS * 8ull, "event ids", error);
		if (!ids || !add_attr(r, &a, ids, ids_size / 8, ids_off, error))
			return FALSE;
	}

	/* Feature sections: a table right after the data, one entry per bit. */
	uint64_t feat_off = data_off + data_size;
	int nfeat = 0;
	for (int i = 0; i < 4; i++)
		nfeat += __builtin_popcountll(feat[i]);
	g_autofree uint8_t *table =
		load_section(r, feat_off, (uint64_t)nfeat * 16, PD_FEAT_BITS * 16, "feature table",
			     error);
	if (!table)
		return FALSE;
	int k = 0;
	for (int bit = 0; bit < PD_FEAT_BITS; bit++) {
		if (!(feat[bit / 64] >> (bit % 64) & 1))
			continue;
		uint64_t off = ld64(table + 16 * k, r->be), sz = ld64(table + 16 * k + 8, r->be);
		k++;
		/* Checked even when unused: a section past the end means the file
		 * was cut, and what we do read may be cut too. */
		if (off > r->file_size || sz > r->file_size - off)
			return corrupt(error, r, feat_off + 16 * (k - 1),
				       "feature %d section [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
				       ") lies past the end of the %" G_GUINT64_FORMAT "-byte file",
				       bit, off, sz, r->file_size);
		if (!feature_wanted(bit))
			continue;
		g_autofree uint8_t *sec =
			load_section(r, off, sz, MAX_FEATURE_SIZE, "feature", error);
		if (!sec || !parse_feature(r, bit, sec, (size_t)sz, off, error))
			return FALSE;
	}
	r->data_begin = data_off;
	r->data_end = data_off + data_size;
	return TRUE;
}

/* ================================================================ header messages */

guint pl_perf_arch_to_e_machine(const char *arch, guint *word_size)
{
	static const struct {
		const char *prefix;
		guint em, ws;
	} map[] = {
		{ "x86_64", 62, 8 },   { "amd64", 62, 8 },     { "i386", 3, 4 },
		{ "i486", 3, 4 },      { "i586", 3, 4 },       { "i686", 3, 4 },
		{ "x86", 3, 4 },       { "aarch64", 183, 8 },  { "arm64", 183, 8 },
		{ "arm", 40, 4 },      { "riscv64", 243, 8 },  { "riscv32", 243, 4 },
		{ "riscv", 243, 8 },   { "mips64", 8, 8 },     { "mips", 8, 4 },
		{ "ppc64", 21, 8 },    { "powerpc64", 21, 8 }, { "ppc", 20, 4 },
		{ "powerpc", 20, 4 },  { "s390x", 22, 8 },     { "s390", 22, 4 },
		{ "loongarch64", 258, 8 }, { "sparc64", 43, 8 }, { "sparc", 2, 4 },
		{ "sh", 42, 4 },
	};
	if (word_size)
		*word_size = 0;
	if (!arch)
		return 0;
	for (size_t i = 0; i < G_N_ELEMENTS(map); i++) {
		if (g_str_has_prefix(arch, map[i].prefix)) {
			if (word_size)
				*word_size = map[i].ws;
			return map[i].em;
		}
	}
	return 0;
}

static gboolean emit(Reader *r, GError **error)
{
	return r->sink(r->msg, r->user, error);
}

static struct pl_str cstr(const char *s)
{
	struct pl_str p = pl_str_c(s);
	if (p.len > PL_MAX_STR)
		p.len = PL_MAX_STR;
	return p;
}

/* The attr whose samples describe the session: the first that samples. */
static const PdAttr *session_attr(Reader *r)
{
	for (guint i = 0; i < r->attrs->len; i++)
		if (attr_at(r, i)->period)
			return attr_at(r, i);
	return r->attrs->len ? attr_at(r, 0) : NULL;
}

static uint8_t callgraph_of(const PdAttr *a)
{
	if (!a)
		return PL_CG_NONE;
	if ((a->sample_type & PD_SAMPLE_REGS_USER) && (a->sample_type & PD_SAMPLE_STACK_USER))
		return PL_CG_DWARF;
	if ((a->sample_type & PD_SAMPLE_BRANCH_STACK) &&
	    (a->branch_sample_type & PD_BRANCH_CALL_STACK))
		return PL_CG_LBR;
	if (a->sample_type & PD_SAMPLE_CALLCHAIN)
		return PL_CG_FP;
	return PL_CG_NONE;
}

/* What `perf record` was asked to watch, from its argv. */
static void session_target(const char *cmdline, uint8_t *target, uint32_t *pid,
			   const char **command)
{
	*target = PL_TARGET_COMMAND;
	*pid = 0;
	*command = cmdline;
	if (!cmdline)
		return;
	g_auto(GStrv) argv = g_strsplit(cmdline, " ", -1);
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			*command = strstr(cmdline, " -- ") ? strstr(cmdline, " -- ") + 4 : cmdline;
			return;
		}
		if (!strcmp(a, "-a") || !strcmp(a, "--all-cpus")) {
			*target = PL_TARGET_ALL;
		} else if ((!strcmp(a, "-p") || !strcmp(a, "--pid") || !strcmp(a, "-t") ||
			    !strcmp(a, "--tid")) &&
			   argv[i + 1]) {
			*target = PL_TARGET_PID;
			*pid = (uint32_t)g_ascii_strtoull(argv[i + 1], NULL, 10);
		}
	}
}

static gboolean emit_header(Reader *r, GError **error)
{
	if (r->header_sent)
		return TRUE;
	r->header_sent = TRUE;
	if (r->attrs->len == 0)
		return corrupt(error, r, 0, "no event attributes before the first record");
	struct pl_msg *m = r->msg;
	const PdAttr *sa = session_attr(r);
	uint8_t cg = callgraph_of(sa);

	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_HELLO;
	struct pl_msg_hello *h = &m->u.hello;
	h->protocol_version = PL_PROTOCOL_VERSION;
	g_free(r->agent_version);
	r->agent_version = g_strdup_printf("perf %s", r->version ? r->version : "(unknown)");
	h->agent_version = cstr(r->agent_version);
	h->machine = cstr(r->arch);
	guint ws = 0;
	h->e_machine = pl_perf_arch_to_e_machine(r->arch, &ws);
	h->word_size = (uint8_t)ws;
	h->byte_order = r->be ? PL_BIG_ENDIAN : PL_LITTLE_ENDIAN;
	h->page_size = 0; /* perf.data does not record it */
	h->kernel_release = cstr(r->osrelease);
	h->hostname = cstr(r->hostname);
	h->ncpus = r->nr_cpus_avail ? r->nr_cpus_avail : r->nr_cpus_online;
	/* perf's default clock is the kernel's local_clock, which is what
	 * CLOCK_MONOTONIC also counts on every machine we target. */
	h->clock_id = (sa && attr_bit(sa, PD_ATTR_F_USE_CLOCKID)) ? (uint32_t)sa->clockid
								  : CLOCK_MONOTONIC;
	if (r->have_clock_data) {
		h->clock_now_ns = r->clock_clockid_ns;
		h->wall_now_ns = r->clock_tod_ns;
	} else {
		/* perf dates the file by its mtime, i.e. when recording ended. */
		struct stat sb;
		if (fstat(r->fd, &sb) == 0)
			h->wall_now_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u +
					 (uint64_t)sb.st_mtim.tv_nsec;
		h->clock_now_ns = r->last_sample;
	}
	h->flags = PL_HELLO_PERF_AVAILABLE | (cg == PL_CG_FP ? PL_HELLO_CG_FP : 0) |
		   (cg == PL_CG_DWARF ? PL_HELLO_CG_DWARF : 0) |
		   (cg == PL_CG_LBR ? PL_HELLO_CG_LBR : 0);
	if (!emit(r, error))
		return FALSE;

	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_SESSION;
	struct pl_msg_session *s = &m->u.session;
	const char *command;
	session_target(r->cmdline, &s->target, &s->pid, &command);
	g_free(r->command);
	r->command = g_strdup(command);
	s->command = cstr(r->command);
	s->callgraph = cg;
	if (sa) {
		s->stack_size = sa->stack_user;
		s->sample_regs_user = sa->regs_user;
		s->frequency = attr_bit(sa, PD_ATTR_F_FREQ) ? (uint32_t)MIN(sa->period, G_MAXUINT32) : 0;
		gboolean no_k = attr_bit(sa, PD_ATTR_F_EXCLUDE_KERNEL) ||
				attr_bit(sa, PD_ATTR_F_EXCLUDE_CALLCHAIN_KERNEL);
		/* perf sets exclude_callchain_user in dwarf mode: the user part
		 * comes from the stack copy instead. */
		gboolean no_u = attr_bit(sa, PD_ATTR_F_EXCLUDE_CALLCHAIN_USER) && cg != PL_CG_DWARF;
		s->stacks = no_k ? PL_STACKS_USER : no_u ? PL_STACKS_KERNEL : PL_STACKS_BOTH;
	}
	s->start_ns = r->first_sample;
	if (r->last_sample > r->first_sample)
		s->duration_ms = (uint32_t)MIN((r->last_sample - r->first_sample) / 1000000u,
					       G_MAXUINT32);
	if (!emit(r, error))
		return FALSE;

	for (guint i = 0; i < r->attrs->len; i++) {
		PdAttr *a = attr_at(r, i);
		if (!a->name) {
			/* EVENT_DESC names by id; the attr's first id finds it. */
			for (guint k = 0; k < r->ids->len; k++) {
				const PdId *id = &g_array_index(r->ids, PdId, k);
				const char *n = id->index == i ? g_hash_table_lookup(r->names_by_id, &id->id) : NULL;
				if (n) {
					a->name = g_strndup(n, MAX_EVENT_NAME);
					break;
				}
			}
		}
		if (!a->name)
			a->name = g_strdup_printf("event-%u:0x%" G_GINT64_MODIFIER "x", a->type,
						  a->config);
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_EVENT_DESC;
		struct pl_msg_event_desc *e = &m->u.event_desc;
		e->index = i;
		e->role = a->period ? PL_ROLE_SAMPLED : PL_ROLE_COUNTED;
		e->name = cstr(a->name);
		e->type = a->type;
		e->config = a->config;
		e->config1 = a->config1;
		e->config2 = a->config2;
		e->freq = attr_bit(a, PD_ATTR_F_FREQ);
		e->period_or_freq = a->period;
		e->exclude_kernel = attr_bit(a, PD_ATTR_F_EXCLUDE_KERNEL);
		if (!emit(r, error))
			return FALSE;
	}
	return TRUE;
}

static gboolean emit_build_id(Reader *r, const PdBuildId *b, GError **error)
{
	struct pl_msg *m = r->msg;
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_BUILD_ID;
	struct pl_msg_build_id *o = &m->u.build_id;
	/* perf writes -1 (host) for everything it found on this machine. */
	o->pid = b->pid > 0 ? (uint32_t)b->pid : 0;
	uint8_t mode = b->misc & PD_MISC_CPUMODE_MASK;
	o->source = (mode == PD_MISC_KERNEL || mode == 4) ? PL_BUILD_ID_KERNEL
							  : PL_BUILD_ID_ELF_NOTE;
	o->len = b->len;
	memcpy(o->id, b->id, b->len);
	o->path = cstr(b->path);
	return emit(r, error);
}

/* ================================================================ records */

typedef struct {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	gboolean has_time;
} PdSampleId;

/* The identifying fields at the head of a sample and in the sample_id
 * trailer of other records, read in the kernel's order (perf_output_sample
 * and __perf_event__output_id_sample): the two share TID TIME ID STREAM_ID
 * CPU; a sample also has IDENTIFIER first, IP before TID and ADDR after
 * TIME, the trailer (trailer TRUE) has no IP or ADDR and IDENTIFIER last.
 * Every read goes through the cursor: a short buffer sets c->bad. */
static void read_sample_id(PdCur *c, uint64_t st, gboolean trailer, PdSampleId *sid,
			   uint64_t *ip)
{
	if (!trailer && (st & PD_SAMPLE_IDENTIFIER))
		sid->id = cur_u64(c);
	if (!trailer && (st & PD_SAMPLE_IP))
		*ip = cur_u64(c);
	if (st & PD_SAMPLE_TID) {
		sid->pid = cur_u32(c);
		sid->tid = cur_u32(c);
	}
	if (st & PD_SAMPLE_TIME) {
		sid->time = cur_u64(c);
		sid->has_time = TRUE;
	}
	if (!trailer && (st & PD_SAMPLE_ADDR))
		cur_u64(c);
	if (st & PD_SAMPLE_ID)
		sid->id = cur_u64(c);
	if (st & PD_SAMPLE_STREAM_ID)
		cur_u64(c);
	if (st & PD_SAMPLE_CPU) {
		sid->cpu = cur_u32(c);
		cur_u32(c);
	}
	if (trailer && (st & PD_SAMPLE_IDENTIFIER))
		sid->id = cur_u64(c);
}

/* The sample_id trailer of a non-sample record: fields TID TIME ID
 * STREAM_ID CPU IDENTIFIER, in that order, at the end of the record. */
static const PdAttr *parse_trailer(Reader *r, const uint8_t *rec, size_t size, size_t *body_end,
				   PdSampleId *sid)
{
	memset(sid, 0, sizeof(*sid));
	*body_end = size;
	const PdAttr *a0 = attr_at(r, 0);
	if (!attr_bit(a0, PD_ATTR_F_SAMPLE_ID_ALL))
		return a0;
	const PdAttr *a = a0;
	/* Find the attr: IDENTIFIER is the last u64; a plain ID sits before
	 * STREAM_ID and CPU.  Attrs must agree on the trailer's layout (perf
	 * refuses files where they do not), so attr 0's says where it is. */
	if (r->attrs->len > 1 && (a0->sample_type & (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_ID))) {
		size_t back = 8;
		if (!(a0->sample_type & PD_SAMPLE_IDENTIFIER)) {
			back += (a0->sample_type & PD_SAMPLE_CPU) ? 8 : 0;
			back += (a0->sample_type & PD_SAMPLE_STREAM_ID) ? 8 : 0;
		}
		if (size >= PD_RECORD_HEADER_SIZE + back) {
			int i = attr_for_id(r, ld64(rec + size - back, r->be));
			if (i >= 0)
				a = attr_at(r, (guint)i);
		}
	}
	if (a->id_trailer > size - PD_RECORD_HEADER_SIZE)
		return NULL;
	*body_end = size - a->id_trailer;
	PdCur c;
	cur_init(&c, rec + *body_end, a->id_trailer, r->be);
	read_sample_id(&c, a->sample_type, TRUE, sid, NULL);
	return a;
}

/* Which attr a sample belongs to: IDENTIFIER is its first u64, a plain ID
 * comes after IP TID TIME ADDR. */
static int sample_attr(Reader *r, const uint8_t *body, size_t n)
{
	if (r->attrs->len == 1)
		return 0;
	uint64_t st = attr_at(r, 0)->sample_type;
	size_t pos;
	if (st & PD_SAMPLE_IDENTIFIER)
		pos = 0;
	else if (st & PD_SAMPLE_ID)
		pos = 8u * (guint)__builtin_popcountll(st & (PD_SAMPLE_IP | PD_SAMPLE_TID |
							      PD_SAMPLE_TIME | PD_SAMPLE_ADDR));
	else
		return 0;
	if (n < pos + 8)
		return -2;
	return attr_for_id(r, ld64(body + pos, r->be));
}

static gboolean skip_read_values(PdCur *c, const PdAttr *a)
{
	uint64_t rf = a->read_format;
	uint64_t per = 1 + !!(rf & PD_READ_ID) + !!(rf & PD_READ_LOST);
	uint64_t nr = 1;
	if (rf & PD_READ_GROUP)
		nr = cur_u64(c);
	if (rf & PD_READ_TOTAL_TIME_ENABLED)
		cur_u64(c);
	if (rf & PD_READ_TOTAL_TIME_RUNNING)
		cur_u64(c);
	if (nr > cur_left(c) / 8 / per)
		c->bad = TRUE;
	else
		cur_take_u64s(c, nr * per);
	return !c->bad;
}

static gboolean handle_sample(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			      GError **error)
{
	const uint8_t *body = rec + PD_RECORD_HEADER_SIZE;
	size_t n = size - PD_RECORD_HEADER_SIZE;
	int ai = sample_attr(r, body, n);
	if (ai == -2)
		return corrupt(error, r, off, "sample of %zu bytes has no room for its event id",
			       size);
	if (ai < 0) {
		r->st->unknown_ids++;
		return TRUE;
	}
	const PdAttr *a = attr_at(r, (guint)ai);
	uint64_t st = a->sample_type;
	struct pl_msg *m = r->msg;
	m->type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &m->u.sample;
	/* Zero everything but the large callchain and regs arrays (only their
	 * first nr entries are meaningful), so fields added to the struct
	 * later start at 0 too. */
	memset(s, 0, offsetof(struct pl_msg_sample, callchain));
	memset(&s->regs_abi, 0, offsetof(struct pl_msg_sample, regs) -
				       offsetof(struct pl_msg_sample, regs_abi));
	memset(&s->stack_size, 0, sizeof(*s) - offsetof(struct pl_msg_sample, stack_size));
	s->event = (uint32_t)ai;
	s->cpumode = ld16(rec + 4, r->be) & PD_MISC_CPUMODE_MASK;
	s->stack_requested = a->stack_user;

	PdCur c;
	cur_init(&c, body, n, r->be);
	PdSampleId sid = { 0 };
	read_sample_id(&c, st, FALSE, &sid, &s->ip);
	s->pid = sid.pid;
	s->tid = sid.tid;
	s->time = sid.time;
	s->cpu = sid.cpu;
	if (st & PD_SAMPLE_PERIOD)
		s->period = cur_u64(&c);
	if (st & PD_SAMPLE_READ)
		skip_read_values(&c, a);
	if (st & PD_SAMPLE_CALLCHAIN) {
		uint64_t nr = cur_u64(&c);
		const uint8_t *ips = cur_take_u64s(&c, nr);
		if (ips) {
			uint64_t keep = MIN(nr, (uint64_t)PL_MAX_CALLCHAIN);
			if (keep < nr)
				r->st->truncated_callchains++;
			for (uint64_t i = 0; i < keep; i++)
				s->callchain[i] = ld64(ips + 8 * i, r->be);
			s->nr_callchain = (uint32_t)keep;
		}
	}
	if (st & PD_SAMPLE_RAW) {
		uint32_t len = cur_u32(&c);
		cur_skip(&c, len);
	}
	if (st & PD_SAMPLE_BRANCH_STACK) {
		uint64_t nr = cur_u64(&c);
		if (a->branch_sample_type & PD_BRANCH_HW_INDEX)
			cur_u64(&c);
		if (nr > cur_left(&c) / 24)
			c.bad = TRUE;
		else
			cur_take(&c, (size_t)nr * 24);
		if (a->branch_sample_type & PD_BRANCH_COUNTERS)
			cur_take_u64s(&c, nr);
	}
	if (st & PD_SAMPLE_REGS_USER) {
		s->regs_abi = cur_u64(&c);
		if (s->regs_abi) {
			const uint8_t *regs = cur_take_u64s(&c, a->nr_regs_user);
			if (regs) {
				s->nr_regs = MIN(a->nr_regs_user, PL_MAX_REGS);
				for (uint32_t i = 0; i < s->nr_regs; i++)
					s->regs[i] = ld64(regs + 8 * i, r->be);
			}
		}
	}
	if (st & PD_SAMPLE_STACK_USER) {
		uint64_t sz = cur_u64(&c);
		if (sz) {
			const uint8_t *data = cur_take(&c, sz > cur_left(&c) ? SIZE_MAX : (size_t)sz);
			uint64_t dyn = cur_u64(&c);
			if (data) {
				/* dyn_size is what was really copied; never more than the
				 * buffer that holds it. */
				if (dyn == 0 || dyn > sz)
					dyn = sz;
				if (dyn > PL_MAX_STACK_COPY) {
					dyn = PL_MAX_STACK_COPY;
					r->st->truncated_stacks++;
				}
				s->stack = data;
				s->stack_size = (uint32_t)dyn;
			}
		}
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		cur_u64(&c);
	if (st & PD_SAMPLE_DATA_SRC)
		cur_u64(&c);
	if (st & PD_SAMPLE_TRANSACTION)
		cur_u64(&c);
	if (st & PD_SAMPLE_REGS_INTR) {
		if (cur_u64(&c))
			cur_take_u64s(&c, a->nr_regs_intr);
	}
	if (st & PD_SAMPLE_PHYS_ADDR)
		cur_u64(&c);
	if (st & PD_SAMPLE_CGROUP)
		cur_u64(&c);
	if (st & PD_SAMPLE_DATA_PAGE_SIZE)
		cur_u64(&c);
	if (st & PD_SAMPLE_CODE_PAGE_SIZE)
		cur_u64(&c);
	if (st & PD_SAMPLE_AUX) {
		uint64_t sz = cur_u64(&c);
		cur_skip(&c, sz);
	}
	if (c.bad)
		return corrupt(error, r, off,
			       "sample record of %zu bytes is shorter than its fields "
			       "(sample_type 0x%" G_GINT64_MODIFIER "x) say",
			       size, st);
	r->st->samples++;
	return emit(r, error);
}

static gboolean handle_mmap(Reader *r, const uint8_t *rec, size_t body_end, uint16_t type,
			    uint16_t misc, const PdSampleId *sid, uint64_t off, GError **error)
{
	struct pl_msg *m = r->msg;
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_MMAP;
	struct pl_msg_mmap *o = &m->u.mmap;
	PdCur c;
	cur_init(&c, rec + PD_RECORD_HEADER_SIZE, body_end - PD_RECORD_HEADER_SIZE, r->be);
	o->pid = cur_u32(&c);
	o->tid = cur_u32(&c);
	o->start = cur_u64(&c);
	o->len = cur_u64(&c);
	o->pgoff = cur_u64(&c);
	if (type == PD_REC_MMAP2) {
		const uint8_t *u = cur_take(&c, 24);
		if (u && (misc & PD_MISC_MMAP_BUILD_ID)) {
			o->build_id_len = MIN(u[0], PL_MAX_BUILD_ID);
			memcpy(o->build_id, u + 4, o->build_id_len);
		} else if (u) {
			o->maj = ld32(u, r->be);
			o->min = ld32(u + 4, r->be);
			o->ino = ld64(u + 8, r->be);
		}
		o->prot = cur_u32(&c);
		o->flags = cur_u32(&c);
	} else {
		/* MMAP (v1) is only written for executable mappings. */
		o->prot = 4; /* PROT_EXEC */
	}
	if (c.bad)
		return corrupt(error, r, off, "MMAP record too short");
	o->filename = str_in(c.p, cur_left(&c));
	o->time = sid->time;
	o->cpumode = misc & PD_MISC_CPUMODE_MASK;
	/* perf synthesizes the mappings it finds in /proc with no time. */
	o->snapshot = sid->has_time && sid->time == 0;
	if (o->build_id_len == 0 && o->filename.len) {
		char name[PL_MAX_STR + 1];
		memcpy(name, o->filename.p, o->filename.len);
		name[o->filename.len] = 0;
		/* perf maps the kernel as "[kernel.kallsyms]_text" (the symbol
		 * it is relative to) but names its DSO "[kernel.kallsyms]". */
		if (g_str_has_prefix(name, "[kernel.kallsyms]"))
			name[strlen("[kernel.kallsyms]")] = 0;
		const PdBuildId *b = g_hash_table_lookup(r->bid_by_path, name);
		if (b) {
			o->build_id_len = b->len;
			memcpy(o->build_id, b->id, b->len);
		}
	}
	return emit(r, error);
}

/* PERF_RECORD_HEADER_ATTR (pipe mode): attr, then the ids to its end. */
static gboolean handle_header_attr(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
				   GError **error)
{
	const uint8_t *body = rec + PD_RECORD_HEADER_SIZE;
	size_t n = size - PD_RECORD_HEADER_SIZE;
	if (n < PD_ATTR_SIZE_VER0)
		return corrupt(error, r, off, "HEADER_ATTR record too short");
	uint32_t asize = ld32(body + PD_ATTR_SIZE, r->be);
	if (asize == 0)
		asize = PD_ATTR_SIZE_VER0;
	if (asize > n || asize < PD_ATTR_SIZE_VER0 || (n - asize) % 8)
		return corrupt(error, r, off, "HEADER_ATTR: attr size %u in a %zu-byte record",
			       asize, size);
	if (r->header_sent)
		return corrupt(error, r, off, "an event attribute after the first sample");
	PdAttr a;
	if (!attr_parse(r, body, asize, off, &a, error))
		return FALSE;
	return add_attr(r, &a, body + asize, (n - asize) / 8, off, error);
}

/* PERF_RECORD_EVENT_UPDATE of type NAME (pipe mode names events this way). */
static void handle_event_update(Reader *r, const uint8_t *rec, size_t size)
{
	PdCur c;
	cur_init(&c, rec + PD_RECORD_HEADER_SIZE, size - PD_RECORD_HEADER_SIZE, r->be);
	uint64_t type = cur_u64(&c), id = cur_u64(&c);
	if (c.bad || type != 1 /* PERF_EVENT_UPDATE__NAME */)
		return;
	int i = attr_for_id(r, id);
	if (i < 0)
		return;
	PdAttr *a = attr_at(r, (guint)i);
	g_free(a->name);
	struct pl_str s = str_in(c.p, MIN(cur_left(&c), MAX_EVENT_NAME));
	a->name = g_strndup(s.p, s.len);
}

static gboolean handle_compressed(Reader *r, const uint8_t *rec, size_t size, uint16_t type,
				  uint64_t off, GError **error);

/* One record, in delivery order.  rec points at its header; size is its
 * checked length (≥ 8).  off is its offset, for messages. */
static gboolean handle_record(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			      gboolean in_compressed, GError **error)
{
	uint16_t type = (uint16_t)ld32(rec, r->be);
	uint16_t misc = ld16(rec + 4, r->be);
	r->st->records++;
	if (type < G_N_ELEMENTS(r->st->by_type))
		r->st->by_type[type]++;

	if (type < PD_REC_KERNEL_MAX && !emit_header(r, error))
		return FALSE;

	struct pl_msg *m = r->msg;
	PdSampleId sid;
	size_t body_end = size;
	const uint8_t *b = rec + PD_RECORD_HEADER_SIZE;
	if (type < PD_REC_KERNEL_MAX && type != PD_REC_SAMPLE) {
		if (!parse_trailer(r, rec, size, &body_end, &sid))
			return corrupt(error, r, off,
				       "record type %u of %zu bytes cannot hold its sample_id "
				       "fields",
				       type, size);
	}
	size_t bn = body_end - PD_RECORD_HEADER_SIZE; /* body bytes before the trailer */

	switch (type) {
	case PD_REC_SAMPLE:
		return handle_sample(r, rec, size, off, error);
	case PD_REC_MMAP:
	case PD_REC_MMAP2:
		return handle_mmap(r, rec, body_end, type, misc, &sid, off, error);
	case PD_REC_COMM:
		if (bn < 8)
			return corrupt(error, r, off, "COMM record too short");
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_COMM;
		m->u.comm.pid = ld32(b, r->be);
		m->u.comm.tid = ld32(b + 4, r->be);
		m->u.comm.comm = str_in(b + 8, bn - 8);
		m->u.comm.time = sid.time;
		m->u.comm.exec = !!(misc & PD_MISC_COMM_EXEC);
		m->u.comm.snapshot = sid.has_time && sid.time == 0;
		return emit(r, error);
	case PD_REC_FORK:
	case PD_REC_EXIT:
		if (bn < 24)
			return corrupt(error, r, off, "FORK/EXIT record too short");
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_TASK;
		m->u.task.kind = type == PD_REC_FORK ? PL_TASK_FORK : PL_TASK_EXIT;
		m->u.task.pid = ld32(b, r->be);
		m->u.task.ppid = ld32(b + 4, r->be);
		m->u.task.tid = ld32(b + 8, r->be);
		m->u.task.ptid = ld32(b + 12, r->be);
		m->u.task.time = ld64(b + 16, r->be);
		return emit(r, error);
	case PD_REC_SWITCH:
	case PD_REC_SWITCH_CPU_WIDE:
		if (type == PD_REC_SWITCH_CPU_WIDE && bn < 8)
			return corrupt(error, r, off, "SWITCH_CPU_WIDE record too short");
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_SWITCH;
		m->u.sw.pid = sid.pid;
		m->u.sw.tid = sid.tid;
		m->u.sw.time = sid.time;
		m->u.sw.cpu = sid.cpu;
		m->u.sw.flags = ((misc & PD_MISC_SWITCH_OUT) ? PL_SWITCH_OUT : 0) |
				((misc & PD_MISC_SWITCH_OUT_PREEMPT) ? PL_SWITCH_PREEMPT : 0);
		if (type == PD_REC_SWITCH_CPU_WIDE) {
			m->u.sw.other_pid = ld32(b, r->be);
			m->u.sw.other_tid = ld32(b + 4, r->be);
		}
		return emit(r, error);
	case PD_REC_LOST:
	case PD_REC_LOST_SAMPLES:
		if (bn < (type == PD_REC_LOST ? 16u : 8u))
			return corrupt(error, r, off, "LOST record too short");
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_LOST;
		m->u.lost.kind = type == PD_REC_LOST ? PL_LOST_RING : PL_LOST_SAMPLES;
		m->u.lost.cpu = sid.cpu;
		m->u.lost.time = sid.time;
		m->u.lost.count = ld64(type == PD_REC_LOST ? b + 8 : b, r->be);
		return emit(r, error);
	case PD_REC_THROTTLE:
	case PD_REC_UNTHROTTLE: {
		if (bn < 24)
			return corrupt(error, r, off, "THROTTLE record too short");
		int ai = attr_for_id(r, ld64(b + 8, r->be));
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_THROTTLE;
		m->u.throttle.time = ld64(b, r->be);
		m->u.throttle.event = ai < 0 ? 0 : (uint32_t)ai;
		m->u.throttle.unthrottle = type == PD_REC_UNTHROTTLE;
		return emit(r, error);
	}
	case PD_REC_HEADER_ATTR:
		return handle_header_attr(r, rec, size, off, error);
	case PD_REC_HEADER_FEATURE: {
		if (size < PD_RECORD_HEADER_SIZE + 8)
			return corrupt(error, r, off, "HEADER_FEATURE record too short");
		uint64_t feat = ld64(b, r->be);
		if (feat >= PD_FEAT_BITS || !feature_wanted((int)feat))
			return TRUE;
		return parse_feature(r, (int)feat, b + 8, size - PD_RECORD_HEADER_SIZE - 8,
				     off + 16, error);
	}
	case PD_REC_HEADER_BUILD_ID: {
		guint before = r->build_ids->len;
		if (!parse_build_id_entry(r, rec, size, off, error))
			return FALSE;
		/* Pipe mode sends these at the end, after the header messages. */
		if (r->header_sent)
			return emit_build_id(r, g_ptr_array_index(r->build_ids, before), error);
		return TRUE;
	}
	case PD_REC_EVENT_UPDATE:
		handle_event_update(r, rec, size);
		return TRUE;
	case PD_REC_FINISHED_ROUND:
		r->st->rounds++;
		return TRUE;
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		if (in_compressed)
			return corrupt(error, r, off, "a compressed record inside a compressed one");
		return handle_compressed(r, rec, size, type, off, error);
	default:
		if (type >= PD_REC_MAX)
			r->st->unknown_records++;
		return TRUE;
	}
}

/* ================================================================ ordering */

/* Time of a record for ordering, or FALSE if it has none (then it is
 * delivered at once, as perf does). */
static gboolean record_time(Reader *r, const uint8_t *rec, size_t size, uint64_t *t)
{
	uint16_t type = (uint16_t)ld32(rec, r->be);
	if (type >= PD_REC_KERNEL_MAX)
		return FALSE;
	if (type == PD_REC_SAMPLE) {
		int ai = sample_attr(r, rec + PD_RECORD_HEADER_SIZE, size - PD_RECORD_HEADER_SIZE);
		if (ai < 0)
			return FALSE;
		uint64_t st = attr_at(r, (guint)ai)->sample_type;
		if (!(st & PD_SAMPLE_TIME))
			return FALSE;
		size_t pos = PD_RECORD_HEADER_SIZE +
			     8u * (guint)__builtin_popcountll(st & (PD_SAMPLE_IDENTIFIER |
								    PD_SAMPLE_IP | PD_SAMPLE_TID));
		if (size < pos + 8)
			return FALSE;
		*t = ld64(rec + pos, r->be);
		return TRUE;
	}
	PdSampleId sid;
	size_t body_end;
	if (!parse_trailer(r, rec, size, &body_end, &sid) || !sid.has_time)
		return FALSE;
	*t = sid.time;
	return TRUE;
}

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
	if (!r->map)
		return;
	const uint8_t *low = r->win + r->win_start; /* the next record to read */
	for (guint j = 0; j < r->queue->len; j++) {
		const uint8_t *p = g_array_index(r->queue, PdQueued, j).ptr;
		if (p && p < low)
			low = p;
	}
	size_t upto = (size_t)(low - r->map) & ~(size_t)(sysconf(_SC_PAGESIZE) - 1);
	if (upto >= r->map_dropped + (8u << 20)) { /* in steps, not a call per round */
		madvise(r->map + r->map_dropped, upto - r->map_dropped, MADV_DONTNEED);
		r->map_dropped = upto;
	}
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
	if (r->reorder && r->header_sent && record_time(r, rec, size, &t)) {
		PdQueued q = { t, r->seq++, off, 0, NULL, (uint16_t)size };
		if (r->map && !in_compressed && rec >= r->map && rec < r->map + r->map_len) {
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
		if (!emit_header(r, error))
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
			return corrupt(error, r, off, "COMPRESSED2 record too short");
		uint64_t dsz = ld64(src, r->be);
		if (dsz > n - 8)
			return corrupt(error, r, off, "COMPRESSED2 data size %" G_GUINT64_FORMAT
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
			return corrupt(error, r, off, "zstd: %s", ZSTD_getErrorName(ret));
		r->zout_len = out.pos;
		size_t pos = 0;
		while (r->zout_len - pos >= PD_RECORD_HEADER_SIZE) {
			uint16_t rs = ld16(r->zout + pos + 6, r->be);
			if (rs < PD_RECORD_HEADER_SIZE)
				return corrupt(error, r, off,
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
			return corrupt(error, r, off, "compressed data does not form records");
	}
	return TRUE;
}

/* ================================================================ data stream */

/* Makes n bytes available at win + win_start; FALSE at the end of the data. */
static gboolean win_need(Reader *r, size_t n, gboolean *eof, GError **error)
{
	*eof = FALSE;
	if (r->win_len - r->win_start >= n)
		return TRUE;
	if (r->map) { /* all of the data is in the window: this is its end */
		*eof = TRUE;
		return TRUE;
	}
	memmove(r->win, r->win + r->win_start, r->win_len - r->win_start);
	r->win_len -= r->win_start;
	r->win_start = 0;
	while (r->win_len < n) {
		uint64_t left = r->data_end - r->win_pos;
		if (left == 0) {
			*eof = TRUE;
			return TRUE;
		}
		size_t want = (size_t)MIN(left, (uint64_t)(WINDOW_SIZE - r->win_len));
		ssize_t k = pread_some(r, r->win + r->win_len, want, r->win_pos, error);
		if (k < 0)
			return FALSE;
		if (k == 0) {
			/* The file shrank under us, or pipe mode at its end. */
			r->data_end = r->win_pos;
			*eof = TRUE;
			return TRUE;
		}
		r->win_len += (size_t)k;
		r->win_pos += (uint64_t)k;
	}
	return TRUE;
}

/* Skips bytes that follow a record outside its size (AUXTRACE payloads,
 * pipe-mode tracing data). */
static gboolean win_skip(Reader *r, uint64_t n, uint64_t off, GError **error)
{
	size_t inwin = r->win_len - r->win_start;
	if (n <= inwin) {
		r->win_start += (size_t)n;
		return TRUE;
	}
	n -= inwin;
	r->win_start = r->win_len = 0;
	if (n > r->data_end - r->win_pos)
		return corrupt(error, r, off, "%" G_GUINT64_FORMAT " bytes of trace data run past "
			       "the end of the data", n);
	r->win_pos += n;
	return TRUE;
}

static gboolean check_cancel(Reader *r, uint64_t pos, GError **error)
{
	if (pos < r->next_progress)
		return TRUE;
	r->next_progress = pos + PROGRESS_STEP;
	const PlPerfDataReadOptions *o = r->opts;
	gboolean go = TRUE;
	if (o && o->progress)
		go = o->progress(pos - r->data_begin, r->data_end - r->data_begin, o->progress_user);
	if (o && o->cancellable && g_cancellable_is_cancelled(o->cancellable))
		go = FALSE;
	if (!go)
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_CANCELLED,
			    "reading %s was cancelled", r->path);
	return go;
}

/* ─── the mapping's guard ───
 *
 * A mapped file that someone truncates while it is read raises SIGBUS at
 * the first access past its new end.  The guard's handler puts a page of
 * zeros there instead and notes it: the read then meets zeros (a record
 * "shorter than its header", or data that is checked like any other) and
 * the reader reports that the file changed while it was read.  Faults
 * outside every guarded mapping go to the handler that was there before.
 * Up to GUARD_SLOTS files are read mapped at once; more are streamed. */
#define GUARD_SLOTS 16
typedef struct {
	uint8_t *volatile start;
	volatile size_t len;
	volatile sig_atomic_t hit;
} Guard;
static Guard guards[GUARD_SLOTS];
static GMutex guard_lock;
static guint guard_users;
static struct sigaction guard_old;

static void guard_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uint8_t *a = si ? (uint8_t *)si->si_addr : NULL;
	long page = sysconf(_SC_PAGESIZE);
	for (guint i = 0; a && i < GUARD_SLOTS; i++) {
		uint8_t *st = guards[i].start;
		if (!st || a < st || a >= st + guards[i].len)
			continue;
		void *pg = (void *)((uintptr_t)a & ~(uintptr_t)(page - 1));
		if (mmap(pg, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    MAP_FAILED) {
			guards[i].hit = 1;
			return; /* the access is retried and reads zeros */
		}
	}
	if ((guard_old.sa_flags & SA_SIGINFO) && guard_old.sa_sigaction) {
		guard_old.sa_sigaction(sig, si, ctx);
	} else if (guard_old.sa_handler != SIG_DFL && guard_old.sa_handler != SIG_IGN &&
		   guard_old.sa_handler) {
		guard_old.sa_handler(sig);
	} else {
		signal(SIGBUS, SIG_DFL);
		raise(SIGBUS);
	}
}

/* A slot guarding [p, p + len), or -1 when none is free. */
static int guard_add(uint8_t *p, size_t len)
{
	int slot = -1;
	g_mutex_lock(&guard_lock);
	for (int i = 0; i < GUARD_SLOTS && slot < 0; i++)
		if (!guards[i].start)
			slot = i;
	if (slot >= 0) {
		guards[slot].hit = 0;
		guards[slot].len = len;
		guards[slot].start = p;
		if (guard_users++ == 0) {
			struct sigaction sa = { 0 };
			sa.sa_sigaction = guard_sigbus;
			sa.sa_flags = SA_SIGINFO | SA_NODEFER;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, &guard_old);
		}
	}
	g_mutex_unlock(&guard_lock);
	return slot;
}

/* Ends the guard of slot (after the munmap); TRUE if it caught a fault. */
static gboolean guard_remove(int slot)
{
	g_mutex_lock(&guard_lock);
	gboolean hit = guards[slot].hit != 0;
	guards[slot].start = NULL;
	guards[slot].len = 0;
	if (--guard_users == 0)
		sigaction(SIGBUS, &guard_old, NULL);
	g_mutex_unlock(&guard_lock);
	return hit;
}

/* Maps the data section of a regular file: records are then read, and
 * held for reordering, where they are, without a copy (pread copied every
 * byte once, the reorder arena a second time).  FALSE: read through the
 * window. */
static gboolean map_data(Reader *r)
{
	long page = sysconf(_SC_PAGESIZE);
	if (r->pipe || page <= 0 || r->data_end <= r->data_begin || r->data_end > r->file_size ||
	    r->data_end - r->data_begin > (uint64_t)(SIZE_MAX / 4))
		return FALSE;
	uint64_t start = r->data_begin & ~(uint64_t)(page - 1);
	size_t len = (size_t)(r->data_end - start);
	void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd, (off_t)start);
	if (m == MAP_FAILED)
		return FALSE;
	r->guard = guard_add(m, len);
	if (r->guard < 0) {
		munmap(m, len);
		return FALSE;
	}
	madvise(m, len, MADV_SEQUENTIAL);
	r->map = m;
	r->map_len = len;
	r->win = r->map;
	r->win_start = (size_t)(r->data_begin - start);
	r->win_len = len;
	r->win_pos = r->data_end;
	return TRUE;
}

static gboolean read_data(Reader *r, GError **error)
{
	if (!map_data(r)) {
		r->win = g_malloc(WINDOW_SIZE);
		r->win_start = r->win_len = 0;
		r->win_pos = r->data_begin;
	}
	r->next_progress = r->data_begin;
	for (;;) {
		uint64_t off = r->win_pos - (r->win_len - r->win_start);
		if (!check_cancel(r, off, error))
			return FALSE;
		gboolean eof;
		if (!win_need(r, PD_RECORD_HEADER_SIZE, &eof, error))
			return FALSE;
		size_t have = r->win_len - r->win_start;
		if (eof && have == 0)
			break;
		if (eof)
			return corrupt(error, r, off, "the data ends inside a record header (%zu of 8 "
				       "bytes): the file is truncated",
				       have);
		const uint8_t *h = r->win + r->win_start;
		uint16_t size = ld16(h + 6, r->be);
		uint32_t type = ld32(h, r->be);
		if (size < PD_RECORD_HEADER_SIZE)
			return corrupt(error, r, off, "record of type %u claims %u bytes, less than "
				       "its own header",
				       type, size);
		if (!win_need(r, size, &eof, error))
			return FALSE;
		if (eof)
			return corrupt(error, r, off,
				       "a %u-byte record of type %u runs past the end of the data "
				       "(%" G_GUINT64_FORMAT " bytes left): the file is truncated",
				       size, type, r->data_end - off);
		h = r->win + r->win_start;
		uint64_t extra = 0;
		if (type == PD_REC_AUXTRACE && size >= 16)
			extra = ld64(h + 8, r->be);
		else if (type == PD_REC_HEADER_TRACING_DATA && r->pipe && size >= 12)
			extra = (ld32(h + 8, r->be) + 7ull) & ~7ull;
		if (!dispatch(r, h, size, off, FALSE, error))
			return FALSE;
		r->win_start += size;
		r->st->data_bytes += size;
		if (extra && !win_skip(r, extra, off, error))
			return FALSE;
	}
	if (r->reorder && !flush_queue(r, G_MAXUINT64, error))
		return FALSE;
	/* A file with no kernel record still describes its session. */
	return emit_header(r, error);
}

/* ================================================================ entry point */

static gboolean read_all(Reader *r, GError **error)
{
	r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int e = errno;
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO, "cannot open %s: %s",
			    r->path, g_strerror(e));
		return FALSE;
	}
	struct stat sb;
	if (fstat(r->fd, &sb) < 0) {
		int e = errno;
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO, "cannot stat %s: %s",
			    r->path, g_strerror(e));
		return FALSE;
	}
	if (S_ISDIR(sb.st_mode))
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
				   "%s is a directory: perf's directory format (perf record "
				   "--threads) is not supported; record without --threads",
				   r->path),
		       FALSE;
	r->file_size = (guint64)sb.st_size;
	r->st->file_size = r->file_size;

	uint8_t h[PD_FILE_HEADER_SIZE];
	if (r->file_size < PD_PIPE_HEADER_SIZE)
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_NOT_PERF,
				   "%s is not a perf.data file: only %" G_GUINT64_FORMAT
				   " bytes long",
				   r->path, r->file_size),
		       FALSE;
	if (!read_at(r, 0, h, PD_PIPE_HEADER_SIZE, error))
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
		r->data_begin = PD_PIPE_HEADER_SIZE;
		r->data_end = r->file_size;
	} else {
		if (r->file_size < PD_FILE_HEADER_SIZE)
			return corrupt(error, r, 0, "the file ends inside its %u-byte header",
				       PD_FILE_HEADER_SIZE);
		if (!read_at(r, 0, h, PD_FILE_HEADER_SIZE, error) ||
		    !read_file_header(r, h, error))
			return FALSE;
		if (!emit_header(r, error))
			return FALSE;
		for (guint i = 0; i < r->build_ids->len; i++)
			if (!emit_build_id(r, g_ptr_array_index(r->build_ids, i), error))
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
	r.fd = -1;
	r.attrs = g_array_new(FALSE, TRUE, sizeof(PdAttr));
	g_array_set_clear_func(r.attrs, attr_clear);
	r.ids = g_array_new(FALSE, FALSE, sizeof(PdId));
	r.build_ids = g_ptr_array_new_with_free_func(build_id_free);
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

	if (r.fd >= 0)
		close(r.fd);
	g_array_unref(r.attrs);
	g_array_unref(r.ids);
	g_hash_table_unref(r.bid_by_path);
	g_ptr_array_unref(r.build_ids);
	g_hash_table_unref(r.names_by_id);
	g_free(r.msg);
	if (r.map) {
		munmap(r.map, r.map_len);
		if (guard_remove(r.guard)) {
			/* whatever went wrong after it, this is why */
			g_clear_error(error);
			g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO,
				    "%s changed (was cut short) while it was being read: read it "
				    "again once the program writing it has finished", path);
			ok = FALSE;
		}
	} else {
		g_free(r.win);
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
