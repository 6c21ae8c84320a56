/* lbr.h — an LBR call stack merged into a sample's call chain: the one
 * conversion that the agent's record parser (agent/records.c) and the
 * perf.data importer (viewer/formats/perf-data-records.c) both use.
 *
 * With `--call-graph lbr` a sample carries two stacks: PERF_SAMPLE_CALLCHAIN
 * (the kernel part, then PERF_CONTEXT_USER and the user frame-pointer walk)
 * and PERF_SAMPLE_BRANCH_STACK recorded with PERF_SAMPLE_BRANCH_CALL_STACK
 * (the CPU's stack of the calls the thread made, most recent first; each
 * entry's "from" is a call site).  The merged chain, in the kernel's format
 * (context markers kept, innermost first), is
 *
 *   kernel part (up to PERF_CONTEXT_USER) · PERF_CONTEXT_USER · user leaf ·
 *   from[0] … from[nr-1] · when the LBR is full: the fp frames beyond its depth
 *
 * The user leaf is the callchain's first user entry (the user pc at the
 * sample), else the sample ip when it was taken in user mode, else the
 * entry of the innermost callee (from[0]'s "to"), as perf uses.
 *
 * Layouts are those of include/uapi/linux/perf_event.h: struct
 * perf_branch_entry is 24 bytes (u64 from, u64 to, u64 flags bitfield);
 * the block is u64 nr, u64 hw_idx only when PERF_SAMPLE_BRANCH_HW_INDEX is
 * in branch_sample_type, then the entries.  libc only, no allocation.
 *
 * Verified against records laid out by that ABI (test/unit/lbr-test.c, the
 * perf.data importer's tests), not on Intel hardware. */
#ifndef PL_LBR_H
#define PL_LBR_H

#include <stddef.h>
#include <stdint.h>

#define PL_LBR_ENTRY_SIZE 24u
/* More entries than any branch stack has (Intel LBR: 32, Arm BRBE: 64) is
 * a corrupt record: refused. */
#define PL_LBR_MAX_ENTRIES 256u

/* The kernel's context markers (perf_event.h: enum perf_callchain_context). */
#define PL_PERF_CONTEXT_USER ((uint64_t)-512)
#define PL_PERF_CONTEXT_MAX ((uint64_t)-4095)

/* The branch-stack block at p, avail bytes of the record left; be: the
 * record is big-endian.  Sets *nr and *entries (pointing into p) and
 * returns the bytes the block takes, or -1 when nr is above
 * PL_LBR_MAX_ENTRIES or the block does not fit in avail (nothing read past
 * p + avail). */
long pl_lbr_parse(const uint8_t *p, size_t avail, int be, int hw_index, uint32_t *nr,
		  const uint8_t **entries);

/* Rewrites chain (nr_chain entries, room for cap) in place into the merged
 * chain described above and returns its length (at most cap).  entries:
 * nr_br entries as pl_lbr_parse gave them; ip and ip_user: the sample's ip
 * and whether the sample was taken in user mode; depth: the LBR's depth (0:
 * unknown, then any fp frames beyond the LBR's entries are kept).  An
 * empty branch stack leaves the chain as it is. */
uint32_t pl_lbr_merge(uint64_t *chain, uint32_t nr_chain, uint32_t cap, const uint8_t *entries,
		      uint32_t nr_br, int be, uint64_t ip, int ip_user, uint32_t depth);

#endif
