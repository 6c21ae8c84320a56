/* counters.h — counter tracks (msg.h): what the agent polls from /proc
 * and sysfs every interval of a session and sends as TRACK_VALUES, each
 * track described once by a TRACK_DESC.
 *
 * pla_tracks_start() finds the sources (the target's RSS, each CPU's busy
 * share, cpufreq policies, thermal zones, hwmon power/current/voltage/
 * temperature inputs, cpuidle states), opens each file once and keeps the
 * descriptor; pla_tracks_tick() rereads them with pread at offset 0 into
 * fixed buffers (sysfs and seq_file regenerate a file read at 0): no
 * allocation, no stdio.  Sources the board lacks are not tracks; a file
 * that stops answering (the target exited) gives PL_TRACK_NONE.
 *
 * Test hook: PERFLENS_SYSFS_ROOT, when set, is put before /sys, so that a
 * test can lay out a tree as the kernel documents it (/proc/stat and the
 * target's /proc/PID/statm are always the real ones).
 *
 * Errors: pla_tracks_start and pla_tracks_tick return pla_stream_msg's
 * (-errno of a dead stream) or 0.
 */
#ifndef PLA_COUNTERS_H
#define PLA_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

#include "msg.h"
#include "stream.h"

#define PLA_TRACKS_HZ 10 /* the default poll rate (agent --tracks) */

struct pla_track {
	int fd;       /* pread at 0 each poll; -1: a /proc/stat row */
	uint8_t kind; /* enum pl_track_kind */
	int cpu;
	uint64_t prev, prev_total; /* shares: the cumulative values last read */
};

struct pla_tracks {
	uint32_t n, interval_ms; /* at most PL_MAX_TRACKS: idle states past it are left out */
	uint64_t last_ns;
	int stat_fd;     /* /proc/stat, for CPU_BUSY, or -1 */
	uint32_t page_size, stat_len;
	char *stat_buf;  /* stat_len bytes: the cpu rows */
	struct pla_track t[PL_MAX_TRACKS];
};

/* Describes and opens the tracks of a session polled every interval_ms
 * (pid: the target process for RSS, 0: none) and sends the TRACK_DESCs
 * through out, built in m (the caller's scratch message). */
int pla_tracks_start(struct pla_tracks *ts, uint32_t interval_ms, pid_t pid, int ncpus,
		     struct pla_stream *out, struct pl_msg *m);
/* When an interval has passed since the last poll: reads every track and
 * sends one TRACK_VALUES. */
int pla_tracks_tick(struct pla_tracks *ts, uint64_t now, struct pla_stream *out,
		    struct pl_msg *m);
/* Closes the files (ts itself is the caller's). */
void pla_tracks_stop(struct pla_tracks *ts);

#endif
