/* pl-symbols.c — PlSymbols: mappings, file chunks, symbolization (the
 * sources and their order are pl-symbolizer.c's; a self-contained export
 * records every answer here), coverage.
 *
 * Unwinding uses per-process Dwfls (pl-unwind.c); a process's mappings and
 * their load biases are pl-proc.c's, finding the files pl-elf-locator.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <elfutils/libdw.h>

#include "pl-build-id.h"
#include "pl-debuginfod.h"
#include "pl-ehabi-coverage.h"
#include "pl-elf-locator.h"
#include "pl-ldmap.h"
#include "pl-proc.h"
#include "pl-sym-embed.h"
#include "pl-sym-table.h"
#include "pl-symbolizer-elf.h"
#include "pl-symbolizer.h"
#include "pl-symbols-types.h"
#include "pl-text-syms.h"
#include "pl-unwind.h"
#include "pl-vmlinux.h"

#define MSG_CHUNK_VDSO 1u
#define MSG_CHUNK_PERF_MAP 2u
#define MSG_CHUNK_KALLSYMS 3u
#define MSG_CHUNK_KERNEL_NOTES 6u

#define PL_SYM_MAX_VDSO (8u << 20)         /* a vDSO image is a few pages */

/* ======================================================================
 * Lifecycle
 * ====================================================================== */

static GPtrArray *strv_copy(const GPtrArray *a)
{
	GPtrArray *r = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; a && i < a->len; i++)
		g_ptr_array_add(r, g_strdup(g_ptr_array_index(a, i)));
	return r;
}

static char *sysroot_from_toolchain(const char *prefix)
{
	g_autofree char *gcc = g_strconcat(prefix, "gcc", NULL);
	char *argv[] = { gcc, (char *)"-print-sysroot", NULL };
	g_autofree char *out = NULL;
	gint status = 0;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
			  NULL, NULL, &out, NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL) || !out)
		return NULL;
	g_strstrip(out);
	return *out ? g_strdup(out) : NULL;
}

static void elf_free(gpointer p)
{
	PlElf *e = p;
	pl_sym_table_free(e->sym_table); /* names borrowed from the Dwfl */
	if (e->dwfl)
		dwfl_end(e->dwfl);
	if (e->image_fd >= 0)
		close(e->image_fd);
	if (e->debug_copy_fd >= 0)
		close(e->debug_copy_fd);
	if (e->loads)
		g_array_unref(e->loads);
	if (e->cache)
		g_hash_table_unref(e->cache);
	if (e->inline_tables)
		g_hash_table_unref(e->inline_tables);
	if (e->real_syms)
		g_array_unref(e->real_syms);
	g_free(e->board_path);
	g_free(e->name);
	g_free(e->local_path);
	g_free(e->debug_path);
	g_free(e->problem);
	g_free(e->fetched_main);
	g_free(e->fetched_debug);
	g_free(e->fetched_from);
	g_free(e);
}

static void proc_free(gpointer p)
{
	PlProc *proc = p;
	pl_proc_drop_dwfl(proc);
	g_array_unref(proc->maps);
	pl_text_file_clear(&proc->perf_map);
	if (proc->vdso_image)
		g_byte_array_unref(proc->vdso_image);
	g_free(proc);
}

PlSymbols *pl_symbols_new(const PlSymOptions *opts, const PlTargetArch *arch)
{
	PlSymbols *self = g_new0(PlSymbols, 1);
	PlSymOptions none = { 0 };
	if (!opts)
		opts = &none;
	self->opts = *opts;
	self->opts.sysroot = g_strdup(opts->sysroot);
	self->opts.toolchain_prefix = g_strdup(opts->toolchain_prefix);
	self->opts.map_file = g_strdup(opts->map_file);
	self->opts.vmlinux = g_strdup(opts->vmlinux);
	self->opts.debuginfod_urls = g_strdup(opts->debuginfod_urls);
	self->opts.binaries = strv_copy(opts->binaries);
	self->opts.debug_dirs = strv_copy(opts->debug_dirs);
	self->opts.source_dirs = strv_copy(opts->source_dirs);
	self->opts.path_maps = strv_copy(opts->path_maps);
	if (!self->opts.sysroot && self->opts.toolchain_prefix)
		self->opts.sysroot = sysroot_from_toolchain(self->opts.toolchain_prefix);
	if (arch)
		self->arch = *arch;
	if (!self->arch.word_size)
		self->arch.word_size = self->arch.e_machine == EM_ARM ||
						       self->arch.e_machine == EM_386
					       ? 4
					       : 8;
	self->elfs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->elf_order = g_ptr_array_new_with_free_func(elf_free);
	self->procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_free);
	self->strings = g_string_chunk_new(64 * 1024);
	self->binaries = g_ptr_array_new_with_free_func(pl_binary_free);
	elf_version(EV_CURRENT);
	return self;
}

/* Removes dir and what is in it (the embedded sources written out). */
static void remove_tree(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;
	while (d && (n = g_dir_read_name(d))) {
		g_autofree char *c = g_build_filename(dir, n, NULL);
		if (g_file_test(c, G_FILE_TEST_IS_DIR) && !g_file_test(c, G_FILE_TEST_IS_SYMLINK))
			remove_tree(c);
		else
			g_unlink(c);
	}
	if (d)
		g_dir_close(d);
	g_rmdir(dir);
}

void pl_symbols_free(PlSymbols *self)
{
	if (!self)
		return;
	g_hash_table_unref(self->procs); /* before the PlElfs their Dwfls point at */
	g_hash_table_unref(self->elfs);
	g_ptr_array_unref(self->elf_order);
	pl_text_file_clear(&self->kallsyms);
	g_clear_pointer(&self->vmlinux, elf_free);
	if (self->vmlinux_text)
		g_array_unref(self->vmlinux_text);
	g_ptr_array_unref(self->binaries);
	g_free(self->opts.vmlinux);
	g_free(self->opts.sysroot);
	g_free(self->opts.toolchain_prefix);
	g_free(self->opts.map_file);
	g_free(self->opts.debuginfod_urls);
	pl_debuginfod_free(self);
	g_clear_pointer(&self->ldmap, pl_ldmap_free);
	g_ptr_array_unref(self->opts.binaries);
	g_ptr_array_unref(self->opts.debug_dirs);
	g_ptr_array_unref(self->opts.source_dirs);
	g_ptr_array_unref(self->opts.path_maps);
	g_string_chunk_free(self->strings);
	g_clear_pointer(&self->embedded, pl_sym_embed_free);
	if (self->embed_src_dir)
		remove_tree(self->embed_src_dir);
	g_free(self->embed_src_dir);
	g_free(self);
}

void pl_symbols_get_fetch_progress(PlSymbols *self, PlFetchProgressFunc *fn, gpointer *data)
{
	*fn = self->opts.fetch_progress;
	*data = self->opts.fetch_progress_data;
}

void pl_symbols_set_fetch_progress(PlSymbols *self, PlFetchProgressFunc fn, gpointer data)
{
	self->opts.fetch_progress = fn;
	self->opts.fetch_progress_data = data;
}

/* ======================================================================
 * Processes and mappings
 * ====================================================================== */

static gboolean is_special(const char *name)
{
	return !name || !*name || name[0] == '[' || !strncmp(name, "//anon", 6) ||
	       !strncmp(name, "/dev/", 5) || !strncmp(name, "/memfd:", 7) ||
	       !strncmp(name, "anon_inode:", 11) || g_str_has_suffix(name, " (deleted)");
}

static PlElf *elf_get(PlSymbols *self, const char *path, const guint8 *id, gsize id_len)
{
	id_len = MIN(id_len, PL_SYM_MAX_BUILD_ID);
	g_autofree char *hex = pl_build_id_hex(id, id_len);
	g_autofree char *key = g_strconcat(path, "\x01", hex, NULL);
	PlElf *e = g_hash_table_lookup(self->elfs, key);
	if (e)
		return e;
	e = g_new0(PlElf, 1);
	e->board_path = g_strdup(path);
	e->is_vdso = !strcmp(path, "[vdso]");
	e->name = g_path_get_basename(path);
	if (id_len)
		memcpy(e->build_id, id, id_len);
	e->build_id_len = id_len;
	e->image_fd = -1;
	e->debug_copy_fd = -1;
	e->cache = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	g_hash_table_insert(self->elfs, g_steal_pointer(&key), e);
	g_ptr_array_add(self->elf_order, e);
	return e;
}

void pl_symbols_add_mapping(PlSymbols *self, guint32 pid, guint64 start, guint64 len,
			    guint64 pgoff, const char *filename, const guint8 *build_id,
			    gsize build_id_len)
{
	if (len == 0 || start + len < start)
		return;
	if (filename && (!strncmp(filename, "[kernel.kallsyms]", 17) ||
			 !strncmp(filename, "[guest.kernel", 13))) {
		self->kernel_seen = TRUE;
		return; /* kernel addresses go through kallsyms, not mappings */
	}
	PlProc *proc = pl_proc_get(self, pid, TRUE);
	PlMapping nm = { start, start + len, pgoff, NULL, pl_sym_intern(self, filename ? filename : ""), FALSE, 0,
			 FALSE, FALSE, 0 };
	if (filename && (!is_special(filename) || !strcmp(filename, "[vdso]")))
		nm.elf = elf_get(self, filename, build_id, build_id ? build_id_len : 0);

	/* cut older mappings that the new one covers */
	GArray *m = proc->maps;
	for (guint i = 0; i < m->len;) {
		PlMapping *o = &g_array_index(m, PlMapping, i);
		if (o->end <= nm.start || o->start >= nm.end) {
			i++;
			continue;
		}
		/* libdwfl cannot drop one module: a reported file that is
		 * unmapped or moved means a new Dwfl (an identical re-report of
		 * a mapping, snapshot then kernel event, does not) */
		if (o->reported && (o->elf != nm.elf || o->start != nm.start ||
				    o->end != nm.end || o->pgoff != nm.pgoff))
			proc->need_rebuild = TRUE;
		nm.reported = o->reported && !proc->need_rebuild;
		PlMapping left = *o, right = *o;
		gboolean keep_left = o->start < nm.start, keep_right = o->end > nm.end;
		left.end = nm.start;
		right.pgoff += nm.end - o->start;
		right.start = nm.end;
		g_array_remove_index(m, i);
		if (keep_right)
			g_array_insert_val(m, i, right);
		if (keep_left)
			g_array_insert_val(m, i, left);
		i += (guint)keep_left + (guint)keep_right;
	}
	guint at = 0;
	while (at < m->len && g_array_index(m, PlMapping, at).start < nm.start)
		at++;
	g_array_insert_val(m, at, nm);
	/* biases are solved over runs of mappings (pl_mapping_bias) */
	for (guint i = 0; i < m->len; i++)
		g_array_index(m, PlMapping, i).load_known = FALSE;
}

void pl_symbols_process_exec(PlSymbols *self, guint32 pid)
{
	PlProc *proc = pl_proc_get(self, pid, FALSE);
	if (!proc)
		return;
	g_array_set_size(proc->maps, 0);
	pl_proc_drop_dwfl(proc);
	pl_text_file_clear(&proc->perf_map);
}

void pl_symbols_process_exit(PlSymbols *self, guint32 pid)
{
	PlProc *proc = pl_proc_get(self, pid, FALSE);
	if (proc)
		pl_proc_drop_dwfl(proc);
}

/* ======================================================================
 * File chunks
 * ====================================================================== */

void pl_symbols_add_chunk(PlSymbols *self, guint kind, guint32 pid, guint64 addr,
			  guint64 offset, const guint8 *data, gsize len)
{
	if (!data && len)
		return;
	switch (kind) {
	case MSG_CHUNK_VDSO: {
		PlProc *proc = pl_proc_get(self, pid, TRUE);
		if (!proc->vdso_image)
			proc->vdso_image = g_byte_array_new();
		if (offset == 0)
			g_byte_array_set_size(proc->vdso_image, 0);
		if (offset != proc->vdso_image->len || len > PL_SYM_MAX_VDSO - offset)
			return;
		g_byte_array_append(proc->vdso_image, data, (guint)len);
		proc->vdso_addr = addr;
		break;
	}
	case MSG_CHUNK_PERF_MAP:
		pl_text_file_append(&pl_proc_get(self, pid, TRUE)->perf_map, offset, data, len);
		break;
	case MSG_CHUNK_KALLSYMS:
		self->kernel_seen = TRUE;
		pl_text_file_append(&self->kallsyms, offset, data, len);
		break;
	case MSG_CHUNK_KERNEL_NOTES: { /* one chunk: the file is a few hundred bytes */
		guint8 id[PL_SYM_MAX_BUILD_ID];
		gsize n = offset == 0 ? pl_vmlinux_notes_build_id(data, len, self->arch.big_endian,
								   id)
				      : 0;
		if (n)
			pl_symbols_set_kernel_build_id(self, id, n);
		break;
	}
	default:
		break; /* /proc/modules and newer kinds: not used here */
	}
}

void pl_symbols_take_kallsyms(PlSymbols *self, char *text, gsize len)
{
	PlTextFile *f = &self->kallsyms;
	pl_text_file_clear(f);
	self->kernel_seen = TRUE;
	if (!text)
		return;
	if (len > PL_SYM_MAX_TEXT_FILE) {
		len = PL_SYM_MAX_TEXT_FILE;
		f->overflow = TRUE;
	}
	f->text = g_byte_array_new_take((guint8 *)text, len);
	f->dirty = TRUE;
	pl_text_file_parse_async(f);
}

gboolean pl_symbols_load_kallsyms_file(PlSymbols *self, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char head[17];
	if (fd < 0)
		return FALSE;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (guint64)st.st_size > PL_SYM_MAX_TEXT_FILE ||
	    (st.st_size >= (off_t)sizeof(head) &&
	     (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	      !memcmp(head, "0000000000000000 ", sizeof(head))))) {
		close(fd);
		return FALSE;
	}
	self->kernel_seen = TRUE;
	pl_text_file_load_async(&self->kallsyms, fd, (gsize)st.st_size);
	return TRUE;
}

void pl_symbols_set_kernel_build_id(PlSymbols *self, const guint8 *id, gsize len)
{
	len = MIN(len, PL_SYM_MAX_BUILD_ID);
	if (len == self->kernel_build_id_len && !memcmp(id, self->kernel_build_id, len))
		return;
	memcpy(self->kernel_build_id, id, len);
	self->kernel_build_id_len = len;
	/* a vmlinux checked without it is checked again */
	g_clear_pointer(&self->vmlinux, elf_free);
	g_clear_pointer(&self->vmlinux_text, g_array_unref);
	self->vmlinux_ok = FALSE;
}

/* ======================================================================
 * Symbolization (the sources and their order: pl-symbolizer.c)
 * ====================================================================== */

guint pl_symbols_resolve(PlSymbols *self, guint32 pid, guint64 pc, gboolean is_return_address,
			 PlFrameInfo *out, guint max)
{
	if (max == 0)
		return 0;
	guint n = pl_symbolizer_resolve(self, pid, pc, is_return_address, out, max);
	if (self->record) /* a self-contained export (of an export, too) */
		pl_sym_embed_put_frames(self->record, pid, pc, is_return_address, out, n);
	return n;
}

/* ======================================================================
 * Self-contained sessions
 * ====================================================================== */

void pl_symbols_set_record(PlSymbols *self, PlSymEmbed *record)
{
	self->record = record;
}

void pl_symbols_set_embedded(PlSymbols *self, PlSymEmbed *embed)
{
	if (self->embedded)
		pl_sym_embed_free(self->embedded);
	self->embedded = embed;
}

PlSymEmbed *pl_symbols_get_embedded(PlSymbols *self)
{
	return self->embedded;
}

/* The embedded text of file written under a private directory, for the
 * readers of source files (the report, the Source tab): NULL when the
 * table has none or it cannot be written. */
static char *embedded_source(PlSymbols *self, const char *file)
{
	gsize len;
	const char *text = pl_sym_embed_get_source(self->embedded, file, &len);
	if (!text)
		return NULL;
	if (!self->embed_src_dir) {
		g_autoptr(GError) e = NULL;
		self->embed_src_dir = g_dir_make_tmp("perflens-src-XXXXXX", &e); /* 0700 */
		if (!self->embed_src_dir) {
			g_warning("embedded sources: %s", e->message);
			return NULL;
		}
	}
	/* the file's own path below the directory: the title shows where it came from;
	 * "..", "." and empty parts are dropped, so nothing lands outside */
	g_auto(GStrv) parts = g_strsplit(file, "/", -1);
	g_autoptr(GPtrArray) keep = g_ptr_array_new();
	for (guint i = 0; parts[i]; i++)
		if (*parts[i] && strcmp(parts[i], ".") && strcmp(parts[i], ".."))
			g_ptr_array_add(keep, parts[i]);
	if (keep->len == 0)
		return NULL;
	g_ptr_array_add(keep, NULL);
	g_autofree char *rel = g_strjoinv("/", (char **)keep->pdata);
	char *path = g_build_filename(self->embed_src_dir, rel, NULL);
	if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
		return path;
	g_autofree char *dir = g_path_get_dirname(path);
	g_autoptr(GError) e = NULL;
	if (g_mkdir_with_parents(dir, 0700) != 0 ||
	    !g_file_set_contents_full(path, text, (gssize)len, G_FILE_SET_CONTENTS_CONSISTENT,
				      0600, &e)) {
		g_warning("embedded source %s: %s", path, e ? e->message : g_strerror(errno));
		g_free(path);
		return NULL;
	}
	return path;
}

/* ======================================================================
 * Source files and coverage
 * ====================================================================== */

char *pl_symbols_find_source(PlSymbols *self, const char *file)
{
	if (!file || !*file)
		return NULL;
	if (self->embedded)
		return embedded_source(self, file);
	if (self->opts.host_files && g_file_test(file, G_FILE_TEST_IS_REGULAR))
		return g_strdup(file);
	/* try ever shorter trailing parts: /build/x/src/a.c → src/a.c → a.c */
	for (const char *p = file; p && *p;) {
		while (*p == '/')
			p++;
		for (guint i = 0; i < self->opts.source_dirs->len; i++) {
			char *c = g_build_filename(g_ptr_array_index(self->opts.source_dirs, i), p,
						   NULL);
			if (g_file_test(c, G_FILE_TEST_IS_REGULAR))
				return c;
			g_free(c);
		}
		p = strchr(p, '/');
	}
	return NULL;
}

void pl_module_report_free(PlModuleReport *r)
{
	if (!r)
		return;
	g_free(r->module);
	g_free(r->local_path);
	g_free(r->debug_path);
	g_free(r->problem);
	g_free(r->fetched_from);
	g_free(r);
}

static GPtrArray *embedded_coverage(PlSymbols *self)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)pl_module_report_free);
	for (guint i = 0; i < pl_sym_embed_n_modules(self->embedded); i++) {
		const PlSymEmbedModule *m = pl_sym_embed_get_module(self->embedded, i);
		PlModuleReport *r = g_new0(PlModuleReport, 1);
		r->module = g_strdup(m->module);
		r->local_path = g_strdup(m->local_path);
		r->debug_path = g_strdup(m->debug_path);
		r->problem = g_strdup(m->problem);
		r->fetched_from = g_strdup(m->fetched_from);
		r->has_symbols = m->has_symbols;
		r->has_lines = m->has_lines;
		r->has_cfi = m->has_cfi;
		r->has_ehabi = m->has_ehabi;
		r->build_id_match = m->build_id_match;
		r->samples = m->samples;
		g_ptr_array_add(rows, r);
	}
	return rows;
}

GPtrArray *pl_symbols_coverage(PlSymbols *self)
{
	if (self->embedded)
		return embedded_coverage(self);
	GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)pl_module_report_free);
	for (guint i = 0; i < self->elf_order->len; i++) {
		PlElf *e = g_ptr_array_index(self->elf_order, i);
		pl_elf_ready(self, e);
		PlModuleReport *r = g_new0(PlModuleReport, 1);
		r->module = g_strdup(e->board_path);
		r->local_path = g_strdup(e->local_path);
		r->debug_path = g_strdup(e->debug_path);
		r->problem = g_strdup(e->problem);
		pl_ehabi_coverage(self, e, r); /* ARM32: code no unwind table describes */
		r->has_symbols = e->has_symbols;
		r->has_lines = e->has_lines;
		r->has_cfi = e->has_cfi;
		r->has_ehabi = e->has_ehabi;
		r->build_id_match = e->build_id_match;
		r->samples = e->samples;
		gboolean fetched = (e->fetched_main && !g_strcmp0(e->local_path, e->fetched_main)) ||
				   (e->fetched_debug &&
				    (!g_strcmp0(e->debug_path, e->fetched_debug) ||
				     !g_strcmp0(e->local_path, e->fetched_debug)));
		r->fetched_from = fetched ? g_strdup(e->fetched_from) : NULL;
		g_ptr_array_add(rows, r);
	}
	if (self->kernel_seen) {
		PlModuleReport *r = g_new0(PlModuleReport, 1);
		const PlTextSyms *t = self->kallsyms.text ? pl_text_file_table(self, &self->kallsyms, 0)
							  : NULL;
		r->module = g_strdup("[kernel.kallsyms]");
		r->samples = self->kernel_samples;
		r->build_id_match = TRUE;
		PlElf *k = self->vmlinux;
		if (k && self->vmlinux_ok) {
			r->local_path = g_strdup(k->local_path);
			r->debug_path = g_strdup(k->debug_path);
			r->has_symbols = k->has_symbols;
			r->has_lines = k->has_lines;
			r->problem = g_strdup(k->problem);
		} else if (t && t->syms->len) {
			r->local_path = g_strdup("(/proc/kallsyms sent by the agent)");
			r->has_symbols = TRUE;
			/* a --vmlinux that was refused says why */
			r->problem = k ? g_strdup(k->problem) : NULL;
		} else if (t && t->all_zero) {
			r->problem = g_strdup("[kernel]: /proc/kallsyms addresses are all zero "
					      "(kptr_restrict): run the agent as root or "
					      "sysctl kernel.kptr_restrict=0");
		} else {
			r->problem = g_strdup("[kernel]: no /proc/kallsyms from the agent: kernel "
					      "frames stay unknown; record with kernel stacks so "
					      "the agent sends it");
		}
		g_ptr_array_add(rows, r);
	}
	return rows;
}
