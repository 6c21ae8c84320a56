/* pl-percent.h — the two numbers every report and view prints of counts:
 * a share in percent, and a percentile of sorted values.  Header only
 * (static inline): no object of its own. */
#ifndef PL_PERCENT_H
#define PL_PERCENT_H

#include <glib.h>

/* part of whole, in percent; 0 when whole is 0 */
static inline double pl_percent(guint64 part, guint64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* guint64s in ascending order (g_array_sort, qsort): what pl_percentile
 * wants of its values */
static inline gint pl_cmp_u64(gconstpointer a, gconstpointer b)
{
	guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
	return x < y ? -1 : x > y;
}

/* The nearest-rank p-th percentile (0..100) of sorted[0..n), as perf and
 * the textbooks define it: the smallest value with at least p% of the
 * values at or below it; 0 when n is 0. */
static inline guint64 pl_percentile(const guint64 *sorted, gsize n, guint p)
{
	if (!n)
		return 0;
	gsize rank = (n * p + 99) / 100;
	return sorted[MIN(MAX(rank, 1), n) - 1];
}

#endif
