/* pl-unwind.c — DWARF unwinding of sampled user stacks with libdwfl.
 *
 * perfparser's model: one Dwfl per process, attached once with
 * dwfl_attach_state and reused for every sample of that process; its
 * modules are reported as mappings appear and the Dwfl is rebuilt only
 * when a new mapping overlaps a reported module (dlclose + dlopen, exec).
 * For each sample the callbacks are pointed at the sample: registers come
 * from perf's user registers through a per-architecture table, memory
 * reads are served from the copied stack [sp, sp + size) and, outside it,
 * from the loaded segments of the ELF files.  Nothing reads the live
 * process: the board is elsewhere.  Where libdw stops on an ARM frame no
 * CFI covers, an EHABI step (the decoder of pl-ehabi.c) may take the walk
 * on to the caller; on a riscv64 frame no CFI covers, a frame-pointer
 * step, which libdw's own riscv backend lacks (see pl_riscv_fp_step).
 */
#include <string.h>

#include "pl-debuginfod.h"
#include "pl-ehabi.h"
#include "pl-elf-locator.h"
#include "pl-proc.h"
#include "pl-sym-embed.h"
#include "pl-unwind.h"

#define PL_SYM_MAX_PERF_REGS 64u           /* bits of sample_regs_user */

/* The sample being unwound: what the Dwfl callbacks read. */
struct _PlUnwindSample {
	guint64 regs[PL_SYM_MAX_PERF_REGS]; /* by perf register index */
	guint64 have; /* bit i: regs[i] is set */
	const guint8 *stack;
	gsize stack_size;
	guint64 sp;
	guint32 tid;
	gboolean outside_read; /* memory outside the copy was needed and missing */
	gsize stack_used; /* bytes of the copy from its start up to the last one read */
};

/* ======================================================================
 * perf register index → DWARF register number, per architecture
 *
 * perf's order is arch/<arch>/include/uapi/asm/perf_regs.h; DWARF numbers
 * are each psABI's.  -1: not a DWARF register (flags, segments) or passed
 * as the PC with dwfl_thread_state_register_pc.
 * ====================================================================== */

typedef struct {
	guint e_machine;
	guint perf_pc, perf_sp;
	guint n;
	const int *dwarf; /* [n] */
} PlRegTable;

/* perf: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15
 * DWARF: rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8-r15 8-15, rip 16 */
static const int x86_64_dwarf[24] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1,
				      -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15 };
/* perf: AX BX CX DX SI DI BP SP IP
 * DWARF: eax 0, ecx 1, edx 2, ebx 3, esp 4, ebp 5, esi 6, edi 7, eip 8 */
static const int i386_dwarf[9] = { 0, 3, 1, 2, 6, 7, 5, 4, 8 };
/* perf: X0..X30, SP, PC;  DWARF: x0..x30 0-30, sp 31 */
static const int aarch64_dwarf[33] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				       11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
				       22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1 };
/* perf: R0..R10, FP(r11), IP(r12), SP(r13), LR(r14), PC(r15); DWARF: r0..r15 */
static const int arm_dwarf[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
/* perf: PC, RA(x1), SP(x2), GP, TP, T0-T2, S0, S1, A0-A7, S2-S11, T3-T6 = x1..x31 */
static const int riscv_dwarf[32] = { -1, 1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				     11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
				     22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };

static const PlRegTable reg_tables[] = {
	{ EM_X86_64, 8, 7, G_N_ELEMENTS(x86_64_dwarf), x86_64_dwarf },
	{ EM_386, 8, 7, G_N_ELEMENTS(i386_dwarf), i386_dwarf },
	{ EM_AARCH64, 32, 31, G_N_ELEMENTS(aarch64_dwarf), aarch64_dwarf },
	{ EM_ARM, 15, 13, G_N_ELEMENTS(arm_dwarf), arm_dwarf },
	{ EM_RISCV, 0, 2, G_N_ELEMENTS(riscv_dwarf), riscv_dwarf },
};

static const PlRegTable *reg_table(guint e_machine)
{
	for (guint i = 0; i < G_N_ELEMENTS(reg_tables); i++)
		if (reg_tables[i].e_machine == e_machine)
			return &reg_tables[i];
	return NULL;
}

/* ======================================================================
 * Dwfl callbacks: the current sample is proc->cur
 * ====================================================================== */

static guint64 load_word(const guint8 *p, guint ws, gboolean big)
{
	if (ws == 8 && big == (G_BYTE_ORDER == G_BIG_ENDIAN)) {
		guint64 w; /* the common case: a 64-bit board of this byte order */
		memcpy(&w, p, 8);
		return w;
	}
	guint64 v = 0;
	for (guint i = 0; i < ws; i++)
		v |= (guint64)p[big ? ws - 1 - i : i] << (8 * i);
	return v;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	PlProc *proc = arg;
	if (*thread_argp || !proc->cur)
		return 0;
	*thread_argp = proc;
	return (pid_t)proc->cur->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	PlProc *proc = arg;
	*thread_argp = proc;
	return proc->cur && (pid_t)proc->cur->tid == tid;
}

/* The PlSymbols of a PlProc, for the target's word size and byte order. */
typedef struct {
	guint ws;
	gboolean big;
	const PlRegTable *t;
} PlArchInfo;
/* set per unwind; per thread, as an unwind-ahead worker unwinds with its
 * own PlSymbols while the loader thread may unwind with another */
static __thread PlArchInfo cur_arch;

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	PlProc *proc = arg;
	PlUnwindSample *s = proc->cur;
	guint ws = cur_arch.ws;
	if (!s)
		return false;
	if (addr >= s->sp && addr - s->sp <= s->stack_size && s->stack_size - (addr - s->sp) >= ws) {
		s->stack_used = MAX(s->stack_used, (gsize)(addr - s->sp) + ws);
		*result = load_word(s->stack + (addr - s->sp), ws, cur_arch.big);
		return true;
	}
	/* not on the copied stack: read-only data of a mapped file may do */
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias = 0;
	Elf *e = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t phnum = 0, rawsize = 0;
	const char *raw = e ? elf_rawfile(e, &rawsize) : NULL;
	if (raw && elf_getphdrnum(e, &phnum) == 0) {
		guint64 va = addr - bias;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    va < ph.p_vaddr || va - ph.p_vaddr + ws > ph.p_filesz)
				continue;
			guint64 off = ph.p_offset + (va - ph.p_vaddr);
			if (off + ws > rawsize)
				break;
			*result = load_word((const guint8 *)raw + off, ws, cur_arch.big);
			return true;
		}
	}
	s->outside_read = TRUE;
	return false;
}

/* Reads one target word (word size and byte order of the board) of the
 * sample being unwound: the copied stack first, then the loaded segments
 * of the mapped files.  A miss marks the sample truncated. */
static gboolean pl_unwind_read_word(PlProc *proc, guint64 addr, guint64 *word)
{
	Dwarf_Word w;
	if (!proc->dwfl || !cb_memory_read(proc->dwfl, addr, &w, proc))
		return FALSE;
	*word = w;
	return TRUE;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	PlProc *proc = arg;
	PlUnwindSample *s = proc->cur;
	const PlRegTable *t = cur_arch.t;
	guint64 mask = cur_arch.ws == 4 ? 0xffffffffu : ~0ull;
	for (guint i = 0; i < t->n; i++) {
		if (!(s->have & (1ull << i)) || t->dwarf[i] < 0)
			continue;
		Dwarf_Word v = s->regs[i] & mask;
		if (!dwfl_thread_state_registers(thread, t->dwarf[i], 1, &v))
			return false;
	}
	dwfl_thread_state_register_pc(thread, s->regs[t->perf_pc] & mask);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* ======================================================================
 * The per-process Dwfl
 * ====================================================================== */

void pl_proc_drop_dwfl(PlProc *proc)
{
	if (proc->dwfl)
		dwfl_end(proc->dwfl);
	proc->dwfl = NULL;
	proc->attached = FALSE;
	proc->need_rebuild = FALSE;
	if (proc->arch_elf)
		elf_end(proc->arch_elf);
	proc->arch_elf = NULL;
	for (guint i = 0; i < proc->maps->len; i++)
		g_array_index(proc->maps, PlMapping, i).reported = FALSE;
}

/* A bare ELF header naming the target machine: dwfl_attach_state picks
 * its unwinder backend from it, before any module is reported. */
static Elf *arch_elf(PlSymbols *self, PlProc *proc)
{
	guint8 *h = proc->arch_ehdr;
	gboolean big = self->arch.big_endian, is64 = self->arch.word_size == 8;
	memset(proc->arch_ehdr, 0, sizeof(proc->arch_ehdr));
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	h[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	h[EI_VERSION] = EV_CURRENT;
#define PUT16(off, v)                                                                            \
	do {                                                                                     \
		h[(off) + (big ? 1 : 0)] = (guint8)(v);                                          \
		h[(off) + (big ? 0 : 1)] = (guint8)((v) >> 8);                                   \
	} while (0)
	PUT16(16, ET_EXEC);
	PUT16(18, self->arch.e_machine);
	h[big ? 23 : 20] = EV_CURRENT; /* e_version, 32 bits */
	PUT16(is64 ? 52 : 40, is64 ? 64 : 52); /* e_ehsize */
#undef PUT16
	return elf_memory((char *)proc->arch_ehdr, is64 ? 64 : 52);
}

/* Creates, fills and attaches proc's Dwfl.  Returns FALSE when libdw has
 * no unwinder for this machine. */
static gboolean proc_dwfl(PlSymbols *self, PlProc *proc)
{
	if (proc->need_rebuild)
		pl_proc_drop_dwfl(proc);
	if (!proc->dwfl) {
		proc->dwfl = dwfl_begin(&pl_unwind_dwfl_callbacks);
		if (!proc->dwfl)
			return FALSE;
	}
	gboolean began = FALSE;
	for (guint i = 0; i < proc->maps->len; i++) {
		PlMapping *m = &g_array_index(proc->maps, PlMapping, i);
		guint64 bias;
		if (!m->elf || m->reported)
			continue;
		m->reported = TRUE;
		if (!pl_elf_prepare(self, m->elf) || !pl_mapping_bias(proc, m, &bias))
			continue;
		m->bias = bias;
		gboolean dup = FALSE;
		for (guint j = 0; j < proc->maps->len && !dup; j++) {
			const PlMapping *o = &g_array_index(proc->maps, PlMapping, j);
			dup = j != i && o->reported && o->elf == m->elf && o->bias == bias;
		}
		if (dup)
			continue; /* its file is already a module at this bias */
		if (!began)
			dwfl_report_begin_add(proc->dwfl);
		began = TRUE;
		/* several mappings of one file at one bias give one module
		 * (libdwfl reuses a module of the same name and range); a
		 * failure (two files claiming one range) leaves that file's
		 * frames to libdw's frame-pointer fallback */
		pl_elf_report(proc->dwfl, m->elf, bias);
	}
	if (began)
		dwfl_report_end(proc->dwfl, NULL, NULL);
	if (!proc->attached) {
		if (!proc->arch_elf)
			proc->arch_elf = arch_elf(self, proc);
		if (!proc->arch_elf ||
		    !dwfl_attach_state(proc->dwfl, proc->arch_elf, (pid_t)(proc->pid ? proc->pid : 1),
				       &thread_callbacks, proc))
			return FALSE;
		proc->attached = TRUE;
	}
	return TRUE;
}

/* ======================================================================
 * ARM EHABI where no CFI covers a PC
 * ====================================================================== */

/* Called when libdw stopped on an ARM frame (no CFI covers pc: Debian's
 * armhf libc has only .ARM.exidx).  regs[0..15] are the frame's r0..r15
 * (pc in r15), valid bit i in *valid; is_return_address: r15 is a return
 * address (every frame but the sampled one).  PL_EHABI_STEP_OK: regs hold
 * the caller's registers and the unwinder restarts libdw from them;
 * PL_EHABI_STEP_END: the tables mark this frame the outermost (_start, a
 * thread's start); FAIL: the walk stops here, truncated. */
typedef enum {
	PL_EHABI_STEP_FAIL,
	PL_EHABI_STEP_OK,
	PL_EHABI_STEP_END,
} PlEhabiStep;

static gboolean read_sample(void *ud, guint32 addr, guint32 *word)
{
	guint64 w;
	if (!pl_unwind_read_word(ud, addr, &w))
		return FALSE;
	*word = (guint32)w;
	return TRUE;
}

static PlEhabiStep pl_ehabi_step(PlSymbols *self, PlProc *proc, guint64 regs[16], guint32 *valid,
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
 * riscv64: a frame-pointer step where no CFI covers a PC
 *
 * libdw's riscv backend (elfutils 0.188, Debian 12) has what a DWARF walk
 * needs: the psABI's initial CFI (abi_cfi), 66 DWARF registers and their
 * names; its set_initial_registers_tid reads a live thread through ptrace,
 * which an off-board walk never uses (the registers come from the sample,
 * cb_set_initial_registers).  What it lacks is the `unwind` hook that
 * x86_64's and aarch64's backends have: where no FDE covers a pc (code
 * built without unwind tables, hand-written assembly) they take a
 * frame-pointer step, riscv's stops the walk.  This is that step, taken by
 * the same rule, only where no CFI covers the pc: the psABI's frame record
 * lies below the frame pointer s0 (x8), the return address at s0 - 8 and
 * the caller's s0 at s0 - 16 (the kernel's user call chains read the
 * same), and the caller's sp is s0.  The callee-saved registers are taken
 * as unchanged, as the ABI's CFI does.
 * ====================================================================== */

static gboolean cfi_covers(Dwfl *dwfl, guint64 at)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, at);
	if (!mod)
		return FALSE;
	for (int i = 0; i < 2; i++) {
		Dwarf_Addr bias = 0;
		Dwarf_CFI *cfi = i == 0 ? dwfl_module_eh_cfi(mod, &bias)
				       : dwfl_module_dwarf_cfi(mod, &bias);
		Dwarf_Frame *frame = NULL;
		if (cfi && dwarf_cfi_addrframe(cfi, at - bias, &frame) == 0) {
			free(frame);
			return TRUE;
		}
	}
	return FALSE;
}

/* perf indexes kept over the step: pc, sp, gp, tp, s0, s1, s2-s11 */
#define PL_RISCV_KEPT (0x1u | 0x4u | 0x8u | 0x10u | 0x100u | 0x200u | 0x0ffc0000u)

/* regs by perf index (pc, then x1..x31), valid bit i for regs[i];
 * is_return_address: regs[0] is a return address (every frame but the
 * sampled one).  TRUE: regs hold the caller's registers. */
static gboolean pl_riscv_fp_step(PlSymbols *self, PlProc *proc, guint64 regs[32], guint32 *valid,
				 gboolean is_return_address)
{
	const guint32 need = 0x1u | 0x4u | 0x100u; /* pc, sp, s0 */
	if (self->arch.e_machine != EM_RISCV || !proc->dwfl || (*valid & need) != need)
		return FALSE;
	guint64 pc = regs[0], sp = regs[2], fp = regs[8], ra, prev;
	if (pc == 0 || cfi_covers(proc->dwfl, is_return_address ? pc - 1 : pc))
		return FALSE;
	/* a record in the copied stack, above sp, aligned, and a caller */
	if (fp <= sp || (fp & 7) || fp - sp > (1u << 24) || !pl_unwind_read_word(proc, fp - 8, &ra) ||
	    !pl_unwind_read_word(proc, fp - 16, &prev) || ra == 0)
		return FALSE;
	regs[0] = ra;
	regs[2] = fp;
	regs[8] = prev;
	*valid &= PL_RISCV_KEPT;
	return TRUE;
}

/* ======================================================================
 * The walk
 * ====================================================================== */

typedef struct {
	guint64 *pcs;
	guint n, max;
	gboolean full;
	/* EM_ARM: the last frame's r0..r15 for EHABI; EM_RISCV: its pc and
	 * x1..x31 for a frame-pointer step; by perf index */
	guint keep;
	const PlRegTable *t;
	guint64 last_regs[32];
	guint32 last_valid;
} PlWalk;

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	PlWalk *w = arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (w->n >= w->max) {
		w->full = TRUE;
		return DWARF_CB_ABORT;
	}
	w->pcs[w->n++] = pc;
	if (w->keep) {
		w->last_valid = 0;
		for (guint i = 0; i < w->keep; i++) {
			Dwarf_Word v;
			if (w->t->dwarf[i] >= 0 && dwfl_frame_reg(state, (unsigned)w->t->dwarf[i], &v) == 0) {
				w->last_regs[i] = v;
				w->last_valid |= 1u << i;
			}
		}
		w->last_regs[w->t->perf_pc] = pc;
		w->last_valid |= 1u << w->t->perf_pc;
	}
	return DWARF_CB_OK;
}

guint pl_symbols_unwind(PlSymbols *self, guint32 pid, guint32 tid, guint64 regs_mask,
			const guint64 *regs, guint nregs, const guint8 *stack, gsize stack_size,
			guint64 *pcs, guint max, gboolean *truncated)
{
	gboolean trunc_dummy;
	gsize used;
	if (!truncated)
		truncated = &trunc_dummy;
	/* a self-contained session: the walk made where the files were */
	guint64 key = self->embedded || self->record
			      ? pl_sym_embed_unwind_key(pid, tid, regs_mask, regs, nregs, stack,
							stack_size)
			      : 0;
	guint n;
	gint an = -1;
	if (self->embedded) {
		/* its answer or none: never a walk over this machine's files */
		an = pl_sym_embed_get_unwind(self->embedded, key, pcs, max, truncated);
		if (an < 0)
			*truncated = TRUE;
		n = an >= 0 ? (guint)an : 0;
	} else {
		if (self->ahead)
			an = self->ahead_take(self->ahead, &self->arch, pid, tid, regs_mask, regs,
					      nregs, stack, stack_size, pcs, max, truncated);
		n = an >= 0 ? (guint)an
			    : pl_symbols_unwind_used(self, pid, tid, regs_mask, regs, nregs, stack,
						     stack_size, pcs, max, truncated, &used);
	}
	if (self->record)
		pl_sym_embed_put_unwind(self->record, key, pcs, n, *truncated);
	return n;
}

guint pl_symbols_unwind_used(PlSymbols *self, guint32 pid, guint32 tid, guint64 regs_mask,
			     const guint64 *regs, guint nregs, const guint8 *stack,
			     gsize stack_size, guint64 *pcs, guint max, gboolean *truncated,
			     gsize *stack_used)
{
	*truncated = TRUE;
	*stack_used = 0;
	const PlRegTable *t = reg_table(self->arch.e_machine);
	if (max == 0 || !t || !regs)
		return 0;

	PlUnwindSample s = { 0 };
	for (guint bit = 0, i = 0; bit < PL_SYM_MAX_PERF_REGS && i < nregs; bit++) {
		if (!(regs_mask & (1ull << bit)))
			continue;
		s.regs[bit] = regs[i++];
		s.have |= 1ull << bit;
	}
	if (!(s.have & (1ull << t->perf_pc)))
		return 0;
	guint64 mask = self->arch.word_size == 4 ? 0xffffffffu : ~0ull;
	pcs[0] = s.regs[t->perf_pc] & mask;
	if (!(s.have & (1ull << t->perf_sp)) || !stack)
		return 1;
	s.stack = stack;
	s.stack_size = stack_size;
	s.sp = s.regs[t->perf_sp] & mask;
	s.tid = tid ? tid : (pid ? pid : 1);

	PlProc *proc = pl_proc_get(self, pid, TRUE);
	/* debuginfod: the sampled pc's module, if it lacks a file or CFI
	 * here (a rebuild of proc's Dwfl follows a fetch) */
	const PlMapping *pm = pl_proc_mapping_at(proc, pcs[0]);
	if (pm && pm->elf)
		pl_debuginfod_fetch(self, pm->elf, PL_FETCH_UNWIND);
	if (!proc_dwfl(self, proc))
		return 1;
	cur_arch = (PlArchInfo){ self->arch.word_size, self->arch.big_endian, t };
	proc->cur = &s;

	guint keep = self->arch.e_machine == EM_ARM ? 16 : self->arch.e_machine == EM_RISCV ? 32 : 0;
	PlWalk w = { pcs, 0, max, FALSE, keep, t, { 0 }, 0 };
	int ret;
	for (guint restarts = 0;; restarts++) {
		ret = dwfl_getthread_frames(proc->dwfl, (pid_t)s.tid, frame_cb, &w);
		if (ret == 0 || w.full || !w.keep || restarts >= max || w.n == 0)
			break;
		/* libdw stopped on an ARM frame: the EHABI tables may know it;
		 * on a riscv64 frame: a frame-pointer step may take it on.
		 * Only pcs[0] is the sampled pc; every later frame's is a
		 * return address, the first of a restarted walk included. */
		guint64 r[32];
		guint32 valid = w.last_valid;
		memcpy(r, w.last_regs, sizeof(r));
		gboolean libdw_outside = s.outside_read;
		s.outside_read = FALSE; /* the EHABI or fp step decides now */
		PlEhabiStep st = self->arch.e_machine == EM_RISCV
					 ? (pl_riscv_fp_step(self, proc, r, &valid, w.n > 1)
						    ? PL_EHABI_STEP_OK
						    : PL_EHABI_STEP_FAIL)
					 : pl_ehabi_step(self, proc, r, &valid, w.n > 1);
		if (st == PL_EHABI_STEP_END) {
			ret = 0; /* the tables mark the outermost frame */
			break;
		}
		if (st != PL_EHABI_STEP_OK) {
			s.outside_read |= libdw_outside;
			break;
		}
		/* restart libdw from the caller: its first frame is the new pc */
		s.have = 0;
		for (guint i = 0; i < w.keep; i++) {
			s.regs[i] = r[i];
			if (valid & (1u << i))
				s.have |= 1ull << i;
		}
		s.outside_read = FALSE;
	}
	proc->cur = NULL;
	*stack_used = s.stack_used;
	/* ret 0: libdw reached a frame with no caller (CFI marks the return
	 * address undefined, as _start and clone do).  Anything else — an
	 * error, a read outside the copy, the caller's max — is a truncated
	 * stack the UI should mark. */
	*truncated = ret != 0 || w.full || s.outside_read;
	if (ret != 0 && !w.full && w.n > 1) {
		/* the walk stopped in a frame whose module may be on a
		 * debuginfod server: fetched, the walk is done again (each
		 * module's files are asked for once, so this ends) */
		const PlMapping *sm = pl_proc_mapping_at(proc, pcs[w.n - 1] - 1);
		if (sm && sm->elf && pl_debuginfod_fetch(self, sm->elf, PL_FETCH_UNWIND))
			return pl_symbols_unwind_used(self, pid, tid, regs_mask, regs, nregs, stack,
						      stack_size, pcs, max, truncated, stack_used);
	}
	if (w.n == 0) {
		pcs[0] = s.regs[t->perf_pc] & mask;
		return 1;
	}
	return w.n;
}
