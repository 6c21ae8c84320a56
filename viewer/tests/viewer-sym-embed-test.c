/* viewer-sym-embed-test.c — the embedded symbol table of a self-contained
 * session (viewer/symbols/pl-sym-embed.h) and the loader's handling of it
 * (viewer/io/pl-loader.c):
 *   - every kind of entry goes through serialize → parse unchanged;
 *   - every strict prefix of a table, and a table with any one byte
 *     flipped, is refused with a sentence or read, never a crash (run
 *     under ASan/UBSan in build-san);
 *   - a table of a newer version is refused, naming the way out;
 *   - captures written here (stream header, HELLO, the table as
 *     FILE_CHUNKs, a sample) load with the table's names when it is whole,
 *     and fail with PL_CAPTURE_ERROR_CORRUPT and a sentence when the table
 *     is cut short before the session, at the end of the file, or damaged.
 * The real recordings (burn exported and opened with its files gone) are
 * viewer-export-symbolized-test.sh's. */
#include "viewer-test-util.h"

#include "block.h"
#include "pl-loader.h"
#include "pl-export-self-contained.h"
#include "pl-sym-embed.h"

#define PC_HOT 0x401234u
#define PC_CALLER 0x401500u

static PlSymEmbed *sample_table(void)
{
	PlSymEmbed *t = pl_sym_embed_new();
	pl_sym_embed_set_origin(t, "buildhost", 1764000000, "0.1", "orig.plens");
	PlFrameInfo hot[2] = {
		{ "inlined_mix", "burn", "/src/burn.c", 41, 0x1234, TRUE, "/src/mix.h", 12 },
		{ "hot_leaf", "burn", "/src/burn.c", 52, 0x1234, FALSE, "/src/burn.c", 47 },
	};
	pl_sym_embed_put_frames(t, 7, PC_HOT, FALSE, hot, 2);
	PlFrameInfo caller = { "compute_outer", "burn", "/src/burn.c", 70, 0x1500, FALSE,
			       "/src/burn.c", 66 };
	pl_sym_embed_put_frames(t, 7, PC_CALLER, TRUE, &caller, 1);
	PlFrameInfo unknown = { NULL, "[unknown]", NULL, 0, 0x99, FALSE, NULL, 0 };
	pl_sym_embed_put_frames(t, 8, 0x99, FALSE, &unknown, 1);
	guint64 pcs[3] = { PC_HOT, PC_CALLER, 0x7f0000001000ull };
	guint8 stack[37];
	for (guint i = 0; i < sizeof stack; i++)
		stack[i] = (guint8)(i * 7);
	guint64 regs[2] = { 0x7ffd0000, PC_HOT };
	guint64 key = pl_sym_embed_unwind_key(7, 7, 0x180, regs, 2, stack, sizeof stack);
	pl_sym_embed_put_unwind(t, key, pcs, 3, TRUE);
	PlSymEmbedModule m = { "/usr/bin/burn", "/home/me/burn", NULL, NULL, NULL,
			       TRUE, TRUE, TRUE, FALSE, TRUE, 42 };
	pl_sym_embed_put_module(t, &m);
	const char *src = "int main(void)\n{\n\treturn 0;\n}\n";
	PL_CHECK(pl_sym_embed_put_source(t, "/src/burn.c", src, strlen(src)));
	PlSymEmbedLine lines[3] = {
		{ "0000000000001234 <hot_leaf>:", FALSE, 0 },
		{ "    1234:\timul   $0x19660d,%rax,%rax", TRUE, 0x1234 },
		{ "    123b:\tret", TRUE, 0x123b },
	};
	pl_sym_embed_put_disasm(t, "burn", "hot_leaf", lines, 3);
	return t;
}

static void check_table(PlSymEmbed *t)
{
	const PlSymEmbedOrigin *o = pl_sym_embed_get_origin(t);
	PL_CHECK(!strcmp(o->host, "buildhost") && o->time == 1764000000 &&
		 !strcmp(o->version, "0.1") && !strcmp(o->source, "orig.plens"));
	PlFrameInfo fr[4];
	PL_CHECK(pl_sym_embed_get_frames(t, 7, PC_HOT, FALSE, fr, 4) == 2);
	PL_CHECK(!strcmp(fr[0].function, "inlined_mix") && fr[0].inlined && fr[0].line == 41);
	PL_CHECK(!g_strcmp0(fr[0].decl_file, "/src/mix.h") && fr[0].decl_line == 12);
	PL_CHECK(!strcmp(fr[1].function, "hot_leaf") && !fr[1].inlined &&
		 !strcmp(fr[1].file, "/src/burn.c") && fr[1].rel_addr == 0x1234);
	PL_CHECK(!g_strcmp0(fr[1].decl_file, "/src/burn.c") && fr[1].decl_line == 47);
	PL_CHECK(pl_sym_embed_get_frames(t, 7, PC_HOT, TRUE, fr, 4) == 0); /* other key */
	PL_CHECK(pl_sym_embed_get_frames(t, 7, PC_CALLER, TRUE, fr, 4) == 1);
	PL_CHECK(pl_sym_embed_get_frames(t, 8, 0x99, FALSE, fr, 4) == 1 && !fr[0].function &&
		 !fr[0].file);
	guint8 stack[37];
	for (guint i = 0; i < sizeof stack; i++)
		stack[i] = (guint8)(i * 7);
	guint64 regs[2] = { 0x7ffd0000, PC_HOT }, pcs[8];
	gboolean trunc = FALSE;
	guint64 key = pl_sym_embed_unwind_key(7, 7, 0x180, regs, 2, stack, sizeof stack);
	PL_CHECK(pl_sym_embed_get_unwind(t, key, pcs, 8, &trunc) == 3 && trunc);
	PL_CHECK(pcs[0] == PC_HOT && pcs[1] == PC_CALLER && pcs[2] == 0x7f0000001000ull);
	stack[36] ^= 1; /* one byte of the copy differs: another walk */
	PL_CHECK(pl_sym_embed_get_unwind(t, pl_sym_embed_unwind_key(7, 7, 0x180, regs, 2, stack,
								    sizeof stack),
					 pcs, 8, &trunc) == -1);
	PL_CHECK(pl_sym_embed_n_modules(t) == 1);
	const PlSymEmbedModule *m = pl_sym_embed_get_module(t, 0);
	PL_CHECK(!strcmp(m->module, "/usr/bin/burn") && m->has_cfi && !m->has_ehabi &&
		 m->build_id_match && m->samples == 42 && !m->problem);
	gsize len;
	const char *src = pl_sym_embed_get_source(t, "/src/burn.c", &len);
	PL_CHECK(src && len == strlen("int main(void)\n{\n\treturn 0;\n}\n") && src[len] == 0);
	guint n;
	const PlSymEmbedLine *l = pl_sym_embed_get_disasm(t, "burn", "hot_leaf", &n);
	PL_CHECK(l && n == 3 && l[1].is_insn && l[1].addr == 0x1234 && !l[0].is_insn &&
		 strstr(l[2].text, "ret"));
}

static void embed_round_trip(void)
{
	g_autoptr(PlSymEmbed) t = sample_table();
	check_table(t);
	g_autoptr(GBytes) b = pl_sym_embed_serialize(t);
	gsize len;
	const guint8 *d = g_bytes_get_data(b, &len);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlSymEmbed) back = pl_sym_embed_parse(d, len, &error);
	PL_CHECKF(back, "%s", error ? error->message : "?");
	check_table(back);
	/* bytes a newer writer appends after the known sections are ignored */
	g_autofree guint8 *more = g_malloc(len + 5);
	memcpy(more, d, len);
	memcpy(more + len, "\x01\x02\x03\x04\x05", 5);
	g_autoptr(PlSymEmbed) longer = pl_sym_embed_parse(more, len + 5, NULL);
	PL_CHECK(longer);
	check_table(longer);
}

static void embed_every_prefix_refused(void)
{
	g_autoptr(PlSymEmbed) t = sample_table();
	g_autoptr(GBytes) b = pl_sym_embed_serialize(t);
	gsize len;
	const guint8 *d = g_bytes_get_data(b, &len);
	for (gsize n = 0; n < len; n++) {
		/* a copy of exactly n bytes, so ASan sees any read past it */
		g_autofree guint8 *cut = g_memdup2(d, n ? n : 1);
		g_autoptr(GError) error = NULL;
		PlSymEmbed *e = pl_sym_embed_parse(cut, n, &error);
		PL_CHECKF(!e, "a table cut to %zu of %zu bytes was read", n, len);
		PL_CHECKF(error && strstr(error->message, "damaged"), "at %zu: %s", n,
			  error ? error->message : "no error");
	}
}

static void embed_flipped_bytes(void)
{
	g_autoptr(PlSymEmbed) t = sample_table();
	g_autoptr(GBytes) b = pl_sym_embed_serialize(t);
	gsize len;
	const guint8 *d = g_bytes_get_data(b, &len);
	guint refused = 0;
	for (gsize i = 0; i < len; i++) {
		for (guint v = 0; v < 3; v++) {
			static const guint8 x[3] = { 0xff, 0x80, 0x01 };
			g_autofree guint8 *c = g_memdup2(d, len);
			c[i] ^= x[v];
			g_autoptr(GError) error = NULL;
			PlSymEmbed *e = pl_sym_embed_parse(c, len, &error);
			PL_CHECK(!e == !!error);
			refused += !e;
			pl_sym_embed_free(e);
		}
	}
	PL_CHECKF(refused > 0, "none of %zu damaged tables refused", 3 * len);
	printf("# %u of %zu tables with one byte changed refused, the rest read\n", refused,
	       3 * len);
}

static void embed_newer_version_refused(void)
{
	g_autoptr(PlSymEmbed) t = sample_table();
	g_autoptr(GBytes) b = pl_sym_embed_serialize(t);
	gsize len;
	const guint8 *d = g_bytes_get_data(b, &len);
	g_autofree guint8 *c = g_memdup2(d, len);
	PL_CHECK(c[8] == PL_SYM_EMBED_VERSION);
	c[8] = PL_SYM_EMBED_VERSION + 1;
	g_autoptr(GError) error = NULL;
	PL_CHECK(!pl_sym_embed_parse(c, len, &error));
	PL_CHECKF(strstr(error->message, "newer PerfLens"), "%s", error->message);
}

/* ─── captures with a table ──────────────────────────────────────────── */

typedef enum { WHOLE, CUT_BEFORE_SAMPLE, CUT_AT_END, GARBLED } Shape;

static void put(struct pl_block_enc *enc, const struct pl_msg *m)
{
	PL_CHECK(pl_msg_encode(&enc->w, m) == 0);
}

/* HELLO, the table as chunks (shape), one user-mode fp sample at PC_HOT
 * called from PC_CALLER in pid 7. */
static char *write_capture(const char *name, Shape shape)
{
	g_autoptr(PlSymEmbed) t = sample_table();
	g_autoptr(GBytes) b = pl_sym_embed_serialize(t);
	gsize len;
	const guint8 *d = g_bytes_get_data(b, &len);
	g_autofree guint8 *tab = g_memdup2(d, len);
	if (shape == GARBLED)
		memset(tab + 9, 0xff, 12); /* a varint longer than any (its flags) */
	char *path = vt_tmp(name);
	struct pl_block_enc enc;
	PL_CHECK(pl_block_enc_init(&enc, 1u << 20, 0) == 0);
	struct pl_msg m = { .type = PL_MSG_HELLO };
	m.u.hello.protocol_version = PL_PROTOCOL_VERSION;
	m.u.hello.agent_version = pl_str_c("test");
	m.u.hello.machine = pl_str_c("x86_64");
	m.u.hello.e_machine = 62;
	m.u.hello.byte_order = PL_LITTLE_ENDIAN;
	m.u.hello.word_size = 8;
	m.u.hello.page_size = 4096;
	m.u.hello.hostname = pl_str_c("board");
	m.u.hello.ncpus = 1;
	put(&enc, &m);
	gsize first = shape == CUT_BEFORE_SAMPLE || shape == CUT_AT_END ? len / 2 : len;
	memset(&m, 0, sizeof m);
	m.type = PL_MSG_FILE_CHUNK;
	m.u.chunk = (struct pl_msg_file_chunk){ .kind = PL_CHUNK_SYMBOLIZED, .offset = 0,
						.total = len, .name = pl_str_c(PL_SYM_EMBED_NAME),
						.len = (uint32_t)first, .data = tab };
	put(&enc, &m);
	if (shape != CUT_AT_END) {
		memset(&m, 0, sizeof m);
		m.type = PL_MSG_SAMPLE;
		struct pl_msg_sample *s = &m.u.sample;
		s->pid = s->tid = 7;
		s->time = 1000000;
		s->period = 1;
		s->ip = PC_HOT;
		s->cpumode = 2; /* PERF_RECORD_MISC_USER */
		s->nr_callchain = 3;
		s->callchain[0] = (guint64)-512; /* PERF_CONTEXT_USER */
		s->callchain[1] = PC_HOT;
		s->callchain[2] = PC_CALLER;
		put(&enc, &m);
	}
	const uint8_t *out;
	size_t n;
	PL_CHECK(pl_block_enc_finish(&enc, &out, &n) == 0);
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_CAPTURE);
	GByteArray *file = g_byte_array_new();
	g_byte_array_append(file, hdr, sizeof hdr);
	g_byte_array_append(file, out, (guint)n);
	PL_CHECK(g_file_set_contents(path, (const char *)file->data, file->len, NULL));
	g_byte_array_unref(file);
	pl_block_enc_free(&enc);
	return path;
}

static void load_whole_table_names_everything(void)
{
	g_autofree char *path = write_capture("whole.plens", WHOLE);
	g_autoptr(GError) error = NULL;
	PlLoadParams lp = { .keep_partial = TRUE };
	g_autoptr(PlProfile) p = pl_load_file(path, &lp, NULL, NULL, &error);
	PL_CHECKF(p, "%s", error ? error->message : "?");
	/* no mapping, no file: the names can only come from the table */
	gboolean hot = FALSE, inl = FALSE, caller = FALSE;
	for (guint i = 0; i < pl_profile_get_n_functions(p); i++) {
		const PlFunction *f = pl_profile_get_function(p, i);
		hot |= !g_strcmp0(f->name, "hot_leaf");
		inl |= !g_strcmp0(f->name, "inlined_mix");
		caller |= !g_strcmp0(f->name, "compute_outer");
	}
	PL_CHECK(hot && inl && caller);
	g_autofree char *note = pl_session_dup_symbolized_note(p);
	PL_CHECKF(note && strstr(note, "symbolized on buildhost at 2025-11-24") &&
			  strstr(note, "orig.plens"),
		  "%s", note ? note : "no note");
}

static void expect_corrupt(const char *name, Shape shape, const char *words)
{
	g_autofree char *path = write_capture(name, shape);
	g_autoptr(GError) error = NULL;
	/* keep_partial as the app loads: a damaged table still fails */
	PlLoadParams lp = { .keep_partial = TRUE };
	PlProfile *p = pl_load_file(path, &lp, NULL, NULL, &error);
	PL_CHECK(!p);
	PL_CHECKF(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT), "%s",
		  error ? error->message : "no error");
	PL_CHECKF(strstr(error->message, words) && strstr(error->message, "export it again"), "%s",
		  error->message);
}

static void load_cut_before_sample_fails(void)
{
	expect_corrupt("cut.plens", CUT_BEFORE_SAMPLE, "cut short");
}

static void load_cut_at_end_fails(void)
{
	expect_corrupt("cut-end.plens", CUT_AT_END, "cut short");
}

static void load_garbled_fails(void)
{
	expect_corrupt("garbled.plens", GARBLED, "damaged");
}

PL_TEST_MAIN({ "embed_round_trip", embed_round_trip },
	     { "embed_every_prefix_refused", embed_every_prefix_refused },
	     { "embed_flipped_bytes", embed_flipped_bytes },
	     { "embed_newer_version_refused", embed_newer_version_refused },
	     { "embed_load_whole_table", load_whole_table_names_everything },
	     { "embed_load_cut_before_sample", load_cut_before_sample_fails },
	     { "embed_load_cut_at_end", load_cut_at_end_fails },
	     { "embed_load_garbled", load_garbled_fails })
