/* fuzz-mapfile.c — libFuzzer harness: the GNU ld map-file parser
 * (viewer/symbols/pl-ldmap.h) over arbitrary text.
 *
 * The input is handed to pl_ldmap_parse as an exact-size heap copy with no
 * NUL after it (ASan flags any read past the text).  On success the table
 * is queried the way the symbolizer does: at addresses taken from the text
 * itself (every 0x… number in it, and its neighbours) and at the extremes.
 * Invariants: a symbol found for addr starts at or below addr, and looking
 * up that start finds the same symbol; the count stays under the cap.
 * The seeds are real maps from gcc/ld (x86-64 and ARM, -ffunction-sections,
 * and part of a static link's map).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "pl-ldmap.h"

static void probe(const PlLdMap *m, guint64 addr)
{
	guint64 start = 0, start2 = 0;
	const char *name = pl_ldmap_lookup(m, addr, &start);
	if (!name)
		return;
	FZ_CHECK(start <= addr, "symbol %s for 0x%" G_GINT64_MODIFIER "x starts above it at 0x%"
		 G_GINT64_MODIFIER "x", name, addr, start);
	(void)strlen(name);
	const char *again = pl_ldmap_lookup(m, start, &start2);
	FZ_CHECK(again == name && start2 == start,
		 "0x%" G_GINT64_MODIFIER "x gives %s at 0x%" G_GINT64_MODIFIER
		 "x, but its start gives %s", addr, name, start, again ? again : "nothing");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	GError *error = NULL;
	PlLdMap *m = pl_ldmap_parse(text, size, &error);
	if (!m) {
		FZ_CHECK(error && error->message, "no map and no error");
		g_error_free(error);
		free(text);
		return 0;
	}
	FZ_CHECK(error == NULL, "a map and an error");
	/* the table must not borrow the text: free it before the queries */
	free(text);
	FZ_CHECK(pl_ldmap_get_n_symbols(m) <= PL_LDMAP_MAX_SYMBOLS, "%u symbols",
		 pl_ldmap_get_n_symbols(m));
	const char *out = pl_ldmap_get_output(m);
	if (out)
		(void)strlen(out);
	probe(m, 0);
	probe(m, G_MAXUINT64);
	/* probe points: the numbers written in the text */
	unsigned probes = 0;
	for (size_t i = 0; i + 2 < size && probes < 256; i++) {
		if (data[i] != '0' || (data[i + 1] | 0x20) != 'x')
			continue;
		guint64 v = 0;
		size_t j = i + 2;
		for (; j < size && j < i + 18 && g_ascii_isxdigit(data[j]); j++)
			v = v << 4 | (guint64)g_ascii_xdigit_value(data[j]);
		probe(m, v);
		probe(m, v + 1);
		probe(m, v - 1);
		probes++;
		i = j - 1;
	}
	pl_ldmap_free(m);
	return 0;
}
