/* pl-wirestat.c — where the bytes of a PerfLens stream go.
 *
 *   pl-wirestat [-l LEVEL] [-b BLOCK_RAW] FILE.plens
 *
 * Prints, as Markdown:
 *  1. per message type: frames, raw bytes (frame header + body) and the
 *     share of the stream;
 *  2. per SAMPLE field: raw bytes per sample, and the marginal compressed
 *     cost of the field: the stream is re-blocked (BLOCK_RAW raw bytes per
 *     block, the agent's 128 KiB by default) and compressed with zstd at
 *     LEVEL (the agent's default 1) once whole and once without that field;
 *     the difference is what the field costs on the wire.  The whole-stream
 *     re-compression is printed next to the stored size as a check.
 *
 * The SAMPLE body is walked in the field order of common/msg.c (sample_f);
 * a body that does not end where the walk ends is reported ("trailing"), so
 * a change of that table shows up here instead of giving silent nonsense.
 * Reads through the bounds-checked cursor and the block decoder of common/;
 * exits 2 on a malformed stream.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

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

/* ─── re-blocking and compression ──────────────────────────────────────── */

struct rebloc {
	ZSTD_CCtx *z;
	int level;
	uint8_t *raw, *out;
	size_t raw_len, raw_cap, out_cap;
	uint64_t stored; /* what the stream would be: block headers + payloads */
};

static void rb_flush(struct rebloc *b)
{
	if (!b->raw_len)
		return;
	size_t n = ZSTD_compressCCtx(b->z, b->out, b->out_cap, b->raw, b->raw_len, b->level);
	if (ZSTD_isError(n) || n >= b->raw_len)
		n = b->raw_len; /* the agent stores a block raw when zstd does not help */
	b->stored += PL_BLOCK_HEADER_SIZE + n;
	b->raw_len = 0;
}

static void rb_frame(struct rebloc *b, uint16_t type, const uint8_t *body, size_t len,
		     const struct span *drop)
{
	size_t blen = len - (drop ? drop->len : 0);
	if (b->raw_len + PL_FRAME_HEADER_SIZE + blen > b->raw_cap)
		rb_flush(b);
	struct pl_frame_header h = { .type = type, .len = (uint32_t)blen };
	pl_frame_header_put(b->raw + b->raw_len, &h);
	b->raw_len += PL_FRAME_HEADER_SIZE;
	if (drop) {
		memcpy(b->raw + b->raw_len, body, drop->off);
		memcpy(b->raw + b->raw_len + drop->off, body + drop->off + drop->len,
		       len - drop->off - drop->len);
	} else {
		memcpy(b->raw + b->raw_len, body, len);
	}
	b->raw_len += blen;
}

/* ─── main ─────────────────────────────────────────────────────────────── */

struct frame_ref {
	uint16_t type;
	uint32_t len;
	uint64_t off;   /* into the decompressed frame arena */
	uint64_t block; /* index of the block it came in */
};

static uint64_t get_varint(const uint8_t *p, uint32_t len)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < len && i < 10; i++)
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
	return v;
}
static size_t put_varint(uint8_t *o, uint64_t v)
{
	size_t n = 0;
	do {
		o[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}
static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* What-if time encodings for SAMPLE: the delta from the previous sample on
 * the same CPU, minus that CPU's previous delta (sampling is periodic, so
 * this is the timer's jitter), in ns or truncated to µs. */
enum { WI_NONE, WI_DOD_NS, WI_DOD_US };
#define WI_MAX_CPUS 4096

/* The block of the SAMPLE before frame i (deltas never cross blocks). */
static uint64_t prev_block_of(const struct frame_ref *fr, size_t i)
{
	while (i-- > 0)
		if (fr[i].type == PL_MSG_SAMPLE)
			return fr[i].block;
	return (uint64_t)-1;
}

int main(int argc, char **argv)
{
	int level = 1;
	size_t block_raw = 128u * 1024;
	int opt_i = 1;
	for (; opt_i + 1 < argc && argv[opt_i][0] == '-'; opt_i += 2) {
		if (!strcmp(argv[opt_i], "-l"))
			level = atoi(argv[opt_i + 1]);
		else if (!strcmp(argv[opt_i], "-b"))
			block_raw = strtoul(argv[opt_i + 1], NULL, 0);
	}
	if (opt_i != argc - 1 || block_raw < 4096 || block_raw > PL_BLOCK_MAX_RAW) {
		fprintf(stderr, "usage: pl-wirestat [-l LEVEL] [-b BLOCK_RAW] FILE.plens\n");
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
	/* every frame, decompressed, kept in one arena for the re-blocking passes */
	size_t arena_cap = 1u << 24, arena_len = 0, nframes = 0, frames_cap = 1u << 16;
	uint8_t *arena = malloc(arena_cap);
	struct frame_ref *fr = malloc(frames_cap * sizeof(*fr));
	struct pl_block_dec dec;
	if (!arena || !fr || pl_block_dec_init(&dec) < 0) {
		fprintf(stderr, "pl-wirestat: out of memory\n");
		return 1;
	}
	uint64_t stored_total = sh.header_size, blocks = 0;
	size_t pos = sh.header_size;
	while (pos + PL_BLOCK_HEADER_SIZE <= (size_t)fsize) {
		struct pl_block_header bh;
		if (pl_block_header_parse(file + pos, (size_t)fsize - pos, &bh, err, sizeof(err)) < 0)
			break;
		if (pos + PL_BLOCK_HEADER_SIZE + bh.stored_len > (size_t)fsize)
			break; /* torn tail */
		const uint8_t *raw;
		size_t raw_len;
		if (pl_block_decode(&dec, &bh, file + pos + PL_BLOCK_HEADER_SIZE, &raw, &raw_len, err,
				    sizeof(err)) < 0) {
			fprintf(stderr, "pl-wirestat: block %" PRIu64 ": %s\n", blocks, err);
			return 2;
		}
		stored_total += PL_BLOCK_HEADER_SIZE + bh.stored_len;
		pos += PL_BLOCK_HEADER_SIZE + bh.stored_len;
		struct pl_cursor c;
		pl_cur_init(&c, raw, raw_len);
		while (pl_cur_left(&c) >= PL_FRAME_HEADER_SIZE) {
			struct pl_frame_header h;
			size_t left = pl_cur_left(&c);
			const uint8_t *fh = pl_cur_take(&c, PL_FRAME_HEADER_SIZE);
			if (pl_frame_header_parse(fh, left, &h, err, sizeof(err)) < 0) {
				fprintf(stderr, "pl-wirestat: block %" PRIu64 ": %s\n", blocks, err);
				return 2;
			}
			const uint8_t *body = pl_cur_take(&c, h.len);
			while (arena_len + h.len > arena_cap) {
				arena_cap *= 2;
				if (!(arena = realloc(arena, arena_cap))) {
					fprintf(stderr, "pl-wirestat: out of memory\n");
					return 1;
				}
			}
			if (nframes == frames_cap) {
				frames_cap *= 2;
				if (!(fr = realloc(fr, frames_cap * sizeof(*fr)))) {
					fprintf(stderr, "pl-wirestat: out of memory\n");
					return 1;
				}
			}
			memcpy(arena + arena_len, body, h.len);
			fr[nframes++] = (struct frame_ref){ h.type, h.len, arena_len, blocks };
			arena_len += h.len;
		}
		blocks++;
	}

	/* 1. per type */
	uint64_t tcount[128] = { 0 }, tbytes[128] = { 0 }, raw_total = 0;
	uint64_t fbytes[SF_N] = { 0 }, nsamples = 0, nbad = 0, with_stack_id = 0, chain_entries = 0;
	for (size_t i = 0; i < nframes; i++) {
		unsigned t = fr[i].type < 128 ? fr[i].type : 127;
		tcount[t]++;
		tbytes[t] += PL_FRAME_HEADER_SIZE + fr[i].len;
		raw_total += PL_FRAME_HEADER_SIZE + fr[i].len;
		if (fr[i].type == PL_MSG_SAMPLE) {
			struct span sp[SF_N];
			if (sample_spans(arena + fr[i].off, fr[i].len, sp) < 0) {
				nbad++;
				continue;
			}
			nsamples++;
			for (int k = 0; k < SF_N; k++)
				fbytes[k] += sp[k].len;
			if (sp[SF_STACK_ID].len > 1 || arena[fr[i].off + sp[SF_STACK_ID].off] != 0)
				with_stack_id++;
			if (sp[SF_CHAIN].len > 1)
				chain_entries++;
		}
	}
	if (!nsamples) {
		fprintf(stderr, "pl-wirestat: %s has no SAMPLE frames\n", path);
		return 2;
	}
	printf("Stream `%s`: %ld bytes, %" PRIu64 " blocks, %zu frames, %" PRIu64
	       " samples: **%.1f bytes/sample** on the wire (%.1f raw before zstd)%s.\n\n",
	       path, fsize, blocks, nframes, nsamples, (double)stored_total / nsamples,
	       (double)raw_total / nsamples, nbad ? " — some SAMPLE bodies did not parse" : "");
	printf("| frame type | frames | raw bytes | raw bytes/sample | share of raw |\n|---|---|---|---|---|\n");
	for (unsigned t = 0; t < 128; t++) {
		if (!tcount[t])
			continue;
		const char *n = pl_msg_type_name((uint16_t)t);
		printf("| %s | %" PRIu64 " | %" PRIu64 " | %.1f | %.1f%% |\n", n ? n : "?", tcount[t],
		       tbytes[t], (double)tbytes[t] / nsamples, 100.0 * tbytes[t] / raw_total);
	}
	printf("\nSAMPLE frames that use an interned stack (stack_id ≠ 0): %.1f%%; "
	       "that carry their call chain inline: %.1f%%.\n\n",
	       100.0 * with_stack_id / nsamples, 100.0 * chain_entries / nsamples);

	/* 2. per field, raw and marginal compressed cost */
	struct rebloc b = { .level = level, .raw_cap = block_raw };
	b.z = ZSTD_createCCtx();
	b.raw = malloc(block_raw + PL_FRAME_MAX + PL_FRAME_HEADER_SIZE);
	b.out_cap = ZSTD_compressBound(block_raw + PL_FRAME_MAX + PL_FRAME_HEADER_SIZE);
	b.out = malloc(b.out_cap);
	if (!b.z || !b.raw || !b.out) {
		fprintf(stderr, "pl-wirestat: out of memory\n");
		return 1;
	}
	/* start-up: every frame before the first SAMPLE (HELLO, probe results,
	 * SESSION, side band snapshot, vDSO image…), compressed alone: a fixed
	 * cost per session that short sessions feel and long ones amortize */
	size_t first_sample = 0;
	while (first_sample < nframes && fr[first_sample].type != PL_MSG_SAMPLE)
		first_sample++;
	b.stored = sh.header_size;
	b.raw_len = 0;
	for (size_t i = 0; i < first_sample; i++)
		rb_frame(&b, fr[i].type, arena + fr[i].off, fr[i].len, NULL);
	rb_flush(&b);
	uint64_t startup = b.stored;
	uint64_t whole = 0, without[SF_N] = { 0 };
	for (int pass = -1; pass < SF_N; pass++) {
		if (pass >= 0 && !fbytes[pass])
			continue;
		b.stored = sh.header_size;
		b.raw_len = 0;
		for (size_t i = 0; i < nframes; i++) {
			struct span sp[SF_N], *drop = NULL;
			if (pass >= 0 && fr[i].type == PL_MSG_SAMPLE &&
			    sample_spans(arena + fr[i].off, fr[i].len, sp) == 0)
				drop = &sp[pass];
			rb_frame(&b, fr[i].type, arena + fr[i].off, fr[i].len, drop);
		}
		rb_flush(&b);
		if (pass < 0)
			whole = b.stored;
		else
			without[pass] = b.stored;
	}
	printf("Re-compressed at zstd level %d in %zu KiB blocks: %" PRIu64
	       " bytes (stored: %" PRIu64 ", %+.1f%%).\n\n",
	       level, block_raw / 1024, whole, stored_total,
	       100.0 * ((double)whole - (double)stored_total) / (double)stored_total);
	printf("Start-up frames (the %zu before the first SAMPLE) compressed alone: %" PRIu64
	       " bytes; without them the stream costs **%.1f bytes/sample** as stored "
	       "(%.1f in full blocks).\n\n",
	       first_sample, startup,
	       ((double)stored_total - (double)startup) / nsamples,
	       ((double)whole - (double)startup) / nsamples);
	printf("| SAMPLE field | raw bytes/sample | compressed bytes/sample (marginal) | share of compressed stream |\n|---|---|---|---|\n");
	uint64_t sample_raw = 0, marg_sum = 0;
	for (int k = 0; k < SF_N; k++) {
		if (!fbytes[k])
			continue;
		int64_t marg = (int64_t)whole - (int64_t)without[k];
		sample_raw += fbytes[k];
		marg_sum += marg > 0 ? (uint64_t)marg : 0;
		printf("| %s | %.2f | %.2f | %.1f%% |\n", sf_name[k], (double)fbytes[k] / nsamples,
		       (double)marg / nsamples, 100.0 * marg / whole);
	}
	printf("| frame header (8 bytes) | %.2f | — | — |\n", (double)PL_FRAME_HEADER_SIZE);
	printf("| **SAMPLE total** | %.2f | (sum of marginals %.2f) | |\n",
	       (double)sample_raw / nsamples + PL_FRAME_HEADER_SIZE, (double)marg_sum / nsamples);

	/* 3. what-if: other time encodings, in the agent's blocks and in full
	 * blocks, to size a change of the encoding before making it */
	static uint64_t last_t[WI_MAX_CPUS], last_d[WI_MAX_CPUS];
	uint8_t *tmp = malloc(PL_FRAME_MAX + 16);
	if (!tmp) {
		fprintf(stderr, "pl-wirestat: out of memory\n");
		return 1;
	}
	printf("\nWhat-if (re-compressed, whole stream): bytes/sample\n\n"
	       "| SAMPLE time encoding | blocks as the agent closed them | full %zu KiB blocks |\n|---|---|---|\n",
	       block_raw / 1024);
	static const char *const wi_name[] = {
		"as sent (delta from the previous SAMPLE of the block, ns)",
		"per-CPU delta of delta, ns (lossless)",
		"per-CPU delta of delta, µs (perf script's resolution)",
	};
	for (int wi = WI_NONE; wi <= WI_DOD_US; wi++) {
		double res[2];
		for (int full = 0; full < 2; full++) {
			memset(last_t, 0, sizeof(last_t));
			memset(last_d, 0, sizeof(last_d));
			b.stored = sh.header_size;
			b.raw_len = 0;
			uint64_t prev_abs = 0, cur_block = (uint64_t)-1;
			for (size_t i = 0; i < nframes; i++) {
				if (!full && fr[i].block != cur_block) {
					rb_flush(&b);
					cur_block = fr[i].block;
				}
				const uint8_t *body = arena + fr[i].off;
				struct span sp[SF_N];
				if (fr[i].type != PL_MSG_SAMPLE || sample_spans(body, fr[i].len, sp) < 0) {
					rb_frame(&b, fr[i].type, body, fr[i].len, NULL);
					continue;
				}
				/* absolute time, as pl_reader computes it */
				uint64_t raw = get_varint(body + sp[SF_TIME].off, sp[SF_TIME].len);
				uint64_t flags = get_varint(body + sp[SF_FLAGS].off, sp[SF_FLAGS].len);
				uint64_t t = raw;
				if ((flags & PL_SAMPLE_TIME_DELTA) && fr[i].block == prev_block_of(fr, i))
					t = prev_abs + (uint64_t)((int64_t)(raw >> 1) ^ -(int64_t)(raw & 1));
				prev_abs = t;
				if (wi == WI_NONE) {
					rb_frame(&b, fr[i].type, body, fr[i].len, NULL);
					continue;
				}
				uint64_t cpu = get_varint(body + sp[SF_CPU].off, sp[SF_CPU].len) % WI_MAX_CPUS;
				uint64_t tq = wi == WI_DOD_US ? t / 1000 : t;
				uint64_t d = last_t[cpu] ? tq - last_t[cpu] : tq;
				uint64_t v = last_t[cpu] ? zigzag((int64_t)(d - last_d[cpu])) : tq;
				last_t[cpu] = tq;
				last_d[cpu] = d;
				size_t n = sp[SF_TIME].off;
				memcpy(tmp, body, n);
				n += put_varint(tmp + n, v);
				memcpy(tmp + n, body + sp[SF_TIME].off + sp[SF_TIME].len,
				       fr[i].len - sp[SF_TIME].off - sp[SF_TIME].len);
				n += fr[i].len - sp[SF_TIME].off - sp[SF_TIME].len;
				rb_frame(&b, fr[i].type, tmp, n, NULL);
			}
			rb_flush(&b);
			res[full] = (double)b.stored / nsamples;
		}
		printf("| %s | %.1f | %.1f |\n", wi_name[wi], res[0], res[1]);
	}
	/* columnar: the SAMPLEs of a block as one batch, field by field (all
	 * tids, then all stack ids, …, then all times), which is what zstd
	 * compresses best: runs and small deltas instead of interleaved noise */
	for (int us = 0; us < 2; us++) {
		double res[2];
		for (int full = 0; full < 2; full++) {
			static uint8_t *col[SF_N];
			static size_t col_len[SF_N], col_cap[SF_N];
			size_t col_total = 0;
			memset(last_t, 0, sizeof(last_t));
			memset(last_d, 0, sizeof(last_d));
			b.stored = sh.header_size;
			b.raw_len = 0;
			uint64_t prev_abs = 0, cur_block = (uint64_t)-1;
			for (size_t i = 0; i <= nframes; i++) {
				int boundary = i == nframes || (!full && fr[i].block != cur_block);
				const uint8_t *body = i < nframes ? arena + fr[i].off : NULL;
				size_t need = i < nframes ? PL_FRAME_HEADER_SIZE + fr[i].len : 0;
				if (boundary || b.raw_len + col_total + need + 64 > b.raw_cap) {
					if (col_total) {
						struct pl_frame_header h = { .type = 127, .len = (uint32_t)col_total };
						pl_frame_header_put(b.raw + b.raw_len, &h);
						b.raw_len += PL_FRAME_HEADER_SIZE;
						for (int k = 0; k < SF_N; k++) {
							memcpy(b.raw + b.raw_len, col[k], col_len[k]);
							b.raw_len += col_len[k];
							col_len[k] = 0;
						}
						col_total = 0;
					}
					rb_flush(&b);
				}
				if (i == nframes)
					break;
				cur_block = fr[i].block;
				struct span sp[SF_N];
				if (fr[i].type != PL_MSG_SAMPLE || sample_spans(body, fr[i].len, sp) < 0) {
					rb_frame(&b, fr[i].type, body, fr[i].len, NULL);
					continue;
				}
				uint64_t raw = get_varint(body + sp[SF_TIME].off, sp[SF_TIME].len);
				uint64_t flags = get_varint(body + sp[SF_FLAGS].off, sp[SF_FLAGS].len);
				uint64_t t = raw;
				if ((flags & PL_SAMPLE_TIME_DELTA) && fr[i].block == prev_block_of(fr, i))
					t = prev_abs + (uint64_t)((int64_t)(raw >> 1) ^ -(int64_t)(raw & 1));
				prev_abs = t;
				uint64_t cpu = get_varint(body + sp[SF_CPU].off, sp[SF_CPU].len) % WI_MAX_CPUS;
				uint64_t tq = us ? t / 1000 : t;
				uint64_t d = last_t[cpu] ? tq - last_t[cpu] : tq;
				uint64_t v = last_t[cpu] ? zigzag((int64_t)(d - last_d[cpu])) : tq;
				last_t[cpu] = tq;
				last_d[cpu] = d;
				for (int k = 0; k < SF_N; k++) {
					if (k == SF_FLAGS)
						continue; /* the batch implies the time coding */
					size_t add = k == SF_TIME ? 10 : sp[k].len;
					if (col_len[k] + add > col_cap[k]) {
						col_cap[k] = (col_len[k] + add) * 2 + 4096;
						if (!(col[k] = realloc(col[k], col_cap[k]))) {
							fprintf(stderr, "pl-wirestat: out of memory\n");
							return 1;
						}
					}
					size_t n = k == SF_TIME ? put_varint(col[k] + col_len[k], v)
								: (memcpy(col[k] + col_len[k], body + sp[k].off, sp[k].len), sp[k].len);
					col_len[k] += n;
					col_total += n;
				}
			}
			res[full] = (double)b.stored / nsamples;
		}
		printf("| columnar batch per block (fields grouped), time per-CPU delta of delta in %s | %.1f | %.1f |\n",
		       us ? "µs" : "ns (lossless)", res[0], res[1]);
	}
	/* a longer flush interval: k consecutive agent blocks merged into one,
	 * i.e. a block closed every k × 100 ms (latency grows by as much) */
	for (int k = 5; k <= 10; k += 5) {
		b.stored = sh.header_size;
		b.raw_len = 0;
		uint64_t cur = (uint64_t)-1;
		for (size_t i = 0; i < nframes; i++) {
			if (fr[i].block / (uint64_t)k != cur) {
				rb_flush(&b);
				cur = fr[i].block / (uint64_t)k;
			}
			rb_frame(&b, fr[i].type, arena + fr[i].off, fr[i].len, NULL);
		}
		rb_flush(&b);
		printf("| as sent, but %d agent blocks merged into one (a block every %d ms if the agent closes one per 100 ms) | %.1f | — |\n",
		       k, k * 100, (double)b.stored / nsamples);
	}
	/* one zstd stream for the whole session, flushed (ZSTD_e_flush) where
	 * the agent closed each block: same latency, but the window and the
	 * entropy tables carry over from block to block */
	{
		ZSTD_CCtx *zs = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(zs, ZSTD_c_compressionLevel, level);
		uint64_t total = sh.header_size, cur_block = (uint64_t)-1;
		size_t start = 0;
		for (size_t i = 0; i <= nframes; i++) {
			if (i < nframes && fr[i].block == cur_block)
				continue;
			if (i > start) {
				/* the frames of one as-sent block, re-serialized */
				size_t n = 0;
				for (size_t j = start; j < i; j++) {
					struct pl_frame_header h = { .type = fr[j].type, .len = fr[j].len };
					pl_frame_header_put(b.raw + n, &h);
					memcpy(b.raw + n + PL_FRAME_HEADER_SIZE, arena + fr[j].off, fr[j].len);
					n += PL_FRAME_HEADER_SIZE + fr[j].len;
				}
				ZSTD_inBuffer in = { b.raw, n, 0 };
				ZSTD_outBuffer ob = { b.out, b.out_cap, 0 };
				size_t rem;
				do
					rem = ZSTD_compressStream2(zs, &ob, &in, ZSTD_e_flush);
				while (rem && !ZSTD_isError(rem));
				total += PL_BLOCK_HEADER_SIZE + ob.pos;
			}
			if (i < nframes)
				cur_block = fr[i].block;
			start = i;
		}
		printf("| as sent, but one zstd stream across blocks (ZSTD_e_flush at each block end) | %.1f | — |\n",
		       (double)total / nsamples);
		ZSTD_freeCCtx(zs);
	}
	free(tmp);
	ZSTD_freeCCtx(b.z);
	pl_block_dec_free(&dec);
	free(b.raw);
	free(b.out);
	free(arena);
	free(fr);
	free(file);
	return nbad ? 2 : 0;
}
