/* perf-data-writer.h — PerfLens messages → a perf.data that `perf report` reads.
 *
 * Feed it the message stream of a session (HELLO, SESSION, EVENT_DESC,
 * BUILD_ID, MMAP, COMM, TASK, SAMPLE, SWITCH, LOST, THROTTLE; anything else
 * is ignored) and finish it.  The file is perf's format v2, little-endian,
 * file mode:
 *
 *   header | data (records, streamed as messages arrive) | feature table |
 *   features (HOSTNAME OSRELEASE VERSION ARCH NRCPUS CMDLINE EVENT_DESC
 *   SAMPLE_TIME BUILD_ID) | attrs | ids
 *
 * Attrs are written last, so events may be described at any point; what
 * must be settled by the first data message (MMAP, COMM, SAMPLE…) is the
 * sample layout, taken from SESSION: IDENTIFIER IP TID TIME CPU PERIOD, plus
 * CALLCHAIN unless the call graph is NONE, plus REGS_USER STACK_USER for
 * DWARF.  Every event uses that one layout (perf wants it so); ids are
 * event index + 1.
 *
 * The build-id table (from BUILD_ID messages and from MMAPs that carry a
 * build-id) lets perf find the right binaries by build-id.  A sample whose
 * record would not fit perf's 64 KiB record limit has its stack copy cut,
 * as the kernel itself would have done.
 *
 * Input is messages as pl_reader (or the perf.data reader) delivers them:
 * absolute times and full call chains (SAMPLE.stack_id is ignored, STACK
 * frames too).  Messages are copied as needed; nothing is kept borrowed.  Not thread-safe.
 * Errors (I/O, an event index over the cap) are final: the writer refuses
 * further input and free() removes the unfinished file.
 */
#ifndef PL_PERF_DATA_WRITER_H
#define PL_PERF_DATA_WRITER_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

typedef struct _PlPerfDataWriter PlPerfDataWriter;

#define PL_PERF_WRITER_MAX_EVENTS 4096u

/* Creates (truncates) path.  NULL with error set if it cannot. */
PlPerfDataWriter *pl_perf_data_writer_new(const char *path, GError **error);
/* Appends one message.  FALSE with error set on failure. */
gboolean pl_perf_data_writer_add(PlPerfDataWriter *self, const struct pl_msg *msg,
				 GError **error);
/* Writes the features, attrs and header, and closes the file. */
gboolean pl_perf_data_writer_finish(PlPerfDataWriter *self, GError **error);
/* Frees; an unfinished file is deleted. */
void pl_perf_data_writer_free(PlPerfDataWriter *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlPerfDataWriter, pl_perf_data_writer_free)

typedef struct {
	guint64 samples;
	guint64 records;
	guint64 stacks_cut;   /* stack copies shortened to fit a record */
	guint64 regs_dropped; /* samples whose register count did not match the session */
	guint64 ignored;      /* messages with no perf.data counterpart */
} PlPerfDataWriterStats;
void pl_perf_data_writer_get_stats(const PlPerfDataWriter *self, PlPerfDataWriterStats *st);

G_END_DECLS

#endif
