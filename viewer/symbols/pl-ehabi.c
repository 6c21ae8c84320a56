/* pl-ehabi.c — ARM EHABI (.ARM.exidx / .ARM.extab) unwinding.
 *
 * Why it exists: Debian's armhf libc and many ARM firmware builds carry
 * only the ARM exception-handling ABI tables, which libdw cannot read, so
 * a DWARF walk stops at the first frame in such code.  pl_symbols_unwind
 * takes an EHABI step (pl-unwind.c) whenever libdw stops on an EM_ARM
 * target, with the registers of the last frame it reached; a successful
 * step restarts libdw from the caller's registers, so EHABI and CFI frames
 * can alternate.
 *
 * The decoder (pl-ehabi.h) works on the file bytes libelf already holds;
 * stack words come through the reader its caller passes (the unwinder's:
 * the copied stack, then the loaded segments of the mapped files), so a
 * word outside both ends the walk and marks the stack truncated, as for
 * DWARF.  The coverage report's use of the tables is pl-ehabi-coverage.c.
 */
#include <string.h>

#include "pl-ehabi.h"

#define EXIDX_CANTUNWIND 1u
#define ULEB_MAX_BYTES 5u    /* a 32-bit value; more is a malformed table */

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
		if (out->len > 2 * PL_EHABI_MAX_GAPS)
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
 * The sanity rule of every step
 * ====================================================================== */

gboolean pl_ehabi_frame_advances(guint32 old_sp, guint32 old_pc, const guint32 regs[16],
				 gboolean is_return_address)
{
	/* stacks grow down: a caller's frame lies above its callee's */
	if (regs[13] > old_sp)
		return TRUE;
	return regs[13] == old_sp && !is_return_address && (regs[15] & ~1u) != (old_pc & ~1u);
}
