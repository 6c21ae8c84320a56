/* bias-test.c — load bias of an executable whose two PT_LOADs share file
 * page 0: a tiny static program linked here by gcc with
 * -nostdlib -z noseparate-code -z norelro and GNU ld (-fuse-ld=bfd), so
 * code (offset 0) and data (offset 0x1e8 or so) are both mapped with
 * pgoff 0: those flags decide the layout, so any other is a failure.  The second mapping
 * must get the file's one bias (0: ET_EXEC), not a bias of its own, so
 * that symbolization and the unwinder's module see the program's PCs. */
#include <elfutils/libdwfl.h>

#include "pl-proc.h"
#include "sym-test-util.h"

#define PID 4343u

static const char *source =
	"long counter = 5;\n"
	"__attribute__((noinline)) long leaf(long x) { return x * 3 + counter; }\n"
	"__attribute__((noinline)) long mid(long x) { return leaf(x) + 1; }\n"
	"void _start(void) { counter = mid(counter);\n"
	"  __asm__ volatile(\"mov $60, %%eax; xor %%edi, %%edi; syscall\" ::: \"memory\"); }\n";

/* Builds the program; fails unless its PT_LOADs really share page 0. */
static char *build_tiny(void)
{
#if !defined(__x86_64__)
	PL_SKIP("[other-arch] the program is x86-64 code (its _start makes an x86-64 syscall)");
#endif
	g_autofree char *src = g_build_filename(t_tmp(), "tiny.c", NULL);
	t_write(src, source);
	char *out = g_build_filename(t_tmp(), "tiny", NULL);
	t_cc(src, out,
	     "-O2 -g -static -nostdlib -fno-pie -no-pie -fuse-ld=bfd -Wl,-z,noseparate-code "
	     "-Wl,-z,norelro");
	int fd = open(out, O_RDONLY);
	PL_CHECK(fd >= 0);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0;
	guint loads = 0, page0 = 0;
	PL_CHECK(e && elf_getphdrnum(e, &n) == 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			loads++;
			page0 += (ph.p_offset & ~0xfffull) == 0;
		}
	}
	elf_end(e);
	close(fd);
	PL_CHECKF(loads == 2 && page0 == 2,
		  "GNU ld did not put both PT_LOADs of %s in file page 0 (%u loads, %u there): "
		  "the flags above no longer give the layout this test is about",
		  out, loads, page0);
	return out;
}

static void one_bias_per_file(void)
{
	g_autofree char *tiny = build_tiny();
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(tiny));
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	t_map_elf(s, PID, tiny, "/bin/tiny", 0, NULL, 0);
	PlProc *proc = pl_proc_get(s, PID, FALSE);
	PL_CHECK(proc && proc->maps->len == 2);

	/* symbolization: resolving prepares (locates) the file */
	const char *names[] = { "leaf", "mid", "_start" };
	guint64 addr[3], size[3];
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		PL_CHECKF(t_nm(tiny, names[i], &addr[i], &size[i]), "nm has no %s", names[i]);
		PlFrameInfo f[4];
		guint nf = pl_symbols_resolve(s, PID, addr[i] + size[i] / 2, FALSE, f, 4);
		PL_CHECKF(nf >= 1 && f[nf - 1].function && !strcmp(f[nf - 1].function, names[i]),
			  "%s resolved to %s", names[i],
			  nf && f[nf - 1].function ? f[nf - 1].function : "(null)");
	}
	for (guint i = 0; i < proc->maps->len; i++) {
		PlMapping *m = &g_array_index(proc->maps, PlMapping, i);
		guint64 bias = 1;
		PL_CHECK(m->elf);
		PL_CHECKF(pl_mapping_bias(proc, m, &bias) && bias == 0,
			  "mapping 0x%llx (pgoff 0x%llx): bias 0x%llx, not 0",
			  (unsigned long long)m->start, (unsigned long long)m->pgoff,
			  (unsigned long long)bias);
	}

	/* the unwinder: one module for the file, and the program's PCs in it.
	 * At leaf's first instruction the return address is at [sp]. */
	guint8 stack[64] = { 0 };
	guint64 ret = addr[1] + 5; /* inside mid */
	memcpy(stack, &ret, 8);
	guint64 regs[3] = { 0, 0x7ffff000, addr[0] }; /* BP SP IP (perf regs 6, 7, 8) */
	guint64 pcs[8];
	gboolean truncated = FALSE;
	guint n = pl_symbols_unwind(s, PID, PID, 7ull << 6, regs, 3, stack, sizeof(stack), pcs, 8,
				    &truncated);
	PL_CHECKF(n >= 2, "unwound %u frames", n);
	PL_CHECK(pcs[0] == addr[0] && pcs[1] == ret);
	PL_CHECK(proc->dwfl != NULL);
	for (guint i = 0; i < G_N_ELEMENTS(addr); i++) {
		Dwfl_Module *mod = dwfl_addrmodule(proc->dwfl, addr[i]);
		PL_CHECKF(mod != NULL, "no module of the unwinder holds %s", names[i]);
		Dwarf_Addr start = 0, bias = 1;
		dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		PL_CHECK(dwfl_module_getelf(mod, &bias) != NULL);
		PL_CHECKF(bias == 0 && start == 0x400000, "%s: module at 0x%llx, bias 0x%llx",
			  names[i], (unsigned long long)start, (unsigned long long)bias);
	}
	PlFrameInfo f[4];
	guint nf = pl_symbols_resolve(s, PID, pcs[1], TRUE, f, 4);
	PL_CHECK(nf >= 1 && f[nf - 1].function && !strcmp(f[nf - 1].function, "mid"));
}

PL_TEST_MAIN(PL_CASE(one_bias_per_file))
