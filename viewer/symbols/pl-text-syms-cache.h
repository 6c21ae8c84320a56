/* pl-text-syms-cache.h — a kallsyms file's parsed table kept on disk
 * (pl-text-syms-cache.c), so that a second report of a perf.data recorded
 * here does not parse the kernel's ~120k symbols again.
 *
 * The entry is keyed by the text file's identity (device, inode, size,
 * modification time in ns) and a sample of its bytes, and checked whole
 * before use (its size, every name inside the text, every module index,
 * addresses in order): a stale, foreign or damaged entry is ignored and
 * written again.  Knows nothing of PlSymbols.  Thread-safe (no state);
 * concurrent processes share the directory ($XDG_CACHE_HOME/perflens/
 * kallsyms; PERFLENS_NO_DEBUG_CACHE=1 turns it off, as for debug files).
 */
#ifndef PL_TEXT_SYMS_CACHE_H
#define PL_TEXT_SYMS_CACHE_H

#include <sys/stat.h>

#include "pl-text-syms.h"

G_BEGIN_DECLS

/* The table of text (len bytes, read from the file st describes), from
 * the cache, or NULL when there is no valid entry.  Module names are in
 * the table's own strings (t->local), as a background parse leaves them. */
PlTextSyms *pl_text_syms_cache_load(const struct stat *st, const char *text, gsize len);
/* Stores t (a background parse of that text: t->local holds its module
 * names); failures are silent (the next run parses again). */
void pl_text_syms_cache_store(const struct stat *st, const char *text, gsize len,
			      const PlTextSyms *t);

G_END_DECLS

#endif
