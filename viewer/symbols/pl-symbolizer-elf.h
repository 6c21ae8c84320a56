/* pl-symbolizer-elf.h — the ELF source (pl-symbolizer-elf.c): an address
 * in a mapped file by the file itself and its debug file, and the two
 * steps the vmlinux source and the coverage share with it. */
#ifndef PL_SYMBOLIZER_ELF_H
#define PL_SYMBOLIZER_ELF_H

#include "pl-symbols-types.h"

/* elf located and its symbolization Dwfl open (the file reported at bias
 * 0); after a debuginfod fetch changed its files, what was read from the
 * old ones is dropped first.  FALSE when it cannot be: elf->problem says
 * why. */
gboolean pl_elf_ready(PlSymbols *self, PlElf *elf);

/* The frames of file address lookup of a ready elf (cached per address,
 * failed lookups too), each with rel_addr rel; at least one (max ≥ 1). */
guint pl_elf_resolve(PlSymbols *self, PlElf *elf, guint64 lookup, guint64 rel, PlFrameInfo *out,
		     guint max);

#endif
