/* pl-block-io.c — block requests paired from issue to completion
 * (pl-block-io.h). */
#include "pl-block-io.h"

#include <string.h>

#include "pl-percent.h"
#include "pl-tracepoint.h"

const char *const pl_block_io_tracepoints[] = {
	"block:block_rq_issue",
	"block:block_rq_complete",
	NULL,
};

enum { EV_NONE, EV_ISSUE, EV_COMPLETE };

typedef struct {
	guint32 dev;
	guint64 sector;
} Key;

static guint key_hash(gconstpointer p)
{
	const Key *k = p;
	return g_int64_hash(&k->sector) ^ (k->dev * 2654435761u);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const Key *x = a, *y = b;
	return x->dev == y->dev && x->sector == y->sector;
}

const char *pl_block_op_name(PlBlockOp op)
{
	static const char *const names[] = { "read", "write", "flush", "discard", "other" };
	return op <= PL_BLOCK_OTHER ? names[op] : "other";
}

char *pl_block_dev_name(guint32 dev)
{
	guint major = dev >> 20, minor = dev & ((1u << 20) - 1);
	const char *driver = NULL;
	switch (major) {
	case 1: driver = "ram"; break;
	case 3: case 22: driver = "ide"; break;
	case 7: driver = "loop"; break;
	case 8: case 65: case 66: case 67: case 68: case 69: case 70: case 71:
	case 128: case 129: case 130: case 131: case 132: case 133: case 134: case 135:
		driver = "sd";
		break;
	case 9: driver = "md"; break;
	case 11: driver = "sr"; break;
	case 179: driver = "mmcblk"; break;
	case 259: driver = "blkext (nvme, partitions)"; break;
	}
	return driver ? g_strdup_printf("%u,%u %s", major, minor, driver)
		      : g_strdup_printf("%u,%u", major, minor);
}

/* rwbs as blktrace writes it: F (flush before), then one of R W D N (and
 * E for secure erase, Z write zeroes), then F (FUA), S, M, A… */
static PlBlockOp op_of(const char *rwbs)
{
	const char *p = rwbs;
	gboolean flush = *p == 'F';
	if (flush)
		p++;
	switch (*p) {
	case 'R': return PL_BLOCK_READ;
	case 'W': return PL_BLOCK_WRITE;
	case 'D': case 'E': case 'Z': return PL_BLOCK_DISCARD;
	}
	return flush ? PL_BLOCK_FLUSH : PL_BLOCK_OTHER;
}

void pl_block_io_free(PlBlockIo *b)
{
	if (!b)
		return;
	g_array_free(b->requests, TRUE);
	g_array_free(b->devices, TRUE);
	g_free(b);
}

static gboolean field_u64(const PlTraceFormat *fmt, const char *name, const guint8 *raw,
			  gsize len, gboolean be, gint64 *out)
{
	const PlTraceField *f = pl_trace_format_find(fmt, name);
	return f && pl_trace_field_int(f, raw, len, be, out);
}

static gint dev_cmp(gconstpointer a, gconstpointer b)
{
	const PlBlockDevice *x = a, *y = b;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static PlBlockDevice *device_get(GArray *devs, guint32 dev)
{
	for (guint i = 0; i < devs->len; i++)
		if (g_array_index(devs, PlBlockDevice, i).dev == dev)
			return &g_array_index(devs, PlBlockDevice, i);
	PlBlockDevice d = { .dev = dev };
	g_array_append_val(devs, d);
	return &g_array_index(devs, PlBlockDevice, devs->len - 1);
}

/* Per device: counts and latency percentiles over its completed requests. */
static void summarize(PlBlockIo *b)
{
	g_autoptr(GHashTable) lat = g_hash_table_new_full(NULL, NULL, NULL,
							 (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < b->requests->len; i++) {
		const PlBlockRequest *r = &g_array_index(b->requests, PlBlockRequest, i);
		PlBlockDevice *d = device_get(b->devices, r->dev);
		if (!r->complete) {
			d->in_flight_at_end++;
			continue;
		}
		d->requests++;
		d->by_op[r->op]++;
		if (r->op == PL_BLOCK_READ)
			d->bytes_read += r->bytes;
		else if (r->op == PL_BLOCK_WRITE)
			d->bytes_written += r->bytes;
		d->errors += r->error != 0;
		guint64 ns = r->complete - r->issue;
		d->total_ns += ns;
		GArray *l = g_hash_table_lookup(lat, GUINT_TO_POINTER(r->dev + 1));
		if (!l) {
			l = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(lat, GUINT_TO_POINTER(r->dev + 1), l);
		}
		g_array_append_val(l, ns);
	}
	g_array_sort(b->devices, dev_cmp);
	for (guint i = 0; i < b->devices->len; i++) {
		PlBlockDevice *d = &g_array_index(b->devices, PlBlockDevice, i);
		GArray *l = g_hash_table_lookup(lat, GUINT_TO_POINTER(d->dev + 1));
		if (!l || !l->len)
			continue;
		g_array_sort(l, pl_cmp_u64);
		const guint64 *x = (const guint64 *)(gpointer)l->data;
		d->p50_ns = pl_percentile(x, l->len, 50);
		d->p90_ns = pl_percentile(x, l->len, 90);
		d->p99_ns = pl_percentile(x, l->len, 99);
		d->max_ns = x[l->len - 1];
	}
}

PlBlockIo *pl_block_io_new(PlProfile *profile)
{
	PlBlockIo *b = g_new0(PlBlockIo, 1);
	b->requests = g_array_new(FALSE, FALSE, sizeof(PlBlockRequest));
	b->devices = g_array_new(FALSE, FALSE, sizeof(PlBlockDevice));
	const PlProfileStats *st = pl_profile_get_stats(profile);
	for (guint k = 0; k < G_N_ELEMENTS(st->lost); k++)
		b->lost += st->lost[k];
	gboolean be = pl_profile_is_big_endian(profile);
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	/* in flight: (dev, sector) -> index into requests + 1 */
	g_autoptr(GHashTable) open = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	/* sectors still to complete, per request */
	g_autoptr(GArray) left = g_array_new(FALSE, TRUE, sizeof(guint64));
	g_autoptr(GHashTable) kinds = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < n; i++) {
		const PlTraceEvent *e = &ev[i];
		gpointer kv;
		int kind;
		if (g_hash_table_lookup_extended(kinds, GUINT_TO_POINTER(e->event), NULL, &kv)) {
			kind = GPOINTER_TO_INT(kv);
		} else {
			const PlEvent *pe = pl_profile_lookup_event(profile, e->event);
			const char *name = pe ? pe->name : NULL;
			kind = !g_strcmp0(name, "block:block_rq_issue")      ? EV_ISSUE
			       : !g_strcmp0(name, "block:block_rq_complete") ? EV_COMPLETE
									     : EV_NONE;
			g_hash_table_insert(kinds, GUINT_TO_POINTER(e->event), GINT_TO_POINTER(kind));
		}
		if (kind == EV_NONE)
			continue;
		b->recorded |= kind == EV_ISSUE;
		const PlTraceFormat *fmt = pl_profile_get_trace_format(profile, e->event);
		const guint8 *raw = pl_profile_get_trace_raw(profile, e);
		gint64 dev, sector, nr_sector;
		if (!field_u64(fmt, "dev", raw, e->raw_len, be, &dev) ||
		    !field_u64(fmt, "sector", raw, e->raw_len, be, &sector) ||
		    !field_u64(fmt, "nr_sector", raw, e->raw_len, be, &nr_sector)) {
			b->undecoded++;
			continue;
		}
		Key k = { (guint32)dev, (guint64)sector };
		gpointer v = g_hash_table_lookup(open, &k);
		if (kind == EV_ISSUE) {
			gint64 bytes = 0;
			if (!field_u64(fmt, "bytes", raw, e->raw_len, be, &bytes))
				bytes = nr_sector * 512;
			PlBlockRequest r = { .issue = e->time, .dev = k.dev, .sector = k.sector,
					     .bytes = (guint32)bytes, .pid = e->pid, .tid = e->tid,
					     .cpu = e->cpu, .stack = e->stack };
			const PlTraceField *f = pl_trace_format_find(fmt, "rwbs");
			g_autofree char *rwbs = f ? pl_trace_field_dup_string(f, raw, e->raw_len, be)
						  : NULL;
			g_strlcpy(r.rwbs, rwbs ? rwbs : "", sizeof(r.rwbs));
			r.op = op_of(r.rwbs);
			if (v) {
				/* requeued and issued again: the new issue stands */
				b->reissued++;
				g_array_remove_index(b->requests, GPOINTER_TO_UINT(v) - 1);
				g_array_remove_index(left, GPOINTER_TO_UINT(v) - 1);
				/* indices after it moved down by one */
				GHashTableIter it;
				gpointer ok, ov;
				g_hash_table_remove(open, &k);
				g_hash_table_iter_init(&it, open);
				while (g_hash_table_iter_next(&it, &ok, &ov))
					if (GPOINTER_TO_UINT(ov) > GPOINTER_TO_UINT(v))
						g_hash_table_iter_replace(
							&it, GUINT_TO_POINTER(GPOINTER_TO_UINT(ov) - 1));
			}
			g_array_append_val(b->requests, r);
			guint64 sectors = (guint64)nr_sector;
			g_array_append_val(left, sectors);
			g_hash_table_insert(open, g_memdup2(&k, sizeof(k)),
					    GUINT_TO_POINTER(b->requests->len));
			continue;
		}
		if (!v) {
			b->complete_without_issue++;
			continue;
		}
		guint idx = GPOINTER_TO_UINT(v) - 1;
		g_hash_table_remove(open, &k);
		guint64 *rest = &g_array_index(left, guint64, idx);
		if ((guint64)nr_sector && (guint64)nr_sector < *rest) {
			/* partly done: what remains goes on from the next sector */
			*rest -= (guint64)nr_sector;
			Key nk = { k.dev, k.sector + (guint64)nr_sector };
			g_hash_table_insert(open, g_memdup2(&nk, sizeof(nk)), GUINT_TO_POINTER(idx + 1));
			continue;
		}
		PlBlockRequest *r = &g_array_index(b->requests, PlBlockRequest, idx);
		gint64 err = 0;
		field_u64(fmt, "error", raw, e->raw_len, be, &err);
		r->complete = MAX(e->time, r->issue + 1); /* never 0: 0 means open */
		r->error = (gint32)err;
	}
	summarize(b);
	return b;
}

const PlBlockDevice *pl_block_io_device(const PlBlockIo *b, guint32 dev)
{
	for (guint i = 0; i < b->devices->len; i++)
		if (g_array_index(b->devices, PlBlockDevice, i).dev == dev)
			return &g_array_index(b->devices, PlBlockDevice, i);
	return NULL;
}

static gint slow_cmp(gconstpointer a, gconstpointer b)
{
	const PlBlockRequest *x = *(PlBlockRequest *const *)a, *y = *(PlBlockRequest *const *)b;
	guint64 dx = x->complete - x->issue, dy = y->complete - y->issue;
	return dx > dy ? -1 : dx < dy ? 1 : x->issue < y->issue ? -1 : x->issue > y->issue;
}

GPtrArray *pl_block_io_slowest(const PlBlockIo *b, guint32 dev, guint max)
{
	GPtrArray *out = g_ptr_array_new();
	for (guint i = 0; i < b->requests->len; i++) {
		PlBlockRequest *r = &g_array_index(b->requests, PlBlockRequest, i);
		if (r->complete && (dev == G_MAXUINT32 || r->dev == dev))
			g_ptr_array_add(out, r);
	}
	g_ptr_array_sort(out, slow_cmp);
	if (max && out->len > max)
		g_ptr_array_set_size(out, max);
	return out;
}
