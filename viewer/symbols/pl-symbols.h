/* pl-symbols.h — symbolization and unwinding of one session's processes.
 *
 * Everything the viewer knows about code addresses goes through a
 * PlSymbols: ELF lookup (search order, build-id check), libdwfl
 * symbolization with inline frames and source lines, DWARF unwinding of
 * sampled user stacks (one Dwfl per process, attached once, reused), ARM
 * EHABI where no CFI covers a PC, kallsyms for kernel frames, perf-PID.map
 * files, GNU ld map files as a fallback.
 *
 * Threading: a PlSymbols is used from one thread at a time.  Strings in
 * PlFrameInfo are interned and owned by the PlSymbols (valid until it is
 * freed).  No GTK here: viewer core only (GLib + libdw).
 */
#ifndef PL_SYMBOLS_H
#define PL_SYMBOLS_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* A debuginfod fetch in progress (pl-debuginfod.h). */
typedef struct {
	const char *module;  /* basename of the module whose file is fetched */
	const char *what;    /* "debug info" or "executable" */
	const char *url;     /* the server answering, or until known the servers asked */
	gint64 done, total;  /* bytes so far; total 0: unknown */
	gboolean finished;   /* the last call for this file */
	const char *message; /* finished: NULL when fetched or not on any server, else
			      * a one-line reason (server unreachable, timed out, cancelled) */
} PlFetchProgress;
/* Called on the thread that symbolizes, often (every few ms while a
 * transfer runs).  Return FALSE to cancel: this fetch ends and no server
 * is asked again by this PlSymbols. */
typedef gboolean (*PlFetchProgressFunc)(const PlFetchProgress *p, gpointer data);

typedef struct {
	char *sysroot;          /* NULL: derived from toolchain_prefix-gcc -print-sysroot, else none */
	char *toolchain_prefix; /* e.g. "aarch64-linux-gnu-"; also gives objdump */
	GPtrArray *binaries;    /* char*: unstripped files, matched by build-id, else by name */
	GPtrArray *debug_dirs;  /* char*: .build-id trees and debug-link dirs */
	GPtrArray *source_dirs; /* char*: where to look for source files */
	GPtrArray *path_maps;   /* char*: "FROM=TO" prefixes for source paths */
	char *map_file;         /* GNU ld -Map output, fallback symbols */
	char *vmlinux;          /* the board's kernel unstripped: kernel frames with source
				 * lines and inline frames (pl-vmlinux.h); NULL: kallsyms */
	gboolean no_inline;     /* TRUE: do not expand inline frames */
	gboolean host_files;    /* TRUE: may read the board's paths on this host (same machine,
				 * e.g. perf.data recorded here); FALSE: only inside the dirs above */
	char *debuginfod_urls;  /* debuginfod servers, space-separated; NULL: $DEBUGINFOD_URLS,
				 * "": none.  Asked only for sampled modules (pl-debuginfod.h) */
	PlFetchProgressFunc fetch_progress; /* may be NULL; with fetch_progress_data, copied */
	gpointer fetch_progress_data;
	/* may be NULL: answers kept beyond this PlSymbols (PlSymCache below),
	 * with cache_data for its functions; borrowed, copied as pointers */
	const struct _PlSymCache *cache;
	gpointer cache_data;
} PlSymOptions;

/* The board: ELF machine (EM_*), byte order and word size from HELLO. */
typedef struct {
	guint e_machine;
	gboolean big_endian;
	guint word_size;
} PlTargetArch;

typedef struct _PlSymbols PlSymbols;

PlSymbols *pl_symbols_new(const PlSymOptions *opts, const PlTargetArch *arch);
void pl_symbols_free(PlSymbols *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlSymbols, pl_symbols_free)

/* The debuginfod progress callback (PlSymOptions.fetch_progress) of
 * self, read and replaced: a loader puts its own in front of the options'
 * for the time of a load (its cancel), then puts the old one back. */
void pl_symbols_get_fetch_progress(PlSymbols *self, PlFetchProgressFunc *fn, gpointer *data);
void pl_symbols_set_fetch_progress(PlSymbols *self, PlFetchProgressFunc fn, gpointer data);

/* A mapping of a file (or [vdso], [kernel.kallsyms], //anon …) into pid.
 * A new mapping overlapping older ones replaces them. */
void pl_symbols_add_mapping(PlSymbols *self, guint32 pid, guint64 start, guint64 len,
			    guint64 pgoff, const char *filename, const guint8 *build_id,
			    gsize build_id_len);
/* pid exec'd: forget its mappings.  pid exited: free its Dwfl. */
void pl_symbols_process_exec(PlSymbols *self, guint32 pid);
void pl_symbols_process_exit(PlSymbols *self, guint32 pid);

/* File images sent by the agent (PL_CHUNK_* of common/msg.h): the vDSO
 * image, /tmp/perf-PID.map text, /proc/kallsyms text.  Chunks of one file
 * arrive in order (offset increasing). */
void pl_symbols_add_chunk(PlSymbols *self, guint kind, guint32 pid, guint64 addr,
			  guint64 offset, const guint8 *data, gsize len);

/* The whole /proc/kallsyms text at once (this host's, read by the
 * caller): takes text (g_free'd by PlSymbols), replaces any kallsyms chunks,
 * and parses it on a second thread right away, so the table is ready, or
 * nearly, when the first kernel frame needs it. */
void pl_symbols_take_kallsyms(PlSymbols *self, char *text, gsize len);

/* The same from a kallsyms file on this host (e.g. the copy perf keeps in
 * ~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms), read as well as parsed
 * on the second thread: the caller does not wait for 5 MB to be read.
 * Only its start is read here: FALSE (nothing changed) when it cannot be
 * opened, is empty or over the cap, or its addresses are hidden
 * (kptr_restrict zeros): the caller falls back to /proc/kallsyms then.
 * A file that fails to read later gives an empty table. */
gboolean pl_symbols_load_kallsyms_file(PlSymbols *self, const char *path);

/* The board kernel's GNU build-id (perf.data's [kernel.kallsyms] entry; the
 * agent's /sys/kernel/notes chunk gives it through pl_symbols_add_chunk):
 * a --vmlinux with another refused.  Before the first kernel frame. */
void pl_symbols_set_kernel_build_id(PlSymbols *self, const guint8 *id, gsize len);

/* Unwinds one sampled user stack.  regs are in the order of the bits of
 * regs_mask (perf's sample_regs_user), stack is the copy starting at the
 * sampled SP.  Writes up to max PCs, innermost first (the first is the
 * sampled IP; later ones are return addresses).  Returns the number
 * written; *truncated is set when the walk ran off the end of the copied
 * stack rather than reaching the outermost frame. */
guint pl_symbols_unwind(PlSymbols *self, guint32 pid, guint32 tid, guint64 regs_mask,
			const guint64 *regs, guint nregs, const guint8 *stack, gsize stack_size,
			guint64 *pcs, guint max, gboolean *truncated);

typedef struct {
	const char *function; /* demangled; NULL when unknown */
	const char *module;   /* basename of the ELF or [kernel] / [vdso] / [unknown] */
	const char *file;     /* source file after path maps; NULL when no line info */
	guint line;
	guint64 rel_addr;     /* pc - load bias: the ELF virtual address nm and addr2line
			       * use (for kallsyms and perf maps: pc itself; for the
			       * kernel from a vmlinux: pc less the KASLR offset; for an
			       * ELF that was not found: file offset of pc) */
	gboolean inlined;     /* this frame was inlined into the next one */
	/* where the function is defined: DW_AT_decl_file / DW_AT_decl_line of
	 * its subprogram DIE (an inlined frame's: of its abstract origin),
	 * path-mapped as file is; NULL / 0 without DWARF for it */
	const char *decl_file;
	guint decl_line;
} PlFrameInfo;

/* A store of answers that outlives one PlSymbols (the fleet collector's,
 * shared by every session and board it symbolizes): asked before any
 * source for an address in a mapped file whose build-id the board gave,
 * and told each answer a source gave there that names a function (an
 * unnamed one may be named later, by other settings, and is not kept).
 * The key is the build-id and the address's offset in the file (pc -
 * mapping start + file offset): the same in every process, whatever
 * ASLR did.  Called on the thread that symbolizes. */
typedef struct _PlSymCache {
	/* The frames kept for the key into out (at most max; their strings
	 * the cache's, copied by the caller before its next call); 0: none. */
	guint (*lookup)(gpointer data, const guint8 *build_id, gsize build_id_len,
			guint64 offset, gboolean is_return_address, PlFrameInfo *out, guint max);
	void (*store)(gpointer data, const guint8 *build_id, gsize build_id_len, guint64 offset,
		      gboolean is_return_address, const PlFrameInfo *frames, guint n);
} PlSymCache;

/* Resolves one address into frames, innermost (deepest inline) first.
 * is_return_address: pc is a return address (look up pc-1).  Returns the
 * number of frames written (≥ 1 when max ≥ 1: an unknown address still
 * gives a frame with function NULL and the module if any).  Cached by
 * (module build-id or path, rel_addr).  The sources asked and their order:
 * pl-symbolizer.h. */
guint pl_symbols_resolve(PlSymbols *self, guint32 pid, guint64 pc, gboolean is_return_address,
			 PlFrameInfo *out, guint max);

/* The symbol of a mapped file that holds data address addr of pid (a
 * global variable), with addr's offset in it and the file's basename
 * (strings interned): looked up in the file whose code is mapped nearest
 * below addr, since the mappings of data are not sent (pl-data-syms.c).
 * FALSE when no symbol holds it. */
gboolean pl_symbols_data_symbol(PlSymbols *self, guint32 pid, guint64 addr, const char **name,
				guint64 *offset, const char **module);

/* One row per module seen in mappings. */
typedef struct {
	char *module;        /* path on the board */
	char *local_path;    /* file used here, or NULL when not found */
	char *debug_path;    /* separate debug file used with it, or NULL */
	char *problem;       /* NULL, or what is wrong and what to do */
	gboolean has_symbols;
	gboolean has_lines;
	gboolean has_cfi;    /* .eh_frame or .debug_frame (or EHABI on ARM) */
	gboolean has_ehabi;
	gboolean build_id_match; /* TRUE also when the board gave no build-id and names match */
	guint64 samples;     /* addresses resolved in it so far */
	char *fetched_from;  /* where debuginfod gave its files: the server's URL (the last
			      * fetch's), "its cache (fetched by an earlier run)", or NULL */
} PlModuleReport;
void pl_module_report_free(PlModuleReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlModuleReport, pl_module_report_free)
/* Returns PlModuleReport* (owned by the array). */
GPtrArray *pl_symbols_coverage(PlSymbols *self);

/* A source file named by PlFrameInfo.file (already path-mapped) as a file
 * readable here: the file itself if it exists (only with host_files or
 * when a path map produced it), else the first source_dirs entry holding
 * it by trailing path components.  Returns NULL when not found. */
char *pl_symbols_find_source(PlSymbols *self, const char *file);

/* ─── self-contained sessions (pl-sym-embed.h) ───────────────────────── */

struct _PlSymEmbed;
/* From now on every answer of pl_symbols_resolve and pl_symbols_unwind
 * (and the coverage rows when asked) is also put into record (borrowed;
 * NULL stops). */
void pl_symbols_set_record(PlSymbols *self, struct _PlSymEmbed *record);
/* Takes embed: from now on addresses, unwinds, coverage and source files
 * are answered from it alone (no file of this machine is read; what it
 * lacks stays unknown), and pl_symbols_find_source gives its sources
 * written into a private directory (0700, files 0600) removed with self. */
void pl_symbols_set_embedded(PlSymbols *self, struct _PlSymEmbed *embed);
/* The embedded table, or NULL (owned by self). */
struct _PlSymEmbed *pl_symbols_get_embedded(PlSymbols *self);

G_END_DECLS

#endif
