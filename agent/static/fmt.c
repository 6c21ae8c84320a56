/* fmt.c — pla_vformat, the static agent's printf core (contract in fmt.h).
 *
 * Written for size: one pass over the format, no floating point, no
 * positional arguments, output handed to a sink in pieces so that callers
 * decide between a bounded buffer (vsnprintf) and a FILE (vfprintf).
 */
#include "fmt.h"

#include <sys/types.h>

struct out {
	pla_fmt_sink *sink;
	void *ctx;
	size_t n;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (n) {
		o->sink(o->ctx, s, n);
		o->n += n;
	}
}

static void pad(struct out *o, char c, size_t n)
{
	char b[16];
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = c;
	while (n) {
		size_t k = n < sizeof(b) ? n : sizeof(b);
		put(o, b, k);
		n -= k;
	}
}

size_t pla_vformat(pla_fmt_sink *sink, void *ctx, const char *fmt, va_list ap)
{
	struct out o = { sink, ctx, 0 };
	const char *p = fmt;
	for (;;) {
		const char *lit = p;
		while (*p && *p != '%')
			p++;
		put(&o, lit, (size_t)(p - lit));
		if (!*p)
			return o.n;
		const char *spec = p++;
		int left = 0, zero = 0, prec_given = 0, len_mod = 0; /* 1 l, 2 ll, 3 z */
		size_t width = 0, prec = (size_t)-1;
		for (;; p++) {
			if (*p == '-')
				left = 1;
			else if (*p == '0')
				zero = 1;
			else
				break;
		}
		if (*p == '*') {
			int w = va_arg(ap, int);
			p++;
			if (w < 0) /* C: a negative * width is '-' and its magnitude */
				left = 1;
			width = w < 0 ? 0u - (unsigned)w : (unsigned)w;
		} else {
			while (*p >= '0' && *p <= '9')
				width = width * 10 + (size_t)(*p++ - '0');
		}
		if (*p == '.') {
			prec_given = 1;
			if (*++p == '*') {
				int v = va_arg(ap, int);
				p++;
				if (v >= 0) /* C: a negative * precision is none */
					prec = (size_t)v;
			} else {
				prec = 0;
				while (*p >= '0' && *p <= '9')
					prec = prec * 10 + (size_t)(*p++ - '0');
			}
		}
		if (*p == 'l') {
			len_mod = 1;
			if (*++p == 'l') {
				len_mod = 2;
				p++;
			}
		} else if (*p == 'z') {
			len_mod = 3;
			p++;
		}
		char c = *p++;

		char num[24]; /* 2^64 in decimal: 20 digits */
		const char *s = num;
		size_t len;
		char sign = 0;
		if (c == 'd' || c == 'u' || c == 'x') {
			if (prec_given)
				goto unsupported;
			unsigned long long v;
			if (c == 'd') {
				long long sv = len_mod == 0 ? va_arg(ap, int)
					       : len_mod == 1 ? va_arg(ap, long)
					       : len_mod == 2 ? va_arg(ap, long long)
							      : va_arg(ap, ssize_t);
				v = (unsigned long long)sv;
				if (sv < 0) {
					sign = '-';
					v = 0ull - v;
				}
			} else {
				v = len_mod == 0 ? va_arg(ap, unsigned)
				    : len_mod == 1 ? va_arg(ap, unsigned long)
				    : len_mod == 2 ? va_arg(ap, unsigned long long)
						   : va_arg(ap, size_t);
			}
			unsigned base = c == 'x' ? 16 : 10;
			char *q = num + sizeof(num);
			do {
				*--q = "0123456789abcdef"[v % base];
				v /= base;
			} while (v);
			s = q;
			len = (size_t)(num + sizeof(num) - q);
		} else if (zero || len_mod) {
			goto unsupported; /* '0' on %s/%c is undefined; %ls, %lc are wide */
		} else if (c == 's') {
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			/* never past the precision: "%.*s" may point at unterminated text */
			for (len = 0; len < prec && s[len]; len++)
				;
		} else if (c == 'c' && !prec_given) {
			num[0] = (char)va_arg(ap, int);
			len = 1;
		} else if (c == '%' && p - spec == 2) {
			s = "%";
			len = 1;
		} else {
			goto unsupported;
		}

		size_t fill = width > len + !!sign ? width - len - !!sign : 0;
		if (!left && !zero)
			pad(&o, ' ', fill);
		if (sign)
			put(&o, &sign, 1);
		if (!left && zero)
			pad(&o, '0', fill);
		put(&o, s, len);
		if (left)
			pad(&o, ' ', fill);
		continue;

	unsupported:
		/* The argument types from here on are unknown: reading them
		 * could crash, so the rest of the format goes out verbatim. */
		put(&o, "%?", 2);
		for (p = spec; *p; p++)
			;
		put(&o, spec, (size_t)(p - spec));
		return o.n;
	}
}
