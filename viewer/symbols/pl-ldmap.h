/* pl-ldmap.h — GNU ld map files (-Wl,-Map=FILE) as a symbol table.
 *
 * Firmware and stripped programs often ship without symbols, but the build
 * keeps the linker's map.  From it we take, within the "Linker script and
 * memory map" part:
 *   - symbol lines "0xADDR  NAME" (global symbols, by address),
 *   - input sections ".text.NAME 0xADDR 0xSIZE file.o" (-ffunction-sections:
 *     static functions have their own section, named after them),
 *   - OUTPUT(file format): the program the map describes.
 * A symbol reaches to the next symbol or the end of its input section,
 * whichever comes first; an address outside every input section is not
 * named (no guessing across object files).
 *
 * The parser reads untrusted text: every line is bounded (longer lines are
 * skipped), numbers are range-checked, the table is capped
 * (PL_LDMAP_MAX_SYMBOLS), and nothing in the input can make it read out of
 * bounds.  Immutable after parsing: a PlLdMap may be read from any thread.
 */
#ifndef PL_LDMAP_H
#define PL_LDMAP_H

#include <glib.h>

G_BEGIN_DECLS

#define PL_LDMAP_MAX_FILE (256u << 20)
#define PL_LDMAP_MAX_SYMBOLS (4u << 20)
#define PL_LDMAP_MAX_LINE 4096u

typedef struct _PlLdMap PlLdMap;

/* NULL with error set when the text names no symbol at all (not a map
 * file, or an empty one). */
PlLdMap *pl_ldmap_parse(const char *text, gsize len, GError **error);
/* Reads and parses path (at most PL_LDMAP_MAX_FILE bytes). */
PlLdMap *pl_ldmap_load(const char *path, GError **error);
void pl_ldmap_free(PlLdMap *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlLdMap, pl_ldmap_free)

/* The OUTPUT(...) file name as written in the map, NULL when absent. */
const char *pl_ldmap_get_output(const PlLdMap *self);
guint pl_ldmap_get_n_symbols(const PlLdMap *self);
/* The symbol whose range holds addr (a link-time address: the ELF virtual
 * address), NULL when none; *start (may be NULL) gets its address. */
const char *pl_ldmap_lookup(const PlLdMap *self, guint64 addr, guint64 *start);

G_END_DECLS

#endif
