/* pl-sessions-index.h — what the sessions list shows about each saved
 * session, read cheaply.
 *
 * Every live session is saved as it streams into
 * $XDG_DATA_HOME/perflens/sessions/ as NAME.plens (pl-session-writer.h).  The list
 * needs target, process, date, duration and samples for each:
 *
 *   - the head of the file (HELLO, SESSION and the target's COMM come in
 *     the first block or two) gives target, process and date: reading at
 *     most PL_SESSION_HEAD_MAX bytes, never the whole file;
 *   - duration and samples need every block, so they live in a small
 *     sidecar, FILE.plens.idx (a GKeyFile), written when the session ends
 *     (the window knows the figures then), when a flight recorder's
 *     snapshot is saved (`perflens snapshot`, the app's Save now: read
 *     once in full then), or, for a file without one (a viewer that was
 *     killed, `perflens record`), computed once by a full scan in a worker
 *     and written then.  A sidecar records the size of
 *     the file it describes: a file that grew since is scanned again.
 *
 * Functions here do plain file I/O and no GTK, so they may run in a
 * worker thread (one PlSessionInfo per thread at a time).
 */
#ifndef PL_SESSIONS_INDEX_H
#define PL_SESSIONS_INDEX_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define PL_SESSION_HEAD_MAX (1024 * 1024)

typedef struct {
	char *path;     /* the .plens file */
	char *name;     /* its basename without .plens */
	char *hostname; /* the board, from HELLO; NULL when unreadable */
	char *peer;     /* "host:port" we connected to (sidecar), or NULL */
	char *process;  /* the recorded process or command, "all processes", or NULL */
	gint64 date;    /* unix seconds: the board's clock at HELLO, else the file's mtime */
	guint64 size;   /* bytes */
	gboolean have_totals; /* duration and samples known */
	double duration_s;
	guint64 samples;
	char *end;   /* how it ended ("stopped", "target exited"…), or NULL */
	/* symbol coverage when it ended (sidecar): modules, how many needed
	 * attention, the first module's advice; modules < 0: unknown */
	int modules, symbol_problems;
	char *symbol_advice;
	char *error; /* the head could not be read: why */
} PlSessionInfo;

void pl_session_info_free(PlSessionInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlSessionInfo, pl_session_info_free)

/* $XDG_DATA_HOME/perflens/sessions (owned by the caller). */
char *pl_sessions_dir(void);

/* The head and, when it is current, the sidecar of one file.  Never NULL:
 * a file that is not a readable capture has ->error set. */
PlSessionInfo *pl_session_info_read(const char *path);

/* Reads the whole file for duration and samples, then writes the sidecar.
 * FALSE when cancelled or unreadable (info unchanged then). */
gboolean pl_session_info_scan(PlSessionInfo *info, GCancellable *cancel);

/* Writes FILE.idx for the file at path with these figures (and the peer,
 * may be NULL).  Errors are ignored: the sidecar is only a cache. */
void pl_session_index_write(const char *path, guint64 samples, double duration_s,
			    const char *end, const char *peer);

/* Enters a finished file saved by other means than a live recording (a
 * flight recorder's snapshot) as a recording is entered when it ends: its
 * sidecar with samples, duration, how it ended (full read, as
 * pl_session_info_scan) and peer ("host:port" it came from, may be NULL).
 * FALSE when cancelled or unreadable (no sidecar then: the list scans it
 * when shown).  Blocking: call from a worker or a command-line tool. */
gboolean pl_session_index_add(const char *path, const char *peer, GCancellable *cancel);

/* Adds the symbol coverage at the end of the session to its sidecar (the
 * connect view shows it before the next recording from that board). */
void pl_session_index_write_symbols(const char *path, guint modules, guint problems,
				    const char *advice);

/* Every NAME.plens in dir (NULL: pl_sessions_dir()), newest first, heads and
 * sidecars read.  PlSessionInfo*, owned by the array. */
GPtrArray *pl_sessions_list(const char *dir);

/* Renames the file (and its sidecar) to NEW_NAME.plens in the same
 * directory; new_name is made file-name safe.  *new_path gets the new
 * path (may be NULL).  Never replaces anything at the new name (a session,
 * a symlink, one made meanwhile): G_IO_ERROR_EXISTS. */
gboolean pl_session_rename(const char *path, const char *new_name, char **new_path,
			   GError **error);
/* Deletes the file and its sidecar. */
gboolean pl_session_delete(const char *path, GError **error);

G_END_DECLS

#endif
