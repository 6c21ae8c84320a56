/* flight.h — the flight recorder: `--flight SECONDS` keeps the last
 * seconds of the compressed stream in RAM, and a trigger (trigger.h)
 * saves a window of it around the moment it fired as a normal capture.
 *
 * Where the bytes live (all allocated at start, none on the drain path):
 *   preamble  the stream header and the session's first blocks (HELLO,
 *             SESSION, EVENT_DESC, what existed before: /proc, the vDSO,
 *             kallsyms), kept whole;
 *   journal   every later message that names things (MMAP, COMM, TASK,
 *             BUILD_ID, FILE_CHUNK, EVENT_DESC), as raw frames, up to
 *             PLA_FLIGHT_JOURNAL bytes (past that they are counted and the
 *             snapshot says so);
 *   ring      the compressed blocks, oldest dropped first when it is full
 *             or older than SECONDS.
 * Every keyframe (PLA_FLIGHT_KEY_MS, or sooner once a quarter of the
 * ring was written since the last one, so that a busy stream cannot push
 * every keyframe out of a small ring) the stream forgets its interned
 * stacks and restarts its zstd frame, so a block that follows a keyframe
 * decodes without any earlier one.  A snapshot is the preamble, the
 * journal up to the keyframe, the ring's blocks from the first keyframe
 * at or after (trigger - before) to (trigger + after), and an END: any
 * window opens with full names and nothing earlier than it asked for.
 *
 * Files are written into the snapshot directory as flight-SECONDS-N.plens
 * (mode 0600; a temporary name, fsync, rename, every write checked),
 * after the oldest ones are deleted to keep at most max_files and
 * max_bytes; a snapshot that would leave the file system with less than
 * PLA_FLIGHT_RESERVE bytes (or 5 %) free is refused.  After a snapshot,
 * triggers are ignored for gap_ms (counted, and said in the next one).
 *
 * With --port (flight-serve.c) the agent also listens, authenticating
 * viewers as a --listen agent does; a viewer's SNAPSHOT ("Save now",
 * `perflens snapshot`) saves the whole ring at once (no --after, no
 * --trigger-gap: a person asked) and the file is sent back to it as
 * FILE_CHUNKs of kind PL_CHUNK_SNAPSHOT, then the REPLY.
 *
 * Single-threaded: the session's loop calls everything here.
 */
#ifndef PLA_FLIGHT_H
#define PLA_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "trigger.h"
#include "writer.h"

#define PLA_FLIGHT_KEY_MS 500               /* keyframe period */
#define PLA_FLIGHT_JOURNAL (512u * 1024)     /* raw naming frames after the start */
#define PLA_FLIGHT_PREAMBLE_MAX (16u << 20)  /* the start's blocks (kallsyms: ~1 MiB) */
#define PLA_FLIGHT_RESERVE (16ull << 20)     /* free space a snapshot never takes */
#define PLA_FLIGHT_FILES_MAX 1000

struct pla_stream;
struct pla_stream_tap;

struct pla_flight_config {
	uint32_t keep_ms;    /* --flight SECONDS */
	uint64_t ring_bytes; /* --flight-size */
	uint32_t before_ms, after_ms;
	const char *dir;     /* --snapshot-dir */
	uint32_t max_files;  /* --snapshot-count */
	uint64_t max_bytes;  /* --snapshot-bytes */
	uint32_t gap_ms;     /* --trigger-gap */
	struct pla_trigger triggers[PLA_MAX_TRIGGERS];
	uint32_t ntriggers;
	/* --port or --listen with --flight: viewers may ask for a snapshot */
	int listen;
	const char *bind; /* --bind, or NULL */
	int port;
	const char *token;    /* NULL: --no-auth */
	int token_at_bind;    /* write the generated token beside the port bound */
	/* --boot (boot.h): save once (a trigger, or the --duration limit),
	 * then end; ready_fd (else -1) is told when sampling runs */
	int boot;
	int ready_fd;
};

struct pla_flight_serve;
struct pollfd;

/* One firing, as the TRIGGER message will tell it. */
struct pla_firing {
	uint8_t kind;
	uint64_t time;
	char spec[PLA_TRIGGER_TEXT];
	char detail[240];
};

struct pla_flight {
	const struct pla_flight_config *cfg;
	int live; /* the start is over: blocks go to the ring, names to the journal */
	uint8_t *pre;
	size_t pre_len, pre_cap;
	uint8_t *journal;
	struct pl_writer jw;
	uint64_t journal_dropped;
	uint8_t *ring;
	uint64_t cap, head, tail; /* byte positions, growing; the ring holds [tail, head) */
	int next_key;             /* the next block starts a keyframe */
	uint64_t key_time, key_jpos, next_key_ns;
	uint64_t key_head; /* head at the last keyframe */
	struct pla_trigger_events ev;
	/* the snapshot being recorded (pending), and firings not told yet */
	int pending;
	uint64_t from, to, write_at;
	struct pla_firing first;
	struct pla_firing unsent[4];
	uint32_t nunsent;
	uint64_t quiet_until; /* rate limit */
	uint64_t cpu_above[PLA_MAX_TRIGGERS]; /* CPU: since when above, 0: not */
	uint32_t suppressed;
	int ended; /* the ring holds the session's END */
	uint32_t seq;
	struct pl_msg *msg; /* scratch (TRIGGER, END) */
	char (*names)[64];  /* directory listing, PLA_FLIGHT_FILES_MAX + 1 */
	/* statistics */
	uint64_t snapshots, evicted_blocks, window_short;
	/* the last attempt to write one: how many so far, its result, the
	 * file's name in the directory (for a viewer that asked) */
	uint64_t attempts;
	int last_rc;
	char last_name[40];
	char last_err[256];
	struct pla_flight_serve *serve; /* with cfg->listen, else NULL */
};

/* Allocates the ring and buffers, checks that the directory is writable.
 * Returns 0 or -errno with a sentence in err. */
int pla_flight_init(struct pla_flight *f, const struct pla_flight_config *cfg, char *err,
		    size_t errlen);
void pla_flight_free(struct pla_flight *f);

/* The stream's tap (stream.h) into f: its finished blocks (and the stream
 * header) come to f, and f sees every message before it is encoded. */
void pla_flight_tap(struct pla_flight *f, struct pla_stream_tap *t);

/* The start is over (the session's first blocks are flushed): from here
 * on the ring.  ev: what the session's events are, for the triggers. */
void pla_flight_go_live(struct pla_flight *f, const struct pla_trigger_events *ev,
			struct pla_stream *out, uint64_t now);
/* A trigger of this kind (EXIT, SIGNAL, VIEWER) fired now; those the
 * samples fire are found by pla_flight_see.  SIGUSR1 and a viewer's
 * request always count, an exit only with --trigger exit.  Returns 1 when
 * it counts (and is not rate-limited). */
int pla_flight_fire(struct pla_flight *f, uint8_t kind, uint64_t now, const char *detail);
/* The CPU share over the interval [since, now) (‰ of one CPU for a
 * process, of all CPUs for the board), for the cpu: triggers. */
void pla_flight_cpu(struct pla_flight *f, uint32_t permille, uint64_t since, uint64_t now);
/* Periodic work from the session's loop: keyframes, TRIGGER messages,
 * and writing a snapshot whose window has passed (or now, with
 * final set: the session ends).  Returns 0, or -errno when a snapshot
 * could not be written (err says why; recording goes on). */
int pla_flight_tick(struct pla_flight *f, struct pla_stream *out, uint64_t now, int final,
		    char *err, size_t errlen);

/* flight-serve.c: the viewers of a listening flight recorder (--port;
 * its owner calls serve_init after pla_flight_init and serve_free before
 * pla_flight_free: the serving uses the ring, not the other way).  pollfds
 * fills up to max entries (listener, pending, the viewer) and returns how
 * many; serve handles what poll() said of them (the same entries) and
 * sends a snapshot a viewer asked for once it is written. */
int pla_flight_serve_init(struct pla_flight *f, char *err, size_t errlen);
void pla_flight_serve_free(struct pla_flight *f);
int pla_flight_pollfds(struct pla_flight *f, struct pollfd *pfd, int max);
void pla_flight_serve(struct pla_flight *f, const struct pollfd *pfd, int n, uint64_t now);

#endif
