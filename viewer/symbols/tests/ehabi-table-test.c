/* ehabi-table-test.c — the .ARM.exidx/.ARM.extab decoder and the one-frame
 * virtual unwinder, on real tables and on broken ones.
 *
 *  - A big-endian (BE8) freestanding program built by clang + GNU ld at
 *    test time, whose functions need the less common opcodes (vsp = r7,
 *    vsp decrement, uleb128 increment, VFP pop, personality 1 in
 *    .ARM.extab), runs under qemu-armeb, captures its registers and stack,
 *    and is unwound back to _start, in ARM and in Thumb state.
 *  - Every entry of Debian's armhf libc.so.6 (little-endian) and of that
 *    big-endian program is decoded and compared with binutils'
 *    `readelf -u` (the oracle): function start, personality, opcode bytes.
 *  - Hand-built tables, in both byte orders: well-formed ones give the
 *    same frames; truncated tables, prel31 offsets out of the file, opcode
 *    strings that never finish or walk down the stack, spare opcodes and
 *    random bytes fail cleanly.
 */
#include <fcntl.h>

#include "pl-ehabi.h"
#include "pl-proc.h"
#include "sym-test-util.h"

#define PID 99u
#define LIBC "/usr/arm-linux-gnueabihf/lib/libc.so.6"

static const char be_src[] =
	"typedef unsigned long u32;\n"
	"static u32 regs[16];\n"
	"u32 top_sp;\n"
	"static unsigned char copy[4096];\n"
	"static const char *outdir;\n"
	"static long sys3(long n, long a, long b, long c) {\n"
	"  register long r0 __asm__(\"r0\") = a; register long r1 __asm__(\"r1\") = b;\n"
	"  register long r2 __asm__(\"r2\") = c; register long r7 __asm__(\"r7\") = n;\n"
	"  __asm__ volatile(\"svc 0\" : \"+r\"(r0) : \"r\"(r1), \"r\"(r2), \"r\"(r7) : \"memory\");\n"
	"  return r0;\n"
	"}\n"
	"static void put(const char *name, const void *p, long n) {\n"
	"  char path[512]; int i = 0, j = 0;\n"
	"  while (outdir[i] && i < 400) { path[i] = outdir[i]; i++; }\n"
	"  path[i++] = '/';\n"
	"  while (name[j]) path[i++] = name[j++];\n"
	"  path[i] = 0;\n"
	"  long fd = sys3(5, (long)path, 01101, 0644);\n"
	"  sys3(4, fd, (long)p, n);\n"
	"  sys3(6, fd, 0, 0);\n"
	"}\n"
	"__attribute__((noinline)) int cb(int x) {\n"
	"  __asm__ volatile(\n"
	"    \"str r0, [%0, #0]\\n\\t\" \"str r1, [%0, #4]\\n\\t\" \"str r2, [%0, #8]\\n\\t\"\n"
	"    \"str r3, [%0, #12]\\n\\t\" \"str r4, [%0, #16]\\n\\t\" \"str r5, [%0, #20]\\n\\t\"\n"
	"    \"str r6, [%0, #24]\\n\\t\" \"str r7, [%0, #28]\\n\\t\" \"str r8, [%0, #32]\\n\\t\"\n"
	"    \"str r9, [%0, #36]\\n\\t\" \"str r10, [%0, #40]\\n\\t\" \"str r11, [%0, #44]\\n\\t\"\n"
	"    \"str r12, [%0, #48]\\n\\t\" \"str sp, [%0, #52]\\n\\t\" \"str lr, [%0, #56]\\n\\t\"\n"
	"    \"mov ip, pc\\n\\t\" \"str ip, [%0, #60]\\n\\t\"\n"
	"    : : \"r\"(regs) : \"ip\", \"memory\");\n"
	"  u32 n = top_sp - regs[13];\n"
	"  if (n > sizeof copy) n = sizeof copy;\n"
	"  for (u32 i = 0; i < n; i++) copy[i] = ((unsigned char *)regs[13])[i];\n"
	"  put(\"regs\", regs, sizeof regs);\n"
	"  put(\"stack\", copy, (long)n);\n"
	"  return x + 1;\n"
	"}\n"
	"__attribute__((noinline)) int apply(int (*f)(int), int x) { return f(x) * 2; }\n"
	"__attribute__((noinline)) int with_vfp(int x) {\n"
	"  __asm__ volatile(\"\" ::: \"d8\", \"d9\", \"d10\");\n"
	"  return apply(cb, x) + 1;\n"
	"}\n"
	"__attribute__((noinline)) int with_alloca(int n) {\n"
	"  volatile char *p = __builtin_alloca(n);\n"
	"  p[0] = 1;\n"
	"  return with_vfp(n) + p[0];\n"
	"}\n"
	"__attribute__((noinline)) int with_big_frame(int x) {\n"
	"  volatile int big[700];\n"
	"  big[x & 511] = x;\n"
	"  __asm__ volatile(\"\" ::: \"r4\", \"r5\", \"r6\", \"r8\", \"r9\", \"r10\", \"r11\");\n"
	"  return with_alloca(x + 16) + big[x & 511];\n"
	"}\n"
	"int be_main(const char *dir) { outdir = dir; return with_big_frame(3); }\n"
	"__asm__(\".text\\n.globl _start\\n.type _start, %function\\n.arm\\n_start:\\n\"\n"
	"  \".fnstart\\n.cantunwind\\n\"\n"
	"  \"mov r0, sp\\nldr r1, =top_sp\\nstr r0, [r1]\\n\"\n"
	"  \"mov lr, #0\\nldr r0, [sp, #8]\\nbl be_main\\n\"\n"
	"  \"mov r7, #1\\nsvc 0\\n.ltorg\\n.fnend\\n.size _start, .-_start\\n\");\n"
	"/* the tables name the ABI's personality routines; nothing here throws */\n"
	"void __aeabi_unwind_cpp_pr0(void) {}\n"
	"void __aeabi_unwind_cpp_pr1(void) {}\n"
	"void __aeabi_unwind_cpp_pr2(void) {}\n";

static void need(const char *prog, const char *why)
{
	g_autofree char *p = g_find_program_in_path(prog);
	PL_CHECKF(p, "%s is not installed (%s: ci/deps.sh)", prog, why);
}

static void run_cmd(const char *cmd)
{
	gchar **argv = NULL;
	PL_CHECK(g_shell_parse_argv(cmd, NULL, &argv, NULL));
	char *why = NULL;
	char *o = t_run(argv, &why);
	g_strfreev(argv);
	PL_CHECKF(o != NULL, "%s: %s", cmd, why);
	g_free(o);
}

/* Builds the big-endian program in ARM or Thumb state; returns its path. */
static char *build_be(const char *mode)
{
	need("clang", "clang");
	need("arm-linux-gnueabihf-ld", "binutils-arm-linux-gnueabihf");
	g_autofree char *dir = g_build_filename(t_tmp(), mode, NULL);
	g_mkdir_with_parents(dir, 0755);
	g_autofree char *src = g_build_filename(dir, "be.c", NULL);
	g_autofree char *obj = g_build_filename(dir, "be.o", NULL);
	char *bin = g_build_filename(dir, "be", NULL);
	t_write(src, be_src);
	/* no -g: the tables are the only unwind information */
	g_autofree char *cc = g_strdup_printf("clang --target=armebv7-linux-gnueabihf -%s -O1 "
					      "-ffreestanding -fno-builtin -funwind-tables -c -o %s %s",
					      mode, obj, src);
	gchar **argv = NULL;
	g_shell_parse_argv(cc, NULL, &argv, NULL);
	char *why = NULL;
	char *o = t_run(argv, &why);
	g_strfreev(argv);
	PL_CHECKF(o, "clang (ci/deps.sh) cannot build a big-endian ARM object: %s", why);
	g_free(o);
	g_autofree char *ld = g_strdup_printf("arm-linux-gnueabihf-ld -EB --be8 -static -o %s %s",
					      bin, obj);
	run_cmd(ld);
	return bin;
}

static guint32 be32(const guint8 *p)
{
	return (guint32)p[0] << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 | p[3];
}

static void be_unwind(const char *mode)
{
	g_autofree char *bin = build_be(mode);
	need("qemu-armeb", "qemu-user");
	g_autofree char *dir = g_path_get_dirname(bin);
	g_autofree char *cmd = g_strdup_printf("qemu-armeb %s %s", bin, dir);
	gchar **argv = NULL;
	g_shell_parse_argv(cmd, NULL, &argv, NULL);
	gint status = 0;
	PL_CHECK(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
			      &status, NULL));
	g_strfreev(argv);
	g_autofree char *rp = g_build_filename(dir, "regs", NULL);
	g_autofree char *sp = g_build_filename(dir, "stack", NULL);
	g_autofree guint8 *rb = NULL, *stack = NULL;
	gsize rn = 0, sn = 0;
	PL_CHECKF(g_file_get_contents(rp, (char **)&rb, &rn, NULL) && rn == 64,
		  "the program wrote no registers (exit status %d)", status);
	PL_CHECK(g_file_get_contents(sp, (char **)&stack, &sn, NULL) && sn >= 256);
	guint64 regs[16];
	for (guint i = 0; i < 16; i++)
		regs[i] = be32(rb + 4 * i); /* the guest's own (big-endian) words */

	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(bin));
	PlTargetArch arch = { EM_ARM, TRUE, 4 };
	g_autoptr(PlSymbols) sym = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	/* the text segment only: its data segment shares file page 0 (pgoff 0
	 * twice), which pl_mapping_bias reads as a second load of the file at
	 * another bias (see the report) */
	pl_symbols_add_mapping(sym, PID, 0x10000, 0x1000, 0, "/bin/be", NULL, 0);

	guint64 pcs[32];
	gboolean truncated = TRUE;
	guint n = pl_symbols_unwind(sym, PID, PID, 0xffff, regs, 16, stack, sn, pcs, 32, &truncated);
	static const char *want[] = { "cb",        "apply",   "with_vfp", "with_alloca",
				      "with_big_frame", "be_main", "_start" };
	GString *chain = g_string_new(NULL);
	gboolean same = n == G_N_ELEMENTS(want);
	for (guint i = 0; i < n; i++) {
		PlFrameInfo f[4];
		guint k = pl_symbols_resolve(sym, PID, pcs[i], i > 0, f, 4);
		const char *fn = f[k - 1].function ? f[k - 1].function : "?";
		g_string_append_printf(chain, "%s%s", i ? " <- " : "", fn);
		same = same && i < G_N_ELEMENTS(want) && !strcmp(fn, want[i]);
	}
	g_autofree char *c = g_string_free(chain, FALSE);
	if (!same || truncated) {
		g_autoptr(GPtrArray) rows = pl_symbols_coverage(sym);
		PlModuleReport *r = t_row(rows, "/bin/be");
		PL_CHECKF(FALSE, "%u frames, truncated %d: %s (file: %s)", n, truncated, c,
			  r && r->problem ? r->problem : "no problem reported");
	}
	printf("# big-endian %s: %u frames: %s\n", mode, n, c);

	/* a copy that ends inside with_big_frame's 2.8 KB frame: truncated */
	guint n2 = pl_symbols_unwind(sym, PID, PID, 0xffff, regs, 16, stack, 1200, pcs, 32,
				     &truncated);
	PL_CHECKF(n2 >= 3 && n2 < n && truncated, "%u frames, truncated %d", n2, truncated);
}

static void big_endian_program_arm(void)
{
	be_unwind("marm");
}

static void big_endian_program_thumb(void)
{
	be_unwind("mthumb");
}

/* ======================================================================
 * The decoder against readelf -u
 * ====================================================================== */

typedef struct {
	guint32 addr;
	gint personality; /* -2: cantunwind, -1: generic */
	GByteArray *ops;
} RefEntry;

static void ref_free(gpointer p)
{
	RefEntry *r = p;
	g_byte_array_unref(r->ops);
	g_free(r);
}

static GPtrArray *readelf_entries(const char *file)
{
	g_autofree char *re = g_find_program_in_path("arm-linux-gnueabihf-readelf");
	PL_CHECKF(re, "arm-linux-gnueabihf-readelf is not installed "
		      "(binutils-arm-linux-gnueabihf: ci/deps.sh)");
	char *argv[] = { re, (char *)"-u", (char *)file, NULL };
	char *why = NULL;
	g_autofree char *out = t_run(argv, &why);
	PL_CHECKF(out, "%s", why);
	GPtrArray *v = g_ptr_array_new_with_free_func(ref_free);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	RefEntry *cur = NULL;
	for (char **l = lines; *l; l++) {
		const char *s = *l;
		if (!strncmp(s, "0x", 2)) {
			cur = g_new0(RefEntry, 1);
			cur->addr = (guint32)g_ascii_strtoull(s, NULL, 16);
			cur->ops = g_byte_array_new();
			cur->personality = strstr(s, "[cantunwind]") ? -2 : -1;
			g_ptr_array_add(v, cur);
		} else if (cur && strstr(s, "Compact model index:")) {
			cur->personality = atoi(strstr(s, ":") + 1);
		} else if (cur && !strncmp(s, "  0x", 4)) {
			/* "  0x84 0x08 pop {r7, r14}": the leading hex tokens */
			for (const char *p = s + 2; !strncmp(p, "0x", 2);) {
				char *e = NULL;
				guint8 b = (guint8)g_ascii_strtoull(p, &e, 16);
				g_byte_array_append(cur->ops, &b, 1);
				while (*e == ' ')
					e++;
				p = e;
			}
		}
	}
	return v;
}

static Elf *open_elf(const char *path, int *fd)
{
	*fd = open(path, O_RDONLY);
	PL_CHECKF(*fd >= 0, "open %s", path);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	PL_CHECK(e);
	return e;
}

static void compare_with_readelf(const char *file, gboolean want_big)
{
	g_autoptr(GPtrArray) ref = readelf_entries(file);
	int fd;
	Elf *e = open_elf(file, &fd);
	PlEhabiImage img;
	PL_CHECK(pl_ehabi_image_from_elf(e, &img));
	PL_CHECK(img.big == want_big);
	PL_CHECKF(ref->len == img.exidx_size / 8, "readelf lists %u entries, the table holds %u",
		  ref->len, img.exidx_size / 8);
	PlEhabiEntry *ent = g_new(PlEhabiEntry, 1);
	guint compact = 0, generic = 0, cant = 0;
	for (guint i = 0; i < ref->len; i++) {
		RefEntry *r = g_ptr_array_index(ref, i);
		PlEhabiStatus st = pl_ehabi_lookup(&img, r->addr, ent);
		PL_CHECKF(st == PL_EHABI_OK || st == PL_EHABI_CANTUNWIND, "%#x: %s", r->addr,
			  pl_ehabi_status_str(st));
		PL_CHECKF(ent->fn_start == r->addr && ent->index == i, "%#x: found %#x (entry %u)",
			  r->addr, ent->fn_start, ent->index);
		if (r->personality == -2) {
			PL_CHECK(st == PL_EHABI_CANTUNWIND);
			cant++;
			continue;
		}
		PL_CHECKF(ent->personality == r->personality, "%#x: personality %d, readelf %d",
			  r->addr, ent->personality, r->personality);
		if (r->personality < 0) {
			generic++; /* readelf does not print the opcodes of these */
			continue;
		}
		compact++;
		PL_CHECKF(ent->nops == r->ops->len && !memcmp(ent->ops, r->ops->data, ent->nops),
			  "%#x: %u opcode bytes, readelf %u", r->addr, ent->nops, r->ops->len);
		/* the middle of the function finds the same entry */
		guint32 next = i + 1 < ref->len ? ((RefEntry *)g_ptr_array_index(ref, i + 1))->addr
						: r->addr + 2;
		PL_CHECK(pl_ehabi_lookup(&img, r->addr + (next - r->addr) / 2, ent) == st &&
			 ent->index == i);
	}
	PL_CHECK(pl_ehabi_lookup(&img, ((RefEntry *)g_ptr_array_index(ref, 0))->addr - 1, ent) ==
		 PL_EHABI_NO_ENTRY);
	g_free(ent);
	printf("# %s: %u entries agree with readelf -u (%u compact, %u generic, %u cantunwind)\n",
	       file, ref->len, compact, generic, cant);
	elf_end(e);
	close(fd);
}

static void decoder_matches_readelf_libc(void)
{
	PL_CHECKF(g_file_test(LIBC, G_FILE_TEST_EXISTS), LIBC " is missing (libc6-armhf-cross: ci/deps.sh)");
	compare_with_readelf(LIBC, FALSE);
}

static void decoder_matches_readelf_big_endian(void)
{
	g_autofree char *bin = build_be("mthumb");
	compare_with_readelf(bin, TRUE);
}

/* ======================================================================
 * Hand-built tables
 * ====================================================================== */

#define T_BASE 0x8000u   /* vaddr of file offset 0 */
#define T_EXIDX 0x100u   /* file offset of .ARM.exidx */
#define T_EXTAB 0x200u
#define T_SIZE 0x1000u

typedef struct {
	guint8 buf[T_SIZE];
	gboolean big;
	PlEhabiImage img;
	guint nent;
} Tbl;

static void put32(Tbl *t, guint32 off, guint32 v)
{
	g_assert(off + 4 <= T_SIZE);
	for (guint i = 0; i < 4; i++)
		t->buf[off + (t->big ? i : 3 - i)] = (guint8)(v >> (24 - 8 * i));
}

static guint32 prel(guint32 place_off, guint32 target_vaddr)
{
	return (target_vaddr - (T_BASE + place_off)) & 0x7fffffffu;
}

static void tbl_init(Tbl *t, gboolean big)
{
	memset(t, 0, sizeof(*t));
	t->big = big;
	t->img.file = t->buf;
	t->img.file_size = T_SIZE;
	t->img.big = big;
	t->img.segs[0] = (PlEhabiSeg){ T_BASE, 0, T_SIZE, TRUE };
	t->img.nsegs = 1;
	t->img.exidx_vaddr = T_BASE + T_EXIDX;
}

/* Appends an exidx entry for the function at fn with second word w (a
 * value, or an extab file offset when extab_off is nonzero). */
static void add_entry(Tbl *t, guint32 fn, guint32 w, guint32 extab_off)
{
	guint32 off = T_EXIDX + 8 * t->nent++;
	put32(t, off, prel(off, fn));
	put32(t, off + 4, extab_off ? prel(off + 4, T_BASE + extab_off) : w);
	t->img.exidx_size = 8 * t->nent;
}

/* The simulated stack: words at 0x100000 + 4 i. */
typedef struct {
	guint32 words[64];
	guint reads;
} Stack;
#define STK 0x100000u

static gboolean stack_read(void *ud, guint32 addr, guint32 *w)
{
	Stack *s = ud;
	s->reads++;
	if (addr < STK || addr >= STK + sizeof(s->words) || (addr & 3))
		return FALSE;
	*w = s->words[(addr - STK) / 4];
	return TRUE;
}

static PlEhabiStatus run(Tbl *t, guint32 pc, guint32 regs[16], guint32 *valid, Stack *s)
{
	PlEhabiEntry ent;
	PlEhabiStatus st = pl_ehabi_lookup(&t->img, pc, &ent);
	if (st != PL_EHABI_OK)
		return st;
	return pl_ehabi_execute(&ent, regs, valid, stack_read, s);
}

static void init_regs(guint32 r[16], guint32 *valid)
{
	for (guint i = 0; i < 16; i++)
		r[i] = 0x1000 + i;
	r[13] = STK;
	r[14] = 0x20001; /* a Thumb return address */
	r[15] = 0x9004;
	*valid = 0xffff;
}

/* The same well-formed tables in both byte orders give the same frames. */
static void synthetic_tables_both_orders(void)
{
	for (int big = 0; big <= 1; big++) {
		Tbl t;
		tbl_init(&t, big);
		/* f1: inline PR0: vsp += 8; pop {r4, r14}; finish */
		add_entry(&t, T_BASE + 0x900, 0x8001a8b0u, 0);
		/* f2: cantunwind */
		add_entry(&t, T_BASE + 0xa00, 1, 0);
		/* f3: extab PR1, one extra word: pop {r0-r3}; vsp += 0x204 + (1 << 2)
		 * (uleb128 0x01); pop {d8-d9} (VPUSH); finish: pc = lr */
		add_entry(&t, T_BASE + 0xb00, 0, T_EXTAB);
		put32(&t, T_EXTAB, 0x8101b10fu);      /* PR1, 1 more word, b1 0f */
		put32(&t, T_EXTAB + 4, 0xb201d1b0u);  /* b2 01, d1, b0 */
		/* f4: generic personality (a prel31 to the routine), then a word
		 * of count 1 + opcodes a3 (pop r4-r7), 84 00 (pop r14), finish */
		add_entry(&t, T_BASE + 0xc00, 0, T_EXTAB + 0x10);
		put32(&t, T_EXTAB + 0x10, prel(T_EXTAB + 0x10, T_BASE + 0x40)); /* routine */
		put32(&t, T_EXTAB + 0x14, 0x01a38400u);                    /* 1 word, a3 84 00 */
		put32(&t, T_EXTAB + 0x18, 0xb0b0b0b0u);
		/* f5: pop {r13} under mask: the popped value is the new vsp */
		add_entry(&t, T_BASE + 0xd00, 0x808200a8u, 0); /* 82 00: pop {r13}; a8 */

		Stack s = { 0 };
		for (guint i = 0; i < 64; i++)
			s.words[i] = 0x50000 + i;
		guint32 r[16], v;

		init_regs(r, &v);
		PL_CHECK(run(&t, T_BASE + 0x904, r, &v, &s) == PL_EHABI_OK);
		/* vsp += 8 skips words 0, 1; r4 = word 2, r14 = word 3 */
		PL_CHECK(r[4] == 0x50002 && r[14] == 0x50003 && r[15] == 0x50002 &&
			 r[13] == STK + 16);
		PL_CHECK(!(v & 0x100f) && (v & 0xe010) == 0xe010); /* r0-r3, r12 unknown */

		init_regs(r, &v);
		PL_CHECK(run(&t, T_BASE + 0xa10, r, &v, &s) == PL_EHABI_CANTUNWIND);
		PL_CHECK(r[13] == STK && v == 0xffff); /* untouched on failure */

		init_regs(r, &v);
		PL_CHECK(run(&t, T_BASE + 0xb08, r, &v, &s) == PL_EHABI_OK);
		/* pop r0-r3 (16 bytes), vsp += 0x208, pop d8-d9 (16 bytes) */
		PL_CHECK(r[0] == 0x50000 && r[3] == 0x50003 && (v & 0xf) == 0xf);
		PL_CHECK(r[13] == STK + 16 + 0x208 + 16 && r[15] == 0x20000);

		init_regs(r, &v);
		PL_CHECK(run(&t, T_BASE + 0xc00, r, &v, &s) == PL_EHABI_OK);
		/* a3: pop r4-r7; 84 00: pop r14 */
		PL_CHECK(r[4] == 0x50000 && r[7] == 0x50003 && r[14] == 0x50004 &&
			 r[15] == 0x50004 && r[13] == STK + 20);

		init_regs(r, &v);
		s.words[0] = STK + 40;
		PL_CHECK(run(&t, T_BASE + 0xd00, r, &v, &s) == PL_EHABI_OK);
		/* pop {r13}: vsp = STK + 40; then a8: pop {r4, r14} from there */
		PL_CHECK(r[13] == STK + 48 && r[4] == 0x5000a && r[15] == 0x5000a);
		s.words[0] = 0x50000;

		/* before the first entry */
		PlEhabiEntry ent;
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x8ff, &ent) == PL_EHABI_NO_ENTRY);
	}
}

static PlEhabiStatus run_ops(const guint8 *ops, guint n, guint32 r[16], guint32 *v, Stack *s)
{
	PlEhabiEntry ent = { 0 };
	memcpy(ent.ops, ops, n);
	ent.nops = n;
	return pl_ehabi_execute(&ent, r, v, stack_read, s);
}

static void bad_opcodes_fail(void)
{
	static const guint8 bad[][8] = {
		{ 2, 0x9d },             /* reserved: ARM register moves */
		{ 2, 0x9f },             /* reserved: iWMMXt moves */
		{ 3, 0xb1, 0x00 },       /* spare */
		{ 3, 0xb1, 0x12 },       /* spare */
		{ 2, 0xb5 }, { 2, 0xb7 }, /* spare */
		{ 3, 0xc7, 0x00 },       /* spare */
		{ 3, 0xc7, 0x21 },       /* spare */
		{ 2, 0xca }, { 2, 0xcf }, /* spare */
		{ 2, 0xd8 }, { 2, 0xff }, /* spare */
		{ 2, 0x84 },             /* cut: the mask byte is missing */
		{ 7, 0xb2, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, /* uleb128 over 32 bits */
		{ 3, 0xb2, 0x80, 0x80 }, /* uleb128 cut */
	};
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		Stack s = { 0 };
		guint32 r[16], v;
		init_regs(r, &v);
		PlEhabiStatus st = run_ops(bad[i] + 1, bad[i][0] - 1u, r, &v, &s);
		PL_CHECKF(st == PL_EHABI_BAD_OPCODE, "case %u: %s", i, pl_ehabi_status_str(st));
		PL_CHECK(r[13] == STK && v == 0xffff);
	}
	/* refuse to unwind */
	Stack s = { 0 };
	guint32 r[16], v;
	init_regs(r, &v);
	static const guint8 refuse[] = { 0x80, 0x00 };
	PL_CHECK(run_ops(refuse, 2, r, &v, &s) == PL_EHABI_CANTUNWIND);
	/* vsp = r7 when r7 is unknown */
	init_regs(r, &v);
	v &= ~(1u << 7);
	static const guint8 fp[] = { 0x97, 0xa8 };
	PL_CHECK(run_ops(fp, 2, r, &v, &s) == PL_EHABI_BAD_REGS);
	/* a pop past the copied stack */
	init_regs(r, &v);
	static const guint8 far[] = { 0x3f, 0x3f, 0x3f, 0xa8 };
	PL_CHECK(run_ops(far, 4, r, &v, &s) == PL_EHABI_BAD_READ);
	/* pc from lr, and lr unknown */
	init_regs(r, &v);
	v &= ~(1u << 14);
	static const guint8 fin[] = { 0xb0 };
	PL_CHECK(run_ops(fin, 1, r, &v, &s) == PL_EHABI_BAD_REGS);
}

static void malformed_tables_fail(void)
{
	for (int big = 0; big <= 1; big++) {
		Tbl t;
		PlEhabiEntry ent;
		/* extab offset outside the file */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 0x3fff0000u, 0);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_BAD_TABLE);
		/* prel31 backwards out of the file */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 0x7fff0000u, 0);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_BAD_TABLE);
		/* an inline entry with a personality index other than 0 */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 0x8101b0b0u, 0);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_BAD_TABLE);
		/* extab personality index 3 (unknown) */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 0, T_EXTAB);
		put32(&t, T_EXTAB, 0x83b0b0b0u);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_BAD_TABLE);
		/* PR1 claiming 255 more words at the end of the file: truncated */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 0, T_SIZE - 8);
		put32(&t, T_SIZE - 8, 0x81ffb0b0u);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_BAD_TABLE);
		/* an exidx function word with bit 31 set */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 1, 0);
		put32(&t, T_EXIDX, 0x80000000u);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_BAD_TABLE);
		/* the table runs past its segment */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 1, 0);
		t.img.exidx_size = T_SIZE;
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x2000, &ent) == PL_EHABI_BAD_TABLE);

		/* endless opcodes: 255 words of "vsp -= 4" decode (capped) and
		 * execute in one bounded pass, and the step rule refuses a
		 * frame that walks down the stack */
		tbl_init(&t, big);
		add_entry(&t, T_BASE + 0x900, 0, T_EXTAB);
		put32(&t, T_EXTAB, 0x81ff4040u);
		for (guint i = 1; i <= 255; i++)
			put32(&t, T_EXTAB + 4 * i, 0x40404040u);
		PL_CHECK(pl_ehabi_lookup(&t.img, T_BASE + 0x900, &ent) == PL_EHABI_OK);
		PL_CHECK(ent.nops == 2 + 255 * 4 && ent.nops <= PL_EHABI_MAX_OPS);
		Stack s = { 0 };
		guint32 r[16], v;
		init_regs(r, &v);
		PL_CHECK(pl_ehabi_execute(&ent, r, &v, stack_read, &s) == PL_EHABI_OK);
		PL_CHECK(r[13] == STK - 4 * ent.nops && s.reads == 0);
		PL_CHECK(!pl_ehabi_frame_advances(STK, 0x9004, r, FALSE));
		/* ... and one that stays put on a return-address frame */
		init_regs(r, &v);
		static const guint8 fin[] = { 0xb0 };
		PL_CHECK(run_ops(fin, 1, r, &v, &s) == PL_EHABI_OK);
		PL_CHECK(pl_ehabi_frame_advances(STK, 0x9004, r, FALSE)); /* a leaf: fine */
		PL_CHECK(!pl_ehabi_frame_advances(STK, 0x9004, r, TRUE));
		r[15] = 0x9004;
		PL_CHECK(!pl_ehabi_frame_advances(STK, 0x9004, r, FALSE)); /* pc = lr = pc */
	}
}

/* A truncated ELF file and random table bytes: no crash, no hang. */
static void truncated_file_and_random_bytes(void)
{
	PL_CHECKF(g_file_test(LIBC, G_FILE_TEST_EXISTS), LIBC " is missing (libc6-armhf-cross: ci/deps.sh)");
	g_autofree char *data = NULL;
	gsize len = 0;
	PL_CHECK(g_file_get_contents(LIBC, &data, &len, NULL));
	guint ok = 0;
	PlEhabiEntry *ent = g_new(PlEhabiEntry, 1);
	/* cut the file inside .ARM.exidx, inside .ARM.extab, and early */
	const gsize cuts[] = { 0x1078b0 + 0x800, 0x106da8 + 0x10, 0x109000, 4096, 52 };
	for (guint c = 0; c < G_N_ELEMENTS(cuts); c++) {
		Elf *e = elf_memory(data, MIN(cuts[c], len));
		PlEhabiImage img;
		if (e && pl_ehabi_image_from_elf(e, &img)) {
			ok++;
			for (guint32 a = 0x1e000; a < 0xea000; a += 0x40)
				(void)pl_ehabi_lookup(&img, a, ent);
		}
		if (e)
			elf_end(e);
	}
	PL_CHECK(ok <= 1); /* only the cut after both tables keeps a table */

	GRand *rnd = g_rand_new_with_seed(4711);
	Tbl t;
	for (guint iter = 0; iter < 3000; iter++) {
		tbl_init(&t, g_rand_boolean(rnd));
		for (guint i = 0; i < T_SIZE; i++)
			t.buf[i] = (guint8)g_rand_int(rnd);
		t.img.exidx_vaddr = T_BASE + (g_rand_int_range(rnd, 0, T_SIZE) & ~3u);
		t.img.exidx_size = (guint32)g_rand_int_range(rnd, 0, 2 * T_SIZE) & ~7u;
		for (guint k = 0; k < 16; k++) {
			Stack s;
			for (guint i = 0; i < 64; i++)
				s.words[i] = g_rand_int(rnd);
			s.reads = 0;
			guint32 r[16], v;
			init_regs(r, &v);
			guint32 pc = T_BASE + (guint32)g_rand_int_range(rnd, -0x100, 2 * T_SIZE);
			if (pl_ehabi_lookup(&t.img, pc, ent) == PL_EHABI_OK) {
				PL_CHECK(ent->nops <= PL_EHABI_MAX_OPS);
				(void)pl_ehabi_execute(ent, r, &v, stack_read, &s);
				PL_CHECK(s.reads <= PL_EHABI_MAX_OPS * 16);
			}
		}
	}
	g_rand_free(rnd);
	g_free(ent);
}

PL_TEST_MAIN(PL_CASE(big_endian_program_arm), PL_CASE(big_endian_program_thumb),
	     PL_CASE(decoder_matches_readelf_libc), PL_CASE(decoder_matches_readelf_big_endian),
	     PL_CASE(synthetic_tables_both_orders), PL_CASE(bad_opcodes_fail),
	     PL_CASE(malformed_tables_fail), PL_CASE(truncated_file_and_random_bytes))
