/* lbr.c — an LBR call stack merged into a sample's call chain; see lbr.h. */
#include "lbr.h"

static uint64_t ld64(const uint8_t *p, int be)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[be ? 7 - i : i] << (8 * i);
	return v;
}

long pl_lbr_parse(const uint8_t *p, size_t avail, int be, int hw_index, uint32_t *nr,
		  const uint8_t **entries)
{
	size_t head = hw_index ? 16 : 8;
	*nr = 0;
	*entries = NULL;
	if (avail < head)
		return -1;
	uint64_t n = ld64(p, be);
	/* n is checked against the cap and the bytes left before any
	 * multiplication: a huge n cannot wrap the size */
	if (n > PL_LBR_MAX_ENTRIES || n > (avail - head) / PL_LBR_ENTRY_SIZE)
		return -1;
	*nr = (uint32_t)n;
	*entries = p + head;
	return (long)(head + n * PL_LBR_ENTRY_SIZE);
}

uint32_t pl_lbr_merge(uint64_t *chain, uint32_t nr_chain, uint32_t cap, const uint8_t *entries,
		      uint32_t nr_br, int be, uint64_t ip, int ip_user, uint32_t depth)
{
	if (nr_chain > cap)
		nr_chain = cap;
	uint32_t u = 0;
	while (u < nr_chain && chain[u] != PL_PERF_CONTEXT_USER)
		u++;
	/* the user frames of the fp walk: [u + 1, ufp_end) */
	uint32_t ufp_end = u + 1;
	while (ufp_end < nr_chain && chain[ufp_end] < PL_PERF_CONTEXT_MAX)
		ufp_end++;
	if (!nr_br)
		return nr_chain; /* no call stack: the fp chain is all there is */
	if (u >= cap)
		return cap;
	uint32_t w = u;
	chain[w++] = PL_PERF_CONTEXT_USER;
	/* the leaf */
	uint64_t leaf = 0;
	int have_leaf = 1;
	if (u + 1 < ufp_end)
		leaf = chain[u + 1];
	else if (ip_user)
		leaf = ip;
	else if (nr_br)
		leaf = ld64(entries + 8, be); /* from[0]'s "to": the callee's entry */
	else
		have_leaf = 0;
	if (have_leaf && w < cap)
		chain[w++] = leaf;
	/* the call sites, innermost first; w never passes the fp entries
	 * still to be read (w <= u + 2 + i) */
	for (uint32_t i = 0; i < nr_br && w < cap; i++) {
		uint64_t from = ld64(entries + (size_t)i * PL_LBR_ENTRY_SIZE, be);
		if (from && from < PL_PERF_CONTEXT_MAX)
			chain[w++] = from;
	}
	/* what the LBR could not hold: the fp walk's frames beyond its depth
	 * (fp frame k + 1, k >= 0, is the return address of from[k]'s call) */
	if (!depth || nr_br >= depth)
		for (uint64_t j = (uint64_t)u + 2 + nr_br; j < ufp_end && w < cap; j++)
			chain[w++] = chain[j];
	return w;
}
