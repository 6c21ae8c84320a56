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

G_BEGIN_DECLS

typedef struct {
	char *text;
	gboolean is_insn;
	guint64 addr; /* when is_insn */
} PlDisasmLine;

/* Disassembles symbol (with source line markers, objdump -l) from the ELF
 * file path; when the symbol gives nothing (stripped, a map-file name),
 * the address range [start, end) instead (end 0: symbol only).  prefix may
 * be NULL.  GArray of PlDisasmLine (free with pl_disasm_lines_free); NULL
 * with error set when objdump cannot run or prints no instruction. */
GArray *pl_disasm_function(const char *prefix, const char *path, const char *symbol,
			   guint64 start, guint64 end, GError **error);
void pl_disasm_lines_free(GArray *lines);

G_END_DECLS

#endif
