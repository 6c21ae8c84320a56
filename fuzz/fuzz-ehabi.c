/* fuzz-ehabi.c — libFuzzer harness: the ARM EHABI decoder and unwinder
 * (viewer/symbols/pl-ehabi.h).
 *
 * Two kinds of input:
 *   - an ELF file ("\x7fELF…"; the seeds are real ARM and Thumb-2 binaries
 *     built with arm-linux-gnueabihf-gcc -funwind-tables): opened with
 *     libelf from memory, loaded by pl_ehabi_image_from_elf, its uncovered
 *     ranges listed, and pl_ehabi_lookup asked for addresses across every
 *     code range; each entry found is executed;
 *   - anything else: an unwind entry made directly from the bytes (byte 0:
 *     personality and flags, then up to PL_EHABI_MAX_OPS opcode bytes) run
 *     by pl_ehabi_execute, so every opcode sequence reaches the
 *     interpreter.
 * The unwound thread's memory is the input itself, mapped at a fixed
 * stack address, so pops read attacker bytes (and out-of-range reads fail
 * as they do on a short stack copy).
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "pl-ehabi.h"

#define STACK_BASE 0xbeff0000u

typedef struct {
	const uint8_t *p;
	size_t n;
	int big;
} Mem;

static gboolean read_word(void *ud, guint32 addr, guint32 *word)
{
	const Mem *m = ud;
	if (addr < STACK_BASE || addr - STACK_BASE > m->n || m->n - (addr - STACK_BASE) < 4)
		return FALSE;
	const uint8_t *b = m->p + (addr - STACK_BASE);
	*word = m->big ? (guint32)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : pl_get_le32(b);
	return TRUE;
}

static void run(const PlEhabiEntry *ent, const Mem *mem, uint64_t seed)
{
	guint32 regs[16], valid = 0xffffu;
	for (int i = 0; i < 16; i++)
		regs[i] = (guint32)fz_rand(&seed);
	regs[13] = STACK_BASE + (guint32)(seed % 64) * 4; /* sp inside the "stack" */
	valid &= (guint32)(fz_rand(&seed) | 0xa000u); /* sp and pc always known */
	guint32 before[16], vbefore = valid;
	memcpy(before, regs, sizeof(regs));
	PlEhabiStatus st = pl_ehabi_execute(ent, regs, &valid, read_word, (void *)mem);
	FZ_CHECK(pl_ehabi_status_str(st) != NULL, "status %d has no text", st);
	if (st != PL_EHABI_OK)
		FZ_CHECK(valid == vbefore && memcmp(before, regs, sizeof(regs)) == 0,
			 "failed (%s) but changed the registers", pl_ehabi_status_str(st));
	else
		FZ_CHECK((regs[15] & 1) == 0, "pc 0x%x keeps the Thumb bit", regs[15]);
}

static void from_elf(const uint8_t *data, size_t size, uint64_t seed)
{
	/* libelf may write into its image (it does not for ELF_C_READ_MMAP
	 * semantics, but elf_memory wants char *): give it a copy */
	char *copy = malloc(size);
	if (!copy)
		return;
	memcpy(copy, data, size);
	Elf *e = elf_memory(copy, size);
	PlEhabiImage img;
	if (e && pl_ehabi_image_from_elf(e, &img)) {
		GArray *gaps = g_array_new(FALSE, FALSE, sizeof(guint32));
		pl_ehabi_uncovered(&img, gaps);
		FZ_CHECK(gaps->len % 2 == 0, "odd number of range bounds: %u", gaps->len);
		/* no range ends before it starts (a code range crossing 4 GiB once
		 * did: fuzz/regressions/ehabi/uncovered-range-wraps-4g) */
		for (guint i = 0; i + 1 < gaps->len; i += 2)
			FZ_CHECK(g_array_index(gaps, guint32, i) <= g_array_index(gaps, guint32, i + 1),
				 "uncovered range %u ends before it starts", i / 2);
		g_array_unref(gaps);
		Mem mem = { data, size, img.big };
		PlEhabiEntry *ent = g_new(PlEhabiEntry, 1);
		guint lookups = 0;
		for (guint s = 0; s < img.ncode && lookups < 256; s++) {
			guint32 step = img.code[s].filesz / 32 + 2;
			for (guint64 a = img.code[s].vaddr;
			     a < (guint64)img.code[s].vaddr + img.code[s].filesz && lookups < 256;
			     a += step, lookups++) {
				PlEhabiStatus st = pl_ehabi_lookup(&img, (guint32)a, ent);
				if (st == PL_EHABI_OK) {
					FZ_CHECK(ent->nops <= PL_EHABI_MAX_OPS, "%u opcodes", ent->nops);
					FZ_CHECK(ent->fn_start <= (guint32)a,
						 "entry for 0x%x starts after it, at 0x%x", (guint32)a,
						 ent->fn_start);
					run(ent, &mem, seed ^ a);
				}
			}
		}
		/* and a few addresses from anywhere */
		for (int i = 0; i < 8; i++)
			if (pl_ehabi_lookup(&img, (guint32)fz_rand(&seed), ent) == PL_EHABI_OK)
				run(ent, &mem, seed);
		g_free(ent);
	}
	if (e)
		elf_end(e);
	free(copy);
}

static void from_ops(const uint8_t *data, size_t size, uint64_t seed)
{
	PlEhabiEntry *ent = g_new0(PlEhabiEntry, 1);
	int pers = size ? data[0] & 3 : 0;
	ent->personality = pers == 3 ? -1 : pers; /* 0, 1, 2 or generic */
	ent->cantunwind = size && (data[0] & 0x80);
	ent->nops = size > 1 ? (guint)MIN(size - 1, PL_EHABI_MAX_OPS) : 0;
	if (ent->nops)
		memcpy(ent->ops, data + 1, ent->nops);
	Mem mem = { data, size, size && (data[0] & 0x40) };
	run(ent, &mem, seed);
	g_free(ent);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	if (!init) {
		elf_version(EV_CURRENT);
		init = 1;
	}
	uint64_t seed = fz_hash(data, size) | 1;
	if (size >= 4 && memcmp(data, "\177ELF", 4) == 0)
		from_elf(data, size, seed);
	else
		from_ops(data, size, seed);
	return 0;
}
