/* locator-test.c — the ELF search order and build-id checks, on files
 * compiled by gcc at test time. */
#include "pl-build-id.h"
#include "pl-elf-locator.h"
#include "sym-test-util.h"

static const char prog_v1[] = "#include <stdio.h>\n"
			      "__attribute__((noinline)) int work(int x) { return x * 3 + 1; }\n"
			      "int main(int c, char **v) { printf(\"%d\\n\", work(c)); return 0; }\n";
static const char prog_v2[] = "#include <stdio.h>\n"
			      "__attribute__((noinline)) int work(int x) { return x * 5 + 2; }\n"
			      "int main(int c, char **v) { printf(\"%d\\n\", work(c)); return 0; }\n";

/* tmp/NAME/prog built from src; returns its path. */
static char *build_prog(const char *name, const char *src)
{
	g_autofree char *dir = g_build_filename(t_tmp(), name, NULL);
	g_mkdir_with_parents(dir, 0755);
	g_autofree char *c = g_build_filename(dir, "prog.c", NULL);
	char *out = g_build_filename(dir, "prog", NULL);
	t_write(c, src);
	t_cc(c, out, "-g -O1 -Wl,--build-id");
	return out;
}

static void resolve_work(PlSymbols *s, const char *unstripped, guint64 bias)
{
	guint64 a, sz;
	PL_CHECK(t_nm(unstripped, "work", &a, &sz));
	PlFrameInfo f[8];
	guint n = pl_symbols_resolve(s, 7, bias + a + 1, FALSE, f, 8);
	PL_CHECK(n >= 1);
	PL_CHECKF(f[0].function && !strcmp(f[0].function, "work"), "got %s",
		  f[0].function ? f[0].function : "(null)");
	PL_CHECK(f[0].rel_addr == a + 1);
}

static void binary_by_build_id(void)
{
	g_autofree char *p1 = build_prog("bid", prog_v1);
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn = pl_elf_file_build_id(p1, id);
	PL_CHECK(idn == 20);
	PlSymOptions o = t_opts();
	/* a wrong file with the right name first: the build-id match must win */
	g_autofree char *p2 = build_prog("bid-other", prog_v2);
	g_ptr_array_add(o.binaries, g_strdup(p2));
	g_ptr_array_add(o.binaries, g_strdup(p1));
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	guint64 bias = t_map_elf(s, 7, p1, "/usr/bin/prog", 0x555555554000ull, id, idn);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/usr/bin/prog");
	PL_CHECK(r);
	PL_CHECKF(r->local_path && !strcmp(r->local_path, p1), "local %s", r->local_path);
	PL_CHECKF(!r->problem, "problem: %s", r->problem);
	PL_CHECK(r->build_id_match && r->has_symbols && r->has_lines && r->has_cfi);
	resolve_work(s, p1, bias);
	t_opts_clear(&o);
}

static void build_id_mismatch_refused(void)
{
	g_autofree char *p1 = build_prog("mm1", prog_v1);
	g_autofree char *p2 = build_prog("mm2", prog_v2); /* "rebuilt" with other content */
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn = pl_elf_file_build_id(p1, id);
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(p2));
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_map_elf(s, 7, p1, "/usr/bin/prog", 0x555555554000ull, id, idn);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/usr/bin/prog");
	PL_CHECK(r && !r->local_path && !r->build_id_match);
	PL_CHECKF(r->problem && strstr(r->problem, "prog: build-id mismatch") &&
			  strstr(r->problem, p2),
		  "problem: %s", r->problem);
	/* an unresolved frame still names the module */
	PlFrameInfo f[4];
	PL_CHECK(pl_symbols_resolve(s, 7, 0x555555555000ull, FALSE, f, 4) == 1);
	PL_CHECK(!f[0].function && f[0].module && !strcmp(f[0].module, "prog"));
	t_opts_clear(&o);
}

static void binary_by_name_without_board_id(void)
{
	g_autofree char *p1 = build_prog("name", prog_v1);
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(p1));
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	guint64 bias = t_map_elf(s, 7, p1, "/opt/app/prog", 0x7f0000000000ull, NULL, 0);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/opt/app/prog");
	PL_CHECK(r && r->local_path && !strcmp(r->local_path, p1) && r->build_id_match);
	resolve_work(s, p1, bias);
	t_opts_clear(&o);
}

/* Stripped file in a sysroot + debug file in a .build-id tree. */
static void sysroot_and_build_id_tree(void)
{
	g_autofree char *p1 = build_prog("tree", prog_v1);
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn = pl_elf_file_build_id(p1, id);
	g_autofree char *hex = pl_build_id_hex(id, idn);
	g_autofree char *root = g_build_filename(t_tmp(), "tree-root", NULL);
	g_autofree char *bin_dir = g_build_filename(root, "usr/bin", NULL);
	g_autofree char *dbg = g_build_filename(t_tmp(), "tree-dbg", NULL);
	char xx[3] = { hex[0], hex[1], 0 };
	g_autofree char *dbg_dir = g_build_filename(dbg, ".build-id", xx, NULL);
	g_mkdir_with_parents(bin_dir, 0755);
	g_mkdir_with_parents(dbg_dir, 0755);
	g_autofree char *stripped = g_build_filename(bin_dir, "prog", NULL);
	g_autofree char *rest = g_strconcat(hex + 2, ".debug", NULL);
	g_autofree char *dfile = g_build_filename(dbg_dir, rest, NULL);
	t_split_debug(p1, dfile, stripped);

	PlSymOptions o = t_opts();
	o.sysroot = g_strdup(root);
	PlTargetArch arch = t_host_arch();
	{
		/* without the debug dir: found, but stripped, and says so */
		g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
		t_map_elf(s, 7, stripped, "/usr/bin/prog", 0x555555554000ull, id, idn);
		g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
		PlModuleReport *r = t_row(rows, "/usr/bin/prog");
		PL_CHECKF(r && r->local_path && !strcmp(r->local_path, stripped), "%s / %s",
			  r ? r->local_path : "-", r ? r->problem : "-");
		PL_CHECK(!r->has_symbols && !r->has_lines && r->has_cfi && !r->debug_path);
		PL_CHECKF(r->problem && strstr(r->problem, "stripped"), "%s", r->problem);
	}
	g_ptr_array_add(o.debug_dirs, g_strdup(dbg));
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	guint64 bias = t_map_elf(s, 7, stripped, "/usr/bin/prog", 0x555555554000ull, id, idn);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/usr/bin/prog");
	PL_CHECK(r && r->local_path && !strcmp(r->local_path, stripped));
	PL_CHECKF(r->debug_path && !strcmp(r->debug_path, dfile), "debug %s", r->debug_path);
	PL_CHECKF(!r->problem, "%s", r->problem);
	PL_CHECK(r->has_symbols && r->has_lines && r->has_cfi && r->build_id_match);
	resolve_work(s, p1, bias);
	PlFrameInfo f[4];
	guint64 a, sz;
	PL_CHECK(t_nm(p1, "work", &a, &sz));
	pl_symbols_resolve(s, 7, bias + a, FALSE, f, 4);
	PL_CHECKF(f[0].file && g_str_has_suffix(f[0].file, "tree/prog.c") && f[0].line == 2,
		  "%s:%u", f[0].file, f[0].line);
	t_opts_clear(&o);
}

static void host_files_only_when_allowed(void)
{
	g_autofree char *p1 = build_prog("host", prog_v1);
	PlSymOptions o = t_opts();
	PlTargetArch arch = t_host_arch();
	{
		g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
		t_map_elf(s, 7, p1, NULL, 0x555555554000ull, NULL, 0);
		g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
		PlModuleReport *r = t_row(rows, p1);
		PL_CHECK(r && !r->local_path);
		PL_CHECKF(r->problem && strstr(r->problem, "not found") &&
				  strstr(r->problem, "--binary"),
			  "%s", r->problem);
	}
	o.host_files = TRUE;
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	guint64 bias = t_map_elf(s, 7, p1, NULL, 0x555555554000ull, NULL, 0);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, p1);
	PL_CHECK(r && r->local_path && !strcmp(r->local_path, p1));
	resolve_work(s, p1, bias);
	t_opts_clear(&o);
}

/* The board is AArch64: a host x86-64 file of the same name is refused. */
static void wrong_machine_refused(void)
{
	g_autofree char *p1 = build_prog("arch", prog_v1);
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(p1));
	PlTargetArch arch = { t_host_arch().e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64,
			      FALSE, 8 };
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	pl_symbols_add_mapping(s, 7, 0x400000, 0x1000, 0, "/bin/prog", NULL, 0);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/bin/prog");
	PL_CHECK(r && !r->local_path);
	PL_CHECKF(r->problem && strstr(r->problem, "built for"), "%s", r->problem);
	t_opts_clear(&o);
}

/* Board paths and debuglinks stay under the sysroot: a mapping named
 * "/../esc/prog" or a debuglink "../../../dl.debug" never reaches a file
 * beside it, even one with the right build-id. */
static void board_paths_stay_under_sysroot(void)
{
	g_autofree char *p1 = build_prog("esc", prog_v1);
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn = pl_elf_file_build_id(p1, id);
	g_autofree char *root = g_build_filename(t_tmp(), "esc-root", NULL);
	g_autofree char *bin_dir = g_build_filename(root, "usr/bin", NULL);
	g_mkdir_with_parents(bin_dir, 0755);
	PlSymOptions o = t_opts();
	o.sysroot = g_strdup(root);
	PlTargetArch arch = t_host_arch();
	{
		/* t_tmp()/esc/prog is root/../esc/prog */
		g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
		t_map_elf(s, 7, p1, "/../esc/prog", 0x555555554000ull, id, idn);
		g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
		PlModuleReport *r = t_row(rows, "/../esc/prog");
		PL_CHECK(r);
		PL_CHECKF(!r->local_path, "found %s outside the sysroot", r->local_path);
	}
	/* a stripped file in the sysroot whose debuglink climbs out of it: the
	 * name is written as AAAAAAAAAdl.debug, then its bytes changed */
	g_autofree char *dl = g_build_filename(bin_dir, "AAAAAAAAAdl.debug", NULL);
	g_autofree char *stripped = g_build_filename(bin_dir, "prog", NULL);
	t_split_debug(p1, dl, stripped);
	char *why = NULL;
	g_autofree char *link = g_strconcat("--add-gnu-debuglink=", dl, NULL);
	char *a3[] = { (char *)"objcopy", link, stripped, NULL };
	g_autofree char *o3 = t_run(a3, &why);
	PL_CHECKF(o3, "%s", why);
	gchar *bytes;
	gsize n;
	PL_CHECK(g_file_get_contents(stripped, &bytes, &n, NULL));
	char *at = memmem(bytes, n, "AAAAAAAAAdl.debug", 17);
	PL_CHECK(at);
	memcpy(at, "../../../", 9);
	gboolean wrote = g_file_set_contents(stripped, bytes, (gssize)n, NULL);
	g_free(bytes);
	PL_CHECK(wrote);
	/* root/usr/bin/../../../dl.debug */
	g_autofree char *outside = g_build_filename(t_tmp(), "dl.debug", NULL);
	PL_CHECK(rename(dl, outside) == 0);
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_map_elf(s, 7, stripped, "/usr/bin/prog", 0x555555554000ull, id, idn);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/usr/bin/prog");
	PL_CHECKF(r && r->local_path && !strcmp(r->local_path, stripped), "%s",
		  r ? r->local_path : "-");
	PL_CHECKF(!r->debug_path, "debug file %s outside the sysroot", r->debug_path);
	t_opts_clear(&o);
}

PL_TEST_MAIN(PL_CASE(binary_by_build_id), PL_CASE(build_id_mismatch_refused),
	     PL_CASE(binary_by_name_without_board_id), PL_CASE(sysroot_and_build_id_tree),
	     PL_CASE(host_files_only_when_allowed), PL_CASE(wrong_machine_refused),
	     PL_CASE(board_paths_stay_under_sysroot))
