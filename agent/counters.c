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

/* by enum pl_track_kind: the unit, and the power of ten of its value
 * (\x25 is '%': fmt-test reads every literal of the agent as a format) */
static const char units[][4] = { "", "B", "\x25", "Hz", "\x25", "\xc2\xb0" "C", "W", "A", "V",
				 "\xc2\xb0" "C" };
static const int8_t exps[] = { 0, 0, -1, 3, -1, -3, -6, -3, -3, -3 };

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

/* Every track's value now into tv (n and v). */
static void poll_all(struct pla_tracks *ts, struct pl_msg_track_values *tv)
{
	char none[1] = "", *row = ts->stat_fd >= 0 && read_stat(ts) ? ts->stat_buf : none;
	int rcpu = -1;
	uint64_t busy = 0, total = 0;
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
			/* a zombie's statm reads 0: exited, not a value */
			if (t->kind == PL_TRACK_RSS)
				v = v > 0 ? v * ts->page_size : PL_TRACK_NONE;
			else if (t->kind == PL_TRACK_CPU_IDLE && v != PL_TRACK_NONE)
				v = share(t, (uint64_t)v * 1000, pla_now_ns()); /* µs → ns */
		}
		tv->v[i] = (uint64_t)v;
	}
}

/* ─── finding the sources ─────────────────────────────────────────────── */

static int add(struct pla_tracks *ts, struct pla_stream *out, struct pl_msg *m, uint8_t kind,
	       int fd, int cpu, uint32_t pid, const char *name, const char *source)
{
	if (ts->n == PL_MAX_TRACKS) { /* idle states come last: those are left out */
		if (fd >= 0)
			close(fd);
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

/* Opens path and describes it as a track (none when it cannot be
 * opened). */
static int add_file(struct pla_tracks *ts, struct pla_stream *out, struct pl_msg *m,
		    uint8_t kind, int cpu, uint32_t pid, const char *name, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? 0 : add(ts, out, m, kind, fd, cpu, pid, name, path);
}

/* The sysfs classes whose entries PREFIX<N> are a track each: its label
 * file names it (in fmt, after the entry's name), its value file is read.
 * hwmon (kind 0): each device's inputs are tracks.  cpufreq: the
 * governor's view of the frequency, which every driver gives (the
 * hardware's, cpuinfo_cur_freq, is optional and root's; cpufreq.rst);
 * beside it the policy's limit (lowered by a user, a platform limit or a
 * thermal cooling device) and the hardware's maximum, which the viewer's
 * cpufreq finding compares it with (it tells them by the file name). */
static const struct {
	const char *dir, *prefix, *label, *value, *fmt;
	uint8_t kind;
} classes[] = {
	{ "devices/system/cpu/cpufreq", "policy", "related_cpus", "scaling_cur_freq",
	  "%s frequency (cpus %s)", PL_TRACK_CPU_FREQ },
	{ "devices/system/cpu/cpufreq", "policy", "related_cpus", "scaling_max_freq",
	  "%s frequency limit (cpus %s)", PL_TRACK_CPU_FREQ },
	{ "devices/system/cpu/cpufreq", "policy", "related_cpus", "cpuinfo_max_freq",
	  "%s hardware max frequency (cpus %s)", PL_TRACK_CPU_FREQ },
	{ "class/thermal", "thermal_zone", "type", "temp", "%.0sthermal %s", PL_TRACK_THERMAL },
	{ "class/hwmon", "hwmon", "name", NULL, NULL, 0 },
};

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

/* The inputs of the hwmon device in dir, named after dev. */
static int add_hwmon(struct pla_tracks *ts, struct pla_stream *out, struct pl_msg *m,
		     const char *dir, const char *dev)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;
	while (d && rc == 0 && (de = readdir(d))) {
		const char *e = de->d_name;
		for (size_t k = 0; k < sizeof(hwmon_kinds) / sizeof(hwmon_kinds[0]); k++) {
			size_t n = strlen(hwmon_kinds[k].prefix);
			char *end, path[880], label[64], name[400];
			if (strncmp(e, hwmon_kinds[k].prefix, n) || e[n] < '0' || e[n] > '9')
				continue;
			pla_strtou64(e + n, &end, 10);
			if (strcmp(end, "_input") ||
			    snprintf(path, sizeof(path), "%s/%.*slabel", dir, (int)(end + 1 - e), e) >=
				    (int)sizeof(path))
				break;
			read_name(path, label, sizeof(label));
			snprintf(name, sizeof(name), "hwmon %s %.*s %s", dev, (int)(end - e), e, label);
			snprintf(path, sizeof(path), "%s/%s", dir, e);
			rc = add_file(ts, out, m, hwmon_kinds[k].kind, -1, 0, name, path);
			break;
		}
	}
	if (d)
		closedir(d);
	return rc;
}

int pla_tracks_start(struct pla_tracks *ts, uint32_t interval_ms, pid_t pid, int ncpus,
		     struct pla_stream *out, struct pl_msg *m)
{
	const char *sys = getenv("PERFLENS_SYSFS_ROOT");
	char path[600], name[128];
	int rc = 0;
	sys = sys ? sys : "";
	ts->stat_fd = -1;
	ts->interval_ms = interval_ms;
	ts->page_size = (uint32_t)pla_page_size();
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
		snprintf(name, sizeof(name), "rss %d", (int)pid);
		rc = add_file(ts, out, m, PL_TRACK_RSS, -1, (uint32_t)pid, name, path);
	}
	ts->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	ts->stat_len = (uint32_t)(ncpus + 2) * 224;
	ts->stat_buf = malloc(ts->stat_len);
	/* every possible CPU: one offline reads as NONE */
	for (int cpu = 0; rc == 0 && ts->stat_fd >= 0 && ts->stat_buf && cpu < ncpus; cpu++) {
		snprintf(name, sizeof(name), "cpu%d busy", cpu);
		rc = add(ts, out, m, PL_TRACK_CPU_BUSY, -1, cpu, 0, name, "/proc/stat");
	}
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
		char dir[300], label[80];
		size_t n = strlen(classes[c].prefix);
		snprintf(dir, sizeof(dir), "%s/sys/%s", sys, classes[c].dir);
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && rc == 0 && (de = readdir(d))) {
			const char *e = de->d_name;
			if (strncmp(e, classes[c].prefix, n) || e[n] < '0' || e[n] > '9')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dir, e, classes[c].label);
			read_name(path, label, sizeof(label));
			snprintf(path, sizeof(path), "%s/%s", dir, e);
			if (!classes[c].kind) {
				rc = add_hwmon(ts, out, m, path, label[0] ? label : e);
				continue;
			}
			snprintf(name, sizeof(name), classes[c].fmt, e, label);
			snprintf(path, sizeof(path), "%s/%s/%s", dir, e, classes[c].value);
			rc = add_file(ts, out, m, classes[c].kind,
				      classes[c].kind == PL_TRACK_CPU_FREQ ? (int)pla_strtou64(e + n, NULL, 10)
									    : -1,
				      0, name, path);
		}
		if (d)
			closedir(d);
	}
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
			rc = add_file(ts, out, m, PL_TRACK_CPU_IDLE, cpu, 0, name, path);
		}
	poll_all(ts, &m->u.track_values); /* where the shares start */
	ts->last_ns = pla_now_ns();
	return rc;
}

int pla_tracks_tick(struct pla_tracks *ts, uint64_t now, struct pla_stream *out,
		    struct pl_msg *m)
{
	if (!ts->n || now < ts->last_ns + (uint64_t)ts->interval_ms * 1000000u)
		return 0;
	ts->last_ns = now;
	m->type = PL_MSG_TRACK_VALUES;
	m->u.track_values.time = pla_now_ns(); /* the reads' own: `now` may be a loop round old */
	m->u.track_values.first = 0;
	poll_all(ts, &m->u.track_values);
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
