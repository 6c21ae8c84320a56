/* perf-data-header.c — what a perf.data file says about its recording
 * before (file mode) or among (pipe mode) its records: the file header, the
 * event attributes and their ids, the feature sections (one parser per
 * feature, through a table as perf's feat_ops), and the messages made of
 * them: HELLO, SESSION, one EVENT_DESC per attr, BUILD_ID.
 */
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "perf-data-private.h"

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

/* Parses a perf_event_attr from n bytes (its own size field says how many
 * are meaningful; fields past it are zero, as the kernel treats them). */
static gboolean attr_parse(Reader *r, const uint8_t *p, size_t n, uint64_t off, PdAttr *a,
			   GError **error)
{
	memset(a, 0, sizeof(*a));
	if (n < PD_ATTR_SIZE_VER0)
		return pd_corrupt(error, r->path, off,
				  "event attribute of %zu bytes, less than the %u of "
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
		return pd_corrupt(error, r->path, off, "more than %u events", MAX_ATTRS);
	if (nids > MAX_IDS || r->ids->len + nids > MAX_IDS)
		return pd_corrupt(error, r->path, off, "more than %u event ids", MAX_IDS);
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

int pd_attr_for_id(Reader *r, uint64_t id)
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

void pd_attr_clear(gpointer p)
{
	PdAttr *a = p;
	g_free(a->name);
}

/* ================================================================ features */

gboolean pd_parse_build_id_entry(Reader *r, const uint8_t *p, size_t n, uint64_t off,
				 GError **error)
{
	if (n < PD_BUILD_ID_ENTRY_FIXED)
		return pd_corrupt(error, r->path, off,
				  "build-id entry of %zu bytes is too short", n);
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

void pd_build_id_free(gpointer p)
{
	PdBuildId *b = p;
	g_free(b->path);
	g_free(b);
}

static gboolean parse_build_id_table(Reader *r, const uint8_t *p, size_t n, uint64_t off,
				     GError **error)
{
	size_t pos = 0;
	while (n - pos >= PD_RECORD_HEADER_SIZE) {
		uint16_t size = ld16(p + pos + 6, r->be);
		if (size < PD_RECORD_HEADER_SIZE || size > n - pos)
			return pd_corrupt(error, r->path, off + pos,
					  "build-id entry claims %u bytes, %zu left in its section",
					  size, n - pos);
		if (!pd_parse_build_id_entry(r, p + pos, size, off + pos, error))
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
		return pd_corrupt(error, r->path, off,
				  "EVENT_DESC header: %u events of %u bytes", nre, sz);
	for (uint32_t i = 0; i < nre; i++) {
		cur_take(&c, sz);
		uint32_t nr_ids = cur_u32(&c);
		g_autofree char *name = cur_string(&c);
		const uint8_t *ids = cur_take_u64s(&c, nr_ids);
		if (c.bad)
			return pd_corrupt(error, r->path, off,
					  "EVENT_DESC entry %u does not fit its section",
					  i);
		for (uint32_t k = 0; k < nr_ids; k++) {
			uint64_t *key = g_new(uint64_t, 1);
			*key = ld64(ids + 8 * k, r->be);
			g_hash_table_replace(r->names_by_id, key, g_strdup(name));
		}
		/* Positional fallback for attrs that carry no ids. */
		if (i < r->attrs->len && !pd_attr_at(r, i)->name && name)
			pd_attr_at(r, i)->name = g_strndup(name, MAX_EVENT_NAME);
	}
	return TRUE;
}

/* One parser per feature section, as perf's feat_ops[] and perfparser's
 * perffeatures: c spans the section, off is its file offset (for errors).
 * A parser that leaves c->bad set found the section malformed.  Features
 * without a parser are skipped (their bounds are still checked). */
typedef gboolean (*PdFeatParse)(Reader *r, PdCur *c, uint64_t off, GError **error);

static gboolean feat_hostname(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	g_free(r->hostname);
	r->hostname = cur_string(c);
	return TRUE;
}

static gboolean feat_osrelease(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	g_free(r->osrelease);
	r->osrelease = cur_string(c);
	return TRUE;
}

static gboolean feat_version(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	g_free(r->version);
	r->version = cur_string(c);
	return TRUE;
}

static gboolean feat_arch(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	g_free(r->arch);
	r->arch = cur_string(c);
	return TRUE;
}

static gboolean feat_nrcpus(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	r->nr_cpus_avail = cur_u32(c);
	r->nr_cpus_online = cur_u32(c);
	return TRUE;
}

static gboolean feat_cmdline(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	uint32_t nr = cur_u32(c);
	if (nr > PL_MAX_ARGV * 64)
		return pd_corrupt(error, r->path, off, "CMDLINE claims %u arguments", nr);
	GString *s = g_string_new(NULL);
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		g_autofree char *a = cur_string(c);
		if (a && s->len < PL_MAX_STR)
			g_string_append_printf(s, "%s%s", i ? " " : "", a);
	}
	g_free(r->cmdline);
	r->cmdline = g_string_free(s, FALSE);
	return TRUE;
}

static gboolean feat_event_desc(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	return parse_event_desc(r, c->p, cur_left(c), off, error);
}

static gboolean feat_build_id(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	return parse_build_id_table(r, c->p, cur_left(c), off, error);
}

static gboolean feat_sample_time(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	r->first_sample = cur_u64(c);
	r->last_sample = cur_u64(c);
	return TRUE;
}

static gboolean feat_clock_data(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	uint32_t version = cur_u32(c);
	r->clock_data_clockid = cur_u32(c);
	r->clock_tod_ns = cur_u64(c);
	r->clock_clockid_ns = cur_u64(c);
	r->have_clock_data = !c->bad && version == 1;
	c->bad = FALSE; /* unknown versions are ignored, not fatal */
	return TRUE;
}

static gboolean feat_compressed(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	cur_u32(c); /* version */
	uint32_t type = cur_u32(c);
	if (!c->bad && type != 1)
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
				   "%s is compressed with method %u; only zstd (1) is "
				   "supported: run `perf inject -i FILE -o plain.data` on "
				   "the recording machine",
				   r->path, type),
		       FALSE;
	return TRUE;
}

static gboolean feat_dir_format(Reader *r, PdCur *c, uint64_t off, GError **error)
{
	return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
			   "%s is in perf's directory format (perf record --threads), "
			   "which is not supported: record without --threads",
			   r->path),
	       FALSE;
}

static const PdFeatParse feat_ops[PD_FEAT_BITS] = {
	[PD_FEAT_BUILD_ID] = feat_build_id,
	[PD_FEAT_HOSTNAME] = feat_hostname,
	[PD_FEAT_OSRELEASE] = feat_osrelease,
	[PD_FEAT_VERSION] = feat_version,
	[PD_FEAT_ARCH] = feat_arch,
	[PD_FEAT_NRCPUS] = feat_nrcpus,
	[PD_FEAT_CMDLINE] = feat_cmdline,
	[PD_FEAT_EVENT_DESC] = feat_event_desc,
	[PD_FEAT_SAMPLE_TIME] = feat_sample_time,
	[PD_FEAT_DIR_FORMAT] = feat_dir_format,
	[PD_FEAT_COMPRESSED] = feat_compressed,
	[PD_FEAT_CLOCK_DATA] = feat_clock_data,
};

gboolean pd_feature_wanted(int feat)
{
	return feat >= 0 && feat < PD_FEAT_BITS && feat_ops[feat];
}

gboolean pd_parse_feature(Reader *r, int feat, const uint8_t *p, size_t n, uint64_t off,
			  GError **error)
{
	if (!pd_feature_wanted(feat))
		return TRUE;
	PdCur c;
	cur_init(&c, p, n, r->be);
	if (!feat_ops[feat](r, &c, off, error))
		return FALSE;
	if (c.bad)
		return pd_corrupt(error, r->path, off,
				  "feature %d section (%zu bytes) is malformed",
				  feat, n);
	return TRUE;
}

/* ================================================================ file header */

gboolean pd_read_file_header(Reader *r, const uint8_t *h, GError **error)
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
		return pd_corrupt(error, r->path, 8,
				  "file header size %" G_GUINT64_FORMAT ", expected %u",
				  size, PD_FILE_HEADER_SIZE);
	if (attr_size < 16 + PD_ATTR_SIZE_VER0 || attr_size > 16 + MAX_ATTR_SIZE)
		return pd_corrupt(error, r->path, 16,
				  "attribute entry size %" G_GUINT64_FORMAT, attr_size);
	if (attrs_size % attr_size || attrs_size / attr_size > MAX_ATTRS)
		return pd_corrupt(error, r->path, 32,
				  "attrs section of %" G_GUINT64_FORMAT " bytes is not a whole "
				  "number (≤ %u) of %" G_GUINT64_FORMAT "-byte entries",
				  attrs_size, MAX_ATTRS, attr_size);
	if (attrs_size == 0)
		return pd_corrupt(error, r->path, 32, "the file lists no events");
	if (data_off > r->f.file_size || data_size > r->f.file_size - data_off)
		return pd_corrupt(error, r->path, 40,
				  "data section [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
				  ") runs past the end of the %" G_GUINT64_FORMAT "-byte file",
				  data_off, data_size, r->f.file_size);
	if (data_size == 0)
		return pd_corrupt(error, r->path, 48,
				  "the data section is empty: perf record did not finish writing "
				  "(killed, or disk full?)");

	g_autofree uint8_t *attrs = pd_file_load(
		&r->f, attrs_off, attrs_size, MAX_ATTRS * (16 + MAX_ATTR_SIZE), "attrs", error);
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
			return pd_corrupt(error, r->path, attrs_off + pos + attr_size - 8,
					  "id list of %" G_GUINT64_FORMAT " bytes", ids_size);
		g_autofree uint8_t *ids =
			pd_file_load(&r->f, ids_off, ids_size, MAX_IDS * 8ull, "event ids", error);
		if (!ids || !add_attr(r, &a, ids, ids_size / 8, ids_off, error))
			return FALSE;
	}

	/* Feature sections: a table right after the data, one entry per bit. */
	uint64_t feat_off = data_off + data_size;
	int nfeat = 0;
	for (int i = 0; i < 4; i++)
		nfeat += __builtin_popcountll(feat[i]);
	g_autofree uint8_t *table =
		pd_file_load(&r->f, feat_off, (uint64_t)nfeat * 16, PD_FEAT_BITS * 16,
			     "feature table", error);
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
		if (off > r->f.file_size || sz > r->f.file_size - off)
			return pd_corrupt(error, r->path, feat_off + 16 * (k - 1),
					  "feature %d section [%" G_GUINT64_FORMAT
					  ", +%" G_GUINT64_FORMAT ") lies past the end of the "
					  "%" G_GUINT64_FORMAT "-byte file",
					  bit, off, sz, r->f.file_size);
		if (!pd_feature_wanted(bit))
			continue;
		g_autofree uint8_t *sec =
			pd_file_load(&r->f, off, sz, MAX_FEATURE_SIZE, "feature", error);
		if (!sec || !pd_parse_feature(r, bit, sec, (size_t)sz, off, error))
			return FALSE;
	}
	r->f.data_begin = data_off;
	r->f.data_end = data_off + data_size;
	return TRUE;
}

/* PERF_RECORD_HEADER_ATTR (pipe mode): attr, then the ids to its end. */
gboolean pd_header_attr_record(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			       GError **error)
{
	const uint8_t *body = rec + PD_RECORD_HEADER_SIZE;
	size_t n = size - PD_RECORD_HEADER_SIZE;
	if (n < PD_ATTR_SIZE_VER0)
		return pd_corrupt(error, r->path, off, "HEADER_ATTR record too short");
	uint32_t asize = ld32(body + PD_ATTR_SIZE, r->be);
	if (asize == 0)
		asize = PD_ATTR_SIZE_VER0;
	if (asize > n || asize < PD_ATTR_SIZE_VER0 || (n - asize) % 8)
		return pd_corrupt(error, r->path, off,
				  "HEADER_ATTR: attr size %u in a %zu-byte record",
				  asize, size);
	if (r->header_sent)
		return pd_corrupt(error, r->path, off, "an event attribute after the first sample");
	PdAttr a;
	if (!attr_parse(r, body, asize, off, &a, error))
		return FALSE;
	return add_attr(r, &a, body + asize, (n - asize) / 8, off, error);
}

/* PERF_RECORD_EVENT_UPDATE of type NAME (pipe mode names events this way). */
void pd_event_update_record(Reader *r, const uint8_t *rec, size_t size)
{
	PdCur c;
	cur_init(&c, rec + PD_RECORD_HEADER_SIZE, size - PD_RECORD_HEADER_SIZE, r->be);
	uint64_t type = cur_u64(&c), id = cur_u64(&c);
	if (c.bad || type != 1 /* PERF_EVENT_UPDATE__NAME */)
		return;
	int i = pd_attr_for_id(r, id);
	if (i < 0)
		return;
	PdAttr *a = pd_attr_at(r, (guint)i);
	g_free(a->name);
	struct pl_str s = str_in(c.p, MIN(cur_left(&c), MAX_EVENT_NAME));
	a->name = g_strndup(s.p, s.len);
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
		if (pd_attr_at(r, i)->period)
			return pd_attr_at(r, i);
	return r->attrs->len ? pd_attr_at(r, 0) : NULL;
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

gboolean pd_emit_header(Reader *r, GError **error)
{
	if (r->header_sent)
		return TRUE;
	r->header_sent = TRUE;
	if (r->attrs->len == 0)
		return pd_corrupt(error, r->path, 0, "no event attributes before the first record");
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
		if (fstat(r->f.fd, &sb) == 0)
			h->wall_now_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u +
					 (uint64_t)sb.st_mtim.tv_nsec;
		h->clock_now_ns = r->last_sample;
	}
	h->flags = PL_HELLO_PERF_AVAILABLE | (cg == PL_CG_FP ? PL_HELLO_CG_FP : 0) |
		   (cg == PL_CG_DWARF ? PL_HELLO_CG_DWARF : 0) |
		   (cg == PL_CG_LBR ? PL_HELLO_CG_LBR : 0);
	if (!pd_emit(r, error))
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
	if (!pd_emit(r, error))
		return FALSE;

	for (guint i = 0; i < r->attrs->len; i++) {
		PdAttr *a = pd_attr_at(r, i);
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
		if (!pd_emit(r, error))
			return FALSE;
	}
	return TRUE;
}

gboolean pd_emit_build_id(Reader *r, const PdBuildId *b, GError **error)
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
	return pd_emit(r, error);
}
