/* arch.h — per-architecture facts the agent needs: which user registers to
 * sample for DWARF unwinding (and which of them is the stack pointer) (perf's sample_regs_user bits, from
 * arch/<arch>/include/uapi/asm/perf_regs.h) and the ELF machine number. */
#ifndef PLA_ARCH_H
#define PLA_ARCH_H

#include <elf.h>
#include <stdint.h>

#if defined(__x86_64__)
/* AX..R15 without the segment registers DS ES FS GS (bits 12-15), which
 * the kernel refuses for 64-bit tasks. */
#define PLA_REGS_USER_MASK 0xff0fffull
#define PLA_E_MACHINE EM_X86_64
#define PLA_SP_REG 7 /* perf's PERF_REG_X86_SP */
#elif defined(__aarch64__)
#define PLA_REGS_USER_MASK ((1ull << 33) - 1) /* x0..x30, sp, pc */
#define PLA_E_MACHINE EM_AARCH64
#define PLA_SP_REG 31
#elif defined(__arm__)
#define PLA_REGS_USER_MASK 0xffffull /* r0..r15 */
#define PLA_E_MACHINE EM_ARM
#define PLA_SP_REG 13
#elif defined(__riscv) && __riscv_xlen == 64
/* pc, ra, sp, gp, tp, t0-t2, s0-s1, a0-a7, s2-s11, t3-t6: all 32 of
 * PERF_REG_RISCV_* (pc takes x0's slot, which is always zero) */
#define PLA_REGS_USER_MASK ((1ull << 32) - 1)
#define PLA_E_MACHINE EM_RISCV
#define PLA_SP_REG 2 /* PERF_REG_RISCV_SP */
#elif defined(__i386__)
#define PLA_REGS_USER_MASK 0x1ffull /* ax bx cx dx si di bp sp ip */
#define PLA_E_MACHINE EM_386
#define PLA_SP_REG 7
#else
#error "add this architecture's perf register mask to agent/arch.h"
#endif

#endif
