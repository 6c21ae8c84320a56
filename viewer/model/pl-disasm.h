/* pl-disasm.h — disassembly of one function through the toolchain's
 * objdump (PREFIXobjdump, the host's objdump without a prefix), for
 * per-instruction counts.  objdump is run, not linked: cross toolchains
 * bring their own, and it knows every architecture they target.
 *
 * Lines are objdump's own text; those that are instructions have their
 * address parsed.  GLib only, no GTK; blocking (runs a process).
 */
#ifndef PL_DISASM_H
#define PL_DISASM_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct {
	char *text;
	gboolean is_insn;
	guint64 addr; /* when is_insn */
} PlDisasmLine;

/* Disassembles symbol (with source line markers, objdump -l) from the ELF
 * file path; of several functions of that name (static ones of different
 * files), the one holding start when end is given; when the symbol gives
 * nothing (stripped, a map-file name), the address range [start, end)
 * instead (end 0: symbol only).  prefix may be NULL.  GArray of
 * PlDisasmLine (free with pl_disasm_lines_free); NULL with error set when
 * objdump cannot run or prints no instruction. */
GArray *pl_disasm_function(const char *prefix, const char *path, const char *symbol,
			   guint64 start, guint64 end, GError **error);
void pl_disasm_lines_free(GArray *lines);

/* ─── annotated disassembly ──────────────────────────────────────────── */

/* One function's instructions with the samples taken at each. */
typedef struct {
	GArray *lines;         /* PlDisasmLine (objdump's text, source markers included) */
	PlCount *self;         /* per line: samples whose innermost real frame ran that
				* instruction (code inlined into it included); 0 off instructions */
	PlCount *total;        /* per line: samples with the function there on the stack
				* (at a call: the time spent in what it called) */
	guint hot;             /* line with the most self weight (else total); G_MAXUINT: none */
	PlCount all;           /* the aggregate's selection: the percentage base */
	PlCount unplaced;      /* sampled addresses that fall on no listed instruction
				* (a local file that differs from the board's) */
	char *module;          /* basename */
	char *path;            /* the file objdump read */
	char *symbol;          /* the real (outer) function disassembled */
	/* private */
	char *outer;           /* PlAddrRow.outer it was built for (may be NULL) */
} PlAnnotation;

/* Disassembles the real function holding most of func's weight in agg
 * (func itself, or the one it was inlined into) with the profile's
 * toolchain objdump, and places every sampled address of it
 * (pl_aggregate_addresses: module-relative addresses, which are the ELF
 * addresses objdump prints) on its instruction.  NULL with error (what to
 * do) when func has no samples, no local copy of its module exists, or
 * objdump fails.  Blocking (runs objdump). */
PlAnnotation *pl_disasm_annotate(PlProfile *profile, PlAggregate *agg, guint32 func,
				 GError **error);
/* Counts again from a new aggregate of the same profile without running
 * objdump (live sessions refresh every second).  FALSE, leaving a
 * untouched, when the weight moved to another module or real function:
 * call pl_disasm_annotate() again then. */
gboolean pl_annotation_recount(PlAnnotation *a, PlAggregate *agg, guint32 func);
void pl_annotation_free(PlAnnotation *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlAnnotation, pl_annotation_free)

G_END_DECLS

#endif
