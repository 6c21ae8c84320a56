/* scan.h — tiny parsers for /proc text and option values.
 *
 * The agent does not use scanf or strtod: musl's scanf and float scanner
 * cost ~10 KB of a static binary whose budget is 160 KB.  These read
 * decimal or hex integers and fixed-point decimals from a moving pointer,
 * never past the NUL, and report failure instead of guessing.
 */
#ifndef PLA_SCAN_H
#define PLA_SCAN_H

#include <stdint.h>

static inline void pla_skip_spaces(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static inline int pla_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Skips spaces, reads an unsigned integer in base 10 or 16.  0 or -1. */
static inline int pla_scan_u64(const char **p, int base, uint64_t *v)
{
	pla_skip_spaces(p);
	const char *s = *p;
	uint64_t x = 0;
	int d;
	while ((d = pla_hexval(**p)) >= 0 && d < base) {
		x = x * (uint64_t)base + (uint64_t)d;
		(*p)++;
	}
	*v = x;
	return *p == s ? -1 : 0;
}

/* Skips n space-separated fields. */
static inline void pla_skip_fields(const char **p, int n)
{
	for (int i = 0; i < n; i++) {
		pla_skip_spaces(p);
		while (**p && **p != ' ' && **p != '\t' && **p != '\n')
			(*p)++;
	}
}

/* "12.345" → 12345 with scale 1000 (digits past the scale are dropped).
 * Returns 0 or -1. */
static inline int pla_scan_fixed(const char **p, uint64_t scale, uint64_t *v)
{
	uint64_t whole, frac = 0, div = 1;
	if (pla_scan_u64(p, 10, &whole) < 0)
		return -1;
	if (**p == '.') {
		(*p)++;
		while (**p >= '0' && **p <= '9') {
			if (div < scale) {
				frac = frac * 10 + (uint64_t)(**p - '0');
				div *= 10;
			}
			(*p)++;
		}
	}
	*v = whole * scale + frac * (scale / div);
	return 0;
}

#endif
