/* counters.c — counter tracks: finding the sources, polling them; see
 * counters.h and msg.h (the units are the kernel's, told in TRACK_DESC). */
#include "counters.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* by enum pl_track_kind: the unit, and the power of ten of its value */
static const char units[][4] = { "", "B", "%", "Hz", "%", "\xc2\xb0" "C", "W", "A", "V",
				 "\xc2\xb0" "C" };
static const int8_t exps[] = { 0, 0, -1, 3, -1, -3, -6, -3, -3, -3 };

/* hwmon inputs (Documentation/hwmon/sysfs-interface.rst) */
static const struct {
	char prefix[6];
	uint8_t kind;
} hwmon_kinds[] = {
	{ "power", PL_TRACK_POWER },
	{ "curr", PL_TRACK_CURRENT },
	{ "in", PL_TRACK_VOLTAGE },
	{ "temp", PL_TRACK_TEMP },
};

/* A small file's text into buf, without its trailing newline; the length,
 * or -1 when it cannot be read. */
static int read_text(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return (int)n;
}

/* The same by path ("" when unreadable). */
static void read_name(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	buf[0] = 0;
	if (fd >= 0) {
		if (read_text(fd, buf, len) < 0)
			buf[0] = 0;
		close(fd);
	}
}

/* The number a file holds (sysfs: one; statm: the field-th), or NONE. */
static int64_t read_num(int fd, int field)
{
	char buf[96], *p = buf, *end;
	if (read_text(fd, buf, sizeof(buf)) <= 0)
		return PL_TRACK_NONE;
	int64_t v;
	do
		v = (int64_t)pla_strtou64(p, &end, 10);
	while (end != p && field-- > 0 && (p = end));
	return end == p ? PL_TRACK_NONE : v;
}

/* The next "cpuN" row of /proc/stat text at *p: its busy (neither idle
 * nor iowait) and total jiffies; 0 past the cpu rows. */
static int stat_row(char **p, int *cpu, uint64_t *busy, uint64_t *total)
{
	char *s = *p, *nl;
	while (!strncmp(s, "cpu", 3) && (nl = strchr(s, '\n'))) {
		*p = nl + 1;
		if (s[3] < '0' || s[3] > '9') { /* the "cpu " sum */
			s = nl + 1;
			continue;
		}
		char *e;
		uint64_t v[8] = { 0 }, sum = 0;
		*cpu = (int)pla_strtou64(s + 3, &e, 10);
		/* user nice system idle iowait irq softirq steal (guest is in user) */
		for (int i = 0; i < 8 && e < nl; i++)
			sum += v[i] = pla_strtou64(e, &e, 10);
		*total = sum;
		*busy = sum - v[3] - v[4];
		return 1;
	}
	return 0;
}

static int read_stat(struct pla_tracks *ts)
{
	return read_text(ts->stat_fd, ts->stat_buf, ts->stat_len) > 0;
}

/* ─── finding the sources ─────────────────────────────────────────────── */

static int add(struct pla_tracks *ts, struct pla_stream *out, struct pl_msg *m, uint8_t kind,
	       int fd, int cpu, uint32_t pid, const char *name, const char *source)
{
	if (ts->n == PL_MAX_TRACKS) {
		if (fd >= 0)
			close(fd);
		ts->dropped++;
		return 0;
	}
	struct pla_track *t = &ts->t[ts->n];
	t->fd = fd;
	t->kind = kind;
	t->cpu = cpu;
	m->type = PL_MSG_TRACK_DESC;
	m->u.track_desc = (struct pl_msg_track_desc){
		ts->n++,	    kind,	       exps[kind],	    pid, cpu, ts->interval_ms,
		pl_str_c(name), pl_str_c(units[kind]), pl_str_c(source),
	};
	return pla_stream_msg(out, m);
}

/* Opens path (already in buf) and describes it as a track. */
static int add_file(struct pla_tracks *ts, struct pla_stream *out, struct pl_msg *m,
		    uint8_t kind, int cpu, const char *name, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? 0 : add(ts, out, m, kind, fd, cpu, 0, name, path);
}

/* The entries of DIR named PREFIX<N>: fn(N's entry) for each. */
static int each_entry(const char *dir, const char *prefix,
		      int (*fn)(const char *dir, const char *name, void *u), void *u)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = strlen(prefix);
	int rc = 0;
	while (d && rc == 0 && (de = readdir(d)))
		if (!strncmp(de->d_name, prefix, n) && de->d_name[n] >= '0' && de->d_name[n] <= '9')
			rc = fn(dir, de->d_name, u);
	if (d)
		closedir(d);
	return rc;
}

struct found {
	struct pla_tracks *ts;
	struct pla_stream *out;
	struct pl_msg *m;
	const char *hwmon; /* the device's name */
};

static int on_policy(const char *dir, const char *e, void *u)
{
	struct found *f = u;
	char path[400], cpus[64], name[128];
	snprintf(path, sizeof(path), "%s/%s/related_cpus", dir, e);
	read_name(path, cpus, sizeof(cpus));
	snprintf(name, sizeof(name), "%s frequency (cpus %s)", e, cpus);
	/* the governor's view, else the hardware's (cpufreq.rst) */
	snprintf(path, sizeof(path), "%s/%s/scaling_cur_freq", dir, e);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/%s/cpuinfo_cur_freq", dir, e);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd < 0 ? 0 : add(f->ts, f->out, f->m, PL_TRACK_CPU_FREQ, fd,
				(int)pla_strtou64(e + 6, NULL, 10), 0, name, path);
}

static int on_zone(const char *dir, const char *e, void *u)
{
	struct found *f = u;
	char path[400], type[80], name[128];
	snprintf(path, sizeof(path), "%s/%s/type", dir, e);
	read_name(path, type, sizeof(type));
	snprintf(name, sizeof(name), "thermal %s", type[0] ? type : e);
	snprintf(path, sizeof(path), "%s/%s/temp", dir, e);
	return add_file(f->ts, f->out, f->m, PL_TRACK_THERMAL, -1, name, path);
}

static int on_input(const char *dir, const char *e, void *u)
{
	struct found *f = u;
	for (size_t k = 0; k < sizeof(hwmon_kinds) / sizeof(hwmon_kinds[0]); k++) {
		size_t n = strlen(hwmon_kinds[k].prefix);
		char *end, path[400], label[64], name[160];
		if (strncmp(e, hwmon_kinds[k].prefix, n) || e[n] < '0' || e[n] > '9')
			continue;
		pla_strtou64(e + n, &end, 10);
		if (strcmp(end, "_input"))
			return 0;
		if (snprintf(path, sizeof(path), "%s/%.*slabel", dir, (int)(end + 1 - e), e) >=
		    (int)sizeof(path))
			return 0;
		read_name(path, label, sizeof(label));
		snprintf(name, sizeof(name), "hwmon %s %.*s%s%s", f->hwmon, (int)(end - e), e,
			 label[0] ? " " : "", label);
		if (snprintf(path, sizeof(path), "%s/%s", dir, e) >= (int)sizeof(path))
			return 0;
		return add_file(f->ts, f->out, f->m, hwmon_kinds[k].kind, -1, name, path);
	}
	return 0;
}

static int on_hwmon(const char *dir, const char *e, void *u)
{
	struct found *f = u;
	char path[400], name[64];
	snprintf(path, sizeof(path), "%s/%s/name", dir, e);
	read_name(path, name, sizeof(name));
	f->hwmon = name[0] ? name : e;
	snprintf(path, sizeof(path), "%s/%s", dir, e);
	/* every entry: on_input keeps the four kinds' inputs */
	DIR *d = opendir(path);
	struct dirent *de;
	int rc = 0;
	while (d && rc == 0 && (de = readdir(d)))
		rc = on_input(path, de->d_name, f);
	if (d)
		closedir(d);
	return rc;
}

int pla_tracks_start(struct pla_tracks *ts, uint32_t interval_ms, pid_t pid, int ncpus,
		     struct pla_stream *out, struct pl_msg *m)
{
	const char *sys = getenv("PERFLENS_SYSFS_ROOT"), *proc = getenv("PERFLENS_PROC_ROOT");
	char path[400], name[128];
	struct found f = { ts, out, m, NULL };
	int rc = 0;
	sys = sys ? sys : "";
	ts->stat_fd = -1;
	ts->interval_ms = interval_ms;
	ts->page_size = (uint32_t)pla_page_size();
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
		snprintf(name, sizeof(name), "rss %d", (int)pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && (rc = add(ts, out, m, PL_TRACK_RSS, fd, -1, (uint32_t)pid, name, path)))
			return rc;
	}
	snprintf(path, sizeof(path), "%s/proc/stat", proc ? proc : "");
	ts->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	ts->stat_len = (uint32_t)(ncpus + 2) * 224;
	ts->stat_buf = malloc(ts->stat_len);
	if (ts->stat_fd >= 0 && ts->stat_buf && read_stat(ts)) {
		char *row = ts->stat_buf;
		int cpu;
		uint64_t busy, total;
		while (rc == 0 && stat_row(&row, &cpu, &busy, &total)) {
			uint32_t i = ts->n;
			snprintf(name, sizeof(name), "cpu%d busy", cpu);
			rc = add(ts, out, m, PL_TRACK_CPU_BUSY, -1, cpu, 0, name, path);
			if (i < ts->n) { /* where its shares start */
				ts->t[i].prev = busy;
				ts->t[i].prev_total = total;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpufreq", sys);
	if (rc == 0)
		rc = each_entry(path, "policy", on_policy, &f);
	snprintf(path, sizeof(path), "%s/sys/class/thermal", sys);
	if (rc == 0)
		rc = each_entry(path, "thermal_zone", on_zone, &f);
	snprintf(path, sizeof(path), "%s/sys/class/hwmon", sys);
	if (rc == 0)
		rc = each_entry(path, "hwmon", on_hwmon, &f);
	/* idle states last: CPUs × states may be many */
	for (int cpu = 0; rc == 0 && cpu < ncpus; cpu++)
		for (int k = 0; rc == 0; k++) {
			char st[64];
			snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
				 sys, cpu, k);
			read_name(path, st, sizeof(st));
			if (!st[0])
				break;
			snprintf(name, sizeof(name), "cpu%d idle %s", cpu, st);
			strcpy(path + strlen(path) - 4, "time");
			uint32_t i = ts->n;
			rc = add_file(ts, out, m, PL_TRACK_CPU_IDLE, cpu, name, path);
			if (i < ts->n) { /* the first reading: where the shares start */
				ts->t[i].prev = (uint64_t)read_num(ts->t[i].fd, 0) * 1000;
				ts->t[i].prev_total = pla_now_ns();
			}
		}
	if (rc == 0 && ts->dropped) {
		snprintf(name, sizeof(name), "Counter tracks: %u sources past the first %u are not polled.",
			 ts->dropped, PL_MAX_TRACKS);
		rc = pla_stream_log(out, m, PL_LOG_WARN, name);
	}
	ts->last_ns = pla_now_ns();
	return rc;
}

/* ─── polling ─────────────────────────────────────────────────────────── */

/* part / whole in per mille, from the cumulative values last seen */
static int64_t share(struct pla_track *t, uint64_t part, uint64_t whole)
{
	int64_t dp = (int64_t)(part - t->prev), dw = (int64_t)(whole - t->prev_total);
	t->prev = part;
	t->prev_total = whole;
	if (dw <= 0)
		return PL_TRACK_NONE;
	/* iowait may step back on an idle CPU: the share stays in 0..1000 */
	dp = dp < 0 ? 0 : dp > dw ? dw : dp;
	return dp * 1000 / dw;
}

int pla_tracks_tick(struct pla_tracks *ts, uint64_t now, struct pla_stream *out,
		    struct pl_msg *m)
{
	if (!ts->n || now < ts->last_ns + (uint64_t)ts->interval_ms * 1000000u)
		return 0;
	ts->last_ns = now;
	struct pl_msg_track_values *tv = &m->u.track_values;
	char none[1] = "", *row = ts->stat_fd >= 0 && read_stat(ts) ? ts->stat_buf : none;
	int rcpu = -1;
	uint64_t busy = 0, total = 0;
	m->type = PL_MSG_TRACK_VALUES;
	tv->time = pla_now_ns(); /* the reads' own time: `now` may be a loop round old */
	tv->first = 0;
	tv->n = ts->n;
	for (uint32_t i = 0; i < ts->n; i++) {
		struct pla_track *t = &ts->t[i];
		int64_t v;
		if (t->kind == PL_TRACK_CPU_BUSY) {
			while (rcpu < t->cpu && stat_row(&row, &rcpu, &busy, &total))
				;
			v = rcpu == t->cpu ? share(t, busy, total) : PL_TRACK_NONE;
		} else {
			v = read_num(t->fd, t->kind == PL_TRACK_RSS);
			if (t->kind == PL_TRACK_RSS && v != PL_TRACK_NONE)
				v *= ts->page_size;
			else if (t->kind == PL_TRACK_CPU_IDLE && v != PL_TRACK_NONE)
				v = share(t, (uint64_t)v * 1000, pla_now_ns()); /* µs → ns */
		}
		tv->v[i] = (uint64_t)v;
	}
	return pla_stream_msg(out, m);
}

void pla_tracks_stop(struct pla_tracks *ts)
{
	for (uint32_t i = 0; i < ts->n; i++)
		if (ts->t[i].fd >= 0)
			close(ts->t[i].fd);
	if (ts->stat_fd >= 0)
		close(ts->stat_fd);
	free(ts->stat_buf);
	ts->n = 0;
	ts->stat_fd = -1;
	ts->stat_buf = NULL;
}
