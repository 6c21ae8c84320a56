/* zstd-fast-only.c — stand-ins for zstd's double-fast, lazy and optimal
 * match finders in the static agent.
 *
 * zstd 1.5.4 (Debian bookworm) has no switch to leave strategies out, and
 * its lazy/optimal match finders (zstd_lazy.c, zstd_opt.c) are ~22 KB of an
 * agent whose budget is 160 KB, the double-fast one (zstd_double_fast.c)
 * 5.4 KB more.  The agent only ever compresses with the fast strategy:
 * common/block.c pins ZSTD_c_strategy when built with PL_ZSTD_FAST_ONLY.
 * (Double-fast is not worth its room: on a 3 s system-wide fp capture,
 * zstd -3 with dfast gives 212,527 bytes and fast 224,935 (+5.8 %); on a
 * dwarf capture of burn 96,084 and 95,572; and the default level, 1, is
 * fast anyway.)  Linked before libzstd.a, these definitions keep the
 * archive members holding the real finders out of the link.  They are
 * unreachable; if zstd ever called one, continuing would corrupt the
 * stream, so they abort.
 *
 * Only ci/agents.sh links this file (the host agent uses the system's
 * shared libzstd, whose finders are internal).
 */
#include <stddef.h>
#include <stdlib.h>

#define UNREACHABLE_FINDER(name)                                                                 \
	size_t name(void *ms, void *seq_store, unsigned *rep, const void *src, size_t n);        \
	size_t name(void *ms, void *seq_store, unsigned *rep, const void *src, size_t n)         \
	{                                                                                        \
		(void)ms, (void)seq_store, (void)rep, (void)src, (void)n;                        \
		abort();                                                                         \
	}

UNREACHABLE_FINDER(ZSTD_compressBlock_doubleFast)
UNREACHABLE_FINDER(ZSTD_compressBlock_doubleFast_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_doubleFast_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_btlazy2)
UNREACHABLE_FINDER(ZSTD_compressBlock_btlazy2_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_btlazy2_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_btopt)
UNREACHABLE_FINDER(ZSTD_compressBlock_btopt_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_btopt_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_btultra)
UNREACHABLE_FINDER(ZSTD_compressBlock_btultra2)
UNREACHABLE_FINDER(ZSTD_compressBlock_btultra_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_btultra_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_dedicatedDictSearch)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_dedicatedDictSearch_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_dictMatchState_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_extDict_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_greedy_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_dedicatedDictSearch)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_dedicatedDictSearch_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_dictMatchState_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_extDict_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy2_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_dedicatedDictSearch)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_dedicatedDictSearch_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_dictMatchState)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_dictMatchState_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_extDict)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_extDict_row)
UNREACHABLE_FINDER(ZSTD_compressBlock_lazy_row)

/* used only when loading dictionaries, which the agent never does */
void ZSTD_fillDoubleHashTable(void *ms, const void *end, int dtlm);
void ZSTD_fillDoubleHashTable(void *ms, const void *end, int dtlm)
{
	(void)ms, (void)end, (void)dtlm;
	abort();
}
void ZSTD_dedicatedDictSearch_lazy_loadDictionary(void *ms, const void *ip);
void ZSTD_dedicatedDictSearch_lazy_loadDictionary(void *ms, const void *ip)
{
	(void)ms, (void)ip;
	abort();
}
unsigned ZSTD_insertAndFindFirstIndex(void *ms, const void *ip);
unsigned ZSTD_insertAndFindFirstIndex(void *ms, const void *ip)
{
	(void)ms, (void)ip;
	abort();
}
void ZSTD_row_update(void *ms, const void *ip);
void ZSTD_row_update(void *ms, const void *ip)
{
	(void)ms, (void)ip;
	abort();
}
void ZSTD_updateTree(void *ms, const void *ip, const void *iend);
void ZSTD_updateTree(void *ms, const void *ip, const void *iend)
{
	(void)ms, (void)ip, (void)iend;
	abort();
}

/* Long-distance matching: zstd enables it only on request or for the
 * optimal strategies with windows of 128 MiB and more, never with the
 * agent's pinned fast/dfast.  Sizing asks return "none"; the rest is
 * unreachable. */
size_t ZSTD_ldm_getTableSize(void);
size_t ZSTD_ldm_getTableSize(void)
{
	return 0;
}
size_t ZSTD_ldm_getMaxNbSeq(void);
size_t ZSTD_ldm_getMaxNbSeq(void)
{
	return 0;
}
#define UNREACHABLE(name)                                                                        \
	void name(void);                                                                         \
	void name(void)                                                                          \
	{                                                                                        \
		abort();                                                                         \
	}
UNREACHABLE(ZSTD_ldm_adjustParameters)
UNREACHABLE(ZSTD_ldm_blockCompress)
UNREACHABLE(ZSTD_ldm_fillHashTable)
UNREACHABLE(ZSTD_ldm_generateSequences)
UNREACHABLE(ZSTD_ldm_skipRawSeqStoreBytes)
UNREACHABLE(ZSTD_ldm_skipSequences)
