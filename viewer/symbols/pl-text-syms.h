/* pl-text-syms.h — symbol tables read from text the agent sends:
 * /proc/kallsyms and /tmp/perf-PID.map (pl-text-syms.c).
 *
 * A PlTextFile (pl-symbols-types.h) accumulates the text; its table is
 * parsed when first needed, kallsyms on a thread of its own.  A
 * PlSymbols is used only to intern names (NULL on the parser thread).
 */
#ifndef PL_TEXT_SYMS_H
#define PL_TEXT_SYMS_H

#include "pl-symbols-types.h"

#define PL_SYM_MAX_TEXT_FILE (128u << 20)  /* kallsyms / perf map text */

/* Names stay in the text they came from (kallsyms has ~120k symbols, of
 * which a profile names a few hundred): a symbol holds the offset and
 * length of its name, interned only when a lookup returns it. */
typedef struct {
	guint64 addr;
	guint64 size;      /* 0: up to the next symbol */
	guint32 name_off;  /* into PlTextSyms.text */
	guint16 name_len;
	guint16 module;    /* index into PlTextSyms.modules */
} PlTextSym;

typedef struct _PlTextSyms {
	GArray *syms; /* PlTextSym sorted by addr */
	const char *text; /* borrowed: the PlTextFile's bytes, valid until it changes
			   * (the table is rebuilt then) */
	GPtrArray *modules; /* interned: "[kernel]", "[ext4]", "perf-12.map" */
	guint64 lines_bad;
	gboolean all_zero; /* kallsyms read under kptr_restrict */
	GStringChunk *local; /* module names of a background parse, until joined */
} PlTextSyms;

PlTextSyms *pl_text_syms_parse_kallsyms(PlSymbols *self, const char *text, gsize len);
PlTextSyms *pl_text_syms_parse_perf_map(PlSymbols *self, const char *text, gsize len,
					const char *module);
void pl_text_syms_free(PlTextSyms *t);
const PlTextSym *pl_text_syms_lookup(const PlTextSyms *t, guint64 addr);
/* The interned name and module of a symbol of t. */
const char *pl_text_sym_name(PlSymbols *self, const PlTextSyms *t, const PlTextSym *s);
const char *pl_text_sym_module(const PlTextSyms *t, const PlTextSym *s);
void pl_text_file_append(PlTextFile *f, guint64 offset, const guint8 *data, gsize len);
void pl_text_file_clear(PlTextFile *f);
/* Starts parsing f's text as kallsyms on a thread of its own (it reads only
 * the text); pl_text_file_join waits for it and installs the table (self),
 * or drops it (self NULL: the text is about to change).  Every other use
 * of f joins first. */
void pl_text_file_parse_async(PlTextFile *f);
/* The same, the text first read from fd (size bytes; owned, closed). */
void pl_text_file_load_async(PlTextFile *f, int fd, gsize size);
void pl_text_file_join(PlTextFile *f, PlSymbols *self);
/* f's table, joined and parsed again when its text changed: self's
 * kallsyms, or the perf map of pid (its module "perf-PID.map").  NULL when
 * f has no text. */
const PlTextSyms *pl_text_file_table(PlSymbols *self, PlTextFile *f, guint32 pid);

#endif
