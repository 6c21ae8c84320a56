/* pl-time-order.c — the model's ingest order; see pl-time-order.h. */
#include "pl-time-order.h"
#include "pl-reorder.h"

/* Timed records wait until the stream is this far past them, then go in
 * time order, as perf's ordered events. */
#define REORDER_WINDOW_NS (500ull * 1000 * 1000)
#define REORDER_MAX_HELD 200000u

struct _PlTimeOrder {
	PlReorder *reorder;
	guint64 max_time;
	struct pl_msg *popped; /* ~75 KiB: not on the stack */
	PlTimeOrderPackedFunc packed_out;
};

PlTimeOrder *pl_time_order_new(void)
{
	PlTimeOrder *o = g_new0(PlTimeOrder, 1);
	o->reorder = pl_reorder_new();
	o->popped = g_new0(struct pl_msg, 1);
	return o;
}

void pl_time_order_free(PlTimeOrder *o)
{
	if (!o)
		return;
	pl_reorder_free(o->reorder);
	g_free(o->popped);
	g_free(o);
}

void pl_time_order_set_packed_out(PlTimeOrder *o, PlTimeOrderPackedFunc fn)
{
	o->packed_out = fn;
}

gsize pl_time_order_len(const PlTimeOrder *o)
{
	return pl_reorder_len(o->reorder);
}

static guint64 msg_time(const struct pl_msg *m)
{
	switch (m->type) {
	case PL_MSG_SAMPLE:
		return m->u.sample.time;
	case PL_MSG_MMAP:
		return m->u.mmap.snapshot ? 0 : m->u.mmap.time;
	case PL_MSG_COMM:
		return m->u.comm.snapshot ? 0 : m->u.comm.time;
	case PL_MSG_TASK:
		return m->u.task.time;
	case PL_MSG_SWITCH:
		return m->u.sw.time;
	default:
		return 0; /* descriptions, totals, files: order does not matter */
	}
}

/* Gives out held messages with time < limit (all with G_MAXUINT64). */
static gboolean release(PlTimeOrder *o, guint64 limit, PlTimeOrderFunc out, gpointer data)
{
	guint64 t;
	while (pl_reorder_peek_time(o->reorder, &t) && t < limit) {
		if (o->packed_out) {
			const guint8 *p;
			gsize len;
			pl_reorder_pop_packed(o->reorder, &p, &len);
			if (!o->packed_out(p, len, data))
				return FALSE;
			continue;
		}
		pl_reorder_pop(o->reorder, o->popped);
		if (!out(o->popped, data))
			return FALSE;
	}
	return TRUE;
}

gboolean pl_time_order_push(PlTimeOrder *o, const struct pl_msg *m, PlTimeOrderFunc out,
			    gpointer data)
{
	guint64 t = msg_time(m);
	if (t == 0)
		return out(m, data);
	pl_reorder_push(o->reorder, t, m);
	if (t > o->max_time)
		o->max_time = t;
	if (o->max_time > REORDER_WINDOW_NS &&
	    !release(o, o->max_time - REORDER_WINDOW_NS, out, data))
		return FALSE;
	/* a stream whose clock stands still must not hold everything */
	guint64 first;
	while (pl_reorder_len(o->reorder) > REORDER_MAX_HELD &&
	       pl_reorder_peek_time(o->reorder, &first))
		if (!release(o, first + 1, out, data))
			return FALSE;
	return TRUE;
}

gboolean pl_time_order_flush(PlTimeOrder *o, PlTimeOrderFunc out, gpointer data)
{
	return release(o, G_MAXUINT64, out, data);
}
