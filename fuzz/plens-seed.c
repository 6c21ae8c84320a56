/* plens-seed.c — makes the fuzzers' seed inputs from real data.
 *
 *   plens-seed raw IN.plens OUT MAXBYTES
 *       IN with its blocks stored raw (uncompressed), cut at a block
 *       boundary before MAXBYTES: a capture the fuzzer can mutate frame by
 *       frame (fuzz-util.h repairs the CRCs).  Frames are copied verbatim.
 *   plens-seed frames IN.plens OUT MAXBYTES
 *       the frames of IN's first blocks alone, no stream or block header
 *       (what the harnesses wrap into one raw block when the input is not
 *       a stream).
 *   plens-seed commands OUTDIR
 *       viewer → agent command streams (AUTH LIST PROBE START PAUSE RESUME
 *       CONFIGURE STOP BYE) as the viewer sends them, zstd and raw, plus
 *       their bare frames.
 *   plens-seed chunks OUT raw|bare
 *       a small session with /proc/kallsyms and perf-PID.map text chunks and
 *       samples in kernel and JIT code (the viewer's text parsers).
 *
 * Everything goes through the real block decoder, encoder and block
 * encoder (common/), so seeds are exactly what agents and viewers produce.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "msg.h"

static int die(const char *what)
{
	fprintf(stderr, "plens-seed: %s\n", what);
	exit(1);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open input");
	size_t cap = 1 << 20, len = 0;
	uint8_t *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
		len += k;
		if (len == cap)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	if (!b)
		die("out of memory");
	*n = len;
	return b;
}

/* Output: a stream header (unless bare), then blocks or bare frames. */
struct out {
	FILE *f;
	size_t written, max;
	int bare;
	struct pl_block_enc enc;
};

static int out_flush(struct out *o)
{
	if (pl_block_enc_empty(&o->enc))
		return 0;
	const uint8_t *p;
	size_t n;
	if (o->bare) {
		p = o->enc.raw;
		n = pl_w_len(&o->enc.w);
		if (o->written + n > o->max)
			return -1;
		pl_w_init(&o->enc.w, o->enc.raw, o->enc.raw_cap);
	} else {
		if (pl_block_enc_finish(&o->enc, &p, &n) < 0)
			die("block encoding failed");
		if (o->written + n > o->max)
			return -1;
	}
	fwrite(p, 1, n, o->f);
	o->written += n;
	return 0;
}

static int out_msg(struct out *o, const struct pl_msg *m)
{
	int rc = pl_msg_encode(&o->enc.w, m);
	if (rc == -ENOBUFS) {
		if (out_flush(o) < 0)
			return -1;
		rc = pl_msg_encode(&o->enc.w, m);
	}
	return 0; /* a frame over BLOCKBYTES: left out */
}

static void out_open(struct out *o, const char *path, size_t max, size_t block, int level,
		     int bare, uint32_t flags)
{
	memset(o, 0, sizeof(*o));
	o->f = fopen(path, "wb");
	if (!o->f)
		die("cannot create output");
	o->max = max;
	o->bare = bare;
	if (pl_block_enc_init(&o->enc, block, level) < 0)
		die("block encoder init failed");
	if (!bare) {
		uint8_t h[PL_STREAM_HEADER_SIZE];
		pl_stream_header_put(h, flags);
		fwrite(h, 1, sizeof(h), o->f);
		o->written = sizeof(h);
	}
}

static void out_close(struct out *o)
{
	out_flush(o);
	pl_block_enc_free(&o->enc);
	fclose(o->f);
}

/* IN's blocks, decompressed, in order, until MAXBYTES: as raw blocks
 * (bare: their frames alone).  Block boundaries are kept, frames are
 * copied verbatim: STACK definitions and sample time deltas stay valid. */
static void reblock(const char *in, const char *outp, size_t max, int bare)
{
	size_t n, off;
	uint8_t *data = slurp(in, &n);
	struct pl_stream_header sh;
	struct pl_block_dec dec;
	char err[160];
	FILE *f = fopen(outp, "wb");
	size_t written = 0;

	if (!f || pl_block_dec_init(&dec) < 0)
		die("cannot create output");
	if (pl_stream_header_parse(data, n, &sh, err, sizeof(err)) < 0)
		die(err);
	off = sh.header_size;
	if (!bare) {
		uint8_t h[PL_STREAM_HEADER_SIZE];
		pl_stream_header_put(h, sh.flags);
		fwrite(h, 1, sizeof(h), f);
		written = sizeof(h);
	}
	struct pl_block_header bh;
	while (pl_block_header_parse(data + off, n - off, &bh, err, sizeof(err)) == 0 &&
	       bh.stored_len <= n - off - PL_BLOCK_HEADER_SIZE) {
		const uint8_t *raw;
		size_t raw_len;
		if (pl_block_decode(&dec, &bh, data + off + PL_BLOCK_HEADER_SIZE, &raw, &raw_len,
				    err, sizeof(err)) < 0)
			die(err);
		off += PL_BLOCK_HEADER_SIZE + bh.stored_len;
		size_t add = raw_len + (bare ? 0 : PL_BLOCK_HEADER_SIZE);
		if (written + add > max)
			break;
		if (!bare) {
			struct pl_block_header rh = { PL_CODEC_RAW, (uint32_t)raw_len,
						      (uint32_t)raw_len, pl_crc32(0, raw, raw_len) };
			uint8_t h[PL_BLOCK_HEADER_SIZE];
			pl_block_header_put(h, &rh);
			fwrite(h, 1, sizeof(h), f);
		}
		fwrite(raw, 1, raw_len, f);
		written += add;
	}
	fclose(f);
	pl_block_dec_free(&dec);
	free(data);
}

/* ─── viewer → agent commands ─────────────────────────────────────────── */

static void command_session(struct out *o, int with_auth, int target)
{
	struct pl_msg m;
	uint32_t req = 1;

	if (with_auth) {
		memset(&m, 0, sizeof(m));
		m.type = PL_MSG_AUTH;
		m.u.auth.request_id = req++;
		m.u.auth.token = pl_str_c("4f9c2a61d0b8e7355a1c9e02");
		out_msg(o, &m);
	}
	uint16_t simple[] = { PL_MSG_LIST, PL_MSG_PROBE };
	for (size_t i = 0; i < 2; i++) {
		memset(&m, 0, sizeof(m));
		m.type = simple[i];
		m.u.request.request_id = req++;
		out_msg(o, &m);
	}
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_START;
	struct pl_msg_start *s = &m.u.start;
	s->request_id = req++;
	s->target = (uint8_t)target;
	if (target == PL_TARGET_COMMAND) {
		s->argc = 3;
		s->argv[0] = pl_str_c("/usr/bin/burn");
		s->argv[1] = pl_str_c("0.5");
		s->argv[2] = pl_str_c("2");
	} else if (target == PL_TARGET_PID) {
		s->pid = 1;
	}
	s->nevents = 3;
	s->events[0] = pl_str_c("cpu-clock:freq=999");
	s->events[1] = pl_str_c("r01c2");
	s->events[2] = pl_str_c("cpu/config=0x3c,config1=0x1/:period=100000");
	s->frequency = 99;
	s->callgraph = PL_CG_DWARF;
	s->stack_size = 8192;
	s->stacks = PL_STACKS_BOTH;
	s->duration_ms = 500;
	s->flags = PL_START_SWITCH_STACKS | PL_START_COUNTERS | PL_START_KALLSYMS;
	s->counter_interval_ms = 100;
	out_msg(o, &m);
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_PAUSE;
	m.u.request.request_id = req++;
	out_msg(o, &m);
	m.type = PL_MSG_RESUME;
	m.u.request.request_id = req++;
	out_msg(o, &m);
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_CONFIGURE;
	m.u.configure.request_id = req++;
	m.u.configure.frequency = 499;
	m.u.configure.nevents = 1;
	m.u.configure.events[0] = pl_str_c("task-clock");
	out_msg(o, &m);
	uint16_t tail[] = { PL_MSG_STOP, PL_MSG_BYE };
	for (size_t i = 0; i < 2; i++) {
		memset(&m, 0, sizeof(m));
		m.type = tail[i];
		m.u.request.request_id = req++;
		out_msg(o, &m);
	}
}

static void commands(const char *dir)
{
	static const struct {
		const char *name;
		int level, bare, auth, target;
	} v[] = {
		{ "session-zstd.plens", 3, 0, 1, PL_TARGET_COMMAND },
		{ "session-raw.plens", 0, 0, 1, PL_TARGET_COMMAND },
		{ "session-pid-raw.plens", 0, 0, 1, PL_TARGET_PID },
		{ "session-all-noauth-raw.plens", 0, 0, 0, PL_TARGET_ALL },
		{ "session.frames", 0, 1, 1, PL_TARGET_COMMAND },
		{ "session-all.frames", 0, 1, 0, PL_TARGET_ALL },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char path[4096];
		struct out o;
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		out_open(&o, path, 1 << 20, 16384, v[i].level, v[i].bare, PL_STREAM_FROM_VIEWER);
		command_session(&o, v[i].auth, v[i].target);
		out_close(&o);
	}
}

/* ─── text files the agent sends: kallsyms, perf-PID.map ─────────────── */

/* A small session whose samples land in kernel symbols from a KALLSYMS
 * chunk and in JIT code named by a PERF_MAP chunk: the viewer's text
 * parsers (viewer/symbols/pl-text-syms.c) behind pl_symbols_add_chunk. */
static void chunks(const char *path, int bare)
{
	static const char kallsyms[] = "ffffffff81000000 T _stext\n"
				       "ffffffff81001000 T do_work\n"
				       "ffffffff81001800 t local_helper\n"
				       "ffffffff81002000 T schedule\n"
				       "ffffffffc0001000 t mod_fn\t[mymod]\n"
				       "ffffffffc0002000 T mod_other\t[mymod]\n";
	static const char perfmap[] = "7f0000001000 100 jit_fn_a\n"
				      "7f0000001100 80 Interpreter::run(int, char const*)\n"
				      "7f0000001200 40 LambdaForm$MH/0x01 invoke\n";
	enum { PID = 4242 };
	struct out o;
	struct pl_msg *m = calloc(1, sizeof(*m));
	if (!m)
		die("out of memory");
	out_open(&o, path, 1 << 20, 65536, 0, bare, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE);

	m->type = PL_MSG_HELLO;
	m->u.hello.protocol_version = PL_PROTOCOL_VERSION;
	m->u.hello.agent_version = pl_str_c("seed");
	m->u.hello.machine = pl_str_c("x86_64");
	m->u.hello.e_machine = 62;
	m->u.hello.byte_order = PL_LITTLE_ENDIAN;
	m->u.hello.word_size = 8;
	m->u.hello.page_size = 4096;
	m->u.hello.ncpus = 2;
	m->u.hello.clock_id = 1;
	m->u.hello.flags = PL_HELLO_PERF_AVAILABLE | PL_HELLO_CG_FP;
	out_msg(&o, m);
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_EVENT_DESC;
	m->u.event_desc.name = pl_str_c("cpu-clock");
	m->u.event_desc.type = 1;
	m->u.event_desc.freq = 1;
	m->u.event_desc.period_or_freq = 99;
	out_msg(&o, m);
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_COMM;
	m->u.comm.pid = m->u.comm.tid = PID;
	m->u.comm.snapshot = 1;
	m->u.comm.comm = pl_str_c("jitted");
	out_msg(&o, m);
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_MMAP;
	m->u.mmap.pid = m->u.mmap.tid = PID;
	m->u.mmap.start = 0x7f0000000000ull;
	m->u.mmap.len = 0x10000;
	m->u.mmap.prot = 7;
	m->u.mmap.snapshot = 1;
	m->u.mmap.filename = pl_str_c("//anon");
	out_msg(&o, m);

	const struct {
		uint8_t kind;
		uint32_t pid;
		const char *text;
		size_t split; /* sent in two chunks, like a long file */
	} ch[] = {
		{ PL_CHUNK_KALLSYMS, 0, kallsyms, 60 },
		{ PL_CHUNK_PERF_MAP, PID, perfmap, 30 },
	};
	for (size_t i = 0; i < 2; i++) {
		size_t total = strlen(ch[i].text);
		for (size_t off = 0; off < total; off += ch[i].split) {
			memset(m, 0, sizeof(*m));
			m->type = PL_MSG_FILE_CHUNK;
			struct pl_msg_file_chunk *c = &m->u.chunk;
			c->kind = ch[i].kind;
			c->pid = ch[i].pid;
			c->offset = off;
			c->total = total;
			c->name = pl_str_c(ch[i].kind == PL_CHUNK_KALLSYMS ? "/proc/kallsyms"
									    : "/tmp/perf-4242.map");
			c->len = (uint32_t)(total - off < ch[i].split ? total - off : ch[i].split);
			c->data = (const uint8_t *)ch[i].text + off;
			out_msg(&o, m);
		}
	}
	/* kernel + JIT samples, fp call chains with perf's context markers */
	static const uint64_t chains[][6] = {
		{ (uint64_t)-128, 0xffffffff81001010ull, 0xffffffff81002004ull, (uint64_t)-512,
		  0x7f0000001010ull, 0x7f0000001110ull },
		{ (uint64_t)-128, 0xffffffffc0001004ull, 0xffffffff81001900ull, (uint64_t)-512,
		  0x7f0000001208ull, 0x7f0000001110ull },
		{ (uint64_t)-512, 0x7f0000001110ull, 0x7f0000001040ull, 0x7f0000001110ull,
		  0x7f0000001040ull, 0x7f0000009000ull },
	};
	for (uint32_t k = 0; k < 12; k++) {
		memset(m, 0, offsetof(struct pl_msg, u) + offsetof(struct pl_msg_sample, callchain));
		m->type = PL_MSG_SAMPLE;
		struct pl_msg_sample *sm = &m->u.sample;
		sm->pid = PID;
		sm->tid = PID + (k & 1);
		sm->time = 1000000000ull + k * 10101010ull;
		sm->cpu = k & 1;
		sm->period = 10101010;
		sm->cpumode = k % 3 == 2 ? 2 : 1;
		sm->nr_callchain = 6;
		memcpy(sm->callchain, chains[k % 3], sizeof(chains[0]));
		sm->ip = chains[k % 3][1];
		sm->nr_regs = 0;
		sm->stack_size = 0;
		sm->stack = NULL;
		out_msg(&o, m);
	}
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_END;
	m->u.end.reason = PL_END_STOPPED;
	m->u.end.time = 2000000000ull;
	m->u.end.message = pl_str_c("stopped");
	out_msg(&o, m);
	out_close(&o);
	free(m);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "raw"))
		reblock(argv[2], argv[3], strtoul(argv[4], NULL, 0), 0);
	else if (argc == 5 && !strcmp(argv[1], "frames"))
		reblock(argv[2], argv[3], strtoul(argv[4], NULL, 0), 1);
	else if (argc == 3 && !strcmp(argv[1], "commands"))
		commands(argv[2]);
	else if (argc == 4 && !strcmp(argv[1], "chunks"))
		chunks(argv[2], !strcmp(argv[3], "bare"));
	else
		die("usage: plens-seed raw IN OUT MAXBYTES | frames IN OUT MAXBYTES | "
		    "commands OUTDIR | chunks OUT raw|bare");
	return 0;
}
