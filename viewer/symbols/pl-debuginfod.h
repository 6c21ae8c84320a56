/* pl-debuginfod.h — files of sampled modules fetched from debuginfod
 * servers through elfutils' client, libdebuginfod (pl-debuginfod.c).
 *
 * Only what is sampled is fetched (a process maps dozens of libraries;
 * fetching every one costs GiBs, hotspot #669): the locator never asks a
 * server, pl_symbols_resolve asks for the module of the address it
 * symbolizes and the unwinder for the module of a frame its walk reaches
 * or stops in.  Each module is asked for once per PlSymbols; a fetched
 * file becomes the locator's last candidate (pl-elf-locator.c) and the
 * PlElf's files_changed tells its users to report it again.
 *
 * Servers: PlSymOptions.debuginfod_urls, else $DEBUGINFOD_URLS.  The
 * cache is libdebuginfod's own, by build-id ($DEBUGINFOD_CACHE_PATH,
 * default ~/.cache/debuginfod_client), so a later run needs no server.
 * $DEBUGINFOD_TIMEOUT bounds connecting and each stall (default here 5 s a
 * try instead of the library's 90; it tries 3 times).  After a server error other than "not
 * found", or a cancel, nothing more is asked in this PlSymbols.
 *
 * libdebuginfod.so.1 is opened (dlopen) only when servers are configured,
 * so a run without them loads no libcurl.  Threading: as PlSymbols; the
 * URL list of PlSymOptions goes to the client through the environment
 * (its only way in elfutils 0.188), set under a lock around each query.
 */
#ifndef PL_DEBUGINFOD_H
#define PL_DEBUGINFOD_H

#include "pl-symbols-types.h"

typedef enum {
	PL_FETCH_SYMBOLS, /* to symbolize: a main file, symbols and lines */
	PL_FETCH_UNWIND,  /* to unwind: a main file with CFI */
} PlFetchWant;

/* Asks the servers for what elf lacks for want, once per file kind.
 * TRUE when elf's files changed: elf->files_changed is set (the
 * symbolization Dwfl is rebuilt) and so is need_rebuild of every process
 * mapping it (its unwinding Dwfl is).  Cheap when nothing is configured
 * or elf was asked for already. */
gboolean pl_debuginfod_fetch(PlSymbols *self, PlElf *elf, PlFetchWant want);

/* Frees the client of self (pl_symbols_free). */
void pl_debuginfod_free(PlSymbols *self);

#endif
