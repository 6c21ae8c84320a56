/* pl-wirestat.c — where the bytes of a PerfLens stream go.
 *
 *   pl-wirestat [-l LEVEL] FILE.plens
 *
 * Prints, as Markdown:
 *  1. per message type: frames, raw bytes (frame header + body) and the
 *     marginal compressed cost: the stream is compressed again the way the
 *     agent does (one zstd frame across blocks, ZSTD_e_flush where the
 *     agent closed each block, a new frame where it started one; zstd
 *     LEVEL, the agent's default 1) once whole and once without that
 *     type's frames; the difference is what the type costs on the wire;
 *  2. the same per column of SAMPLE_BATCH (msg.h) and per field of the
 *     SAMPLE frames that remain (dwarf samples, inline call chains);
 *  3. fixed costs: block headers, start-up frames (before the first
 *     sample), and what the stream would take in full 128 KiB blocks.
 * The whole-stream re-compression is printed next to the stored size as a
 * check that the model matches the agent.
 *
 * Reads through the bounds-checked cursor, the block decoder and the
 * message decoder of common/; exits 2 on a malformed stream.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "batch.h"
#include "block.h"
#include "cursor.h"
#include "msg.h"
#include "wire.h"

/* ─── SAMPLE fields, in the order of msg.c's sample_f ─────────────────── */

enum {
	SF_EVENT, SF_PID, SF_TID, SF_CPU, SF_CPUMODE, SF_STACK_ID, SF_IP, SF_PERIOD,
	SF_CHAIN, SF_REGS_ABI, SF_REGS, SF_STACK, SF_STACK_REQ, SF_FLAGS, SF_TIME,
	SF_TRAILING, SF_N
};
static const char *const sf_name[SF_N] = {
	"event", "pid", "tid", "cpu", "cpumode", "stack_id", "ip", "period",
	"callchain (count + zig-zag deltas)", "regs_abi", "regs (count + values)",
	"stack copy (length + bytes)", "stack_requested", "flags", "time (delta)",
	"trailing (unknown to this tool)",
};
/* the columns batch.h knows: PL_BATCH_COLS, then DEFS (protocol 4) */
#define WS_COLS (PL_BATCH_DEFS + 1)
static const char *const col_name[WS_COLS] = {
	"THREAD (thread table index)", "TIME (µs, predicted)", "STACK (stack id)",
	"IP (from the stack's first entry)", "PERIOD (delta)", "EVENT", "CPU", "CPUMODE",
	"DEFS (stack definitions)",
};

struct span {
	uint32_t off, len;
};

/* Splits one SAMPLE body into field spans.  Returns 0 or -EBADMSG. */
static int sample_spans(const uint8_t *body, size_t len, struct span sp[SF_N])
{
	struct pl_cursor c;
	pl_cur_init(&c, body, len);
	for (int f = 0; f < SF_TRAILING; f++) {
		size_t start = len - pl_cur_left(&c);
		if (f == SF_CHAIN || f == SF_REGS) {
			uint64_t n = pl_cur_varint_max(&c, PL_MAX_CALLCHAIN);
			for (uint64_t i = 0; i < n && pl_cur_ok(&c); i++)
				pl_cur_varint(&c);
		} else if (f == SF_STACK) {
			uint64_t n = pl_cur_varint_max(&c, PL_MAX_STACK_COPY);
			pl_cur_take(&c, (size_t)n);
		} else {
			pl_cur_varint(&c);
		}
		if (!pl_cur_ok(&c))
			return -EBADMSG;
		sp[f].off = (uint32_t)start;
		sp[f].len = (uint32_t)(len - pl_cur_left(&c) - start);
	}
	sp[SF_TRAILING].off = (uint32_t)(len - pl_cur_left(&c));
	sp[SF_TRAILING].len = (uint32_t)pl_cur_left(&c);
	return 0;
}

/* Column spans of a SAMPLE_BATCH's data; hdr = the bytes before column 0;
 * an absent DEFS column is empty.  Returns 0 or -EBADMSG. */
static int batch_spans(const uint8_t *data, size_t len, uint32_t count, struct span col[WS_COLS],
		       uint32_t *hdr)
{
	struct pl_cursor c;
	pl_cur_init(&c, data, len);
	uint64_t flags = pl_cur_varint(&c);
	uint64_t nt = pl_cur_varint_max(&c, PL_MAX_BATCH_THREADS);
	for (uint64_t t = 0; t < 2 * nt; t++)
		pl_cur_varint(&c);
	uint64_t ncols = pl_cur_varint_max(&c, 64), lens[64] = { 0 };
	for (uint64_t i = 0; i < ncols && !(flags & PL_BATCH_NO_LENS); i++)
		lens[i] = pl_cur_varint_max(&c, len);
	if (!pl_cur_ok(&c) || ncols < PL_BATCH_COLS)
		return -EBADMSG;
	*hdr = (uint32_t)(len - pl_cur_left(&c));
	for (int i = 0; i < WS_COLS; i++) {
		col[i].off = (uint32_t)(len - pl_cur_left(&c));
		if (flags & PL_BATCH_NO_LENS) { /* count varints each; DEFS the rest */
			for (uint32_t k = 0; k < count && i < PL_BATCH_COLS; k++)
				pl_cur_varint(&c);
			if (i == PL_BATCH_DEFS && i < (int)ncols)
				pl_cur_take(&c, pl_cur_left(&c));
			col[i].len = (uint32_t)(len - pl_cur_left(&c)) - col[i].off;
		} else {
			col[i].len = (uint32_t)(i < (int)ncols ? lens[i] : 0);
			pl_cur_take(&c, (size_t)col[i].len);
		}
		if (!pl_cur_ok(&c))
			return -EBADMSG;
	}
	return 0;
}

/* ─── the frames, as the agent blocked them ─────────────────────────────── */

struct frame_ref {
	uint16_t type;
	uint32_t len;
	uint64_t off;   /* into the decompressed frame arena */
	uint64_t block; /* index of the block it came in */
};

static uint8_t *arena;
static struct frame_ref *fr;
static size_t nframes;
static uint8_t *block_new; /* per block: 1 if it started a zstd frame (or stood alone) */
static uint64_t nblocks;
static int level = 1;

/* What to leave out when compressing again. */
struct drop {
	int type;       /* frames of this type, or -1 */
	int sample_f;   /* this field of SAMPLE frames, or -1 */
	int batch_col;  /* this column of SAMPLE_BATCH frames, or -1 */
	size_t end;     /* only frames [0, end) */
	size_t full;    /* 0: the agent's blocks; else blocks of this many raw bytes */
};

static uint8_t *raw, *out, *tmp;
static size_t raw_cap, out_cap;
static struct pl_msg *msg;

/* Appends frame i (minus what d drops) to raw at *n. */
static void put_frame(size_t i, const struct drop *d, size_t *n)
{
	const uint8_t *body = arena + fr[i].off;
	size_t len = fr[i].len;
	if (d->type == fr[i].type)
		return;
	if (d->sample_f >= 0 && fr[i].type == PL_MSG_SAMPLE) {
		struct span sp[SF_N];
		if (sample_spans(body, len, sp) == 0) {
			memcpy(tmp, body, sp[d->sample_f].off);
			memcpy(tmp + sp[d->sample_f].off, body + sp[d->sample_f].off + sp[d->sample_f].len,
			       len - sp[d->sample_f].off - sp[d->sample_f].len);
			len -= sp[d->sample_f].len;
			body = tmp;
		}
	}
	if (d->batch_col >= 0 && fr[i].type == PL_MSG_SAMPLE_BATCH) {
		char err[160];
		struct span col[WS_COLS];
		uint32_t hdr;
		if (pl_msg_decode(PL_MSG_SAMPLE_BATCH, body, len, msg, err, sizeof(err)) == 0 &&
		    batch_spans(msg->u.batch.data, msg->u.batch.len, msg->u.batch.count, col, &hdr) == 0) {
			/* the column's bytes out (its length varint stays: a byte) */
			const struct span *k = &col[d->batch_col];
			static uint8_t data[PL_FRAME_MAX];
			memcpy(data, msg->u.batch.data, k->off);
			memcpy(data + k->off, msg->u.batch.data + k->off + k->len,
			       msg->u.batch.len - k->off - k->len);
			msg->u.batch.len -= k->len;
			msg->u.batch.data = data;
			struct pl_writer w;
			pl_w_init(&w, raw + *n, raw_cap - *n);
			if (pl_msg_encode(&w, msg) == 0)
				*n += pl_w_len(&w);
			return;
		}
	}
	struct pl_frame_header h = { .type = fr[i].type, .len = (uint32_t)len };
	pl_frame_header_put(raw + *n, &h);
	memcpy(raw + *n + PL_FRAME_HEADER_SIZE, body, len);
	*n += PL_FRAME_HEADER_SIZE + len;
}

/* Bytes the stream would take (stream header, block headers, payloads). */
static uint64_t stream_cost(const struct drop *d)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, PL_BLOCK_WINDOW_LOG);
	uint64_t total = PL_STREAM_HEADER_SIZE;
	size_t n = 0, end = d->end ? d->end : nframes;
	for (size_t i = 0; i <= end; i++) {
		int boundary = i == end ||
			       (d->full ? n + PL_FRAME_HEADER_SIZE + fr[i].len > d->full
					: i > 0 && fr[i].block != fr[i - 1].block);
		if (boundary && n) {
			if (!d->full && block_new[fr[i - 1].block])
				ZSTD_CCtx_reset(z, ZSTD_reset_session_only);
			ZSTD_inBuffer in = { raw, n, 0 };
			ZSTD_outBuffer ob = { out, out_cap, 0 };
			size_t rem;
			do
				rem = ZSTD_compressStream2(z, &ob, &in, ZSTD_e_flush);
			while (rem && !ZSTD_isError(rem));
			total += PL_BLOCK_HEADER_SIZE + ob.pos;
			n = 0;
		}
		if (i < end)
			put_frame(i, d, &n);
	}
	ZSTD_freeCCtx(z);
	return total;
}

int main(int argc, char **argv)
{
	int opt_i = 1;
	for (; opt_i + 1 < argc && argv[opt_i][0] == '-'; opt_i += 2)
		if (!strcmp(argv[opt_i], "-l"))
			level = atoi(argv[opt_i + 1]);
	if (opt_i != argc - 1) {
		fprintf(stderr, "usage: pl-wirestat [-l LEVEL] FILE.plens\n");
		return 1;
	}
	const char *path = argv[opt_i];
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "pl-wirestat: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long fsize = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *file = malloc(fsize > 0 ? (size_t)fsize : 1);
	if (!file || fread(file, 1, (size_t)fsize, f) != (size_t)fsize) {
		fprintf(stderr, "pl-wirestat: cannot read %s\n", path);
		return 1;
	}
	fclose(f);

	char err[160];
	struct pl_stream_header sh;
	if (pl_stream_header_parse(file, (size_t)fsize, &sh, err, sizeof(err)) < 0) {
		fprintf(stderr, "pl-wirestat: %s: %s\n", path, err);
		return 2;
	}
	size_t arena_cap = 1u << 24, arena_len = 0, frames_cap = 1u << 16;
	arena = malloc(arena_cap);
	fr = malloc(frames_cap * sizeof(*fr));
	block_new = malloc((size_t)fsize / PL_BLOCK_HEADER_SIZE + 1);
	msg = malloc(sizeof(*msg));
	struct pl_block_dec dec;
	if (!arena || !fr || !block_new || !msg || pl_block_dec_init(&dec) < 0) {
		fprintf(stderr, "pl-wirestat: out of memory\n");
		return 1;
	}
	uint64_t stored_total = sh.header_size, nsamples = 0, batched = 0;
	size_t pos = sh.header_size;
	while (pos + PL_BLOCK_HEADER_SIZE <= (size_t)fsize) {
		struct pl_block_header bh;
		if (pl_block_header_parse(file + pos, (size_t)fsize - pos, &bh, err, sizeof(err)) < 0)
			break;
		if (pos + PL_BLOCK_HEADER_SIZE + bh.stored_len > (size_t)fsize)
			break; /* torn tail */
		const uint8_t *rawb;
		size_t raw_len;
		if (pl_block_decode(&dec, &bh, file + pos + PL_BLOCK_HEADER_SIZE, &rawb, &raw_len, err,
				    sizeof(err)) < 0) {
			fprintf(stderr, "pl-wirestat: block %" PRIu64 ": %s\n", nblocks, err);
			return 2;
		}
		block_new[nblocks] = bh.codec != PL_CODEC_ZSTD_MORE;
		stored_total += PL_BLOCK_HEADER_SIZE + bh.stored_len;
		pos += PL_BLOCK_HEADER_SIZE + bh.stored_len;
		struct pl_cursor c;
		pl_cur_init(&c, rawb, raw_len);
		while (pl_cur_left(&c) >= PL_FRAME_HEADER_SIZE) {
			struct pl_frame_header h;
			size_t left = pl_cur_left(&c);
			const uint8_t *fh = pl_cur_take(&c, PL_FRAME_HEADER_SIZE);
			if (pl_frame_header_parse(fh, left, &h, err, sizeof(err)) < 0) {
				fprintf(stderr, "pl-wirestat: block %" PRIu64 ": %s\n", nblocks, err);
				return 2;
			}
			const uint8_t *body = pl_cur_take(&c, h.len);
			while (arena_len + h.len > arena_cap)
				if (!(arena = realloc(arena, arena_cap *= 2)))
					return 1;
			if (nframes == frames_cap && !(fr = realloc(fr, (frames_cap *= 2) * sizeof(*fr))))
				return 1;
			memcpy(arena + arena_len, body, h.len);
			fr[nframes++] = (struct frame_ref){ h.type, h.len, arena_len, nblocks };
			arena_len += h.len;
			if (h.type == PL_MSG_SAMPLE)
				nsamples++;
			if (h.type == PL_MSG_SAMPLE_BATCH &&
			    pl_msg_decode(h.type, body, h.len, msg, err, sizeof(err)) == 0) {
				nsamples += msg->u.batch.count;
				batched += msg->u.batch.count;
			}
		}
		nblocks++;
	}
	if (!nsamples) {
		fprintf(stderr, "pl-wirestat: %s has no samples\n", path);
		return 2;
	}
	size_t maxf = 0;
	for (size_t i = 0; i < nframes; i++)
		maxf = fr[i].len > maxf ? fr[i].len : maxf;
	raw_cap = (size_t)PL_BLOCK_MAX_RAW + 2 * (PL_FRAME_HEADER_SIZE + maxf);
	out_cap = ZSTD_compressBound(raw_cap);
	raw = malloc(raw_cap);
	out = malloc(out_cap);
	tmp = malloc(maxf + 16);
	if (!raw || !out || !tmp)
		return 1;

	const struct drop none = { -1, -1, -1, 0, 0 };
	uint64_t whole = stream_cost(&none);
	double ns = (double)nsamples;
	printf("Stream `%s`: %ld bytes, %" PRIu64 " blocks, %zu frames, %" PRIu64
	       " samples (%.1f%% in SAMPLE_BATCH frames): **%.2f bytes/sample** on the wire.  "
	       "Compressed again the agent's way (zstd level %d, one frame across blocks): "
	       "%" PRIu64 " bytes (%+.1f%%: the model below matches the agent).\n\n",
	       path, fsize, nblocks, nframes, nsamples, 100.0 * batched / ns,
	       (double)stored_total / ns, level, whole,
	       100.0 * ((double)whole - (double)stored_total) / (double)stored_total);

	/* 1. per type */
	uint64_t tcount[128] = { 0 }, tbytes[128] = { 0 }, raw_total = 0;
	for (size_t i = 0; i < nframes; i++) {
		unsigned t = fr[i].type < 128 ? fr[i].type : 127;
		tcount[t]++;
		tbytes[t] += PL_FRAME_HEADER_SIZE + fr[i].len;
		raw_total += PL_FRAME_HEADER_SIZE + fr[i].len;
	}
	printf("| frame type | frames | raw bytes | raw bytes/sample | compressed bytes/sample (marginal) | share of the stream |\n"
	       "|---|---|---|---|---|---|\n");
	double marg_sum = 0;
	for (unsigned t = 0; t < 128; t++) {
		if (!tcount[t])
			continue;
		struct drop d = none;
		d.type = (int)t;
		double marg = (double)whole - (double)stream_cost(&d);
		marg_sum += marg;
		const char *n = pl_msg_type_name((uint16_t)t);
		printf("| %s | %" PRIu64 " | %" PRIu64 " | %.2f | %.2f | %.1f%% |\n", n ? n : "?",
		       tcount[t], tbytes[t], (double)tbytes[t] / ns, marg / ns, 100.0 * marg / whole);
	}
	double hdrs = (double)(PL_STREAM_HEADER_SIZE + nblocks * PL_BLOCK_HEADER_SIZE);
	printf("| block headers (%u bytes × %" PRIu64 ") + stream header | | | | %.2f | %.1f%% |\n",
	       PL_BLOCK_HEADER_SIZE, nblocks, hdrs / ns, 100.0 * hdrs / whole);
	printf("| **total** | %zu | %" PRIu64 " | %.2f | %.2f (sum of marginals + headers %.2f) | |\n\n",
	       nframes, raw_total, (double)raw_total / ns, (double)whole / ns,
	       (marg_sum + hdrs) / ns);

	/* 2. per SAMPLE_BATCH column and SAMPLE field */
	if (tcount[PL_MSG_SAMPLE_BATCH]) {
		uint64_t cbytes[WS_COLS] = { 0 }, hbytes = 0;
		for (size_t i = 0; i < nframes; i++) {
			struct span col[WS_COLS];
			uint32_t hdr;
			if (fr[i].type != PL_MSG_SAMPLE_BATCH ||
			    pl_msg_decode(fr[i].type, arena + fr[i].off, fr[i].len, msg, err,
					  sizeof(err)) < 0 ||
			    batch_spans(msg->u.batch.data, msg->u.batch.len, msg->u.batch.count, col, &hdr) < 0)
				continue;
			hbytes += PL_FRAME_HEADER_SIZE + fr[i].len - (msg->u.batch.len - hdr);
			for (int k = 0; k < WS_COLS; k++)
				cbytes[k] += col[k].len;
		}
		printf("| SAMPLE_BATCH column (%" PRIu64 " samples in %" PRIu64 " batches) | raw bytes/batched sample | compressed bytes/batched sample (marginal) | share of the stream |\n|---|---|---|---|\n",
		       batched, tcount[PL_MSG_SAMPLE_BATCH]);
		for (int k = 0; k < WS_COLS; k++) {
			struct drop d = none;
			d.batch_col = k;
			double marg = (double)whole - (double)stream_cost(&d);
			printf("| %s | %.2f | %.2f | %.1f%% |\n", col_name[k],
			       (double)cbytes[k] / batched, marg / batched, 100.0 * marg / whole);
		}
		printf("| frame header, count, base time, thread table, column lengths (if any) | %.2f | — | — |\n\n",
		       (double)hbytes / batched);
	}
	if (tcount[PL_MSG_SAMPLE]) {
		uint64_t fbytes[SF_N] = { 0 };
		for (size_t i = 0; i < nframes; i++) {
			struct span sp[SF_N];
			if (fr[i].type == PL_MSG_SAMPLE &&
			    sample_spans(arena + fr[i].off, fr[i].len, sp) == 0)
				for (int k = 0; k < SF_N; k++)
					fbytes[k] += sp[k].len;
		}
		double nf = (double)tcount[PL_MSG_SAMPLE];
		printf("| SAMPLE frame field (%" PRIu64 " frames) | raw bytes/frame | compressed bytes/frame (marginal) | share of the stream |\n|---|---|---|---|\n",
		       tcount[PL_MSG_SAMPLE]);
		for (int k = 0; k < SF_N; k++) {
			if (!fbytes[k])
				continue;
			struct drop d = none;
			d.sample_f = k;
			double marg = (double)whole - (double)stream_cost(&d);
			printf("| %s | %.2f | %.2f | %.1f%% |\n", sf_name[k], (double)fbytes[k] / nf,
			       marg / nf, 100.0 * marg / whole);
		}
		printf("| frame header | %.2f | — | — |\n\n", (double)PL_FRAME_HEADER_SIZE);
	}

	/* 3. fixed costs and block size */
	size_t first = 0;
	while (first < nframes && fr[first].type != PL_MSG_SAMPLE &&
	       fr[first].type != PL_MSG_SAMPLE_BATCH)
		first++;
	struct drop d = none;
	d.end = first;
	uint64_t startup = first ? stream_cost(&d) : 0;
	d = none;
	d.full = 128u * 1024;
	uint64_t full = stream_cost(&d);
	printf("Start-up frames (the %zu before the first sample: HELLO, probe results, SESSION, "
	       "maps, vDSO image…) cost %" PRIu64 " bytes; without them the stream costs "
	       "**%.2f bytes/sample** (a fixed cost that long sessions amortize).  In full "
	       "128 KiB blocks instead of the agent's (one per flush interval): %.2f bytes/sample.\n",
	       first, startup, ((double)stored_total - (double)startup) / ns, (double)full / ns);
	pl_block_dec_free(&dec);
	free(raw);
	free(out);
	free(tmp);
	free(arena);
	free(fr);
	free(block_new);
	free(msg);
	free(file);
	return 0;
}
