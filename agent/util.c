/* util.c — small replacements for large libc functions; see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

uint64_t pla_strtou64(const char *s, char **end, int base)
{
	const char *p = s;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	int neg = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	int prefixed = 0;
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 32) == 'x') {
		p += 2;
		base = 16;
		prefixed = 1;
	} else if (!base) {
		base = *p == '0' ? 8 : 10;
	}
	const char *digits = p;
	uint64_t v = 0;
	int over = 0;
	for (;; p++) {
		unsigned c = (unsigned char)*p, d;
		if (c - '0' < 10u)
			d = c - '0';
		else if ((c | 32) - 'a' < 26u)
			d = (c | 32) - 'a' + 10;
		else
			break;
		if (d >= (unsigned)base)
			break;
		if (v > (UINT64_MAX - d) / (unsigned)base)
			over = 1;
		v = v * (unsigned)base + d;
	}
	if (p == digits && prefixed) /* "0x" and no digit: strtoull takes the 0 */
		p = digits - 1;
	if (end)
		*end = (char *)(p == digits ? s : p);
	if (over) {
		errno = ERANGE;
		return UINT64_MAX;
	}
	return neg ? 0 - v : v;
}

char *pla_strfind(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncmp(hay, needle, n))
			return (char *)hay;
	return n ? NULL : (char *)hay;
}

long pla_page_size(void)
{
	return getpagesize();
}

int pla_ncpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	int n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

int pla_cpu_ids(void)
{
	char buf[64];
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return pla_ncpus();
	buf[n] = 0;
	char *last = buf;
	for (char *p = buf; *p; p++)
		if (*p == '-' || *p == ',')
			last = p + 1;
	uint64_t max = pla_strtou64(last, NULL, 10);
	int ids = max < 4096 ? (int)max + 1 : 4096;
	return ids > pla_ncpus() ? ids : pla_ncpus();
}

void pla_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "perflens-agent: "); /* (fputs would be one more libc function) */
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int pla_lines_open(struct pla_lines *l, const char *path)
{
	l->at = l->have = 0;
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	return l->fd < 0 ? -errno : 0;
}

char *pla_lines_next(struct pla_lines *l, char *line, size_t len)
{
	size_t n = 0;
	while (n + 1 < len) {
		if (l->at == l->have) {
			ssize_t r;
			do
				r = read(l->fd, l->buf, sizeof(l->buf));
			while (r < 0 && errno == EINTR);
			if (r <= 0)
				break;
			l->at = 0;
			l->have = (unsigned)r;
		}
		char ch = l->buf[l->at++];
		line[n++] = ch;
		if (ch == '\n')
			break;
	}
	if (!n)
		return NULL;
	line[n] = 0;
	return line;
}

void pla_lines_close(struct pla_lines *l)
{
	close(l->fd);
}
