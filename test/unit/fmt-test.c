/* fmt-test.c — the static agent's printf (agent/static/fmt.c and the
 * stand-ins in agent/static/printf.c) against glibc's, and every format
 * string in agent/ and common/ against what it supports.
 *
 * printf.c is compiled in here under other names (pla_t_snprintf, ...):
 * linked as is, its snprintf would replace glibc's in this program too,
 * and glibc is the oracle.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "pl-test.h"
#include "static/fmt.h"

/* ===== printf.c under test names ===== */

#define snprintf pla_t_snprintf
#define vsnprintf pla_t_vsnprintf
#define fprintf pla_t_fprintf
#define vfprintf pla_t_vfprintf
#define printf pla_t_printf
int pla_t_snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...);
int pla_t_vsnprintf(char *restrict buf, size_t size, const char *restrict fmt, va_list ap);
int pla_t_fprintf(FILE *restrict f, const char *restrict fmt, ...);
int pla_t_vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap);
int pla_t_printf(const char *restrict fmt, ...);
#include "../../agent/static/printf.c"
#undef snprintf
#undef vsnprintf
#undef fprintf
#undef vfprintf
#undef printf

/* ===== one format against glibc, at every buffer size ===== */

/* vsnprintf at sizes 0 .. length + 2 (NULL buffer at 0): the same return
 * value, the same prefix, a NUL, and not one byte written past size;
 * then vfprintf into a memory stream. */
static void same_as_glibc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void same_as_glibc(const char *fmt, ...)
{
	static char want[8192], got[8192 + 4];
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int wn = vsnprintf(want, sizeof(want), fmt, aq);
	va_end(aq);
	PL_CHECKF(wn >= 0 && (size_t)wn < sizeof(want), "'%s': glibc says %d", fmt, wn);
	for (size_t size = 0; size <= (size_t)wn + 2; size++) {
		memset(got, 0x55, sizeof(got));
		va_copy(aq, ap);
		int gn = pla_t_vsnprintf(size ? got : NULL, size, fmt, aq);
		va_end(aq);
		PL_CHECKF(gn == wn, "'%s' size %zu: returned %d, glibc %d", fmt, size, gn, wn);
		if (!size)
			continue;
		size_t k = size - 1 < (size_t)wn ? size - 1 : (size_t)wn;
		PL_CHECKF(memcmp(got, want, k) == 0 && got[k] == 0,
			  "'%s' size %zu: \"%.*s\", glibc \"%s\"", fmt, size, (int)k, got, want);
		PL_CHECKF((unsigned char)got[k + 1] == 0x55, "'%s' size %zu: wrote past the NUL", fmt,
			  size);
	}

	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	PL_CHECK(f);
	va_copy(aq, ap);
	int fn = pla_t_vfprintf(f, fmt, aq);
	va_end(aq);
	fclose(f);
	int ok = fn == wn && memlen == (size_t)wn && memcmp(mem, want, memlen) == 0;
	free(mem);
	PL_CHECKF(ok, "'%s': vfprintf returned %d, glibc %d", fmt, fn, wn);
	va_end(ap);
}

static void integers_like_glibc(void)
{
	static const char *const int_fmts[] = { "%d",	"%u",	"%x",	  "%5d",   "%-5d|", "%05d",
						"%-05d|", "%1d", "%12d",  "%012u", "%08x",  "%02x",
						"%-8x|", "<%d>", "%u%d%x", "%20d" };
	static const int ints[] = { INT_MIN, INT_MIN + 1, -100, -1, 0, 1, 9, 10, 15, 16, 255, 4096,
				    99999, INT_MAX };
	for (size_t f = 0; f < sizeof(int_fmts) / sizeof(int_fmts[0]); f++)
		for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
			same_as_glibc(int_fmts[f], ints[i], ints[i] ^ 5, ints[i] >> 3);

	static const char *const l_fmts[] = { "%ld", "%lu", "%lx", "%-21ld|", "%021lu", "%3lx" };
	static const long longs[] = { LONG_MIN, -1, 0, 1, 1234567890L, LONG_MAX };
	for (size_t f = 0; f < sizeof(l_fmts) / sizeof(l_fmts[0]); f++)
		for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
			same_as_glibc(l_fmts[f], longs[i]);

	static const char *const ll_fmts[] = { "%lld", "%llu", "%llx", "%25lld", "%-25llu|",
					       "%016llx" };
	static const long long lls[] = { LLONG_MIN, LLONG_MIN + 1, -1, 0, 1, 1000000007LL,
					 (long long)UINT32_MAX + 1, LLONG_MAX,
					 (long long)UINT64_MAX /* -1 for d, UINT64_MAX for u, x */ };
	for (size_t f = 0; f < sizeof(ll_fmts) / sizeof(ll_fmts[0]); f++)
		for (size_t i = 0; i < sizeof(lls) / sizeof(lls[0]); i++)
			same_as_glibc(ll_fmts[f], lls[i]);
	same_as_glibc("%llu %llx", (unsigned long long)UINT64_MAX, (unsigned long long)UINT64_MAX);

	static const size_t zs[] = { 0, 1, 4096, SIZE_MAX / 2, SIZE_MAX };
	for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
		same_as_glibc("%zu bytes", zs[i]);
		same_as_glibc("%zx|%-22zu|%022zu", zs[i], zs[i], zs[i]);
		same_as_glibc("%zd", (ssize_t)zs[i]);
	}
	same_as_glibc("%zd %zd", (ssize_t)-5, (ssize_t)(SIZE_MAX / 2));

	/* star widths, negative ones meaning '-' */
	static const int widths[] = { INT_MIN + 1, -30, -1, 0, 1, 3, 30 };
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		if (widths[i] == INT_MIN + 1)
			continue; /* a 2 GB field: glibc gives EOVERFLOW, not worth the time */
		same_as_glibc("[%*d]", widths[i], -42);
		same_as_glibc("[%0*u]", widths[i], 42u);
		same_as_glibc("[%*s]", widths[i], "ab");
	}
}

static void strings_like_glibc(void)
{
	static const char *const strs[] = { "", "a", "perflens", "cycles:u", "0123456789abcdefghij",
					    "tab\there", "ünïcödé" };
	static const char *const s_fmts[] = { "%s",	"[%10s]", "[%-10s]", "[%.0s]", "[%.3s]",
					      "[%5.2s]", "[%-5.2s]", "[%-24s]", "[%-8s]", "%s%s",
					      "x%sy" };
	for (size_t f = 0; f < sizeof(s_fmts) / sizeof(s_fmts[0]); f++)
		for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
			same_as_glibc(s_fmts[f], strs[i], strs[(i + 1) % 7]);
	for (int prec = -3; prec < 12; prec++) {
		same_as_glibc("%.*s|", prec, "perflens");
		same_as_glibc("[%-*.*s]", prec, prec, "perflens");
	}

	/* "%.*s" reads no further than the precision: the agent passes
	 * event specs straight out of a received frame, without a NUL */
	char unterminated[4] = { 'c', 'p', 'u', '!' };
	char out[16];
	PL_CHECK(pla_t_snprintf(out, sizeof(out), "%.*s", 3, unterminated) == 3);
	PL_CHECK(strcmp(out, "cpu") == 0);

	/* NULL as glibc prints it when no precision is shorter than "(null)" */
	const char *volatile null = NULL;
	same_as_glibc("%s|%10s|%-8s|%.6s", null, null, null, null);

	same_as_glibc("%c%c%c|%3c|%-3c|", 'p', 'l', 0x7f, 'x', 'y');
	same_as_glibc("100%% %d%%", 5);
	same_as_glibc("no conversions at all");
	same_as_glibc("%s", "");

	/* longer than printf.c's 512-byte buffer, in one piece and in many */
	static char big[5000];
	memset(big, 'b', sizeof(big) - 1);
	same_as_glibc("head %s tail %d", big, 42);
	same_as_glibc("%-700s|%700s|%0700d", "l", "r", -7);
	same_as_glibc("%s%s%s%s%s%s%s%s%s%s", big + 4500, "x", big + 4900, "y", big + 4600, "z",
		      big + 4000, "w", big + 4990, "v");
}

static void stream_order_kept(void)
{
	/* The stand-ins write through the FILE, so their output and the
	 * agent's fputc/fputs land in the order they were called. */
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);
	PL_CHECK(fa && fb);
	static char big[3000];
	memset(big, 'q', sizeof(big) - 1);
	fputs("perflens-agent: ", fa);
	pla_t_fprintf(fa, "%s %u|%s", "x", 7u, big);
	fputc('\n', fa);
	pla_t_fprintf(fa, "%-24s%s", "end", "\n");
	fputs("perflens-agent: ", fb);
	fprintf(fb, "%s %u|%s", "x", 7u, big);
	fputc('\n', fb);
	fprintf(fb, "%-24s%s", "end", "\n");
	fclose(fa);
	fclose(fb);
	int same = alen == blen && memcmp(a, b, alen) == 0;
	free(a);
	free(b);
	PL_CHECK(same);
}

/* ===== anything else is visibly wrong, and reads no more arguments ===== */

static void check_unsupported(const char *fmt, const char *want, ...)
{
	char out[128];
	va_list ap;
	va_start(ap, want);
	int n = pla_t_vsnprintf(out, sizeof(out), fmt, ap);
	va_end(ap);
	PL_CHECKF(strcmp(out, want) == 0 && n == (int)strlen(want), "'%s' gave \"%s\", want \"%s\"",
		  fmt, out, want);
}

static const char *const unsupported[] = {
	"%f",  "%e",  "%g",   "%a",	"%Lf", "%p",   "%hd", "%hhu", "%jd", "%td", "%i",
	"%X",  "%o",  "%n",   "%ls",	"%lc", "%+d",  "% d", "%#x",  "%'d", "%.3d", "%.0u",
	"%05s", "%0c", "%.2c", "%5%",	"%zs", "%llc", "%1$d", "%",   "%l",  "%q",
};

static void unsupported_is_visible(void)
{
	check_unsupported("a %d b %f c %s", "a 1 b %?%f c %s", 1, 2.5, "c");
	check_unsupported("%s then %p", "x then %?%p", "x", (void *)0);
	check_unsupported("%u%hd%u", "3%?%hd%u", 3u, 4, 5u);
	check_unsupported("tail %", "tail %?%");
	check_unsupported("%-*.3d", "%?%-*.3d", 4, 5);
	char want[32];
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		size_t n = (size_t)snprintf(want, sizeof(want), "%%?%s", unsupported[i]);
		PL_CHECK(n < sizeof(want));
		check_unsupported(unsupported[i], want, 0, 0, 0);
	}
}

/* ===== every format string the static agent links ===== */

/* fmt.h's grammar, written out again: a spec the test accepts must also
 * be one the formatter expands (checked below), and the other way round
 * for the unsupported list.  Returns the spec's length, 0 if unsupported;
 * *type is the argument it takes ('i' int, 'l' long, 'L' long long,
 * 'z' size_t, 's' string, '%' none) and *stars the '*' ints before it. */
static size_t spec_supported(const char *spec, char *type, int *stars)
{
	const char *p = spec + 1;
	*stars = 0;
	if (*p == '%') {
		*type = '%';
		return 2;
	}
	int zero = 0, prec = 0;
	char len = 0;
	while (*p == '-' || *p == '0')
		zero |= *p++ == '0';
	if (*p == '*')
		++*stars, p++;
	else
		while (*p >= '0' && *p <= '9')
			p++;
	if (*p == '.') {
		prec = 1;
		if (*++p == '*')
			++*stars, p++;
		else
			while (*p >= '0' && *p <= '9')
				p++;
	}
	if (p[0] == 'l' && p[1] == 'l')
		len = 'L', p += 2;
	else if (*p == 'l' || *p == 'z')
		len = *p++;
	switch (*p) {
	case 'd':
	case 'u':
	case 'x':
		if (prec)
			return 0;
		*type = len ? len : 'i';
		break;
	case 's':
	case 'c':
		if (zero || len || (prec && *p == 'c'))
			return 0;
		*type = *p == 's' ? 's' : 'i';
		break;
	default:
		return 0;
	}
	return (size_t)(p + 1 - spec);
}

/* The formatter expands the spec (no "%?") with arguments of its type. */
static int formatter_expands(const char *spec, char type, int stars)
{
	char out[64];
#define WITH(...)                                                                                \
	switch (type) {                                                                          \
	case 'i': pla_t_snprintf(out, sizeof(out), spec, __VA_ARGS__ 7); break;                  \
	case 'l': pla_t_snprintf(out, sizeof(out), spec, __VA_ARGS__ 7L); break;                 \
	case 'L': pla_t_snprintf(out, sizeof(out), spec, __VA_ARGS__ 7LL); break;                \
	case 'z': pla_t_snprintf(out, sizeof(out), spec, __VA_ARGS__ (size_t)7); break;          \
	default: pla_t_snprintf(out, sizeof(out), spec, __VA_ARGS__ "s"); break;                 \
	}
	if (stars == 0)
		WITH()
	else if (stars == 1)
		WITH(3, )
	else
		WITH(3, 2, )
#undef WITH
	return strstr(out, "%?") == NULL;
}

struct scan {
	int files, literals, specs;
	char first_bad[512];
};

/* Checks every '%' in one string literal (adjacent literals joined). */
static void check_literal(struct scan *sc, const char *path, int line, const char *s)
{
	sc->literals++;
	for (const char *p = s; (p = strchr(p, '%'));) {
		char type;
		int stars;
		size_t n = spec_supported(p, &type, &stars);
		char spec[32];
		int ok = n && n < sizeof(spec);
		if (ok) {
			memcpy(spec, p, n);
			spec[n] = 0;
			ok = formatter_expands(spec, type, stars);
		}
		if (!ok) {
			if (!sc->first_bad[0])
				snprintf(sc->first_bad, sizeof(sc->first_bad),
					 "%s:%d: \"%.200s\": agent/static/fmt.c does not support "
					 "the conversion at \"%.8s\" (it would print %%?)",
					 path, line, s, p);
			return;
		}
		sc->specs++;
		p += n;
	}
}

/* A small C lexer: comments and character literals skipped, string
 * literals unescaped enough to find '%' and joined when only blanks and
 * comments separate them ("a %" "d" is one format). */
static const char *skip_blanks(const char *p, int *line)
{
	for (;;) {
		if (*p == '\n')
			++*line, p++;
		else if (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		else if (p[0] == '/' && p[1] == '/')
			while (*p && *p != '\n')
				p++;
		else if (p[0] == '/' && p[1] == '*') {
			for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
				*line += *p == '\n';
			p += *p ? 2 : 0;
		} else
			return p;
	}
}

static void scan_file(struct scan *sc, const char *path)
{
	FILE *f = fopen(path, "r");
	PL_CHECKF(f, "%s: %s", path, strerror(errno));
	static char text[1 << 20], lit[1 << 16];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	PL_CHECKF(n < sizeof(text) - 1, "%s: larger than the test's buffer", path);
	text[n] = 0;
	sc->files++;
	int line = 1;
	const char *p = text;
	while (*p) {
		const char *q = skip_blanks(p, &line);
		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				p += *p == '\\' && p[1];
			p += *p ? 1 : 0;
			continue;
		}
		if (*p != '"') {
			p++;
			continue;
		}
		size_t k = 0;
		int start = line;
		while (*p == '"') {
			for (p++; *p && *p != '"' && *p != '\n'; p++) {
				if (*p == '\\' && p[1]) { /* \" does not end the literal */
					if (k < sizeof(lit) - 1)
						lit[k++] = *p;
					p++;
				}
				if (k < sizeof(lit) - 1)
					lit[k++] = *p;
			}
			p += *p == '"';
			p = skip_blanks(p, &line);
		}
		lit[k] = 0;
		check_literal(sc, path, start, lit);
	}
}

static void agent_formats_supported(void)
{
	/* fmt.c's own literals are pieces of output ("%?", "%"), not formats */
	static const char *const dirs[] = { "agent", "agent/static", "common" };
	const char *top = getenv("PL_TOP");
	struct scan sc = { 0 };
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/%s", top ? top : ".", dirs[d]);
		DIR *dh = opendir(dir);
		PL_CHECKF(dh, "%s: %s (run from the top of the tree or set PL_TOP)", dir,
			  strerror(errno));
		struct dirent *e;
		while ((e = readdir(dh))) {
			size_t len = strlen(e->d_name);
			if (len < 3 || e->d_name[len - 2] != '.' ||
			    (e->d_name[len - 1] != 'c' && e->d_name[len - 1] != 'h'))
				continue;
			if (strcmp(dirs[d], "agent/static") == 0 && strcmp(e->d_name, "fmt.c") == 0)
				continue;
			char path[8192];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			scan_file(&sc, path);
		}
		closedir(dh);
	}
	PL_CHECKF(!sc.first_bad[0], "%s", sc.first_bad);
	/* a scan that found next to nothing scanned the wrong tree */
	PL_CHECKF(sc.files >= 30 && sc.specs >= 100, "only %d files, %d conversions", sc.files,
		  sc.specs);
}

/* The grammar above and the formatter agree on what is refused. */
static void grammar_refuses_unsupported(void)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		char type;
		int stars;
		const char *u = unsupported[i];
		size_t n = spec_supported(u, &type, &stars);
		PL_CHECKF(n == 0, "the test's grammar accepts '%s'", u);
	}
	/* and a future "%f" in agent code is reported with its place */
	struct scan sc = { 0 };
	check_literal(&sc, "x.c", 3, "took %f s");
	PL_CHECK(strstr(sc.first_bad, "x.c:3:") && strstr(sc.first_bad, "%f s"));
}

PL_TEST_MAIN(PL_CASE(integers_like_glibc), PL_CASE(strings_like_glibc), PL_CASE(stream_order_kept),
	     PL_CASE(unsupported_is_visible), PL_CASE(agent_formats_supported),
	     PL_CASE(grammar_refuses_unsupported))
