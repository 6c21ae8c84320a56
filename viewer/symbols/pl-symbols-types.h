/* pl-symbols-types.h — the types the files of viewer/symbols share.
 *
 * A PlSymbols owns:
 *   - PlElf: one per (board path, build-id) seen in mappings.  It holds the
 *     locator's answer (local file, separate debug file, problem), the ELF's
 *     PT_LOAD table (to turn a mapping into a load bias), a private Dwfl with
 *     the file reported at bias 0 for symbolization, and the frame cache
 *     keyed by the address relative to that bias.  Nothing in a PlElf
 *     depends on a process, so the cache serves every process and survives
 *     ASLR (perfparser's perfaddresscache habit).
 *   - PlProc: one per pid: its mappings (sorted, non-overlapping), and the
 *     Dwfl used to unwind its samples (attached once, reused, rebuilt only
 *     when a new mapping overlaps a reported module).
 *   - PlTextFile: text files the agent sends (/proc/kallsyms and
 *     /tmp/perf-PID.map) and their sorted (address, name) tables.
 *
 * Types only (and the one-line string pool of a PlSymbols): the functions
 * of each file are declared in the header named after it, and a file
 * includes the headers of the files it uses.  Dependencies point one way;
 * a file uses only files listed below it:
 *
 *   pl-unwind-ahead    a worker's own PlSymbols, unwinding ahead of the model
 *   pl-symbols         PlSymbols: mappings, chunks, symbolization, coverage
 *   pl-unwind          DWARF unwinding, with the ARM EHABI step
 *   pl-proc            a process's mappings and their load biases
 *   pl-vmlinux         the board's vmlinux: is it the kernel, where it sits
 *   pl-ehabi-coverage  ARM32 code that no unwind table describes
 *   pl-debuginfod      fetches sampled modules' files from debuginfod servers
 *   pl-elf-locator     finds the files, reports them to libdwfl
 *   pl-debug-inflate   separate debug files decompressed, cached
 *   pl-text-syms       kallsyms and perf-PID.map tables
 *   pl-text-syms-cache a kallsyms file's table kept on disk
 *   pl-build-id, pl-demangle, pl-sym-table, pl-inline-table,
 *   pl-ehabi (the decoder), pl-ldmap, pl-sym-embed (the embedded table of a
 *   self-contained session): use no other file
 *
 * The unwinder asks pl-unwind-ahead, which is above it, through the
 * ahead_take hook that pl_symbols_set_unwind_ahead installs (below).
 * test/integration/include-cycles.sh checks the includes and the objects.
 */
#ifndef PL_SYMBOLS_TYPES_H
#define PL_SYMBOLS_TYPES_H

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "pl-build-id.h"
#include "pl-symbols.h"

#define PL_SYM_MAX_INLINE 32u              /* inline depth kept per address */

/* ======================================================================
 * ELF files
 * ====================================================================== */

typedef struct _PlElf {
	char *board_path;
	char *name;       /* basename shown to the user */
	guint8 build_id[PL_SYM_MAX_BUILD_ID];
	gsize build_id_len; /* 0: the board did not say */
	gboolean is_vdso;
	gboolean is_kernel; /* the --vmlinux PlElf (pl-vmlinux.c) */

	gboolean located; /* the locator ran (its answer is below) */
	char *local_path; /* main file: code, phdrs, .eh_frame */
	char *debug_path; /* separate debug file, or NULL */
	char *problem;
	gboolean build_id_match;
	int image_fd; /* vDSO image from the board (memfd), else -1 */
	int debug_copy_fd; /* the decompressed copy of debug_path (cache file or
			    * memfd), opened once and shared by every Dwfl that
			    * opens it, else -1 */

	guint e_machine;
	guint e_type;
	GArray *loads; /* PlLoad (pl-elf-locator.c), PT_LOAD of local_path */
	gboolean has_symbols, has_lines, has_cfi, has_ehabi;
	gboolean debug_frame_known, debug_has_frame; /* debug_path's .debug_frame */

	Dwfl *dwfl; /* symbolization: this file alone at bias 0 */
	Dwfl_Module *mod;
	gboolean dwfl_failed;
	GHashTable *cache; /* guint64* rel -> PlCachedFrames* (pl-symbols.c) */
	GHashTable *inline_tables; /* CU DIE offset -> PlInlineTable*, built at first need */
	GArray *real_syms; /* PlRealSym (pl-symbols.c) sorted by addr: code symbols without
			    * the ARM mapping symbols, built when libdwfl first answers with one */
	struct _PlSymTable *sym_table; /* the symbols of mod, sorted (pl-sym-table.c),
					* built at the first lookup; NULL: libdwfl answers */
	gboolean sym_table_tried;
	guint64 samples;

	/* debuginfod (pl-debuginfod.c): files fetched into its cache, the
	 * locator's last candidates; each file is asked for once */
	char *fetched_main, *fetched_debug;
	char *fetched_from; /* server URL, or "the debuginfod cache" */
	gboolean exec_asked, debug_asked;
	gboolean files_changed; /* a fetch changed local_path/debug_path: the
				 * symbolization Dwfl and caches are rebuilt */
} PlElf;

/* ======================================================================
 * Text symbol tables (kallsyms, perf-PID.map)
 * ====================================================================== */

/* Accumulates a text file sent in chunks; parsed when first needed after
 * new bytes came (pl-text-syms.h). */
typedef struct {
	GByteArray *text;
	gboolean dirty;
	gboolean overflow; /* over PL_SYM_MAX_TEXT_FILE: the rest was dropped */
	struct _PlTextSyms *table;
	GThread *parser; /* a parse of text running on its own thread (kallsyms) */
	gboolean load_pending; /* text is still to be read from load_fd (on the
				* parser thread), load_size bytes */
	int load_fd;
	gsize load_size;
	const guint8 *map; /* the loaded file mapped (map_len bytes), in place of
			    * text's bytes (text is then empty) */
	gsize map_len;
} PlTextFile;

/* ======================================================================
 * Processes
 * ====================================================================== */

typedef struct {
	guint64 start, end, pgoff;
	PlElf *elf;        /* NULL for anon / special mappings */
	const char *name;  /* interned board name */
	gboolean reported; /* its file is a module of the process's Dwfl */
	guint64 bias;      /* valid when reported */
	gboolean load_known; /* load_bias below is computed (reset when mappings change) */
	gboolean load_ok;
	guint64 load_bias;
} PlMapping;

typedef struct _PlProc PlProc;

/* The sample being unwound: what the Dwfl callbacks read (pl-unwind.c). */
typedef struct _PlUnwindSample PlUnwindSample;

struct _PlProc {
	guint32 pid;
	GArray *maps; /* PlMapping sorted by start, non-overlapping */
	Dwfl *dwfl;   /* unwinding; NULL until the first unwind or after a rebuild */
	gboolean attached;
	gboolean need_rebuild;
	PlUnwindSample *cur;
	Elf *arch_elf; /* bare ELF header naming the machine, for dwfl_attach_state */
	guint8 arch_ehdr[64];
	PlTextFile perf_map;
	GByteArray *vdso_image;
	guint64 vdso_addr;
};

/* ======================================================================
 * The whole
 * ====================================================================== */

struct _PlUnwindAhead;

/* The unwind-ahead's answer for one sample (pl-unwind-ahead.c installs it
 * with pl_symbols_set_unwind_ahead): its length, pcs and *truncated filled
 * as pl_symbols_unwind would; -1 when there is none the caller may use. */
typedef gint (*PlUnwindAheadTake)(struct _PlUnwindAhead *ua, const PlTargetArch *arch,
				  guint32 pid, guint32 tid, guint64 regs_mask,
				  const guint64 *regs, guint nregs, const guint8 *stack,
				  gsize stack_size, guint64 *pcs, guint max, gboolean *truncated);

struct _PlSymbols {
	PlSymOptions opts; /* deep copy */
	PlTargetArch arch;
	GHashTable *elfs;  /* "path\x01hexid" -> PlElf* */
	GPtrArray *elf_order; /* PlElf*, in order of first sight (coverage rows) */
	GHashTable *procs; /* pid -> PlProc* */
	GStringChunk *strings;
	PlTextFile kallsyms;
	/* --vmlinux (pl-vmlinux.c): its PlElf once tried, usable or not */
	PlElf *vmlinux;
	gboolean vmlinux_ok;
	guint64 vmlinux_offset; /* kernel address - vmlinux address (KASLR) */
	GArray *vmlinux_text;   /* guint64 start, size pairs: its code segments */
	guint8 kernel_build_id[PL_SYM_MAX_BUILD_ID]; /* the board's kernel, if known */
	gsize kernel_build_id_len;
	gboolean kernel_seen; /* a [kernel.kallsyms] mapping or a kallsyms chunk */
	guint64 kernel_samples;
	guint64 unknown_samples;
	GPtrArray *binaries; /* PlBinary* (pl-elf-locator.c), lazily indexed opts.binaries */
	gboolean binaries_indexed;
	struct _PlLdMap *ldmap; /* opts.map_file, loaded at first need (pl-ldmap.h) */
	gboolean ldmap_tried;
	struct _PlUnwindAhead *ahead; /* borrowed: answers unwinds first (pl-unwind-ahead.h) */
	PlUnwindAheadTake ahead_take; /* how pl_symbols_unwind asks it */
	struct _PlDebuginfod *debuginfod; /* the client, at the first fetch (pl-debuginfod.c) */
	/* self-contained sessions (pl-sym-embed.h): answers come from embedded
	 * alone (owned), or every answer given is copied into record (borrowed) */
	struct _PlSymEmbed *embedded;
	struct _PlSymEmbed *record;
	char *embed_src_dir; /* embedded sources written out for readers of files (0700) */
};

/* s in the PlSymbols' string pool (NULL stays NULL): valid until it is
 * freed. */
static inline const char *pl_sym_intern(PlSymbols *self, const char *s)
{
	return s ? g_string_chunk_insert_const(self->strings, s) : NULL;
}

#endif
