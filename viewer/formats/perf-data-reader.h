/* perf-data-reader.h — perf.data files as a stream of PerfLens messages.
 *
 * Reads a file written by `perf record` (format v2, "PERFILE2", either
 * byte order; file mode or pipe mode, i.e. `perf record -o - > f.data`)
 * and hands the viewer core the same struct pl_msg stream a live agent
 * would send:
 *
 *   HELLO          synthesized from the feature sections (ARCH, HOSTNAME,
 *                  OSRELEASE, NRCPUS, VERSION, CLOCKID/CLOCK_DATA)
 *   SESSION        callgraph mode from the first sampling attr's sample_type,
 *                  command from CMDLINE
 *   EVENT_DESC     one per attr, index = attr position, name from EVENT_DESC
 *   BUILD_ID       one per HEADER_BUILD_ID table entry
 *   then, for each record of the data section:
 *   SAMPLE MMAP COMM TASK SWITCH LOST THROTTLE   (other records are counted
 *                                                 in the stats and skipped)
 *
 * Order: records are delivered in file order by default.  perf writes the
 * per-CPU ring buffers one after the other and marks FINISHED_ROUND, so
 * time only increases within one CPU's run; with `reorder` set, records are
 * sorted by time within FINISHED_ROUND windows exactly as `perf report`
 * does (a record is released once a later round proves nothing older can
 * follow), at the cost of holding up to two rounds in memory (capped, see
 * PL_PERF_REORDER_MAX_BYTES; past it the window is flushed early and
 * stats.reorder_overflows counts it).  Without TIME in sample_type there is
 * nothing to sort by and file order is kept.
 *
 * Memory: the data section of a file is mapped (mmap) and read in place:
 * records, and those held for reordering, are not copied (compressed
 * records are decompressed into a buffer and held in an arena); pages
 * behind the oldest held record are given back as reading goes on
 * (MADV_DONTNEED), so memory follows the reorder window, not the file
 * size.  Where it cannot be mapped (pipe mode, a pipe, mmap refused) it is
 * streamed through a fixed window (records are at most 64 KiB).  Only the
 * header, attrs, ids and the small feature sections are loaded, each under
 * a cap checked before allocation.  Like `perf report`, which maps
 * perf.data too, a file truncated by someone else *while* it is being read
 * raises SIGBUS: copy a file that is still being written first.
 *
 * Errors: every length is checked against what is left of its record,
 * section and file.  A corrupt or truncated file stops the read with a
 * PL_PERF_DATA_ERROR_CORRUPT error naming the offset; messages already
 * delivered stay valid.  Records of unknown type are skipped by size.
 *
 * Ownership: the struct pl_msg passed to the sink, and every pointer in it,
 * is borrowed until the sink returns.  Not thread-safe per call, but calls
 * share nothing: read several files from several threads at once if you like.
 */
#ifndef PL_PERF_DATA_READER_H
#define PL_PERF_DATA_READER_H

#include <gio/gio.h>
#include <glib.h>
#include <stdint.h>

#include "msg.h"

G_BEGIN_DECLS

#define PL_PERF_DATA_ERROR (pl_perf_data_error_quark())
GQuark pl_perf_data_error_quark(void);

typedef enum {
	PL_PERF_DATA_ERROR_IO,          /* open/read failed (errno text in the message) */
	PL_PERF_DATA_ERROR_NOT_PERF,    /* no perf.data magic */
	PL_PERF_DATA_ERROR_CORRUPT,     /* a length or offset does not fit */
	PL_PERF_DATA_ERROR_UNSUPPORTED, /* valid but not handled (v1 format, dir format…) */
	PL_PERF_DATA_ERROR_CANCELLED,   /* the progress callback or cancellable said stop */
} PlPerfDataError;

/* Returns FALSE (and sets error) to stop the read; the reader returns FALSE
 * with that error. */
typedef gboolean (*PlPerfDataSink)(const struct pl_msg *msg, gpointer user, GError **error);
/* Called every few MB of the data section; returns FALSE to cancel. */
typedef gboolean (*PlPerfDataProgress)(guint64 done, guint64 total, gpointer user);

#define PL_PERF_REORDER_MAX_BYTES (512u << 20)

typedef struct {
	PlPerfDataProgress progress; /* may be NULL */
	gpointer progress_user;
	GCancellable *cancellable; /* may be NULL */
	gboolean reorder;          /* sort within FINISHED_ROUND windows (see above) */
} PlPerfDataReadOptions;

/* What was in the file, for the user and the tests. */
typedef struct {
	gboolean pipe_mode;
	gboolean big_endian;
	guint64 file_size;
	guint64 data_bytes;      /* of the data section (after decompression) */
	guint64 records;         /* every record, kernel and perf's own */
	guint64 by_type[128];    /* records by PERF_RECORD_* type (< 128) */
	guint64 samples;         /* SAMPLE messages delivered */
	guint64 unknown_records; /* types this reader does not know, skipped */
	guint64 unknown_ids;     /* records whose event id matched no attr, skipped */
	guint64 truncated_callchains; /* longer than PL_MAX_CALLCHAIN: cut */
	guint64 truncated_stacks;     /* longer than PL_MAX_STACK_COPY: cut */
	guint64 compressed_records;   /* PERF_RECORD_COMPRESSED (perf record -z) */
	guint64 rounds;               /* FINISHED_ROUND */
	guint64 reorder_overflows;
	guint64 stray_build_id_flags; /* MMAP2 build-id flag over maj/min/ino (kernel) */
	guint nr_attrs;
	guint nr_build_ids;
} PlPerfDataStats;

/* Reads the whole file, calling sink for each message in the order
 * described above.  opts and stats may be NULL.  Returns TRUE at the end of
 * the data section; FALSE with error set otherwise. */
gboolean pl_perf_data_read(const char *path, const PlPerfDataReadOptions *opts,
			   PlPerfDataSink sink, gpointer user, PlPerfDataStats *stats,
			   GError **error);

/* ELF EM_* for a `uname -m` / perf HEADER_ARCH string; 0 if unknown.  The
 * word size (4 or 8) goes to *word_size when not NULL. */
guint pl_perf_arch_to_e_machine(const char *arch, guint *word_size);

G_END_DECLS

#endif
