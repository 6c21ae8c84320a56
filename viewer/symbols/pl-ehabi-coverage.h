/* pl-ehabi-coverage.h — the coverage report's ARM32 sentence
 * (pl-ehabi-coverage.c): code that neither CFI nor .ARM.exidx describes.
 */
#ifndef PL_EHABI_COVERAGE_H
#define PL_EHABI_COVERAGE_H

#include "pl-symbols-types.h"

/* On an ARM32 module, appends to row->problem the code ranges that
 * neither CFI nor .ARM.exidx describes (or that the module has no unwind
 * table at all).  elf must be located and its symbolization Dwfl open
 * (elf->mod) for the ranges to be named. */
void pl_ehabi_coverage(PlSymbols *self, PlElf *elf, PlModuleReport *row);

#endif
