/* resolve-test.c — pl_symbols_resolve on real files: the burn workload
 * (nm and addr2line as oracles), inline frames of inlined_mix, C++
 * demangling, the vDSO image, kallsyms and perf-PID.map chunks. */
#include <sys/auxv.h>

#include "sym-test-util.h"

#define PID 4242u
#define BASE 0x5555aaaa0000ull

static char *burn_path(void)
{
	char *p = g_build_filename(t_build_dir(), "workloads", "burn", NULL);
	PL_CHECKF(g_file_test(p, G_FILE_TEST_IS_EXECUTABLE), "%s is not built (make)", p);
	return p;
}

static PlSymbols *burn_symbols(const char *burn, guint64 *bias)
{
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(burn));
	PlTargetArch arch = t_host_arch();
	PlSymbols *s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	*bias = t_map_elf(s, PID, burn, "/usr/bin/burn", BASE, NULL, 0);
	return s;
}

static void known_functions(void)
{
	g_autofree char *burn = burn_path();
	guint64 bias;
	g_autoptr(PlSymbols) s = burn_symbols(burn, &bias);
	const char *names[] = { "hot_leaf", "compute_mid", "compute_outer", "sort_step",
				"worker_loop", "cmp_ulong", "main" };
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		guint64 a, sz;
		PL_CHECKF(t_nm(burn, names[i], &a, &sz), "nm has no %s", names[i]);
		guint64 offs[] = { 0, sz / 2, sz - 1 };
		for (guint k = 0; k < 3; k++) {
			PlFrameInfo f[8];
			guint n = pl_symbols_resolve(s, PID, bias + a + offs[k], FALSE, f, 8);
			PL_CHECK(n >= 1);
			PlFrameInfo *outer = &f[n - 1];
			PL_CHECKF(outer->function && !strcmp(outer->function, names[i]),
				  "%s+%llu resolved to %s", names[i], (unsigned long long)offs[k],
				  outer->function ? outer->function : "(null)");
			PL_CHECK(!outer->inlined && !strcmp(outer->module, "burn"));
			PL_CHECK(outer->rel_addr == a + offs[k]);
			PL_CHECK(outer->file && g_str_has_suffix(outer->file, "burn.c"));
		}
	}
	/* a return address resolves to the call's line (pc - 1) */
	guint64 a, sz;
	PL_CHECK(t_nm(burn, "compute_outer", &a, &sz));
	PlFrameInfo f[4];
	guint n = pl_symbols_resolve(s, PID, bias + a + sz, TRUE, f, 4);
	PL_CHECK(n >= 1 && f[n - 1].function && !strcmp(f[n - 1].function, "compute_outer"));
	PL_CHECK(f[0].rel_addr == a + sz);
}

/* Line of the first source line containing needle. */
static guint source_line(const char *needle)
{
	g_autofree char *src = g_build_filename(PL_TOP, "test/workloads/burn.c", NULL);
	g_autofree char *text = NULL;
	PL_CHECK(g_file_get_contents(src, &text, NULL, NULL));
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i]; i++)
		if (strstr(lines[i], needle))
			return i + 1;
	PL_CHECKF(0, "no '%s' in burn.c", needle);
	return 0;
}

static void inline_frames_match_addr2line(void)
{
	g_autofree char *burn = burn_path();
	guint64 bias, a, sz;
	g_autoptr(PlSymbols) s = burn_symbols(burn, &bias);
	PL_CHECK(t_nm(burn, "compute_mid", &a, &sz));
	guint call_line = source_line("return inlined_mix(x);");
	guint first = source_line("static inline unsigned long inlined_mix"),
	      last = first + 6;
	guint inline_hits = 0, checked = 0;
	for (guint64 off = 0; off < sz; off++) {
		PlFrameInfo f[8];
		guint n = pl_symbols_resolve(s, PID, bias + a + off, FALSE, f, 8);
		if (n < 2)
			continue;
		inline_hits++;
		PL_CHECKF(n == 2, "depth %u at +%llu", n, (unsigned long long)off);
		PL_CHECK(f[0].inlined && f[0].function && !strcmp(f[0].function, "inlined_mix"));
		PL_CHECKF(f[0].line >= first && f[0].line <= last, "inline line %u", f[0].line);
		PL_CHECK(!f[1].inlined && !strcmp(f[1].function, "compute_mid"));
		PL_CHECKF(f[1].line == call_line, "call line %u, want %u", f[1].line, call_line);
		PL_CHECK(f[1].file && g_str_has_suffix(f[1].file, "burn.c"));
		/* the oracle: addr2line -i prints innermost first, with lines */
		if (checked++ < 8) {
			g_autofree char *addr = g_strdup_printf("0x%llx", (unsigned long long)(a + off));
			char *argv[] = { (char *)"addr2line", (char *)"-i", (char *)"-f", (char *)"-e",
					 burn, addr, NULL };
			char *why = NULL;
			g_autofree char *out = t_run(argv, &why);
			PL_CHECKF(out, "%s", why);
			g_auto(GStrv) l = g_strsplit(out, "\n", -1);
			PL_CHECKF(g_strv_length(l) >= 4, "addr2line: %s", out);
			g_autofree char *want0 = g_strdup_printf(":%u", f[0].line);
			g_autofree char *want1 = g_strdup_printf(":%u", f[1].line);
			PL_CHECKF(!strcmp(l[0], "inlined_mix") && strstr(l[1], want0) &&
					  !strcmp(l[2], "compute_mid") && strstr(l[3], want1),
				  "addr2line says %s", out);
		}
	}
	PL_CHECKF(inline_hits > 4, "only %u addresses in inlined_mix", inline_hits);

	/* no_inline: one frame, the real function */
	PlSymOptions o = t_opts();
	o.no_inline = TRUE;
	g_ptr_array_add(o.binaries, g_strdup(burn));
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s2 = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	guint64 b2 = t_map_elf(s2, PID, burn, "/usr/bin/burn", BASE, NULL, 0);
	for (guint64 off = 0; off < sz; off++) {
		PlFrameInfo f[8];
		PL_CHECK(pl_symbols_resolve(s2, PID, b2 + a + off, FALSE, f, 8) == 1);
		PL_CHECK(!strcmp(f[0].function, "compute_mid"));
	}
}

static void cache_and_unknown(void)
{
	g_autofree char *burn = burn_path();
	guint64 bias, a, sz;
	g_autoptr(PlSymbols) s = burn_symbols(burn, &bias);
	PL_CHECK(t_nm(burn, "hot_leaf", &a, &sz));
	PlFrameInfo f1[4], f2[4];
	pl_symbols_resolve(s, PID, bias + a, FALSE, f1, 4);
	pl_symbols_resolve(s, PID, bias + a, FALSE, f2, 4);
	PL_CHECK(f1[0].function == f2[0].function && f1[0].file == f2[0].file); /* interned */
	/* another process mapping the same file elsewhere shares the cache */
	guint64 b2 = t_map_elf(s, PID + 1, burn, "/usr/bin/burn", BASE + 0x100000, NULL, 0);
	pl_symbols_resolve(s, PID + 1, b2 + a, FALSE, f2, 4);
	PL_CHECK(f1[0].function == f2[0].function && f2[0].rel_addr == a);
	/* outside any mapping and with no kallsyms: unknown */
	guint n = pl_symbols_resolve(s, PID, 0x10, FALSE, f1, 4);
	PL_CHECK(n == 1 && !f1[0].function && !strcmp(f1[0].module, "[unknown]"));
	/* an exec forgets the mappings */
	pl_symbols_process_exec(s, PID);
	n = pl_symbols_resolve(s, PID, bias + a, FALSE, f1, 4);
	PL_CHECK(n == 1 && !f1[0].function);
}

static void cxx_demangled(void)
{
	g_autofree char *gxx = g_find_program_in_path("g++");
	PL_CHECKF(gxx, "g++ is not installed (build-essential: ci/deps.sh)");
	g_autofree char *dir = g_build_filename(t_tmp(), "cxx", NULL);
	g_mkdir_with_parents(dir, 0755);
	g_autofree char *src = g_build_filename(dir, "p.cc", NULL);
	g_autofree char *bin = g_build_filename(dir, "p", NULL);
	t_write(src, "namespace ns { struct K { __attribute__((noinline)) int run(int x); };\n"
		     "int K::run(int x) { return x * 7; } }\n"
		     "int main(int c, char **) { ns::K k; return k.run(c); }\n");
	char *why = NULL;
	char *argv[] = { (char *)"g++", (char *)"-g", (char *)"-O1", (char *)"-o", bin, src, NULL };
	g_autofree char *out = t_run(argv, &why);
	PL_CHECKF(out, "%s", why);
	guint64 a, sz;
	PL_CHECK(t_nm(bin, "_ZN2ns1K3runEi", &a, &sz));
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(bin));
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	guint64 bias = t_map_elf(s, PID, bin, "/bin/p", BASE, NULL, 0);
	PlFrameInfo f[4];
	guint n = pl_symbols_resolve(s, PID, bias + a, FALSE, f, 4);
	PL_CHECKF(n == 1 && f[0].function && !strcmp(f[0].function, "ns::K::run(int)"), "got %s",
		  f[0].function);
}

static void vdso_from_image(void)
{
	guint64 vdso = getauxval(AT_SYSINFO_EHDR);
	if (!vdso)
		PL_SKIP("[no-kernel-feature:vdso] the kernel mapped no vDSO into this process "
			"(AT_SYSINFO_EHDR is 0: vdso=0 or CONFIG_VDSO off)");
	g_autofree char *maps = NULL;
	PL_CHECK(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
	guint64 start = 0, end = 0;
	g_auto(GStrv) lines = g_strsplit(maps, "\n", -1);
	for (char **l = lines; *l; l++)
		if (strstr(*l, "[vdso]"))
			sscanf(*l, "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x", &start, &end);
	PL_CHECK(start == vdso && end > start);
	/* the oracle: the image's own .dynsym */
	Elf *e = elf_memory((char *)(uintptr_t)start, end - start);
	guint64 want = 0;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			gelf_getsym(d, (int)i, &sym);
			const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (nm && !strcmp(nm, "__vdso_clock_gettime"))
				want = sym.st_value;
		}
	}
	elf_end(e);
	PL_CHECK(want);
	PlSymOptions o = t_opts();
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	pl_symbols_add_mapping(s, PID, start, end - start, 0, "[vdso]", NULL, 0);
	/* sent in two chunks, as the agent would for a bigger file */
	gsize half = (end - start) / 2;
	pl_symbols_add_chunk(s, 1, PID, start, 0, (const guint8 *)(uintptr_t)start, half);
	pl_symbols_add_chunk(s, 1, PID, start, half, (const guint8 *)(uintptr_t)(start + half),
			     end - start - half);
	PlFrameInfo f[4];
	guint n = pl_symbols_resolve(s, PID, start + want + 2, FALSE, f, 4);
	PL_CHECK(n >= 1 && !strcmp(f[n - 1].module, "[vdso]"));
	PL_CHECKF(f[n - 1].function && strstr(f[n - 1].function, "clock_gettime"), "got %s",
		  f[n - 1].function);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "[vdso]");
	PL_CHECK(r && r->local_path && !r->problem && r->samples == 1);
}

static void kallsyms_chunks(void)
{
	PlSymOptions o = t_opts();
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff81001000 T do_syscall_64\n"
			   "ffffffff81002000 D some_data\n"
			   "this line is garbage\n"
			   "ffffffff81003000 t tcp_sendmsg\n"
			   "ffffffffc0100000 t ext4_write_begin\t[ext4]\n"
			   "ffffffffc0101000 t ext4_end\t[ext4]\n";
	gsize len = strlen(text), cut = 40; /* a chunk boundary inside a line */
	pl_symbols_add_chunk(s, 3, 0, 0, 0, (const guint8 *)text, cut);
	pl_symbols_add_chunk(s, 3, 0, 0, cut, (const guint8 *)text + cut, len - cut);
	PlFrameInfo f[2];
	PL_CHECK(pl_symbols_resolve(s, PID, 0xffffffff81001234ull, FALSE, f, 2) == 1);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "do_syscall_64"));
	PL_CHECK(!strcmp(f[0].module, "[kernel]"));
	/* a data symbol does not cut the function before it */
	pl_symbols_resolve(s, PID, 0xffffffff81002010ull, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "do_syscall_64"));
	pl_symbols_resolve(s, PID, 0xffffffffc0100010ull, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "ext4_write_begin") &&
		 !strcmp(f[0].module, "[ext4]"));
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "[kernel.kallsyms]");
	PL_CHECK(r && r->has_symbols && !r->problem && r->samples == 3);

	/* kptr_restrict: all zero addresses are reported, not used */
	g_autoptr(PlSymbols) s2 = pl_symbols_new(NULL, &arch);
	const char *zero = "0000000000000000 T _stext\n0000000000000000 T foo\n";
	pl_symbols_add_chunk(s2, 3, 0, 0, 0, (const guint8 *)zero, strlen(zero));
	g_autoptr(GPtrArray) rows2 = pl_symbols_coverage(s2);
	r = t_row(rows2, "[kernel.kallsyms]");
	PL_CHECKF(r && r->problem && strstr(r->problem, "kptr_restrict"), "%s",
		  r ? r->problem : "-");
}

static void perf_map_chunks(void)
{
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
	pl_symbols_add_mapping(s, PID, 0x7f0000000000ull, 0x100000, 0, "//anon", NULL, 0);
	const char *text = "7f0000001000 80 LazyCompile:*fib /app/x.js:3\n"
			   "7f0000002000 40 Interpreter stub\n"
			   "zzz bad\n";
	pl_symbols_add_chunk(s, 2, PID, 0, 0, (const guint8 *)text, strlen(text));
	PlFrameInfo f[2];
	pl_symbols_resolve(s, PID, 0x7f0000001010ull, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "LazyCompile:*fib /app/x.js:3"));
	PL_CHECK(!strcmp(f[0].module, "perf-4242.map"));
	pl_symbols_resolve(s, PID, 0x7f0000001090ull, FALSE, f, 2); /* past its size */
	PL_CHECK(!f[0].function);
	pl_symbols_resolve(s, PID, 0x7f000000203full, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "Interpreter stub"));
}

/* Random bytes, long lines, NULs, overlong hex: never a crash, and the
 * good lines around them still count. */
static void garbage_text_is_safe(void)
{
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
	GRand *r = g_rand_new_with_seed(42);
	gsize n = 1 << 20;
	guint8 *junk = g_malloc(n);
	for (gsize i = 0; i < n; i++)
		junk[i] = (guint8)g_rand_int_range(r, 0, 256);
	for (gsize i = 0; i < n; i += 1 + (gsize)g_rand_int_range(r, 0, 200))
		junk[i] = "\n 0fT[]"[g_rand_int_range(r, 0, 8)];
	const char *good = "ffffffff81000000 T good_fn\n";
	pl_symbols_add_chunk(s, 3, 0, 0, 0, (const guint8 *)good, strlen(good));
	pl_symbols_add_chunk(s, 3, 0, 0, strlen(good), junk, n);
	pl_symbols_add_chunk(s, 3, 0, 0, 12345, junk, 10); /* a gap: ignored */
	pl_symbols_add_chunk(s, 2, PID, 0, 0, junk, n);
	pl_symbols_add_chunk(s, 1, PID, 0x1000, 0, junk, 4096); /* not an ELF vDSO */
	pl_symbols_add_mapping(s, PID, 0x1000, 0x1000, 0, "[vdso]", NULL, 0);
	const char *over = "fffffffffffffffff0 T too_long\n";
	pl_symbols_add_chunk(s, 2, PID + 1, 0, 0, (const guint8 *)over, strlen(over));
	PlFrameInfo f[4];
	for (guint i = 0; i < 2000; i++)
		pl_symbols_resolve(s, PID, ((guint64)g_rand_int(r) << 32) | g_rand_int(r), i & 1, f,
				   4);
	pl_symbols_resolve(s, PID + 1, 0xfffffffffffffff0ull, FALSE, f, 4);
	PL_CHECK(pl_symbols_resolve(s, PID, 0x1010, FALSE, f, 4) == 1 && !f[0].function);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *v = t_row(rows, "[vdso]");
	PL_CHECK(v && !v->local_path && v->problem);
	g_free(junk);
	g_rand_free(r);
}

/* A GCC nested function is a child of its parent's DIE whose code lies
 * outside the parent: the scope table reads a CU's functions lazily and
 * must walk the whole CU for it (pl-inline-table.c).  Every byte of both
 * functions, the first lookup in one or in the other, against addr2line
 * -i (inline frames) and nm (the function). */
static void nested_function_scopes(void)
{
	g_autofree char *src = g_build_filename(t_tmp(), "nested.c", NULL);
	g_autofree char *bin = g_build_filename(t_tmp(), "nested", NULL);
	t_write(src, "static inline __attribute__((always_inline)) int helper(int x)\n"
		     "{\n"
		     "\treturn x * 3 + (x >> 2);\n"
		     "}\n"
		     "__attribute__((noinline)) int outer(int n)\n"
		     "{\n"
		     "\t__attribute__((noinline)) int inner(int k)\n"
		     "\t{\n"
		     "\t\tint s = 0;\n"
		     "\t\tfor (int i = 0; i < k; i++)\n"
		     "\t\t\ts += helper(i ^ n);\n"
		     "\t\treturn s;\n"
		     "\t}\n"
		     "\tint (*volatile fp)(int) = inner;\n"
		     "\treturn fp(n) + helper(n);\n"
		     "}\n"
		     "int main(int argc, char **argv)\n"
		     "{\n"
		     "\treturn outer(argc) & 1;\n"
		     "}\n");
	t_cc(src, bin, "-O2 -g");
	guint64 oa, osz, ia, isz;
	PL_CHECK(t_nm(bin, "outer", &oa, &osz));
	PL_CHECKF(t_nm(bin, "inner.0", &ia, &isz), "gcc named the nested function otherwise");
	struct {
		guint64 a, sz;
		const char *sym;
	} fns[2] = { { ia, isz, "inner.0" }, { oa, osz, "outer" } };
	for (guint first = 0; first < 2; first++) {
		PlSymOptions o = t_opts();
		g_ptr_array_add(o.binaries, g_strdup(bin));
		PlTargetArch arch = t_host_arch();
		g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
		t_opts_clear(&o);
		guint64 bias = t_map_elf(s, PID, bin, "/usr/bin/nested", BASE, NULL, 0);
		guint inlined = 0;
		for (guint k = 0; k < 2; k++) {
			guint which = (first + k) % 2;
			g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
			g_ptr_array_add(argv, g_strdup("addr2line"));
			g_ptr_array_add(argv, g_strdup("-i"));
			g_ptr_array_add(argv, g_strdup("-f"));
			g_ptr_array_add(argv, g_strdup("-e"));
			g_ptr_array_add(argv, g_strdup(bin));
			GPtrArray *got = g_ptr_array_new_with_free_func(g_free);
			for (guint64 off = 0; off < fns[which].sz; off++) {
				PlFrameInfo f[8];
				guint64 a = fns[which].a + off;
				guint n = pl_symbols_resolve(s, PID, bias + a, FALSE, f, 8);
				PL_CHECK(n >= 1 && f[n - 1].function &&
					 !strcmp(f[n - 1].function, fns[which].sym));
				GString *g = g_string_new(NULL);
				for (guint i = 0; i + 1 < n; i++) {
					PL_CHECK(f[i].inlined);
					g_string_append_printf(g, "%s;", f[i].function);
					inlined++;
				}
				g_ptr_array_add(got, g_string_free(g, FALSE));
				g_ptr_array_add(argv, g_strdup_printf("0x%llx", (unsigned long long)a));
			}
			g_ptr_array_add(argv, NULL);
			char *why = NULL;
			g_autofree char *out = t_run((char **)argv->pdata, &why);
			PL_CHECKF(out, "%s", why);
			/* addr2line: per address, function and file:line per frame,
			 * innermost first; the last frame is the function */
			g_auto(GStrv) l = g_strsplit(out, "\n", -1);
			guint li = 0;
			for (guint i = 0; i < got->len; i++) {
				/* the frames of address i: lines up to the next
				 * address's first, which addr2line -i does not
				 * mark, so count them by our answer's depth */
				const char *want = g_ptr_array_index(got, i);
				guint depth = 0;
				for (const char *c = want; *c; c++)
					depth += *c == ';';
				GString *has = g_string_new(NULL);
				for (guint d = 0; d < depth; d++) {
					PL_CHECK(l[li] && l[li + 1]);
					g_string_append_printf(has, "%s;", l[li]);
					li += 2;
				}
				PL_CHECKF(l[li] && l[li + 1], "addr2line ended early: %s", out);
				/* the function itself: addr2line names it from DWARF */
				PL_CHECKF(!strcmp(l[li], which == 0 ? "inner" : "outer"),
					  "%s+%u: addr2line says %s", fns[which].sym, i, l[li]);
				li += 2;
				PL_CHECKF(!strcmp(has->str, want), "%s+%u: %s, addr2line %s",
					  fns[which].sym, i, want, has->str);
				g_string_free(has, TRUE);
			}
			g_ptr_array_unref(got);
		}
		PL_CHECKF(inlined > 4, "only %u inline frames in %s", inlined, bin);
	}
}

PL_TEST_MAIN(PL_CASE(known_functions), PL_CASE(inline_frames_match_addr2line),
	     PL_CASE(nested_function_scopes),
	     PL_CASE(cache_and_unknown), PL_CASE(cxx_demangled), PL_CASE(vdso_from_image),
	     PL_CASE(kallsyms_chunks), PL_CASE(perf_map_chunks), PL_CASE(garbage_text_is_safe))
