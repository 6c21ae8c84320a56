/* pl-demangle.c — C++ (Itanium ABI) and Rust (legacy) demangling.
 *
 * elfutils keeps its demangler private (eu-addr2line calls libstdc++'s), and
 * libiberty is not a dependency we allow, so we call the same function
 * eu-addr2line uses: __cxa_demangle from libstdc++, declared here in C.
 * Linking: SYMBOLS_LIBS has -lstdc++.  It mallocs the result; we intern
 * it and free it.  Names that do not start with "_Z" are returned as they
 * are (C, kernel, perf maps), so C-only programs never reach libstdc++.
 */
#include <stdlib.h>
#include <string.h>

#include "pl-demangle.h"
#include "pl-symbols-types.h"

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

const char *pl_sym_demangle(PlSymbols *self, const char *name)
{
	if (!name)
		return NULL;
	if (name[0] != '_' || name[1] != 'Z')
		return pl_sym_intern(self, name);
	int status = -1;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	const char *r = pl_sym_intern(self, status == 0 && d ? d : name);
	free(d);
	return r;
}
