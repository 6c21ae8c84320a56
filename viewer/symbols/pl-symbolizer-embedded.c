/* pl-symbolizer-embedded.c — the source of a self-contained session: the
 * table it carries (pl-sym-embed.h), and nothing else (see
 * pl-symbolizer.c for its place). */
#include "pl-sym-embed.h"
#include "pl-symbolizer.h"

static guint resolve(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max)
{
	if (!self->embedded)
		return 0;
	/* its table or nothing, never a file here: what it does not hold
	 * stays unknown rather than named from another build */
	guint n = pl_sym_embed_get_frames(self->embedded, q->pid, q->pc, q->is_return_address,
					  out, max);
	if (n == 0) {
		out[0] = (PlFrameInfo){ .module = pl_sym_intern(self, "[unknown]"),
					.rel_addr = q->pc };
		n = 1;
	}
	return n;
}

const PlSymbolizer pl_symbolizer_embedded = { "embedded", resolve };
