/* pl-debug-inflate.h — separate debug files opened for libdw with their
 * DWARF decompressed (pl-debug-inflate.c), kept in a cache on disk.
 *
 * Knows nothing of PlSymbols: a path in, a file descriptor out.
 */
#ifndef PL_DEBUG_INFLATE_H
#define PL_DEBUG_INFLATE_H

#include <glib.h>

G_BEGIN_DECLS

/* Opens a separate debug file for libdw: when its .debug_* sections are
 * zlib-compressed, a copy (*is_copy set) with the ones symbolization reads
 * decompressed on two threads and the others hidden — from the cache on
 * disk (made there at the first use), else in memory (memfd) — or else
 * the file itself.  Returns -1 with errno when it cannot be opened.
 * Thread-safe; concurrent processes share the cache. */
int pl_debug_open_inflated(const char *path, gboolean *is_copy);
/* The cache directory it uses now ($XDG_CACHE_HOME/perflens/debug). */
char *pl_debug_cache_dir(void);

G_END_DECLS

#endif
