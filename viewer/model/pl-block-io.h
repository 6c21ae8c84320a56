/* pl-block-io.h — block I/O requests from issue to completion, from the
 * tracepoints block:block_rq_issue and block:block_rq_complete that
 * `perflens record --block` records (pl_block_io_tracepoints).
 *
 * A request is known by its device and first sector while it is in
 * flight: an issue opens it, the completion of the same (dev, sector)
 * closes it.  A completion of fewer sectors than the request (the driver
 * finished part of it) moves what remains on to the next sector, as the
 * kernel does; an issue of a (dev, sector) already in flight replaces it
 * (the first was requeued) and is counted.  What cannot be paired is
 * counted, never guessed: completions whose issue came before the
 * recording, requests still in flight at its end.
 *
 * The size is the issue's `bytes`; the kind (read, write, flush,
 * discard) its rwbs letters as blktrace prints them; the stack is the
 * issue's: the thread current when the request went to the driver, which
 * is the submitter when it dispatches directly (O_DIRECT, a plug
 * finished), a kworker when the queue was run later.
 *
 * Devices are the kernel's dev_t of the tracepoint (major << 20 | minor).
 * No GTK; pure over the profile's tracepoint events. */
#ifndef PL_BLOCK_IO_H
#define PL_BLOCK_IO_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

/* What `record --block` (and the app's "Block I/O" box) adds to --event. */
extern const char *const pl_block_io_tracepoints[]; /* NULL-terminated */

typedef enum {
	PL_BLOCK_READ,
	PL_BLOCK_WRITE,
	PL_BLOCK_FLUSH,   /* no data: a cache flush alone */
	PL_BLOCK_DISCARD, /* discard, secure erase, write zeroes */
	PL_BLOCK_OTHER,
} PlBlockOp;

typedef struct {
	guint64 issue, complete; /* profile times; complete 0: never in the recording */
	guint32 dev;
	guint64 sector;
	guint32 bytes;
	PlBlockOp op;
	char rwbs[12];
	gint32 error;            /* the completion's, -errno */
	guint32 pid, tid, cpu;   /* current at issue */
	guint32 stack;           /* at issue (address-trie leaf) */
} PlBlockRequest;

typedef struct {
	guint32 dev;
	guint64 requests;         /* completed (issued in the recording) */
	guint64 by_op[PL_BLOCK_OTHER + 1];
	guint64 bytes_read, bytes_written;
	guint64 errors;
	guint64 in_flight_at_end; /* issued, never completed */
	guint64 p50_ns, p90_ns, p99_ns, max_ns, total_ns;
} PlBlockDevice;

typedef struct {
	GArray *requests;  /* PlBlockRequest, by issue time */
	GArray *devices;   /* PlBlockDevice, by dev */
	gboolean recorded; /* the recording holds block_rq_issue */
	guint64 complete_without_issue; /* issued before the recording */
	guint64 reissued;  /* an issue replaced one in flight (requeued) */
	guint64 undecoded;
	guint64 lost;      /* the recording's lost samples, all events */
} PlBlockIo;

PlBlockIo *pl_block_io_new(PlProfile *profile);
void pl_block_io_free(PlBlockIo *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlBlockIo, pl_block_io_free)

/* "7,0 loop" — major,minor and, for majors the kernel fixes
 * (Documentation/admin-guide/devices.txt), the driver.  New string. */
char *pl_block_dev_name(guint32 dev);
const char *pl_block_op_name(PlBlockOp op);
/* The device's row, NULL when it has no request. */
const PlBlockDevice *pl_block_io_device(const PlBlockIo *b, guint32 dev);
/* The completed requests, slowest first (new array of pointers into
 * b->requests, at most max, 0: all); dev G_MAXUINT32: every device. */
GPtrArray *pl_block_io_slowest(const PlBlockIo *b, guint32 dev, guint max);

G_END_DECLS

#endif
