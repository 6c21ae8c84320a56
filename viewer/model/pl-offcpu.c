/* pl-offcpu.c — switch reasons and runqueue latency from the threads'
 * on/off-CPU intervals; see pl-profile.h. */
#include <string.h>

#include "pl-percent.h"
#include "pl-profile.h"

static void add_thread(const PlThread *t, guint64 t0, guint64 t1, PlSwitchStats *out,
		       GArray *lat)
{
	const PlInterval *iv = (const PlInterval *)t->intervals->data;
	for (guint i = 0; i < t->intervals->len; i++) {
		if (iv[i].on_cpu || iv[i].start < t0 || (t1 && iv[i].start >= t1))
			continue;
		guint64 d = iv[i].end - iv[i].start;
		/* closed by a switch-in: an on-CPU interval follows */
		gboolean closed = i + 1 < t->intervals->len && iv[i + 1].on_cpu;
		if (iv[i].preempted) {
			out->preempted++;
			out->preempted_ns += d;
			if (closed)
				g_array_append_val(lat, d);
		} else {
			out->voluntary++;
			out->voluntary_ns += d;
		}
	}
}

void pl_profile_switch_stats(PlProfile *self, guint32 tid, guint64 t0, guint64 t1,
			     PlSwitchStats *out)
{
	memset(out, 0, sizeof(*out));
	g_autoptr(GArray) lat = g_array_new(FALSE, FALSE, sizeof(guint64));
	if (tid) {
		const PlThread *t = pl_profile_lookup_thread(self, tid);
		if (t)
			add_thread(t, t0, t1, out, lat);
	} else {
		GPtrArray *threads = pl_profile_get_threads(self);
		for (guint i = 0; i < threads->len; i++)
			add_thread(threads->pdata[i], t0, t1, out, lat);
	}
	g_array_sort(lat, pl_cmp_u64);
	out->rq_p50 = pl_percentile((const guint64 *)lat->data, lat->len, 50);
	out->rq_p90 = pl_percentile((const guint64 *)lat->data, lat->len, 90);
	out->rq_p99 = pl_percentile((const guint64 *)lat->data, lat->len, 99);
	out->rq_max = lat->len ? g_array_index(lat, guint64, lat->len - 1) : 0;
}
