/* pl-ehabi.c — ARM EHABI (.ARM.exidx / .ARM.extab) unwinding.
 *
 * Why it exists: Debian's armhf libc and many ARM firmware builds carry
 * only the ARM exception-handling ABI tables, which libdw cannot read, so
 * a DWARF walk stops at the first frame in such code.  pl_symbols_unwind
 * calls pl_ehabi_step() whenever libdw stops on an EM_ARM target, with the
 * registers of the last frame it reached; a successful step restarts libdw
 * from the caller's registers, so EHABI and CFI frames can alternate.
 *
 * The decoder (pl-ehabi.h) works on the file bytes libelf already holds;
 * stack words come through the same reader as libdw's (the copied stack,
 * then the loaded segments of the mapped files), so a word outside both
 * ends the walk and marks the stack truncated, as for DWARF.
 *
 * It also feeds the coverage report: on ARM32, code that neither CFI nor
 * .ARM.exidx describes is where every DWARF-mode stack will stop, and the
 * user is told which functions those are.
 */
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "pl-ehabi.h"
#include "pl-symbols-private.h"

#define EXIDX_CANTUNWIND 1u
#define ULEB_MAX_BYTES 5u    /* a 32-bit value; more is a malformed table */
#define COVERAGE_NAMES 8u    /* functions named in the coverage sentence */
#define COVERAGE_MAX_GAPS 65536u

const char *pl_ehabi_status_str(PlEhabiStatus st)
{
	switch (st) {
	case PL_EHABI_OK:
		return "ok";
	case PL_EHABI_CANTUNWIND:
		return "the table says this function cannot be unwound";
	case PL_EHABI_NO_ENTRY:
		return "no .ARM.exidx entry covers the address";
	case PL_EHABI_BAD_TABLE:
		return "malformed .ARM.exidx/.ARM.extab entry";
	case PL_EHABI_BAD_OPCODE:
		return "spare or reserved unwind opcode";
	case PL_EHABI_BAD_READ:
		return "a stack word is outside the copied stack and the files";
	case PL_EHABI_BAD_REGS:
		return "the opcodes need a register the sample does not have";
	}
	return "?";
}

/* ======================================================================
 * The image: file bytes seen through the program headers
 * ====================================================================== */

static guint32 get32(const PlEhabiImage *img, const guint8 *p)
{
	if (img->big)
		return (guint32)p[0] << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 | p[3];
	return (guint32)p[3] << 24 | (guint32)p[2] << 16 | (guint32)p[1] << 8 | p[0];
}

/* The file word at vaddr, when a PT_LOAD's file bytes hold all of it. */
static gboolean image_word(const PlEhabiImage *img, guint32 vaddr, guint32 *w)
{
	for (guint i = 0; i < img->nsegs; i++) {
		const PlEhabiSeg *s = &img->segs[i];
		guint32 d = vaddr - s->vaddr;
		if (vaddr < s->vaddr || s->filesz < 4 || d > s->filesz - 4)
			continue;
		guint64 off = (guint64)s->offset + d;
		if (off + 4 > img->file_size)
			return FALSE;
		*w = get32(img, img->file + off);
		return TRUE;
	}
	return FALSE;
}

/* prel31: a 31-bit signed offset from the place that holds it. */
static guint32 prel31(guint32 place, guint32 word)
{
	guint32 off = word & 0x7fffffffu;
	if (off & 0x40000000u)
		off |= 0x80000000u;
	return place + off;
}

static void add_range(PlEhabiSeg *arr, guint *n, guint32 vaddr, guint64 size, guint64 off,
		      gboolean exec)
{
	if (*n >= PL_EHABI_MAX_SEGS || size == 0)
		return;
	arr[*n] = (PlEhabiSeg){ vaddr, (guint32)off, (guint32)MIN(size, G_MAXUINT32), exec };
	(*n)++;
}

gboolean pl_ehabi_image_from_elf(Elf *e, PlEhabiImage *img)
{
	memset(img, 0, sizeof(*img));
	GElf_Ehdr eh;
	size_t raw_size = 0;
	const char *raw = e ? elf_rawfile(e, &raw_size) : NULL;
	if (!raw || !gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS32 ||
	    eh.e_machine != EM_ARM)
		return FALSE;
	img->file = (const guint8 *)raw;
	img->file_size = raw_size;
	img->big = eh.e_ident[EI_DATA] == ELFDATA2MSB;

	guint64 ex_off = 0, ex_size = 0;
	gboolean have_ex = FALSE;
	size_t phnum = 0;
	if (elf_getphdrnum(e, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph))
				continue;
			if (ph.p_type == PT_LOAD)
				add_range(img->segs, &img->nsegs, (guint32)ph.p_vaddr,
					  MIN(ph.p_filesz, ph.p_memsz), ph.p_offset,
					  (ph.p_flags & PF_X) != 0);
			else if (ph.p_type == PT_ARM_EXIDX && !have_ex) {
				have_ex = TRUE;
				img->exidx_vaddr = (guint32)ph.p_vaddr;
				ex_off = ph.p_offset;
				ex_size = ph.p_filesz;
			}
		}
	}
	size_t shstrndx = 0;
	gboolean names = elf_getshdrstrndx(e, &shstrndx) == 0;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sh.sh_type == SHT_ARM_EXIDX && !have_ex) {
			have_ex = TRUE;
			img->exidx_vaddr = (guint32)sh.sh_addr;
			ex_off = sh.sh_offset;
			ex_size = sh.sh_size;
		}
		const char *name = names ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS && name &&
		    strcmp(name, ".plt") && strcmp(name, ".iplt"))
			add_range(img->code, &img->ncode, (guint32)sh.sh_addr, sh.sh_size,
				  sh.sh_offset, TRUE);
	}
	if (img->ncode == 0)
		for (guint i = 0; i < img->nsegs; i++)
			if (img->segs[i].exec)
				img->code[img->ncode++] = img->segs[i];
	/* the table must lie in the file; its vaddr must be readable through
	 * the segments too (entries are prel31 from their own address) */
	if (!have_ex || ex_off > raw_size || ex_size > raw_size - ex_off || ex_size < 8)
		return FALSE;
	img->exidx_size = (guint32)(MIN(ex_size, G_MAXUINT32) & ~7u);
	guint32 w;
	return image_word(img, img->exidx_vaddr, &w) &&
	       image_word(img, img->exidx_vaddr + img->exidx_size - 4, &w);
}

/* ======================================================================
 * Table lookup
 * ====================================================================== */

/* Function start of entry i; FALSE when its word is not in the file. */
static gboolean entry_start(const PlEhabiImage *img, guint32 i, guint32 *start)
{
	guint32 place = img->exidx_vaddr + i * 8u, w;
	if (!image_word(img, place, &w) || (w & 0x80000000u))
		return FALSE;
	*start = prel31(place, w) & ~1u; /* a Thumb function's start may carry bit 0 */
	return TRUE;
}

/* Appends the opcode bytes of word w, most significant first, from byte
 * index first (3 = the top byte) down. */
static void take_ops(PlEhabiEntry *out, guint32 w, int first)
{
	for (int b = first; b >= 0 && out->nops < PL_EHABI_MAX_OPS; b--)
		out->ops[out->nops++] = (guint8)(w >> (8 * b));
}

static PlEhabiStatus extab_ops(const PlEhabiImage *img, guint32 at, PlEhabiEntry *out)
{
	guint32 w, more;
	if (!image_word(img, at, &w))
		return PL_EHABI_BAD_TABLE;
	if (w & 0x80000000u) {
		/* compact model in .ARM.extab: 1000 iiii + opcodes */
		guint idx = (w >> 24) & 0x0fu;
		if ((w >> 28) != 0x8u || idx > 2)
			return PL_EHABI_BAD_TABLE;
		out->personality = (gint)idx;
		if (idx == 0) {
			take_ops(out, w, 2);
			return PL_EHABI_OK;
		}
		more = (w >> 16) & 0xffu;
		take_ops(out, w, 1);
	} else {
		/* generic model: a prel31 to the personality routine, then (GCC's
		 * and LLVM's layout) a word of count + three opcodes */
		out->personality = -1;
		at += 4;
		if (!image_word(img, at, &w))
			return PL_EHABI_BAD_TABLE;
		more = w >> 24;
		take_ops(out, w, 2);
	}
	for (guint32 i = 0; i < more; i++) {
		at += 4;
		if (at < 4 || !image_word(img, at, &w))
			return PL_EHABI_BAD_TABLE; /* the count runs past the file */
		take_ops(out, w, 3);
	}
	return PL_EHABI_OK;
}

PlEhabiStatus pl_ehabi_lookup(const PlEhabiImage *img, guint32 vaddr, PlEhabiEntry *out)
{
	guint32 n = img->exidx_size / 8u;
	if (n == 0)
		return PL_EHABI_NO_ENTRY;
	/* the last entry whose start is <= vaddr (the linker sorts them) */
	guint32 lo = 0, hi = n, found = G_MAXUINT32, fn = 0;
	while (lo < hi) {
		guint32 mid = lo + (hi - lo) / 2, s;
		if (!entry_start(img, mid, &s))
			return PL_EHABI_BAD_TABLE;
		if (s <= vaddr) {
			found = mid;
			fn = s;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (found == G_MAXUINT32)
		return PL_EHABI_NO_ENTRY;
	out->fn_start = fn;
	out->index = found;
	out->personality = 0;
	out->cantunwind = FALSE;
	out->nops = 0;
	guint32 place = img->exidx_vaddr + found * 8u + 4u, w;
	if (!image_word(img, place, &w))
		return PL_EHABI_BAD_TABLE;
	if (w == EXIDX_CANTUNWIND) {
		out->cantunwind = TRUE;
		return PL_EHABI_CANTUNWIND;
	}
	if (w & 0x80000000u) {
		/* inline: 1000 0000 + three personality-0 opcodes */
		if ((w >> 24) != 0x80u)
			return PL_EHABI_BAD_TABLE;
		take_ops(out, w, 2);
		return PL_EHABI_OK;
	}
	return extab_ops(img, prel31(place, w), out);
}

void pl_ehabi_uncovered(const PlEhabiImage *img, GArray *out)
{
	guint32 n = img->exidx_size / 8u;
	for (guint c = 0; c < img->ncode; c++) {
		guint32 lo = img->code[c].vaddr;
		guint64 hi = (guint64)lo + img->code[c].filesz;
		if (hi > G_MAXUINT32) /* a 32-bit image: ranges are stored as guint32 */
			hi = G_MAXUINT32;
		guint64 at = lo; /* everything below is accounted for */
		/* entries are sorted: entry i covers [start_i, start_i+1) */
		for (guint32 i = 0; i < n && at < hi; i++) {
			guint32 s, next = 0, w;
			if (!entry_start(img, i, &s) ||
			    !image_word(img, img->exidx_vaddr + i * 8u + 4u, &w))
				return;
			guint64 end = i + 1 < n && entry_start(img, i + 1, &next) ? next : hi;
			if (end > hi)
				end = hi;
			if (end <= at || s >= hi)
				continue;
			if (s > at) { /* code before this entry: no entry at all */
				guint32 r[2] = { (guint32)at, s };
				g_array_append_vals(out, r, 2);
				at = s;
			}
			if (w == EXIDX_CANTUNWIND) {
				guint32 r[2] = { (guint32)at, (guint32)end };
				if (out->len >= 2 &&
				    g_array_index(out, guint32, out->len - 1) == (guint32)at)
					g_array_index(out, guint32, out->len - 1) = (guint32)end;
				else
					g_array_append_vals(out, r, 2);
			}
			at = end;
		}
		if (n == 0 && hi > lo) {
			guint32 r[2] = { lo, (guint32)hi };
			g_array_append_vals(out, r, 2);
		}
		if (out->len > 2 * COVERAGE_MAX_GAPS)
			return;
	}
}

/* ======================================================================
 * The virtual unwinder: one frame
 * ====================================================================== */

typedef struct {
	guint32 vsp;
	guint32 r[16];
	guint32 valid, popped;
	PlEhabiReadFn read;
	void *ud;
} PlVrs;

static PlEhabiStatus pop_core(PlVrs *v, guint32 mask)
{
	for (guint i = 0; i < 16; i++) {
		if (!(mask & (1u << i)))
			continue;
		guint32 w;
		if (!v->read(v->ud, v->vsp, &w))
			return PL_EHABI_BAD_READ;
		v->r[i] = w;
		v->valid |= 1u << i;
		v->popped |= 1u << i;
		v->vsp += 4;
	}
	if (mask & (1u << 13))
		v->vsp = v->r[13]; /* popping sp sets the vsp */
	return PL_EHABI_OK;
}

PlEhabiStatus pl_ehabi_execute(const PlEhabiEntry *ent, guint32 regs[16], guint32 *valid,
			       PlEhabiReadFn read, void *ud)
{
	if (ent->cantunwind)
		return PL_EHABI_CANTUNWIND;
	if (!(*valid & (1u << 13)))
		return PL_EHABI_BAD_REGS;
	PlVrs v = { regs[13], { 0 }, *valid, 0, read, ud };
	memcpy(v.r, regs, sizeof(v.r));
	const guint8 *op = ent->ops, *end = ent->ops + MIN(ent->nops, PL_EHABI_MAX_OPS);
	PlEhabiStatus st = PL_EHABI_OK;
	/* one pass over a bounded string: every opcode consumes >= 1 byte */
	while (op < end && st == PL_EHABI_OK) {
		guint8 b = *op++;
		guint8 b2 = 0;
		gboolean two = (b & 0xf0) == 0x80 || b == 0xb1 || b == 0xb3 || b == 0xc6 ||
			       b == 0xc7 || b == 0xc8 || b == 0xc9;
		if (two) {
			if (op >= end)
				return PL_EHABI_BAD_OPCODE; /* cut in the middle */
			b2 = *op++;
		}
		if ((b & 0xc0) == 0x00) {
			v.vsp += ((guint32)(b & 0x3f) << 2) + 4; /* vsp += 0x04..0x100 */
		} else if ((b & 0xc0) == 0x40) {
			v.vsp -= ((guint32)(b & 0x3f) << 2) + 4;
		} else if ((b & 0xf0) == 0x80) {
			guint32 mask = ((guint32)(b & 0x0f) << 8 | b2) << 4; /* r4..r15 */
			if (mask == 0)
				return PL_EHABI_CANTUNWIND; /* 0x80 0x00: refuse to unwind */
			st = pop_core(&v, mask);
		} else if ((b & 0xf0) == 0x90) {
			guint n = b & 0x0f;
			if (n == 13 || n == 15)
				return PL_EHABI_BAD_OPCODE; /* reserved */
			if (!(v.valid & (1u << n)))
				return PL_EHABI_BAD_REGS;
			v.vsp = v.r[n];
		} else if ((b & 0xf0) == 0xa0) {
			guint32 mask = ((1u << ((b & 7) + 1)) - 1) << 4; /* r4..r[4+nnn] */
			if (b & 0x08)
				mask |= 1u << 14;
			st = pop_core(&v, mask);
		} else if (b == 0xb0) {
			break; /* finish */
		} else if (b == 0xb1) {
			if (b2 == 0 || (b2 & 0xf0))
				return PL_EHABI_BAD_OPCODE; /* spare */
			st = pop_core(&v, b2);
		} else if (b == 0xb2) {
			guint32 u = 0;
			guint i = 0;
			for (;; i++) {
				if (op >= end || i >= ULEB_MAX_BYTES)
					return PL_EHABI_BAD_OPCODE;
				guint8 c = *op++;
				u |= (guint32)(c & 0x7f) << (7 * i);
				if (!(c & 0x80))
					break;
			}
			v.vsp += 0x204 + (u << 2);
		} else if (b == 0xb3) {
			v.vsp += ((guint32)(b2 & 0x0f) + 1) * 8 + 4; /* FSTMFDX: + a pad word */
		} else if (b == 0xb4) {
			v.vsp += 4; /* return-address authentication code (PACBTI) */
		} else if ((b & 0xf8) == 0xb8) {
			v.vsp += ((guint32)(b & 7) + 1) * 8 + 4; /* D8.. by FSTMFDX */
		} else if ((b & 0xf8) == 0xc0 && b <= 0xc5) {
			v.vsp += ((guint32)(b & 7) + 1) * 8; /* iWMMXt wR10.. */
		} else if (b == 0xc6 || b == 0xc8 || b == 0xc9) {
			v.vsp += ((guint32)(b2 & 0x0f) + 1) * 8; /* wR / D16+ / D ranges */
		} else if (b == 0xc7) {
			if (b2 == 0 || (b2 & 0xf0))
				return PL_EHABI_BAD_OPCODE;
			v.vsp += 4u * (guint32)__builtin_popcount(b2); /* wCGR mask */
		} else if ((b & 0xf8) == 0xd0) {
			v.vsp += ((guint32)(b & 7) + 1) * 8; /* D8.. by VPUSH */
		} else {
			return PL_EHABI_BAD_OPCODE; /* 0x9d/0x9f handled above; 0xb5-0xb7,
						     * 0xca-0xcf, 0xd8-0xff: spare */
		}
	}
	if (st != PL_EHABI_OK)
		return st;
	guint32 pc;
	if (v.popped & (1u << 15))
		pc = v.r[15];
	else if (v.valid & (1u << 14))
		pc = v.r[14];
	else
		return PL_EHABI_BAD_REGS;
	v.r[15] = pc & ~1u; /* the Thumb bit names the caller's mode, not an address */
	v.r[13] = v.vsp;
	v.valid |= (1u << 13) | (1u << 15);
	/* r0-r3 and r12 are the callee's to clobber */
	v.valid &= ~(0x100fu & ~v.popped);
	memcpy(regs, v.r, sizeof(v.r));
	*valid = v.valid;
	return PL_EHABI_OK;
}

/* ======================================================================
 * The hook in pl_symbols_unwind
 * ====================================================================== */

gboolean pl_ehabi_frame_advances(guint32 old_sp, guint32 old_pc, const guint32 regs[16],
				 gboolean is_return_address)
{
	/* stacks grow down: a caller's frame lies above its callee's */
	if (regs[13] > old_sp)
		return TRUE;
	return regs[13] == old_sp && !is_return_address && (regs[15] & ~1u) != (old_pc & ~1u);
}

static gboolean read_sample(void *ud, guint32 addr, guint32 *word)
{
	guint64 w;
	if (!pl_unwind_read_word(ud, addr, &w))
		return FALSE;
	*word = (guint32)w;
	return TRUE;
}

PlEhabiStep pl_ehabi_step(PlSymbols *self, PlProc *proc, guint64 regs[16], guint32 *valid,
			  gboolean is_return_address)
{
	if (self->arch.e_machine != EM_ARM || !proc->dwfl ||
	    (*valid & 0xa000u) != 0xa000u) /* pc and sp */
		return PL_EHABI_STEP_FAIL;
	guint32 pc = (guint32)regs[15] & ~1u, sp = (guint32)regs[13];
	if (pc == 0)
		return PL_EHABI_STEP_END;
	/* a return address is past the call: the call itself is at pc - 1,
	 * which may be the last instruction of the function */
	guint32 at = is_return_address ? pc - 1 : pc;
	Dwfl_Module *mod = dwfl_addrmodule(proc->dwfl, at);
	Dwarf_Addr bias = 0;
	Elf *e = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	PlEhabiImage img;
	if (!e || !pl_ehabi_image_from_elf(e, &img))
		return PL_EHABI_STEP_FAIL;
	PlEhabiEntry *ent = g_new(PlEhabiEntry, 1); /* 1 KiB of opcodes: not on the stack */
	PlEhabiStatus st = pl_ehabi_lookup(&img, at - (guint32)bias, ent);
	guint32 r[16], v = *valid;
	for (guint i = 0; i < 16; i++)
		r[i] = (guint32)regs[i];
	if (st == PL_EHABI_OK)
		st = pl_ehabi_execute(ent, r, &v, read_sample, proc);
	if (st == PL_EHABI_CANTUNWIND) {
		/* _start marks itself so: the outermost frame.  But gcc also
		 * marks every nothrow C function built without -funwind-tables
		 * (most of Debian's armhf libc: malloc, memcpy, exit…), and the
		 * linker covers asm without tables the same way: there the walk
		 * is cut short.  Only the entry point's function counts as the
		 * end; a thread's start in libc stays "truncated". */
		GElf_Ehdr eh;
		PlEhabiEntry *start = g_new(PlEhabiEntry, 1);
		gboolean outermost =
			is_return_address && gelf_getehdr(e, &eh) && eh.e_entry &&
			pl_ehabi_lookup(&img, (guint32)eh.e_entry & ~1u, start) ==
				PL_EHABI_CANTUNWIND &&
			start->index == ent->index;
		g_free(start);
		g_free(ent);
		return outermost ? PL_EHABI_STEP_END : PL_EHABI_STEP_FAIL;
	}
	g_free(ent);
	if (st != PL_EHABI_OK)
		return PL_EHABI_STEP_FAIL;
	if (!pl_ehabi_frame_advances(sp, pc, r, is_return_address))
		return PL_EHABI_STEP_FAIL; /* a table that loops or walks down */
	if (r[15] == 0)
		return PL_EHABI_STEP_END; /* lr cleared by _start: the outermost frame */
	for (guint i = 0; i < 16; i++)
		regs[i] = r[i];
	*valid = v;
	return PL_EHABI_STEP_OK;
}

/* ======================================================================
 * Coverage: ARM32 code with neither CFI nor .ARM.exidx
 * ====================================================================== */

/* End of the CFI description covering addr (in either table), or 0. */
static guint64 cfi_end(Dwarf_CFI *const *cfis, guint n, guint64 addr)
{
	for (guint i = 0; i < n; i++) {
		Dwarf_Frame *f = NULL;
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], addr, &f) != 0)
			continue;
		Dwarf_Addr s = 0, e = 0;
		gboolean ok = dwarf_frame_info(f, &s, &e, NULL) >= 0 && e > addr;
		free(f);
		if (ok)
			return e;
	}
	return 0;
}

typedef struct {
	guint32 addr;
	const char *name;
} PlNamedAddr;

static gint cmp_named(gconstpointer a, gconstpointer b)
{
	const PlNamedAddr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Is addr inside one of the sorted [start, end) pairs of r? */
static gboolean in_ranges(const GArray *r, guint32 addr)
{
	guint lo = 0, hi = r->len / 2;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		guint32 a = g_array_index(r, guint32, 2 * mid), z = g_array_index(r, guint32, 2 * mid + 1);
		if (addr < a)
			hi = mid;
		else if (addr >= z)
			lo = mid + 1;
		else
			return TRUE;
	}
	return FALSE;
}

/* "N functions: a, b, c, …" for the function symbols that start in the
 * bare ranges (ARM mapping symbols $a/$t/$d are not functions). */
static char *bare_functions(PlSymbols *self, Dwfl_Module *mod, const GArray *bare)
{
	g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(PlNamedAddr));
	int n = dwfl_module_getsymtab(mod);
	for (int i = 0; i < n && found->len < COVERAGE_MAX_GAPS; i++) {
		GElf_Sym sym;
		GElf_Addr addr = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || !*name || name[0] == '$' || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		guint32 a = (guint32)sym.st_value & ~1u; /* bias 0; the Thumb bit is not an address */
		if (in_ranges(bare, a))
			g_array_append_val(found, ((PlNamedAddr){ a, name }));
	}
	g_array_sort(found, cmp_named);
	GString *g = g_string_new(NULL);
	guint shown = 0, total = 0;
	for (guint i = 0; i < found->len; i++) {
		const PlNamedAddr *f = &g_array_index(found, PlNamedAddr, i);
		if (i > 0 && g_array_index(found, PlNamedAddr, i - 1).addr == f->addr)
			continue; /* aliases: memcpy and __memcpy_neon at one address */
		total++;
		if (shown >= COVERAGE_NAMES)
			continue;
		g_autofree char *plain = g_strndup(f->name, strcspn(f->name, "@"));
		g_string_append_printf(g, "%s%s", shown++ ? ", " : "", pl_sym_demangle(self, plain));
	}
	if (total == 0) {
		g_string_free(g, TRUE);
		return g_strdup("no function symbols there");
	}
	char *r = g_strdup_printf("%u function%s: %s%s", total, total == 1 ? "" : "s", g->str,
				  total > shown ? ", …" : "");
	g_string_free(g, TRUE);
	return r;
}

void pl_ehabi_coverage(PlSymbols *self, PlElf *elf, PlModuleReport *row)
{
	if (elf->e_machine != EM_ARM || !elf->local_path)
		return;
	g_autofree char *sentence = NULL;
	if (!elf->has_ehabi && !elf->has_cfi) {
		sentence = g_strdup_printf(
			"%s: no unwind tables (neither .eh_frame/.debug_frame nor .ARM.exidx): "
			"DWARF-mode stacks stop at its first frame; build it with "
			"-funwind-tables, or keep its .debug_frame (-g) in the file given here",
			elf->name);
	} else if (elf->mod) {
		Dwarf_Addr bias = 0;
		Elf *e = dwfl_module_getelf(elf->mod, &bias);
		PlEhabiImage img;
		if (!e || !pl_ehabi_image_from_elf(e, &img))
			return; /* no .ARM.exidx: CFI alone, as on any other machine */
		Dwarf_Addr b1 = 0, b2 = 0;
		Dwarf_CFI *cfis[2] = { dwfl_module_eh_cfi(elf->mod, &b1),
				       dwfl_module_dwarf_cfi(elf->mod, &b2) };
		g_autoptr(GArray) gaps = g_array_new(FALSE, FALSE, sizeof(guint32));
		g_autoptr(GArray) bare = g_array_new(FALSE, FALSE, sizeof(guint32));
		pl_ehabi_uncovered(&img, gaps);
		guint64 code = 0, bare_bytes = 0;
		for (guint i = 0; i < img.ncode; i++)
			code += img.code[i].filesz;
		for (guint i = 0; i + 1 < gaps->len; i += 2) {
			guint64 a = g_array_index(gaps, guint32, i);
			guint64 z = g_array_index(gaps, guint32, i + 1);
			/* CFI may describe what the exidx table does not (only its
			 * start is checked: FDEs and exidx entries are per function) */
			for (guint steps = 0; a < z && steps < 64; steps++) {
				guint64 ce = cfi_end(cfis, 2, a);
				if (!ce)
					break;
				a = ce;
			}
			if (a >= z)
				continue;
			bare_bytes += z - a;
			guint32 r[2] = { (guint32)a, (guint32)z };
			g_array_append_vals(bare, r, 2);
		}
		if (!bare->len)
			return;
		g_autofree char *fns = bare_functions(self, elf->mod, bare);
		sentence = g_strdup_printf(
			"%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " code bytes have neither "
			"CFI nor .ARM.exidx unwind entries (%s): DWARF-mode stacks sampled there "
			"stop at that frame; build that code with -funwind-tables (assembler: "
			".fnstart/.save/.fnend) or keep its .debug_frame",
			elf->name, bare_bytes, code, fns);
	}
	if (!sentence)
		return;
	char *p = row->problem ? g_strconcat(row->problem, "; ", sentence, NULL)
			       : g_strdup(sentence);
	g_free(row->problem);
	row->problem = p;
}
