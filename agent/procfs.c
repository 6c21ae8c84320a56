/* procfs.c — /proc readers and ELF build-id notes; see procfs.h. */
#include "procfs.h"

#include "scan.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

/* Reads a small file into buf (NUL-terminated); returns bytes or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = 0;
	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	return (ssize_t)n;
}

static int is_pid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int pla_proc_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	ssize_t n = read_small(path, buf, len);
	if (n < 0)
		return (int)n;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

int pla_proc_each(int (*fn)(const struct pl_msg_proc *p, void *user), void *user)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	struct dirent *de;
	long tick = 100; /* USER_HZ: /proc counts in 1/100 s on every Linux */
	long page_kb = pla_page_size() / 1024;
	while ((de = readdir(d))) {
		if (!is_pid_name(de->d_name))
			continue;
		char path[64], statline[1024], cmd[1024], comm[64];
		struct pl_msg_proc p = { 0 };
		p.pid = (uint32_t)pla_strtou64(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%u/stat", p.pid);
		if (read_small(path, statline, sizeof(statline)) <= 0)
			continue; /* exited meanwhile */
		/* comm is in parentheses and may contain anything: find the last ')' */
		char *lp = strchr(statline, '('), *rp = strrchr(statline, ')');
		if (!lp || !rp || rp < lp)
			continue;
		size_t cl = (size_t)(rp - lp - 1);
		if (cl >= sizeof(comm))
			cl = sizeof(comm) - 1;
		memcpy(comm, lp + 1, cl);
		comm[cl] = 0;
		/* fields after ')': state ppid pgrp session tty tpgid flags minflt
		 * cminflt majflt cmajflt utime stime cutime cstime priority nice
		 * num_threads itrealvalue starttime vsize rss */
		uint64_t ppid = 0, utime = 0, stime = 0, threads = 0, rss = 0;
		const char *q = rp + 1;
		pla_skip_fields(&q, 1);            /* state */
		pla_scan_u64(&q, 10, &ppid);       /* 2 */
		pla_skip_fields(&q, 9);            /* 3..11 */
		pla_scan_u64(&q, 10, &utime);      /* 12 */
		pla_scan_u64(&q, 10, &stime);      /* 13 */
		pla_skip_fields(&q, 4);            /* 14..17 */
		pla_scan_u64(&q, 10, &threads);    /* 18 */
		pla_skip_fields(&q, 3);            /* 19..21 */
		pla_scan_u64(&q, 10, &rss);        /* 22, pages */
		p.ppid = (uint32_t)ppid;
		p.threads = (uint32_t)threads;
		p.rss_kb = (uint64_t)rss * (uint64_t)page_kb;
		p.cpu_ms = (uint64_t)(utime + stime) * 1000 / (uint64_t)(tick > 0 ? tick : 100);
		struct stat stt;
		snprintf(path, sizeof(path), "/proc/%u", p.pid);
		if (stat(path, &stt) == 0)
			p.uid = stt.st_uid;
		snprintf(path, sizeof(path), "/proc/%u/cmdline", p.pid);
		ssize_t n = read_small(path, cmd, sizeof(cmd));
		for (ssize_t i = 0; i < n; i++)
			if (cmd[i] == 0)
				cmd[i] = ' ';
		while (n > 0 && cmd[n - 1] == ' ')
			cmd[--n] = 0;
		p.comm = pl_str_c(comm);
		p.cmdline = pl_str_c(n > 0 ? cmd : "");
		if (fn(&p, user))
			break;
	}
	closedir(d);
	return 0;
}

int pla_proc_threads(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max)
		if (is_pid_name(de->d_name))
			tids[n++] = (pid_t)pla_strtou64(de->d_name, NULL, 10);
	closedir(d);
	return n;
}

int pla_proc_maps_each(pid_t pid, int (*fn)(const struct pla_map *m, void *user), void *user)
{
	char path[64], line[4096 + 256];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	struct pla_lines f;
	int rc = pla_lines_open(&f, path);
	if (rc < 0)
		return rc;
	while (pla_lines_next(&f, line, sizeof(line))) {
		struct pla_map m = { 0 };
		/* start-end perms offset maj:min inode path */
		uint64_t start, end, off, maj, min, ino;
		const char *q = line;
		if (pla_scan_u64(&q, 16, &start) < 0 || *q++ != '-' || pla_scan_u64(&q, 16, &end) < 0)
			continue;
		pla_skip_spaces(&q);
		char perms[4] = { q[0], q[0] ? q[1] : 0, 0, 0 };
		if (!perms[1] || !q[2] || !q[3])
			continue;
		perms[2] = q[2];
		perms[3] = q[3];
		pla_skip_fields(&q, 1);
		if (pla_scan_u64(&q, 16, &off) < 0 || pla_scan_u64(&q, 16, &maj) < 0 || *q++ != ':' ||
		    pla_scan_u64(&q, 16, &min) < 0 || pla_scan_u64(&q, 10, &ino) < 0)
			continue;
		pla_skip_spaces(&q);
		char *p = line + (q - line);
		p[strcspn(p, "\n")] = 0;
		m.start = start;
		m.end = end;
		m.pgoff = off;
		m.maj = (uint32_t)maj;
		m.min = (uint32_t)min;
		m.ino = ino;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
		m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		m.path = p;
		if (fn(&m, user))
			break;
	}
	pla_lines_close(&f);
	return 0;
}

/* ─── ELF notes ─────────────────────────────────────────────────────────── */

struct elf_file {
	int fd;
	int is64, swap;
	off_t size;
};

static uint16_t e16(const struct elf_file *e, uint16_t v)
{
	return e->swap ? __builtin_bswap16(v) : v;
}
static uint32_t e32(const struct elf_file *e, uint32_t v)
{
	return e->swap ? __builtin_bswap32(v) : v;
}
static uint64_t e64(const struct elf_file *e, uint64_t v)
{
	return e->swap ? __builtin_bswap64(v) : v;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, (off_t)off);
	return r == (ssize_t)n ? 0 : -EIO;
}

/* Scans a note area [off, off+len) for NT_GNU_BUILD_ID. */
static int scan_notes(const struct elf_file *e, uint64_t off, uint64_t len,
		      uint8_t id[PL_MAX_BUILD_ID])
{
	uint8_t buf[4096];
	if (len > sizeof(buf))
		len = sizeof(buf); /* the build-id note is always near the start */
	if (off > (uint64_t)e->size || len > (uint64_t)e->size - off)
		return -ENOENT;
	if (pread_all(e->fd, buf, (size_t)len, off) < 0)
		return -EIO;
	uint64_t p = 0;
	while (p + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + p, 4);
		memcpy(&descsz, buf + p + 4, 4);
		memcpy(&type, buf + p + 8, 4);
		namesz = e32(e, namesz);
		descsz = e32(e, descsz);
		type = e32(e, type);
		uint64_t name_off = p + 12, desc_off = name_off + ((namesz + 3u) & ~3u);
		uint64_t next = desc_off + ((descsz + 3u) & ~3u);
		if (namesz > len || descsz > len || next > len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + name_off, "GNU", 4) &&
		    descsz > 0) {
			uint32_t n = descsz > PL_MAX_BUILD_ID ? PL_MAX_BUILD_ID : descsz;
			memcpy(id, buf + desc_off, n);
			return (int)n;
		}
		p = next;
	}
	return -ENOENT;
}

/* Entry i of the program (phdr=1) or section header table: its type, file
 * offset and file size, whatever the class and byte order. */
static int read_entry(const struct elf_file *e, int phdr, uint64_t table, unsigned entsize,
		      unsigned i, uint64_t *type, uint64_t *off, uint64_t *size)
{
	union {
		Elf64_Phdr p64;
		Elf32_Phdr p32;
		Elf64_Shdr s64;
		Elf32_Shdr s32;
	} u;
	size_t need = phdr ? (e->is64 ? sizeof(u.p64) : sizeof(u.p32))
			   : (e->is64 ? sizeof(u.s64) : sizeof(u.s32));
	if (entsize < need || pread_all(e->fd, &u, need, table + (uint64_t)i * entsize) < 0)
		return -1;
	if (phdr && e->is64) {
		*type = e32(e, u.p64.p_type), *off = e64(e, u.p64.p_offset);
		*size = e64(e, u.p64.p_filesz);
	} else if (phdr) {
		*type = e32(e, u.p32.p_type), *off = e32(e, u.p32.p_offset);
		*size = e32(e, u.p32.p_filesz);
	} else if (e->is64) {
		*type = e32(e, u.s64.sh_type), *off = e64(e, u.s64.sh_offset);
		*size = e64(e, u.s64.sh_size);
	} else {
		*type = e32(e, u.s32.sh_type), *off = e32(e, u.s32.sh_offset);
		*size = e32(e, u.s32.sh_size);
	}
	return 0;
}

int pla_elf_build_id(const char *path, uint8_t id[PL_MAX_BUILD_ID])
{
	/* O_NONBLOCK: a FIFO at a mapped path (another mount namespace) must not
	 * hang the agent in open(); fstat then refuses all but regular files */
	struct elf_file e = { .fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) };
	if (e.fd < 0)
		return -errno;
	struct stat st;
	unsigned char ident[EI_NIDENT];
	int rc = -ENOENT;
	if (fstat(e.fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pread_all(e.fd, ident, sizeof(ident), 0) < 0 || memcmp(ident, ELFMAG, SELFMAG))
		goto out;
	e.size = st.st_size;
	e.is64 = ident[EI_CLASS] == ELFCLASS64;
	int file_le = ident[EI_DATA] == ELFDATA2LSB;
	int host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	e.swap = file_le != host_le;
	uint64_t phoff, shoff;
	unsigned phnum, phentsize, shnum, shentsize;
	if (e.is64) {
		Elf64_Ehdr h;
		if (pread_all(e.fd, &h, sizeof(h), 0) < 0)
			goto out;
		phoff = e64(&e, h.e_phoff), phnum = e16(&e, h.e_phnum);
		phentsize = e16(&e, h.e_phentsize);
		shoff = e64(&e, h.e_shoff), shnum = e16(&e, h.e_shnum);
		shentsize = e16(&e, h.e_shentsize);
	} else {
		Elf32_Ehdr h;
		if (pread_all(e.fd, &h, sizeof(h), 0) < 0)
			goto out;
		phoff = e32(&e, h.e_phoff), phnum = e16(&e, h.e_phnum);
		phentsize = e16(&e, h.e_phentsize);
		shoff = e32(&e, h.e_shoff), shnum = e16(&e, h.e_shnum);
		shentsize = e16(&e, h.e_shentsize);
	}
	/* the notes of the program headers (what the loader maps), else of
	 * the section headers (objects that have no PT_NOTE) */
	for (unsigned i = 0; i < phnum && i < 256; i++) {
		uint64_t type, off, sz;
		if (read_entry(&e, 1, phoff, phentsize, i, &type, &off, &sz) < 0)
			break;
		if (type == PT_NOTE && (rc = scan_notes(&e, off, sz, id)) > 0)
			goto out;
	}
	for (unsigned i = 0; i < shnum && i < 4096; i++) {
		uint64_t type, off, sz;
		if (read_entry(&e, 0, shoff, shentsize, i, &type, &off, &sz) < 0)
			break;
		if (type == SHT_NOTE && (rc = scan_notes(&e, off, sz, id)) > 0)
			goto out;
	}
	rc = -ENOENT;
out:
	close(e.fd);
	return rc;
}

size_t pla_vdso_image(const uint8_t **image)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	*image = base;
	if (!base || memcmp(base, ELFMAG, SELFMAG))
		return 0;
	/* the image ends with its section headers: that is its true size
	 * (the mapping is whole pages, and the page after may be unmapped) */
	if (base[EI_CLASS] == ELFCLASS64) {
		const Elf64_Ehdr *h = (const void *)base;
		return (size_t)(h->e_shoff + (uint64_t)h->e_shnum * h->e_shentsize);
	}
	const Elf32_Ehdr *h = (const void *)base;
	return (size_t)(h->e_shoff + (uint64_t)h->e_shnum * h->e_shentsize);
}

/* ─── health ────────────────────────────────────────────────────────────── */

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pla_health_read(struct pla_health_state *st, struct pl_msg_health *h)
{
	char buf[4096];
	h->time = now_ns(CLOCK_MONOTONIC);
	h->ncpus = (uint32_t)pla_ncpus();
	if (read_small("/proc/stat", buf, sizeof(buf)) > 0) {
		uint64_t v[10] = { 0 };
		const char *q = buf + 3; /* "cpu  user nice system idle iowait irq softirq steal ..." */
		for (int i = 0; i < 10; i++)
			pla_scan_u64(&q, 10, &v[i]);
		uint64_t idle = v[3] + v[4], total = 0;
		for (int i = 0; i < 8; i++)
			total += v[i];
		uint64_t busy = total - idle;
		if (st->prev_total && total > st->prev_total)
			h->cpu_busy_permille = (uint32_t)((busy - st->prev_busy) * 1000 /
							  (total - st->prev_total));
		st->prev_busy = busy;
		st->prev_total = total;
	}
	if (read_small("/proc/meminfo", buf, sizeof(buf)) > 0) {
		char *p = pla_strfind(buf, "MemTotal:");
		if (p)
			h->mem_total_kb = pla_strtou64(p + 9, NULL, 10);
		p = pla_strfind(buf, "MemAvailable:");
		if (p)
			h->mem_available_kb = pla_strtou64(p + 13, NULL, 10);
	}
	if (read_small("/proc/loadavg", buf, sizeof(buf)) > 0) {
		uint64_t l[3] = { 0, 0, 0 };
		const char *q = buf;
		for (int i = 0; i < 3; i++)
			pla_scan_fixed(&q, 100, &l[i]);
		h->load1_x100 = (uint32_t)l[0];
		h->load5_x100 = (uint32_t)l[1];
		h->load15_x100 = (uint32_t)l[2];
	}
	pla_self_usage(&h->agent_cpu_ns, &h->agent_rss_kb);
}

void pla_self_usage(uint64_t *cpu_ns, uint64_t *rss_kb)
{
	char buf[2048];
	*cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	*rss_kb = 0;
	if (read_small("/proc/self/status", buf, sizeof(buf)) > 0) {
		char *p = pla_strfind(buf, "VmRSS:");
		if (p)
			*rss_kb = pla_strtou64(p + 6, NULL, 10);
	}
}

int pla_proc_cpu_ns(pid_t pid, uint64_t *ns)
{
	char path[48], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -ESRCH;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses;
	 * utime and stime are fields 14 and 15, the 12th and 13th after ")" */
	const char *q = strrchr(buf, ')');
	if (!q)
		return -EINVAL;
	q++;
	pla_skip_fields(&q, 11);
	uint64_t ut = 0, st = 0;
	if (pla_scan_u64(&q, 10, &ut) < 0 || pla_scan_u64(&q, 10, &st) < 0)
		return -EINVAL;
	/* clock ticks are USER_HZ, 100 on every architecture the agent builds for */
	*ns = (ut + st) * 10000000ull;
	return 0;
}

int pla_read_int_file(const char *path, long *out)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* a PMU format file says "config:N": the number after the colon */
	char *end, *p = strchr(buf, ':');
	p = p ? p + 1 : buf;
	errno = 0;
	long v = (long)pla_strtou64(p, &end, 10);
	if (errno || end == p)
		return -1;
	*out = v;
	return 0;
}
