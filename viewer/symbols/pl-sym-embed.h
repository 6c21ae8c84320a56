/* pl-sym-embed.h — a session's symbolization, resolved once and carried
 * inside the capture (a self-contained session: `perflens export
 * --format plens-symbolized`, the app's Export → Self-contained session).
 *
 * A PlSymEmbed is a table of answers: for every address the model asked
 * about, (pid, pc, is_return) → its frames (function, module, file:line,
 * inline frames, module-relative address); for every DWARF stack the
 * model unwound, a 64-bit hash of (pid, tid, registers, stack copy) → the
 * pcs and whether the walk ran off the copy; the symbol coverage rows of
 * the modules; whole source files and objdump listings of the hottest
 * functions; and where and when it was made (host, time, PerfLens
 * version, the original file).
 *
 * The exporter fills one while the session loads with every file present
 * (PlSymbols records each answer it gives, pl_symbols_set_record) and
 * serializes it; a viewer opening the export parses it and PlSymbols
 * answers from it alone (pl_symbols_set_embedded), never from local files.
 * The same model asking the same questions gets the same answers, so the
 * views match the original's.
 *
 * The serialized form ("the table") travels as FILE_CHUNKs of kind
 * PL_CHUNK_SYMBOLIZED (common/msg.h: pid 0, addr 0, offset and total over
 * the table, name "perflens-symbols"), sent right after HELLO.  Integers
 * are LEB128 varints (zig-zag where signed), strings varint length +
 * bytes, as in common/msg.h:
 *
 *   "PLSYMTAB" version(1) flags(0)
 *   origin:  host, unix time (s), PerfLens version, source file name
 *   strings: count, then each string (≤ 64 KiB)        — referenced as index+1, 0: none
 *   frames:  count, then pid pc flags(1: return address) n(1..32), n × frame:
 *            function module file line rel_addr inlined(u8)
 *   unwinds: count, then key (u64 little-endian) truncated(u8) n(≤ 1024) n × pc
 *            (zig-zag delta from the previous, the first from 0)
 *   modules: count, then module local_path debug_path problem fetched_from
 *            (string indices) flags (1 symbols, 2 lines, 4 CFI, 8 EHABI,
 *            16 build-id match) samples
 *   sources: count, then path, text (bytes, ≤ 1 MiB)
 *   disasm:  count, then module symbol (string indices) n(≤ 65536),
 *            n × (text index, is_insn u8, addr)
 *
 * A reader refuses another magic or a higher version (what to do: a newer
 * PerfLens made it); it ignores bytes after the last section it knows
 * (sections a newer writer of the same version appends).  Every count is
 * checked against its cap and against the bytes left before anything is
 * allocated.  No GTK; not thread-safe (one thread at a time).
 */
#ifndef PL_SYM_EMBED_H
#define PL_SYM_EMBED_H

#include <glib.h>

#include "pl-symbols.h"

G_BEGIN_DECLS

#define PL_SYM_EMBED_VERSION 1u
#define PL_SYM_EMBED_NAME "perflens-symbols"   /* FILE_CHUNK name */
#define PL_SYM_EMBED_MAX (512u << 20)          /* the whole table */
#define PL_SYM_EMBED_MAX_SOURCE (1u << 20)     /* one source file */
#define PL_SYM_EMBED_MAX_SOURCES_TOTAL (16u << 20)

typedef struct _PlSymEmbed PlSymEmbed;

typedef struct {
	const char *host;    /* where it was symbolized */
	gint64 time;         /* when (unix seconds) */
	const char *version; /* the PerfLens that did it */
	const char *source;  /* basename of the file it was made from */
} PlSymEmbedOrigin;

typedef struct {
	const char *text; /* objdump's line */
	gboolean is_insn;
	guint64 addr;     /* when is_insn */
} PlSymEmbedLine;

typedef struct {
	const char *module, *local_path, *debug_path, *problem, *fetched_from;
	gboolean has_symbols, has_lines, has_cfi, has_ehabi, build_id_match;
	guint64 samples;
} PlSymEmbedModule;

PlSymEmbed *pl_sym_embed_new(void);
void pl_sym_embed_free(PlSymEmbed *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlSymEmbed, pl_sym_embed_free)

void pl_sym_embed_set_origin(PlSymEmbed *e, const char *host, gint64 time, const char *version,
			     const char *source);
/* Owned by e. */
const PlSymEmbedOrigin *pl_sym_embed_get_origin(PlSymEmbed *e);

/* An address's frames (innermost first, n ≥ 1): a later put for the same
 * key replaces the earlier (a perf map arrived and named it). */
void pl_sym_embed_put_frames(PlSymEmbed *e, guint32 pid, guint64 pc, gboolean is_return,
			     const PlFrameInfo *fr, guint n);
/* Writes up to max frames (strings owned by e); 0 when the table has none
 * for this address. */
guint pl_sym_embed_get_frames(PlSymEmbed *e, guint32 pid, guint64 pc, gboolean is_return,
			      PlFrameInfo *out, guint max);

/* The key of one unwind: a hash of everything the walk reads. */
guint64 pl_sym_embed_unwind_key(guint32 pid, guint32 tid, guint64 regs_mask,
				const guint64 *regs, guint nregs, const guint8 *stack,
				gsize stack_size);
void pl_sym_embed_put_unwind(PlSymEmbed *e, guint64 key, const guint64 *pcs, guint n,
			     gboolean truncated);
/* The pcs (up to max) and *truncated; -1 when the table has none. */
gint pl_sym_embed_get_unwind(PlSymEmbed *e, guint64 key, guint64 *pcs, guint max,
			     gboolean *truncated);

/* Coverage rows (copied). */
void pl_sym_embed_put_module(PlSymEmbed *e, const PlSymEmbedModule *m);
guint pl_sym_embed_n_modules(PlSymEmbed *e);
const PlSymEmbedModule *pl_sym_embed_get_module(PlSymEmbed *e, guint i);

/* A source file's text by the path the line information gives.  FALSE
 * (nothing kept) past PL_SYM_EMBED_MAX_SOURCE or the total bound. */
gboolean pl_sym_embed_put_source(PlSymEmbed *e, const char *path, const char *text, gsize len);
const char *pl_sym_embed_get_source(PlSymEmbed *e, const char *path, gsize *len);
guint pl_sym_embed_n_sources(PlSymEmbed *e);

/* objdump's listing of the real function symbol in module (basename). */
void pl_sym_embed_put_disasm(PlSymEmbed *e, const char *module, const char *symbol,
			     const PlSymEmbedLine *lines, guint n);
const PlSymEmbedLine *pl_sym_embed_get_disasm(PlSymEmbed *e, const char *module,
					      const char *symbol, guint *n);
guint pl_sym_embed_n_disasm(PlSymEmbed *e);

guint pl_sym_embed_n_frames(PlSymEmbed *e);
guint pl_sym_embed_n_unwinds(PlSymEmbed *e);

#define PL_SYM_EMBED_ERROR (pl_sym_embed_error_quark())
GQuark pl_sym_embed_error_quark(void);

/* The table's bytes (the format above). */
GBytes *pl_sym_embed_serialize(PlSymEmbed *e);
/* Parses a whole table; NULL with *error (PL_SYM_EMBED_ERROR: what
 * is wrong and what to do) when it is malformed, truncated, over a cap,
 * or of a newer version. */
PlSymEmbed *pl_sym_embed_parse(const guint8 *data, gsize len, GError **error);

G_END_DECLS

#endif
