/* pl-capture.h — reading a recorded profile: .plens captures and perf.data.
 *
 * A .plens capture is the byte stream an agent sends (common/wire.h), so
 * loading one is feeding the file through a pl_reader and handing every
 * decoded message to a callback.  perf.data files are converted into the
 * same messages by viewer/formats (when built in), so everything above this
 * layer sees one kind of input.
 *
 * A capture whose writer was killed ends in a torn block: everything up to
 * the last complete block is delivered, the tail is counted in
 * PlCaptureInfo.ignored_bytes and is not an error.  Corruption in the
 * middle of a file stops delivery there and is reported through *error
 * together with how much was read.
 *
 * Messages passed to the callback borrow the reader's buffers: copy what
 * must outlive the call.  The callback runs on the caller's thread, in
 * file order; a .plens of 64 KiB or more is decoded meanwhile on a second
 * thread when there is a second CPU (PERFLENS_NO_DECODE_THREAD=1: never).
 * No GTK.
 */
#ifndef PL_CAPTURE_H
#define PL_CAPTURE_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

#define PL_CAPTURE_ERROR (pl_capture_error_quark())
GQuark pl_capture_error_quark(void);
typedef enum {
	PL_CAPTURE_ERROR_IO,          /* cannot open or read the file */
	PL_CAPTURE_ERROR_FORMAT,      /* not a capture we know */
	PL_CAPTURE_ERROR_CORRUPT,     /* a bad block in the middle of the file */
	PL_CAPTURE_ERROR_UNSUPPORTED, /* perf.data without the formats module, … */
	PL_CAPTURE_ERROR_CANCELLED,   /* the callback asked to stop */
} PlCaptureError;

typedef enum {
	PL_FILE_UNKNOWN = 0,
	PL_FILE_PLENS,     /* "PERFLENS" */
	PL_FILE_PERF_DATA, /* "PERFILE2" */
} PlFileKind;

/* Reads the first 8 bytes.  Returns PL_FILE_UNKNOWN on any error (then
 * pl_capture_load's error says why). */
PlFileKind pl_capture_detect(const char *path);

typedef struct {
	PlFileKind kind;
	guint64 file_size;
	guint64 blocks;        /* complete blocks read (.plens) */
	guint64 messages;      /* messages delivered */
	guint64 skipped;       /* frames of unknown type skipped */
	guint64 ignored_bytes; /* torn tail after the last complete block */
	guint32 stream_flags;  /* enum pl_stream_flags of the capture */
} PlCaptureInfo;

/* Return FALSE to stop loading (the load then fails with
 * PL_CAPTURE_ERROR_CANCELLED). */
typedef gboolean (*PlMsgFunc)(const struct pl_msg *m, gpointer user_data);

/* Loads a .plens or perf.data file, calling func for every message in
 * order.  info may be NULL.  Returns FALSE with *error set when the file
 * cannot be read, is not a capture, or is corrupt before its end; messages
 * delivered before the corruption stay delivered (info says how many). */
gboolean pl_capture_load(const char *path, PlMsgFunc func, gpointer user_data,
			 PlCaptureInfo *info, GError **error);
/* As pl_capture_load, but a .plens capture decoded on a second thread
 * (PERFLENS_NO_DECODE_THREAD unset, a large file, several cores) comes
 * in the session model's ingest order (pl-time-order.h), held on the
 * decoding thread, its samples' chains passed by serial
 * (pl-chain-store.h): less work on the caller's thread than the model's
 * own order.  *ordered is set before the first
 * message is delivered: TRUE, give the messages to
 * pl_profile_ingest_ordered; FALSE, they come as read (pl_profile_ingest). */
gboolean pl_capture_load_ordered(const char *path, PlMsgFunc func, gpointer user_data,
				 PlCaptureInfo *info, gboolean *ordered, GError **error);

/* The line for the user about a torn tail, or NULL when there was none.
 * Owned by the caller. */
char *pl_capture_info_dup_note(const PlCaptureInfo *info);

G_END_DECLS

#endif
