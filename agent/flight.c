/* flight.c — the flight recorder's ring and snapshots; see flight.h. */
#include "flight.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "block.h"
#include "io.h"
#include "stream.h"
#include "util.h"

#define MS 1000000ull
/* the drain's delay between a sample and its block (poll 50 ms, flush
 * 100 ms): a window's last blocks are written that long after its end */
#define WRITE_MARGIN_NS (250 * MS)

/* A block in the ring, before its bytes. */
struct ent {
	uint32_t len;
	uint32_t key; /* the first block after a keyframe */
	uint64_t time; /* when it was finished */
	uint64_t key_time, key_jpos;
};

int pla_flight_init(struct pla_flight *f, const struct pla_flight_config *cfg, char *err,
		    size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->cfg = cfg;
	f->cap = cfg->ring_bytes;
	f->ev.marker = f->ev.syscall = -1;
	if (mkdir(cfg->dir, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create the snapshot directory %s: %s", cfg->dir,
			 strerror(errno));
		return -errno;
	}
	if (access(cfg->dir, W_OK | X_OK) < 0) {
		snprintf(err, errlen, "cannot write snapshots into %s: %s (choose another "
				      "--snapshot-dir)", cfg->dir, strerror(errno));
		return -errno;
	}
	f->pre_cap = 256 * 1024;
	f->pre = malloc(f->pre_cap);
	f->journal = malloc(PLA_FLIGHT_JOURNAL);
	f->ring = malloc(f->cap);
	f->msg = malloc(sizeof(*f->msg));
	f->names = malloc(sizeof(*f->names) * (PLA_FLIGHT_FILES_MAX + 1));
	if (!f->pre || !f->journal || !f->ring || !f->msg || !f->names) {
		pla_flight_free(f);
		snprintf(err, errlen, "out of memory for a %llu-byte flight recorder ring: lower "
				      "--flight-size", (unsigned long long)cfg->ring_bytes);
		return -ENOMEM;
	}
	pl_w_init(&f->jw, f->journal, PLA_FLIGHT_JOURNAL);
	return 0;
}

void pla_flight_free(struct pla_flight *f)
{
	free(f->pre);
	free(f->journal);
	free(f->ring);
	free(f->msg);
	free(f->names);
	memset(f, 0, sizeof(*f));
}

/* ─── the ring ────────────────────────────────────────────────────────── */

static void ring_in(struct pla_flight *f, uint64_t pos, const void *p, size_t n)
{
	size_t at = (size_t)(pos % f->cap), first = f->cap - at < n ? (size_t)(f->cap - at) : n;
	memcpy(f->ring + at, p, first);
	memcpy(f->ring, (const uint8_t *)p + first, n - first);
}

static void ring_out(const struct pla_flight *f, uint64_t pos, void *p, size_t n)
{
	size_t at = (size_t)(pos % f->cap), first = f->cap - at < n ? (size_t)(f->cap - at) : n;
	memcpy(p, f->ring + at, first);
	memcpy((uint8_t *)p + first, f->ring, n - first);
}

static void evict(struct pla_flight *f)
{
	struct ent e;
	ring_out(f, f->tail, &e, sizeof(e));
	if (f->pending && e.time >= f->from)
		f->window_short = 1; /* the window did not fit the ring */
	f->tail += sizeof(e) + e.len;
	f->evicted_blocks++;
}

static int on_block(void *ctx, const uint8_t *p, size_t n)
{
	struct pla_flight *f = ctx;
	if (!f->live) {
		if (f->pre_len + n > f->pre_cap) {
			/* the session's start only (not the drain path) */
			size_t cap = f->pre_cap * 2 + n;
			uint8_t *q = cap <= PLA_FLIGHT_PREAMBLE_MAX ? realloc(f->pre, cap) : NULL;
			if (!q)
				return -ENOMEM;
			f->pre = q;
			f->pre_cap = cap;
		}
		memcpy(f->pre + f->pre_len, p, n);
		f->pre_len += n;
		return 0;
	}
	struct ent e = { (uint32_t)n, (uint32_t)f->next_key, pla_now_ns(), f->key_time,
			 f->key_jpos };
	if (sizeof(e) + n > f->cap)
		return -EMSGSIZE;
	while (f->cap - (f->head - f->tail) < sizeof(e) + n)
		evict(f);
	ring_in(f, f->head, &e, sizeof(e));
	ring_in(f, f->head + sizeof(e), p, n);
	f->head += sizeof(e) + n;
	f->next_key = 0;
	return 0;
}

/* ─── triggers ────────────────────────────────────────────────────────── */

static void tell(struct pla_flight *f, const struct pla_firing *x)
{
	if (f->nunsent < sizeof(f->unsent) / sizeof(f->unsent[0]))
		f->unsent[f->nunsent++] = *x;
}

/* A firing: it opens a snapshot, joins the one being recorded, or is
 * rate-limited.  Returns 1 unless rate-limited. */
static int fired(struct pla_flight *f, const struct pla_firing *x, uint64_t now)
{
	if (f->pending) {
		tell(f, x); /* one snapshot, every firing it covers told */
		return 1;
	}
	/* a viewer's "Save now": the whole ring, at once, whatever the gap */
	int asked = x->kind == PL_TRIGGER_VIEWER;
	/* --boot saves the boot once; what fires later is not the boot */
	if (f->cfg->boot && f->snapshots && !asked)
		return 0;
	if (!asked && x->time < f->quiet_until) {
		f->suppressed++;
		return 0;
	}
	uint64_t before = (uint64_t)(asked ? f->cfg->keep_ms : f->cfg->before_ms) * MS;
	uint64_t after = asked ? 0 : (uint64_t)f->cfg->after_ms * MS;
	f->pending = 1;
	f->window_short = 0;
	f->from = x->time > before ? x->time - before : 0;
	f->to = x->time + after;
	f->write_at = (f->to > now ? f->to : now) + WRITE_MARGIN_NS;
	f->first = *x;
	tell(f, x);
	return 1;
}

static void on_msg(void *ctx, const struct pl_msg *m)
{
	struct pla_flight *f = ctx;
	if (m->type == PL_MSG_END)
		f->ended = 1;
	if (!f->live)
		return;
	if (m->type == PL_MSG_COMM)
		for (uint32_t i = 0; i < f->cfg->ntriggers; i++) {
			const struct pla_trigger *t = &f->cfg->triggers[i];
			struct pla_firing x = { t->kind, m->u.comm.time ? m->u.comm.time : pla_now_ns(),
						"", "" };
			if (pla_trigger_match_comm(t, &m->u.comm, x.detail, sizeof(x.detail))) {
				memcpy(x.spec, t->spec, sizeof(x.spec));
				fired(f, &x, pla_now_ns());
				break;
			}
		}
	switch (m->type) {
	case PL_MSG_MMAP:
	case PL_MSG_COMM:
	case PL_MSG_TASK:
	case PL_MSG_BUILD_ID:
	case PL_MSG_FILE_CHUNK:
	case PL_MSG_EVENT_DESC:
		/* what names addresses and threads: a window must have it */
		if (pl_msg_encode(&f->jw, m) < 0)
			f->journal_dropped++;
		return;
	case PL_MSG_SAMPLE:
		break;
	default:
		return;
	}
	for (uint32_t i = 0; i < f->cfg->ntriggers; i++) {
		const struct pla_trigger *t = &f->cfg->triggers[i];
		struct pla_firing x = { t->kind, 0, "", "" };
		if (!pla_trigger_match(t, &f->ev, &m->u.sample, &x.time, x.detail, sizeof(x.detail)))
			continue;
		memcpy(x.spec, t->spec, sizeof(x.spec));
		fired(f, &x, pla_now_ns());
		return;
	}
}

void pla_flight_tap(struct pla_flight *f, struct pla_stream_tap *t)
{
	*t = (struct pla_stream_tap){ on_block, on_msg, f };
}

int pla_flight_fire(struct pla_flight *f, uint8_t kind, uint64_t now, const char *detail)
{
	struct pla_firing x = { kind, now, "viewer", "" };
	snprintf(x.detail, sizeof(x.detail), "%s", detail);
	/* SIGUSR1 and a viewer's request always save; an exit only when asked */
	if (kind == PL_TRIGGER_SIGNAL)
		memcpy(x.spec, "signal", 7);
	if (kind == PL_TRIGGER_EXIT) {
		uint32_t i = 0;
		while (i < f->cfg->ntriggers && f->cfg->triggers[i].kind != kind)
			i++;
		if (i == f->cfg->ntriggers)
			return 0;
		memcpy(x.spec, f->cfg->triggers[i].spec, sizeof(x.spec));
	}
	return f->live && fired(f, &x, now);
}

void pla_flight_cpu(struct pla_flight *f, uint32_t permille, uint64_t since, uint64_t now)
{
	for (uint32_t i = 0; i < f->cfg->ntriggers; i++) {
		const struct pla_trigger *t = &f->cfg->triggers[i];
		if (t->kind != PL_TRIGGER_CPU)
			continue;
		if (permille < t->permille) {
			f->cpu_above[i] = 0;
			continue;
		}
		if (!f->cpu_above[i])
			f->cpu_above[i] = since;
		if (now - f->cpu_above[i] < t->min_ns)
			continue;
		struct pla_firing x = { t->kind, now, "", "" };
		memcpy(x.spec, t->spec, sizeof(x.spec));
		snprintf(x.detail, sizeof(x.detail), "CPU %u.%u%% over the last second, %llu ms above "
			 "%u%%", permille / 10, permille % 10,
			 (unsigned long long)((now - f->cpu_above[i]) / MS), t->permille / 10);
		f->cpu_above[i] = 0; /* held that long again before it fires again */
		if (f->live)
			fired(f, &x, now);
	}
}

/* ─── keyframes ───────────────────────────────────────────────────────── */

static void keyframe(struct pla_flight *f, struct pla_stream *out, uint64_t now)
{
	/* the block before ends here; the next one knows no stack and no
	 * zstd history of it */
	pla_stream_flush(out);
	pla_stream_reset_stacks(out);
	f->next_key = 1;
	f->key_time = now;
	f->key_jpos = pl_w_len(&f->jw);
	f->key_head = f->head;
}

void pla_flight_go_live(struct pla_flight *f, const struct pla_trigger_events *ev,
			struct pla_stream *out, uint64_t now)
{
	pla_stream_flush(out); /* the start's last block: the preamble's */
	f->ev = *ev;
	f->live = 1;
	if (f->cfg->ready_fd >= 0) {
		/* --boot: sampling runs; the real init may start (boot.h) */
		(void)!write(f->cfg->ready_fd, "1", 1);
		close(f->cfg->ready_fd);
	}
	keyframe(f, out, now);
	f->next_key_ns = now + PLA_FLIGHT_KEY_MS * MS;
}

/* ─── snapshots ───────────────────────────────────────────────────────── */

struct listed {
	char name[56];
	uint64_t size;
};

/* Deletes the oldest snapshots until one of `incoming` bytes fits the
 * caps.  Names sort by time (flight-SECONDS-N). */
static void prune(struct pla_flight *f, uint64_t incoming)
{
	struct listed *l = (struct listed *)f->names;
	size_t n = 0;
	uint64_t total = 0;
	DIR *d = opendir(f->cfg->dir);
	if (!d)
		return;
	struct dirent *de;
	char path[4200];
	while ((de = readdir(d)) && n < PLA_FLIGHT_FILES_MAX / 2) {
		size_t len = strlen(de->d_name);
		struct stat st;
		if (strncmp(de->d_name, "flight-", 7) || len < 7 || len >= sizeof(l->name) ||
		    strcmp(de->d_name + len - 6, ".plens"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", f->cfg->dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		memcpy(l[n].name, de->d_name, len + 1);
		l[n].size = (uint64_t)st.st_size;
		total += l[n++].size;
	}
	closedir(d);
	/* the oldest first, picked one at a time (qsort costs the static agent
	 * 1.7 KiB; n is small) */
	while (n && (n >= f->cfg->max_files || total + incoming > f->cfg->max_bytes)) {
		size_t old = 0;
		for (size_t i = 1; i < n; i++)
			if (strcmp(l[i].name, l[old].name) < 0)
				old = i;
		snprintf(path, sizeof(path), "%s/%s", f->cfg->dir, l[old].name);
		if (unlink(path) == 0)
			total -= l[old].size;
		l[old] = l[--n];
	}
}

/* A raw block of payload [p, p + n). */
static int put_raw_block(int fd, const uint8_t *p, size_t n)
{
	uint8_t h[PL_BLOCK_HEADER_SIZE];
	struct pl_block_header bh = { PL_CODEC_RAW, (uint32_t)n, (uint32_t)n, pl_crc32(0, p, n) };
	pl_block_header_put(h, &bh);
	int rc = pl_write_all(fd, h, sizeof(h));
	return rc < 0 ? rc : pl_write_all(fd, p, n);
}

/* The ring's bytes [pos, pos + n) to fd, as they lie (at most two pieces). */
static int put_ring(const struct pla_flight *f, int fd, uint64_t pos, size_t n)
{
	size_t at = (size_t)(pos % f->cap), first = f->cap - at < n ? (size_t)(f->cap - at) : n;
	int rc = pl_write_all(fd, f->ring + at, first);
	return rc < 0 || first == n ? rc : pl_write_all(fd, f->ring, n - first);
}

/* The closing block: what the user should know of the window, and an END
 * when the ring has none (the session goes on). */
static int put_trailer(struct pla_flight *f, int fd, uint64_t now, uint64_t start_key)
{
	static uint8_t buf[2048];
	char text[400];
	struct pl_writer w;
	struct pl_msg *m = f->msg;
	pl_w_init(&w, buf, sizeof(buf));
	int n = snprintf(text, sizeof(text), "Flight recorder snapshot: %s fired (%s); window "
			 "from %llu ms before it", f->first.spec, f->first.detail,
			 (unsigned long long)((f->first.time - (start_key < f->first.time ? start_key
											   : f->first.time)) / MS));
	if (f->window_short)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "; the ring held less than --before asked: raise --flight-size");
	if (f->journal_dropped)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "; %llu naming records did not fit the journal: some names may be missing",
			      (unsigned long long)f->journal_dropped);
	if (f->suppressed)
		snprintf(text + n, sizeof(text) - (size_t)n,
			 "; %u triggers ignored before it (--trigger-gap)", f->suppressed);
	m->type = PL_MSG_LOG;
	m->u.log = (struct pl_msg_log){ f->window_short || f->journal_dropped ? PL_LOG_WARN
									     : PL_LOG_INFO,
					pl_str_c(text) };
	pl_msg_encode(&w, m);
	if (!f->ended) {
		m->type = PL_MSG_END;
		m->u.end = (struct pl_msg_end){ PL_END_STOPPED, 0, now,
						pl_str_c("flight recorder snapshot") };
		pl_msg_encode(&w, m);
	}
	return put_raw_block(fd, buf, pl_w_len(&w));
}

static int write_snapshot(struct pla_flight *f, uint64_t now, char *err, size_t errlen)
{
	/* the window: from the first keyframe at or after `from` */
	uint64_t start = f->head, key_time = 0, jpos = 0;
	for (uint64_t pos = f->tail; pos < f->head;) {
		struct ent e;
		ring_out(f, pos, &e, sizeof(e));
		if (e.key && e.key_time >= f->from) {
			start = pos, key_time = e.key_time, jpos = e.key_jpos;
			break;
		}
		pos += sizeof(e) + e.len;
	}
	if (start == f->head) {
		snprintf(err, errlen, "the flight recorder ring holds nothing of the window of %s",
			 f->first.spec);
		return -ENODATA;
	}
	uint64_t size = f->pre_len + jpos + (f->head - start) + 4096;
	prune(f, size);
	struct statvfs vfs;
	if (statvfs(f->cfg->dir, &vfs) == 0) {
		uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		uint64_t reserve = (uint64_t)vfs.f_blocks * vfs.f_frsize / 20;
		if (reserve < PLA_FLIGHT_RESERVE)
			reserve = PLA_FLIGHT_RESERVE;
		if (avail < size + reserve) {
			snprintf(err, errlen, "not saving a %llu-byte snapshot into %s: it would leave "
					      "less than %llu MiB free (free some space, or lower "
					      "--snapshot-bytes)", (unsigned long long)size,
				 f->cfg->dir, (unsigned long long)(reserve >> 20));
			return -ENOSPC;
		}
	}
	char tmp[4200], path[4200];
	snprintf(tmp, sizeof(tmp), "%s/.flight-%d.tmp", f->cfg->dir, (int)getpid());
	snprintf(f->last_name, sizeof(f->last_name), "flight-%010llu-%04u.plens",
		 (unsigned long long)time(NULL), ++f->seq);
	snprintf(path, sizeof(path), "%s/%s", f->cfg->dir, f->last_name);
	unlink(tmp); /* a previous run's, cut short */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write a snapshot in %s: %s", f->cfg->dir,
			 strerror(errno));
		return -errno;
	}
	int rc = pl_write_all(fd, f->pre, f->pre_len);
	if (rc == 0 && jpos)
		rc = put_raw_block(fd, f->journal, (size_t)jpos);
	for (uint64_t pos = start; rc == 0 && pos < f->head;) {
		struct ent e;
		ring_out(f, pos, &e, sizeof(e));
		rc = put_ring(f, fd, pos + sizeof(e), e.len);
		pos += sizeof(e) + e.len;
	}
	if (rc == 0)
		rc = put_trailer(f, fd, now, key_time);
	if (rc == 0 && syscall(SYS_fsync, fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		snprintf(err, errlen, "writing the snapshot %s failed: %s", path, strerror(-rc));
		return rc;
	}
	int dfd = open(f->cfg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		syscall(SYS_fsync, dfd); /* the rename itself */
		close(dfd);
	}
	f->snapshots++;
	pla_log("flight recorder: %s fired; saved %s", f->first.spec, path);
	return 0;
}

int pla_flight_tick(struct pla_flight *f, struct pla_stream *out, uint64_t now, int final,
		    char *err, size_t errlen)
{
	if (!f->live)
		return 0;
	for (uint32_t i = 0; i < f->nunsent; i++) {
		const struct pla_firing *x = &f->unsent[i];
		struct pl_msg *m = f->msg;
		m->type = PL_MSG_TRIGGER;
		m->u.trigger = (struct pl_msg_trigger){ x->kind, x->time, f->from, f->to,
							pl_str_c(x->spec), pl_str_c(x->detail) };
		pla_stream_msg(out, m);
	}
	f->nunsent = 0;
	if (final && f->cfg->boot && !f->attempts && !f->pending) {
		/* --boot's time limit (--duration) without a trigger: the boot
		 * so far is the recording */
		struct pla_firing x = { PL_TRIGGER_TIME, now, "boot", "the --duration limit came" };
		fired(f, &x, now);
	}
	if (!final && (now >= f->next_key_ns || f->head - f->key_head >= f->cap / 4)) {
		keyframe(f, out, now);
		f->next_key_ns = now + PLA_FLIGHT_KEY_MS * MS;
	}
	/* older than --flight: gone, unless a window being recorded needs it */
	uint64_t keep = (uint64_t)f->cfg->keep_ms * MS;
	while (f->tail < f->head && !f->pending) {
		struct ent e;
		ring_out(f, f->tail, &e, sizeof(e));
		if (e.time + keep >= now)
			break;
		evict(f);
	}
	if (!f->pending || (!final && now < f->write_at))
		return 0;
	pla_stream_flush(out); /* the window's last block */
	int rc = write_snapshot(f, now, err, errlen);
	f->attempts++;
	f->last_rc = rc;
	snprintf(f->last_err, sizeof(f->last_err), "%s", rc < 0 ? err : "");
	f->pending = 0;
	f->suppressed = 0;
	f->quiet_until = now + (uint64_t)f->cfg->gap_ms * MS;
	/* --boot records the boot once; without viewers to serve the agent
	 * is done (as on SIGTERM: the session's loop ends and cleans up) */
	if (f->cfg->boot && !f->cfg->listen && !final)
		kill(getpid(), SIGTERM);
	return rc;
}
