/* pl-ehabi.h — ARM EHABI unwind tables (.ARM.exidx / .ARM.extab): a
 * decoder and a one-frame virtual unwinder, independent of PlSymbols so the
 * tests can drive them on any table bytes.
 *
 * The format is IHI0038 ("Exception Handling ABI for the ARM
 * Architecture"): .ARM.exidx is a sorted array of 8-byte entries, each a
 * prel31 offset to a function start and either EXIDX_CANTUNWIND (1), an
 * inline personality-0 entry (bit 31 set, three unwind opcodes), or a
 * prel31 offset into .ARM.extab, where personality 1/2 entries (and GCC's
 * generic personality layout) hold longer opcode strings.
 *
 * Every table byte comes from a file we did not write: each read is
 * bounds-checked against the file, the opcode string is capped at
 * PL_EHABI_MAX_OPS bytes, and executing it is a single pass over those
 * bytes (no loops that a table can steer).  Words are in the ELF file's
 * byte order (BE8 big-endian images have big-endian tables); opcode bytes
 * are taken from each word's most significant byte down.
 *
 * Contracts: a PlEhabiImage borrows the file bytes it points at (the caller
 * keeps them alive); nothing here allocates; all functions are reentrant.
 */
#ifndef PL_EHABI_H
#define PL_EHABI_H

#include <gelf.h>
#include <glib.h>

G_BEGIN_DECLS

/* A personality 1/2 entry has at most 255 extra words: 2 + 255 * 4 bytes;
 * the generic layout 3 + 255 * 4. */
#define PL_EHABI_MAX_OPS 1024u
#define PL_EHABI_MAX_SEGS 16u
/* pl_ehabi_uncovered stops adding ranges past this many, and the coverage
 * report looks at as many function symbols */
#define PL_EHABI_MAX_GAPS 65536u

typedef enum {
	PL_EHABI_OK = 0,
	PL_EHABI_CANTUNWIND, /* EXIDX_CANTUNWIND, or the refuse-to-unwind opcode */
	PL_EHABI_NO_ENTRY,   /* no entry covers the address (before the first one) */
	PL_EHABI_BAD_TABLE,  /* entry or extab word outside the file, unknown personality */
	PL_EHABI_BAD_OPCODE, /* spare or reserved opcode, opcode string cut short */
	PL_EHABI_BAD_READ,   /* a stack word could not be read */
	PL_EHABI_BAD_REGS,   /* vsp = r[n] or pc = lr on a register we do not have */
} PlEhabiStatus;

const char *pl_ehabi_status_str(PlEhabiStatus st);

/* The loaded view of one ARM ELF32 file: its PT_LOAD segments (to turn a
 * vaddr into a file offset) and its exception index table. */
typedef struct {
	guint32 vaddr, offset, filesz;
	gboolean exec;
} PlEhabiSeg;

typedef struct {
	const guint8 *file; /* the whole file, borrowed */
	gsize file_size;
	gboolean big; /* ELFDATA2MSB */
	PlEhabiSeg segs[PL_EHABI_MAX_SEGS];
	guint nsegs;
	guint32 exidx_vaddr, exidx_size; /* exidx_size is a multiple of 8 */
	/* code the coverage report checks: SHF_EXECINSTR sections but the PLT
	 * (stubs that never have tables), else the executable segments */
	PlEhabiSeg code[PL_EHABI_MAX_SEGS];
	guint ncode;
} PlEhabiImage;

/* Fills img from an ELF32 EM_ARM file opened by libelf (its raw bytes,
 * program headers, PT_ARM_EXIDX; SHT_ARM_EXIDX when there is no program
 * header for it).  FALSE when e is not such a file or has no table that
 * lies inside its bytes. */
gboolean pl_ehabi_image_from_elf(Elf *e, PlEhabiImage *img);

/* The unwind description of one function. */
typedef struct {
	guint32 fn_start; /* vaddr of the function (Thumb bit cleared) */
	guint32 index;    /* entry number in .ARM.exidx */
	gint personality; /* 0, 1, 2; -1: generic (a personality routine address) */
	gboolean cantunwind;
	guint nops;
	guint8 ops[PL_EHABI_MAX_OPS];
} PlEhabiEntry;

/* Finds the entry covering vaddr (an address in the file's own space: pc -
 * load bias; for a return address, pass pc - 1).  PL_EHABI_OK or
 * PL_EHABI_CANTUNWIND fill *out. */
PlEhabiStatus pl_ehabi_lookup(const PlEhabiImage *img, guint32 vaddr, PlEhabiEntry *out);

/* Reads the 32-bit word at addr of the unwound thread's memory. */
typedef gboolean (*PlEhabiReadFn)(void *ud, guint32 addr, guint32 *word);

/* Runs the opcodes of ent on one frame: regs[0..15] are r0..r15 (bit i of
 * *valid: regs[i] is known).  On PL_EHABI_OK regs hold the caller's frame:
 * r13 = the final vsp, r15 = the restored pc (or lr when the opcodes do
 * not restore pc) with the Thumb bit cleared; r0-r3 and r12 are marked
 * unknown unless the opcodes restored them (they are not preserved across
 * calls).  On failure regs and *valid are left unchanged. */
PlEhabiStatus pl_ehabi_execute(const PlEhabiEntry *ent, guint32 regs[16], guint32 *valid,
			       PlEhabiReadFn read, void *ud);

/* The sanity rule of every step: the caller's frame lies above this one
 * (a larger sp).  Only the sampled frame (not a return address) may be a
 * leaf that pushed nothing: same sp, and pc moved to lr.  regs are the
 * caller's registers pl_ehabi_execute produced. */
gboolean pl_ehabi_frame_advances(guint32 old_sp, guint32 old_pc, const guint32 regs[16],
				 gboolean is_return_address);

/* The ranges of img->code that no .ARM.exidx entry describes
 * (EXIDX_CANTUNWIND entries, code before the first entry), appended to out
 * as pairs of guint32 [start, end) in file vaddrs, in address order. */
void pl_ehabi_uncovered(const PlEhabiImage *img, GArray *out);

G_END_DECLS

#endif
