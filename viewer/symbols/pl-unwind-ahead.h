/* pl-unwind-ahead.h — DWARF unwinding on a second core, ahead of the model.
 *
 * The model unwinds a sample's stack copy when it ingests the sample, which
 * is after its reorder window: everything a loader sees is fed here first,
 * in stream order, and a worker thread with its own PlSymbols (same
 * options, same mappings in the same order) unwinds each DWARF sample
 * while the loader thread decodes and symbolizes.  A PlSymbols given an
 * ahead (pl_symbols_set_unwind_ahead) takes the worker's answer for a
 * sample when it is for exactly that sample — same pid, tid, registers and
 * stack bytes, compared in full — and for the same architecture, and
 * unwinds itself otherwise.  The answer is the one pl_symbols_unwind gives
 * (the worker runs it), so nothing in the analysis changes.
 *
 * Memory: stack copies waiting for the model are capped
 * (PL_AHEAD_MAX_BYTES); past that, samples are left to the model's own
 * unwinding.
 *
 * Threading: feed, take and free from one thread (the loader's); the
 * worker is internal.  No GTK.
 *
 * Used by the loader of the command line and the app (viewer/io/pl-loader.c)
 * for perf.data; PERFLENS_NO_UNWIND_AHEAD=1 turns it off there (the model then
 * unwinds everything itself), PERFLENS_DEBUG_AHEAD=1 prints how many
 * samples the worker answered and the loader thread's CPU time.
 */
#ifndef PL_UNWIND_AHEAD_H
#define PL_UNWIND_AHEAD_H

#include "msg.h"
#include "pl-symbols.h"

G_BEGIN_DECLS

#define PL_AHEAD_MAX_BYTES (64u << 20)

typedef struct _PlUnwindAhead PlUnwindAhead;

PlUnwindAhead *pl_unwind_ahead_new(const PlSymOptions *opts);
/* Stops the worker.  Detach it from any PlSymbols first. */
void pl_unwind_ahead_free(PlUnwindAhead *ua);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlUnwindAhead, pl_unwind_ahead_free)

/* Every message of the stream, in order, before the model ingests it.
 * Returns TRUE when m is a DWARF sample that was queued. */
gboolean pl_unwind_ahead_feed(PlUnwindAhead *ua, const struct pl_msg *m);

/* pl_symbols_unwind consults ua first (NULL: detach). */
void pl_symbols_set_unwind_ahead(PlSymbols *self, PlUnwindAhead *ua);

/* Statistics: samples answered by the worker / left to the caller. */
void pl_unwind_ahead_counts(PlUnwindAhead *ua, guint64 *used, guint64 *missed);

G_END_DECLS

#endif
