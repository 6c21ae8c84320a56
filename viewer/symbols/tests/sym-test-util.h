/* sym-test-util.h — helpers shared by the viewer/symbols tests: a scratch
 * directory, compiling small programs with the real gcc, nm as the oracle
 * for symbol addresses, and mapping an ELF the way ld.so would.
 * Header-only (each test is one .c file). */
#ifndef SYM_TEST_UTIL_H
#define SYM_TEST_UTIL_H

#include <fcntl.h>
#include <gelf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl-symbols.h"
#include "pl-test.h"

static inline const char *t_build_dir(void)
{
	const char *b = getenv("PL_BUILD");
	return b && *b ? b : PL_DEFAULT_BUILD;
}

/* A fresh scratch dir, removed at exit unless PL_KEEP_TMP is set. */
static char *t_tmpdir_path;
static inline void t_rm_tmp(void)
{
	if (t_tmpdir_path && !getenv("PL_KEEP_TMP")) {
		char *argv[] = { (char *)"rm", (char *)"-rf", t_tmpdir_path, NULL };
		g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
			     NULL);
	}
}
static inline const char *t_tmp(void)
{
	if (!t_tmpdir_path) {
		t_tmpdir_path = g_dir_make_tmp("plsym-XXXXXX", NULL);
		atexit(t_rm_tmp);
	}
	return t_tmpdir_path;
}

/* The decompressed debug files these tests make go to a cache of their
 * own (pl-debug-inflate.c writes $XDG_CACHE_HOME/perflens/debug), never
 * the user's; a program run by a test with PL_TEST_KEEP_XDG set keeps
 * the one it was given. */
__attribute__((constructor)) static void t_isolate_cache(void)
{
	if (getenv("PL_TEST_KEEP_XDG"))
		return;
	char *xdg = g_build_filename(t_tmp(), "xdg-cache", NULL);
	g_setenv("XDG_CACHE_HOME", xdg, TRUE);
	g_free(xdg);
}

/* Runs argv; returns its stdout (owned) or NULL with *why set. */
static inline char *t_run(char **argv, char **why)
{
	char *out = NULL, *err = NULL;
	gint status = 0;
	GError *e = NULL;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
			  &e)) {
		*why = g_strdup(e->message);
		g_error_free(e);
		return NULL;
	}
	if (!g_spawn_check_wait_status(status, NULL)) {
		*why = g_strdup_printf("%s failed: %s", argv[0], err ? err : "");
		g_free(out);
		g_free(err);
		return NULL;
	}
	g_free(err);
	return out;
}

static inline void t_write(const char *path, const char *text)
{
	PL_CHECKF(g_file_set_contents(path, text, -1, NULL), "cannot write %s", path);
}

/* CC FLAGS -o out src.c; fails the case when CC is missing (pkg: the
 * Debian package that has it, which ci/deps.sh installs). */
static inline void t_cc_with(const char *cc, const char *pkg, const char *src_path, const char *out,
			     const char *flags)
{
	g_autofree char *path = g_find_program_in_path(cc);
	PL_CHECKF(path, "%s is not installed (%s: ci/deps.sh)", cc, pkg);
	g_autofree char *cmd = g_strdup_printf("%s %s -o %s %s", path, flags, out, src_path);
	gchar **argv = NULL;
	PL_CHECK(g_shell_parse_argv(cmd, NULL, &argv, NULL));
	char *why = NULL;
	char *o = t_run(argv, &why);
	g_strfreev(argv);
	PL_CHECKF(o != NULL, "%s", why);
	g_free(o);
}

/* gcc FLAGS -o out src.c; fails the case when gcc is missing. */
static inline void t_cc(const char *src_path, const char *out, const char *flags)
{
	t_cc_with("gcc", "gcc", src_path, out, flags);
}

/* Address and size of a symbol as nm reports it (the oracle). */
static inline gboolean t_nm(const char *file, const char *sym, guint64 *addr, guint64 *size)
{
	char *why = NULL;
	char *argv[] = { (char *)"nm", (char *)"-S", (char *)file, NULL };
	g_autofree char *out = t_run(argv, &why);
	g_free(why);
	if (!out)
		return FALSE;
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit_set(*l, " ", -1);
		if (g_strv_length(f) == 4 && !strcmp(f[3], sym)) {
			*addr = g_ascii_strtoull(f[0], NULL, 16);
			*size = g_ascii_strtoull(f[1], NULL, 16);
			return TRUE;
		}
	}
	return FALSE;
}

/* A separate debug file as distributions make them: full's debug sections
 * into debug_out (objcopy --only-keep-debug), full stripped into
 * stripped_out.  Fails the case when either tool fails. */
static inline void t_split_debug(const char *full, const char *debug_out, const char *stripped_out)
{
	char *why = NULL;
	char *a1[] = { (char *)"objcopy", (char *)"--only-keep-debug", (char *)full,
		       (char *)debug_out, NULL };
	char *a2[] = { (char *)"strip", (char *)"-o", (char *)stripped_out, (char *)full, NULL };
	g_autofree char *o1 = t_run(a1, &why);
	PL_CHECKF(o1, "%s", why);
	g_autofree char *o2 = t_run(a2, &why);
	PL_CHECKF(o2, "%s", why);
}

/* Address of a symbol, sized or not, as nm reports it (nm -S prints no size
 * for a sizeless symbol, so t_nm's four columns miss it). */
static inline gboolean t_nm_addr(const char *file, const char *sym, guint64 *addr)
{
	char *why = NULL;
	char *argv[] = { (char *)"nm", (char *)file, NULL };
	g_autofree char *out = t_run(argv, &why);
	g_free(why);
	g_auto(GStrv) lines = g_strsplit(out ? out : "", "\n", -1);
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit(*l, " ", -1);
		if (g_strv_length(f) == 3 && !strcmp(f[2], sym)) {
			*addr = g_ascii_strtoull(f[0], NULL, 16);
			return TRUE;
		}
	}
	return FALSE;
}

/* Maps every PT_LOAD of file into pid as ld.so would, at base (ignored for
 * ET_EXEC).  Returns the load bias. */
static inline guint64 t_map_elf(PlSymbols *s, guint32 pid, const char *file, const char *board,
				guint64 base, const guint8 *id, gsize id_len)
{
	int fd = open(file, O_RDONLY);
	PL_CHECKF(fd >= 0, "open %s", file);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	PL_CHECK(e && gelf_getehdr(e, &eh));
	guint64 bias = eh.e_type == ET_DYN ? base : 0;
	size_t n = 0;
	elf_getphdrnum(e, &n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		guint64 start = (bias + ph.p_vaddr) & ~0xfffull;
		guint64 end = (bias + ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffull;
		pl_symbols_add_mapping(s, pid, start, end - start, ph.p_offset & ~0xfffull,
				       board ? board : file, id, id_len);
	}
	elf_end(e);
	close(fd);
	return bias;
}

/* Adds the file-backed lines of a /proc/PID/maps text. */
static inline void t_add_maps(PlSymbols *s, guint32 pid, const char *maps)
{
	g_auto(GStrv) lines = g_strsplit(maps, "\n", -1);
	for (char **l = lines; *l; l++) {
		unsigned long long a, b, off;
		char perms[8], path[4096] = "";
		unsigned long long ino;
		unsigned dmaj, dmin;
		if (sscanf(*l, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &a, &b, perms, &off,
			   &dmaj, &dmin, &ino, path) < 7)
			continue;
		char *p = g_strstrip(path);
		if (!*p)
			continue;
		pl_symbols_add_mapping(s, pid, a, b - a, off, p, NULL, 0);
	}
}

static inline PlSymOptions t_opts(void)
{
	PlSymOptions o = { 0 };
	o.binaries = g_ptr_array_new_with_free_func(g_free);
	o.debug_dirs = g_ptr_array_new_with_free_func(g_free);
	o.source_dirs = g_ptr_array_new_with_free_func(g_free);
	o.path_maps = g_ptr_array_new_with_free_func(g_free);
	return o;
}

static inline void t_opts_clear(PlSymOptions *o)
{
	g_ptr_array_unref(o->binaries);
	g_ptr_array_unref(o->debug_dirs);
	g_ptr_array_unref(o->source_dirs);
	g_ptr_array_unref(o->path_maps);
	g_free(o->sysroot);
}

static inline PlTargetArch t_host_arch(void)
{
	PlTargetArch a = { EM_X86_64, FALSE, 8 };
#if defined(__aarch64__)
	a.e_machine = EM_AARCH64;
#elif defined(__arm__)
	a.e_machine = EM_ARM;
	a.word_size = 4;
#endif
	return a;
}

/* The coverage row of a board path. */
static inline PlModuleReport *t_row(GPtrArray *rows, const char *module)
{
	for (guint i = 0; i < rows->len; i++) {
		PlModuleReport *r = g_ptr_array_index(rows, i);
		if (!strcmp(r->module, module))
			return r;
	}
	return NULL;
}

#endif
