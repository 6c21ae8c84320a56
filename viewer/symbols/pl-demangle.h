/* pl-demangle.h — C++ (Itanium ABI) and Rust (legacy) demangling
 * (pl-demangle.c).
 */
#ifndef PL_DEMANGLE_H
#define PL_DEMANGLE_H

#include "pl-symbols.h"

/* Returns an interned demangled name, or name itself (interned). */
const char *pl_sym_demangle(PlSymbols *self, const char *name);

#endif
