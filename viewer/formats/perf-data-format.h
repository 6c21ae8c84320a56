/* perf-data-format.h — the perf.data on-disk format, as far as we use it.
 *
 * Written out here rather than taken from <linux/perf_event.h> because the
 * file format is an ABI of its own (tools/perf/util/header.h), the files
 * come from other machines and newer kernels than our build host's
 * headers, and the reader and writer must agree on one list.  Values are
 * those of Linux 6.x; nothing here is laid over file bytes as a struct.
 *
 *   file header (104 bytes)
 *     u64 magic "PERFILE2"  u64 size(104)  u64 attr_size
 *     section attrs, data, event_types       (each u64 offset, u64 size)
 *     u64 features[4]                        (bitmap of HEADER_* below)
 *   attrs: attr_size-byte entries: perf_event_attr + section ids (u64 array)
 *   data:  records (perf_event_header: u32 type, u16 misc, u16 size)
 *   at data.offset + data.size: one section per feature bit set, in bit order
 *
 * Pipe mode: u64 magic, u64 size(16), then records only; attrs, features
 * and build-ids come as PERF_RECORD_HEADER_* records.
 */
#ifndef PL_PERF_DATA_FORMAT_H
#define PL_PERF_DATA_FORMAT_H

#define PD_MAGIC_LE "PERFILE2" /* bytes of the u64 written by a little-endian perf */
#define PD_MAGIC_BE "2ELIFREP"
#define PD_MAGIC_V1 "PERFFILE"
#define PD_FILE_HEADER_SIZE 104u
#define PD_PIPE_HEADER_SIZE 16u
#define PD_RECORD_HEADER_SIZE 8u
#define PD_ATTR_SIZE_VER0 64u
#define PD_ATTR_SIZE_VER7 128u /* what perf 6.1 writes */
#define PD_NAME_ALIGN 64u      /* strings in feature sections are padded to this */

/* perf_event_attr byte offsets */
enum {
	PD_ATTR_TYPE = 0,
	PD_ATTR_SIZE = 4,
	PD_ATTR_CONFIG = 8,
	PD_ATTR_PERIOD = 16, /* sample_period or sample_freq */
	PD_ATTR_SAMPLE_TYPE = 24,
	PD_ATTR_READ_FORMAT = 32,
	PD_ATTR_FLAGS = 40, /* the bitfield word */
	PD_ATTR_WAKEUP = 48,
	PD_ATTR_BP_TYPE = 52,
	PD_ATTR_CONFIG1 = 56,
	PD_ATTR_CONFIG2 = 64,
	PD_ATTR_BRANCH_SAMPLE_TYPE = 72,
	PD_ATTR_REGS_USER = 80,
	PD_ATTR_STACK_USER = 88,
	PD_ATTR_CLOCKID = 92,
	PD_ATTR_REGS_INTR = 96,
	PD_ATTR_AUX_WATERMARK = 104,
	PD_ATTR_MAX_STACK = 108,
};

/* bit numbers in the flags word (LSB-first, as on a little-endian host) */
enum {
	PD_ATTR_F_DISABLED = 0,
	PD_ATTR_F_INHERIT = 1,
	PD_ATTR_F_EXCLUDE_USER = 4,
	PD_ATTR_F_EXCLUDE_KERNEL = 5,
	PD_ATTR_F_EXCLUDE_HV = 6,
	PD_ATTR_F_MMAP = 8,
	PD_ATTR_F_COMM = 9,
	PD_ATTR_F_FREQ = 10,
	PD_ATTR_F_ENABLE_ON_EXEC = 12,
	PD_ATTR_F_TASK = 13,
	PD_ATTR_F_SAMPLE_ID_ALL = 18,
	PD_ATTR_F_EXCLUDE_CALLCHAIN_KERNEL = 21,
	PD_ATTR_F_EXCLUDE_CALLCHAIN_USER = 22,
	PD_ATTR_F_MMAP2 = 23,
	PD_ATTR_F_COMM_EXEC = 24,
	PD_ATTR_F_USE_CLOCKID = 25,
	PD_ATTR_F_CONTEXT_SWITCH = 26,
};

enum {
	PD_SAMPLE_IP = 1u << 0,
	PD_SAMPLE_TID = 1u << 1,
	PD_SAMPLE_TIME = 1u << 2,
	PD_SAMPLE_ADDR = 1u << 3,
	PD_SAMPLE_READ = 1u << 4,
	PD_SAMPLE_CALLCHAIN = 1u << 5,
	PD_SAMPLE_ID = 1u << 6,
	PD_SAMPLE_CPU = 1u << 7,
	PD_SAMPLE_PERIOD = 1u << 8,
	PD_SAMPLE_STREAM_ID = 1u << 9,
	PD_SAMPLE_RAW = 1u << 10,
	PD_SAMPLE_BRANCH_STACK = 1u << 11,
	PD_SAMPLE_REGS_USER = 1u << 12,
	PD_SAMPLE_STACK_USER = 1u << 13,
	PD_SAMPLE_WEIGHT = 1u << 14,
	PD_SAMPLE_DATA_SRC = 1u << 15,
	PD_SAMPLE_IDENTIFIER = 1u << 16,
	PD_SAMPLE_TRANSACTION = 1u << 17,
	PD_SAMPLE_REGS_INTR = 1u << 18,
	PD_SAMPLE_PHYS_ADDR = 1u << 19,
	PD_SAMPLE_AUX = 1u << 20,
	PD_SAMPLE_CGROUP = 1u << 21,
	PD_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
	PD_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
	PD_SAMPLE_WEIGHT_STRUCT = 1u << 24,
	PD_SAMPLE_KNOWN = (1u << 25) - 1,
};
/* the fields of the sample_id trailer of non-sample records */
#define PD_SAMPLE_ID_ALL_MASK                                                                    \
	(PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU |   \
	 PD_SAMPLE_IDENTIFIER)

enum {
	PD_READ_TOTAL_TIME_ENABLED = 1u << 0,
	PD_READ_TOTAL_TIME_RUNNING = 1u << 1,
	PD_READ_ID = 1u << 2,
	PD_READ_GROUP = 1u << 3,
	PD_READ_LOST = 1u << 4,
};

enum {
	PD_BRANCH_CALL_STACK = 1u << 11,
	PD_BRANCH_HW_INDEX = 1u << 17,
	PD_BRANCH_COUNTERS = 1u << 19, /* Linux 6.8: one u64 per entry after the entries */
};

enum {
	PD_REC_MMAP = 1,
	PD_REC_LOST = 2,
	PD_REC_COMM = 3,
	PD_REC_EXIT = 4,
	PD_REC_THROTTLE = 5,
	PD_REC_UNTHROTTLE = 6,
	PD_REC_FORK = 7,
	PD_REC_READ = 8,
	PD_REC_SAMPLE = 9,
	PD_REC_MMAP2 = 10,
	PD_REC_AUX = 11,
	PD_REC_ITRACE_START = 12,
	PD_REC_LOST_SAMPLES = 13,
	PD_REC_SWITCH = 14,
	PD_REC_SWITCH_CPU_WIDE = 15,
	PD_REC_NAMESPACES = 16,
	PD_REC_KSYMBOL = 17,
	PD_REC_BPF_EVENT = 18,
	PD_REC_CGROUP = 19,
	PD_REC_TEXT_POKE = 20,
	PD_REC_AUX_OUTPUT_HW_ID = 21,
	PD_REC_KERNEL_MAX = 64, /* below: the kernel's; from here: perf's own */
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_EVENT_TYPE = 65,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_HEADER_BUILD_ID = 67,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_ID_INDEX = 69,
	PD_REC_AUXTRACE_INFO = 70,
	PD_REC_AUXTRACE = 71,
	PD_REC_AUXTRACE_ERROR = 72,
	PD_REC_THREAD_MAP = 73,
	PD_REC_CPU_MAP = 74,
	PD_REC_STAT_CONFIG = 75,
	PD_REC_STAT = 76,
	PD_REC_STAT_ROUND = 77,
	PD_REC_EVENT_UPDATE = 78,
	PD_REC_TIME_CONV = 79,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_FINISHED_INIT = 82,
	PD_REC_COMPRESSED2 = 83, /* perf 6.15: u64 data_size, then the zstd bytes */
	PD_REC_MAX = 84,
};

enum {
	PD_MISC_CPUMODE_MASK = 7,
	PD_MISC_KERNEL = 1,
	PD_MISC_USER = 2,
	PD_MISC_COMM_EXEC = 1u << 13,
	PD_MISC_SWITCH_OUT = 1u << 13,
	PD_MISC_SWITCH_OUT_PREEMPT = 1u << 14,
	PD_MISC_MMAP_BUILD_ID = 1u << 14,
	PD_MISC_BUILD_ID_SIZE = 1u << 15, /* in build-id table entries: size byte valid */
};

/* feature bits (HEADER_*) */
enum {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_DIR_FORMAT = 24,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_BITS = 256,
};

/* build-id table entry: header, s32 pid, u8 build_id[20], u8 size, u8[3],
 * then the NUL-padded filename */
#define PD_BUILD_ID_ENTRY_FIXED (PD_RECORD_HEADER_SIZE + 4 + 24)

#define PD_CONTEXT_MAX ((uint64_t)-4095) /* callchain entries ≥ this are context markers */

#endif
