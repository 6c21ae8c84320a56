/* pl-elf-locator.h — the local copy of a board's ELF file: its search
 * order, its load biases, and how libdwfl is handed it (pl-elf-locator.c).
 */
#ifndef PL_ELF_LOCATOR_H
#define PL_ELF_LOCATOR_H

#include "pl-symbols-types.h"

/* Reads the GNU build-id note of a file.  Returns its length (0: none, or
 * not an ELF file).  id must hold PL_SYM_MAX_BUILD_ID bytes. */
gsize pl_elf_file_build_id(const char *path, guint8 *id);
/* Runs the search order for elf once; fills located, local_path,
 * debug_path, problem, build_id_match, loads and the has_* flags. */
void pl_elf_locate(PlSymbols *self, PlElf *elf);
/* Forgets elf's answer and runs the search again (after a debuginfod
 * fetch added a candidate).  Dwfls holding its old files are the
 * caller's to drop. */
void pl_elf_relocate(PlSymbols *self, PlElf *elf);
/* Locates elf (attaching the vDSO image first).  TRUE when a file with
 * program headers was found. */
gboolean pl_elf_prepare(PlSymbols *self, PlElf *elf);
/* Opens the main file of a located elf (a dup of the vDSO image fd, or
 * the local path).  Returns -1 with errno set when there is none. */
int pl_elf_open_main(PlElf *elf);
/* Load bias of a mapping of elf: pc - bias is the ELF virtual address.
 * The PT_LOAD the mapping was made for is chosen from its file range and
 * size, not from pgoff alone (segments share file pages); prefer (may be
 * NULL) is the bias of the file's mapping below m, taken when a segment
 * gives it.  FALSE when elf has no PT_LOAD. */
gboolean pl_elf_bias(const PlElf *elf, const PlMapping *m, const guint64 *prefer,
		     guint64 *bias);
void pl_binary_free(gpointer p);

/* libdwfl callbacks shared by both Dwfl kinds: find_elf refuses (every
 * module is reported with its file), find_debuginfo serves the located
 * separate debug file of the PlElf set as the module's userdata. */
extern const Dwfl_Callbacks pl_sym_dwfl_callbacks;
/* The same for the per-process unwinding Dwfls, but a separate debug file
 * is offered only when it has a .debug_frame (the only part of it an
 * unwind can use). */
extern const Dwfl_Callbacks pl_unwind_dwfl_callbacks;
/* Reports elf into dwfl at bias and ties the module to elf. */
Dwfl_Module *pl_elf_report(Dwfl *dwfl, PlElf *elf, guint64 bias);

#endif
