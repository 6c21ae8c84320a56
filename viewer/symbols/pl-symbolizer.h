/* pl-symbolizer.h — where the frames of an address come from: one resolve
 * call in front of a list of sources, each a PlSymbolizer in a file of its
 * own (pl-symbolizer-NAME.c), asked in an order kept in one place, the
 * table of pl-symbolizer.c, with the fallback when none answers.
 *
 * A source answers with the frames of the address (innermost first) or
 * passes (0) to the next one; the first answer is the answer.  A source
 * that claims an address it cannot name (an ELF without symbols) answers
 * module + offset itself, so no later source guesses over it.  A new
 * source — a symbol store, a board's .gnu_debugdata — is a new file that
 * defines `const PlSymbolizer pl_symbolizer_NAME` and one line in the
 * order table.
 *
 * Threading, ownership: as PlSymbols (pl-symbols.h); the frames' strings
 * are interned in it.
 */
#ifndef PL_SYMBOLIZER_H
#define PL_SYMBOLIZER_H

#include "pl-symbols-types.h"

/* One address, as the sources see it. */
typedef struct {
	guint32 pid;
	guint64 pc;                 /* as sampled: the frames' rel_addr is of this */
	gboolean is_return_address; /* pc is after a call */
	guint64 lookup_pc;          /* the address looked up: inside the call for a
				     * return address (pc - 1) */
	PlProc *proc;               /* pid's mappings, or NULL (none seen) */
	const PlMapping *map;       /* the mapping of lookup_pc, or NULL: a kernel
				     * address, or one no mapping covers */
} PlSymQuery;

typedef struct {
	const char *name;
	/* The frames of q in out (max ≥ 1; out[0] arrives as { .rel_addr =
	 * q->pc }): how many, or 0 to pass, out then left as it came. */
	guint (*resolve)(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max);
} PlSymbolizer;

/* The frames of pc in pid through the sources in order (max ≥ 1): at
 * least one, "[unknown]" (with the mapping's file when there is one) when
 * no source answers. */
guint pl_symbolizer_resolve(PlSymbols *self, guint32 pid, guint64 pc, gboolean is_return_address,
			    PlFrameInfo *out, guint max);

#endif
