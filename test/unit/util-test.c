/* util-test.c — the agent's small libc replacements (agent/util.h) agree
 * with glibc's strtoull / strtol / strstr / sysconf on what the agent
 * feeds them. */
#include <errno.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl-test.h"
#include "util.h"

static void strtou64_like_strtoull(void)
{
	static const char *const in[] = {
		"0",	   "42",	"  17 kB",   "\t9\n",	 "-1",	    "+5",     "0x1f",
		"0X1F",	   "0x",	"0xg",	     "010",	 "09",	    "abc",    "",
		"-",	   "18446744073709551615", "18446744073709551616", "99999999999999999999",
		"12345abc", "-20",	"19",	     "0x11/",	 "65536",   " -3x",
	};
	static const int bases[] = { 0, 10, 16 };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		for (size_t b = 0; b < 3; b++) {
			char *e1, *e2;
			errno = 0;
			unsigned long long want = strtoull(in[i], &e1, bases[b]);
			int werr = errno;
			errno = 0;
			uint64_t got = pla_strtou64(in[i], &e2, bases[b]);
			int gerr = errno;
			PL_CHECKF(got == want && e1 == e2 && (werr == ERANGE) == (gerr == ERANGE),
				  "'%s' base %d: %llu end +%td errno %d, glibc %llu end +%td errno %d",
				  in[i], bases[b], (unsigned long long)got, e2 - in[i], gerr, want,
				  e1 - in[i], werr);
		}
	}
	/* strtol's use: a negative number through the cast */
	PL_CHECK((long)pla_strtou64("-20", NULL, 10) == -20);
	PL_CHECK((long)pla_strtou64("-1\n", NULL, 10) == -1);
}

static void strfind_like_strstr(void)
{
	static const char *const hay[] = { "MemTotal:  16 kB\nMemAvailable: 8 kB\n", "a..b", "",
					   "aaab", "VmRSS:\t 12 kB" };
	static const char *const needle[] = { "MemAvailable:", "..", "", "aab", "VmRSS:", "x",
					      "kB\n" };
	for (size_t i = 0; i < sizeof(hay) / sizeof(hay[0]); i++)
		for (size_t j = 0; j < sizeof(needle) / sizeof(needle[0]); j++)
			PL_CHECKF(pla_strfind(hay[i], needle[j]) == strstr(hay[i], needle[j]),
				  "'%s' in '%s'", needle[j], hay[i]);
}

static void sysconf_values(void)
{
	PL_CHECK(pla_page_size() == sysconf(_SC_PAGESIZE));
	cpu_set_t set;
	PL_CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
	PL_CHECK(pla_ncpus() == CPU_COUNT(&set));
	PL_CHECK(pla_ncpus() >= 1 && pla_ncpus() <= sysconf(_SC_NPROCESSORS_CONF));
	/* glibc counts the present CPUs (/sys/devices/system/cpu/cpuN); the
	 * possible ones are as many or more */
	PL_CHECKF(pla_cpu_ids() >= sysconf(_SC_NPROCESSORS_CONF), "%d CPU ids, glibc %ld",
		  pla_cpu_ids(), sysconf(_SC_NPROCESSORS_CONF));
}

/* pla_lines gives the pieces fgets gives, over buffer refills, lines
 * longer than the caller's buffer, empty lines and a last line without
 * its newline. */
static void lines_like_fgets(void)
{
	char path[] = "/tmp/pl-util-test-XXXXXX";
	int fd = mkstemp(path);
	PL_CHECK(fd >= 0);
	FILE *w = fdopen(fd, "w");
	for (int i = 0; i < 300; i++) {
		for (int k = 0; k < i * 7 % 613; k++)
			fputc('a' + (i + k) % 26, w);
		fputc('\n', w);
		if (i % 50 == 0)
			fputc('\n', w);
	}
	fputs("last line, no newline", w);
	PL_CHECK(fclose(w) == 0);
	static const size_t sizes[] = { 2, 3, 64, 512, 4352 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char want[4352], got[4352];
		FILE *f = fopen(path, "r");
		struct pla_lines l;
		PL_CHECK(f && pla_lines_open(&l, path) == 0);
		unsigned n = 0;
		for (;; n++) {
			char *a = fgets(want, (int)sizes[i], f);
			char *b = pla_lines_next(&l, got, sizes[i]);
			PL_CHECKF(!a == !b && (!a || !strcmp(want, got)),
				  "piece %u of size %zu: fgets '%s', pla_lines '%s'", n, sizes[i],
				  a ? want : "(end)", b ? got : "(end)");
			if (!a || !b)
				break;
		}
		PL_CHECKF(n > 300, "%u pieces", n);
		fclose(f);
		pla_lines_close(&l);
	}
	struct pla_lines l;
	PL_CHECK(pla_lines_open(&l, "/nonexistent/pl-util-test") == -ENOENT);
	unlink(path);
}

PL_TEST_MAIN(PL_CASE(strtou64_like_strtoull), PL_CASE(strfind_like_strstr),
	     PL_CASE(sysconf_values), PL_CASE(lines_like_fgets))
