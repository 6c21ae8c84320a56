/* pl-symbols-private.h — what the files of viewer/symbols share.
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
 *   - PlTextSyms: sorted (address, name) tables from text files the agent
 *     sends: /proc/kallsyms and /tmp/perf-PID.map.
 */
#ifndef PL_SYMBOLS_PRIVATE_H
#define PL_SYMBOLS_PRIVATE_H

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "pl-symbols.h"

#define PL_SYM_MAX_BUILD_ID 64u
#define PL_SYM_MAX_INLINE 32u              /* inline depth kept per address */
#define PL_SYM_MAX_VDSO (8u << 20)         /* a vDSO image is a few pages */
#define PL_SYM_MAX_TEXT_FILE (128u << 20)  /* kallsyms / perf map text */
#define PL_SYM_MAX_PERF_REGS 64u           /* bits of sample_regs_user */

/* ======================================================================
 * ELF files
 * ====================================================================== */

typedef struct {
	guint64 offset, vaddr, filesz, memsz, align;
	guint32 flags; /* PF_R | PF_W | PF_X */
} PlLoad;

typedef struct {
	guint64 addr, size;
	const char *name; /* libdwfl's string, valid while the PlElf's Dwfl lives */
	guint8 rank;      /* at equal addresses the higher wins: sized, global, function */
} PlRealSym;

typedef struct {
	guint n;
	PlFrameInfo frames[]; /* rel_addr holds the looked-up address */
} PlCachedFrames;

typedef struct _PlElf {
	char *board_path;
	char *name;       /* basename shown to the user */
	guint8 build_id[PL_SYM_MAX_BUILD_ID];
	gsize build_id_len; /* 0: the board did not say */
	gboolean is_vdso;

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
	GArray *loads; /* PlLoad, PT_LOAD of local_path */
	gboolean has_symbols, has_lines, has_cfi, has_ehabi;
	gboolean debug_frame_known, debug_has_frame; /* debug_path's .debug_frame */

	Dwfl *dwfl; /* symbolization: this file alone at bias 0 */
	Dwfl_Module *mod;
	gboolean dwfl_failed;
	GHashTable *cache; /* guint64* rel -> PlCachedFrames* */
	GHashTable *inline_tables; /* CU DIE offset -> PlInlineTable*, built at first need */
	GArray *real_syms; /* PlRealSym sorted by addr: code symbols without the ARM
			    * mapping symbols, built when libdwfl first answers with one */
	struct _PlSymTable *sym_table; /* the symbols of mod, sorted (pl-sym-table.c),
					* built at the first lookup; NULL: libdwfl answers */
	gboolean sym_table_tried;
	guint64 samples;
} PlElf;

/* ======================================================================
 * Symbol tables (pl-sym-table.c)
 * ====================================================================== */

/* A module's symbols sorted once: lookups give what dwfl_module_addrinfo
 * gives (name and offset), by binary search instead of its walk over the
 * whole table.  NULL when the table cannot reproduce libdwfl (PowerPC64
 * function descriptors): ask libdwfl then.
 * Names are libdwfl's: valid while mod's Dwfl lives; free the table
 * before dwfl_end. */
typedef struct _PlSymTable PlSymTable;
PlSymTable *pl_sym_table_new(Dwfl_Module *mod, guint e_machine);
void pl_sym_table_free(PlSymTable *t);
/* dwfl_module_addrinfo(mod, addr, off, …) */
const char *pl_sym_table_lookup(const PlSymTable *t, guint64 addr, guint64 *off);
/* Of the code symbols at exactly value that reach value + off (sizeless,
 * or larger than off), the one perf report names the address after:
 * where aliases share an address libdwfl prefers a global or weak symbol
 * found first (memcpy's local label __memcpy_fwd in musl, weak qsort_r
 * over __qsort_r), perf a sized, typed, non-weak, global one with fewer
 * leading underscores.  NULL when there is none. */
const char *pl_sym_table_perf_alias(const PlSymTable *t, guint64 value, guint64 off);

/* ======================================================================
 * Code scopes of a CU (pl-inline-table.c)
 * ====================================================================== */

/* A concrete subprogram or inlined subroutine of a CU.  die stays valid as
 * long as the Dwarf it came from. */
typedef struct {
	Dwarf_Die die;
	guint32 parent; /* index of the enclosing node, G_MAXUINT32 at the top */
	gboolean inlined; /* DW_TAG_inlined_subroutine, else DW_TAG_subprogram */
} PlScopeNode;

typedef struct _PlInlineTable PlInlineTable;

/* Walks the CU once (cost: one pass over its DIEs). */
PlInlineTable *pl_inline_table_new(Dwarf_Die *cu);
void pl_inline_table_free(gpointer t);
/* The innermost scope containing addr (a DWARF address of the CU), or NULL. */
const PlScopeNode *pl_inline_table_lookup(const PlInlineTable *t, guint64 addr);
/* The scope enclosing s, or NULL. */
const PlScopeNode *pl_inline_table_parent(const PlInlineTable *t, const PlScopeNode *s);

/* ======================================================================
 * Text symbol tables (kallsyms, perf-PID.map)
 * ====================================================================== */

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

typedef struct {
	GArray *syms; /* PlTextSym sorted by addr */
	const char *text; /* borrowed: the PlTextFile's bytes, valid until it changes
			   * (the table is rebuilt then) */
	GPtrArray *modules; /* interned: "[kernel]", "[ext4]", "perf-12.map" */
	guint64 lines_bad;
	gboolean all_zero; /* kallsyms read under kptr_restrict */
	GStringChunk *local; /* module names of a background parse, until joined */
} PlTextSyms;

/* Accumulates a text file sent in chunks; parsed when first needed after
 * new bytes came. */
typedef struct {
	GByteArray *text;
	gboolean dirty;
	gboolean overflow; /* over PL_SYM_MAX_TEXT_FILE: the rest was dropped */
	PlTextSyms *table;
	GThread *parser; /* a parse of text running on its own thread (kallsyms) */
	gboolean load_pending; /* text is still to be read from load_fd (on the
				* parser thread), load_size bytes */
	int load_fd;
	gsize load_size;
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

/* The sample being unwound: what the Dwfl callbacks read. */
typedef struct {
	guint64 regs[PL_SYM_MAX_PERF_REGS]; /* by perf register index */
	guint64 have; /* bit i: regs[i] is set */
	const guint8 *stack;
	gsize stack_size;
	guint64 sp;
	guint32 tid;
	gboolean outside_read; /* memory outside the copy was needed and missing */
	gsize stack_used; /* bytes of the copy from its start up to the last one read */
} PlUnwindSample;

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

struct _PlSymbols {
	PlSymOptions opts; /* deep copy */
	PlTargetArch arch;
	GHashTable *elfs;  /* "path\x01hexid" -> PlElf* */
	GPtrArray *elf_order; /* PlElf*, in order of first sight (coverage rows) */
	GHashTable *procs; /* pid -> PlProc* */
	GStringChunk *strings;
	PlTextFile kallsyms;
	gboolean kernel_seen; /* a [kernel.kallsyms] mapping or a kallsyms chunk */
	guint64 kernel_samples;
	guint64 unknown_samples;
	GPtrArray *binaries; /* PlBinary*, lazily indexed opts.binaries */
	gboolean binaries_indexed;
	struct _PlLdMap *ldmap; /* opts.map_file, loaded at first need (pl-ldmap.h) */
	gboolean ldmap_tried;
	struct _PlUnwindAhead *ahead; /* borrowed: answers unwinds first (pl-unwind-ahead.h) */
};

const char *pl_sym_intern(PlSymbols *self, const char *s);

/* ======================================================================
 * ELF locator (pl-elf-locator.c)
 * ====================================================================== */

/* Reads the GNU build-id note of a file.  Returns its length (0: none, or
 * not an ELF file).  id must hold PL_SYM_MAX_BUILD_ID bytes. */
gsize pl_elf_file_build_id(const char *path, guint8 *id);
char *pl_build_id_hex(const guint8 *id, gsize len);
/* Runs the search order for elf once; fills located, local_path,
 * debug_path, problem, build_id_match, loads and the has_* flags. */
void pl_elf_locate(PlSymbols *self, PlElf *elf);
/* Opens the main file of a located elf (a dup of the vDSO image fd, or
 * the local path).  Returns -1 with errno set when there is none. */
int pl_elf_open_main(PlElf *elf);
/* Load bias of a mapping of elf: pc - bias is the ELF virtual address.
 * The PT_LOAD the mapping was made for is chosen from its file range and
 * size, not from pgoff alone (segments share file pages); prefer (may be
 * NULL) is the bias of the file's mapping below m, taken when a segment
 * gives it.  FALSE when elf has no PT_LOAD. */
gboolean pl_elf_bias(const PlElf *elf, const PlMapping *m, const guint64 *prefer,
		     guint64 *bias);
void pl_binary_free(gpointer p);

/* libdwfl callbacks shared by both Dwfl kinds: find_elf refuses (every
 * module is reported with its file), find_debuginfo serves the located
 * separate debug file of the PlElf set as the module's userdata. */
extern const Dwfl_Callbacks pl_sym_dwfl_callbacks;
/* The same for the per-process unwinding Dwfls, but a separate debug file
 * is offered only when it has a .debug_frame (the only part of it an
 * unwind can use). */
extern const Dwfl_Callbacks pl_unwind_dwfl_callbacks;
/* Opens a separate debug file for libdw (pl-debug-inflate.c): when its
 * .debug_* sections are zlib-compressed, a copy (*is_copy set) with the
 * ones symbolization reads decompressed on two threads and the others
 * hidden — from the cache on disk (made there at the first use), else
 * in memory (memfd) — or else the file itself.  Returns -1 with errno when
 * it cannot be opened.  Thread-safe; concurrent processes share the cache. */
int pl_debug_open_inflated(const char *path, gboolean *is_copy);
/* The cache directory it uses now ($XDG_CACHE_HOME/perflens/debug). */
char *pl_debug_cache_dir(void);
/* Reports elf into dwfl at bias and ties the module to elf. */
Dwfl_Module *pl_elf_report(Dwfl *dwfl, PlElf *elf, guint64 bias);

/* ======================================================================
 * Text tables (pl-text-syms.c)
 * ====================================================================== */

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

/* ======================================================================
 * Unwinding (pl-unwind.c, pl-ehabi.c)
 * ====================================================================== */

PlProc *pl_proc_get(PlSymbols *self, guint32 pid, gboolean create);
/* Locates elf (attaching the vDSO image first).  TRUE when a file with
 * program headers was found. */
gboolean pl_elf_prepare(PlSymbols *self, PlElf *elf);
void pl_proc_drop_dwfl(PlProc *proc);
/* Load bias of mapping m (an element of proc->maps with a located elf). */
gboolean pl_mapping_bias(const PlProc *proc, const PlMapping *m, guint64 *bias);

/* Reads one target word (word size and byte order of the board) of the
 * sample being unwound: the copied stack first, then the loaded segments
 * of the mapped files.  A miss marks the sample truncated. */
gboolean pl_unwind_read_word(PlProc *proc, guint64 addr, guint64 *word);

/* ARM EHABI hook (pl-ehabi.c).  Called when libdw stopped on an ARM
 * frame (no CFI covers pc: Debian's armhf libc has only .ARM.exidx).
 * regs[0..15] are the frame's r0..r15 (pc in r15), valid bit i in *valid;
 * is_return_address: r15 is a return address (every frame but the
 * sampled one).  PL_EHABI_STEP_OK: regs hold the caller's registers and
 * the unwinder restarts libdw from them; PL_EHABI_STEP_END: the tables
 * mark this frame the outermost (_start, a thread's start); FAIL: the walk
 * stops here, truncated. */
typedef enum {
	PL_EHABI_STEP_FAIL,
	PL_EHABI_STEP_OK,
	PL_EHABI_STEP_END,
} PlEhabiStep;
PlEhabiStep pl_ehabi_step(PlSymbols *self, PlProc *proc, guint64 regs[16], guint32 *valid,
			  gboolean is_return_address);

/* Coverage (pl-ehabi.c): on an ARM32 module, appends to row->problem the
 * code ranges that neither CFI nor .ARM.exidx describes (or that the module
 * has no unwind table at all).  elf must be located and its symbolization
 * Dwfl open (elf->mod) for the ranges to be named. */
void pl_ehabi_coverage(PlSymbols *self, PlElf *elf, PlModuleReport *row);

/* pl_symbols_unwind without the ahead, also telling how much of the
 * stack copy the walk read (*stack_used: the answer depends on the
 * registers, stack_size and those bytes only). */
guint pl_symbols_unwind_used(PlSymbols *self, guint32 pid, guint32 tid, guint64 regs_mask,
			     const guint64 *regs, guint nregs, const guint8 *stack,
			     gsize stack_size, guint64 *pcs, guint max, gboolean *truncated,
			     gsize *stack_used);

/* The worker's answer for this very sample (pl-unwind-ahead.c): its
 * length, pcs and *truncated filled as pl_symbols_unwind would; -1 when
 * there is none the caller may use. */
gint pl_unwind_ahead_take(struct _PlUnwindAhead *ua, const PlTargetArch *arch, guint32 pid,
			  guint32 tid, guint64 regs_mask, const guint64 *regs, guint nregs,
			  const guint8 *stack, gsize stack_size, guint64 *pcs, guint max,
			  gboolean *truncated);

/* ======================================================================
 * Demangling (pl-demangle.c)
 * ====================================================================== */

/* Returns an interned demangled name, or name itself (interned). */
const char *pl_sym_demangle(PlSymbols *self, const char *name);

#endif
