/* io.c — pl_write_all (io.h). */
#include "io.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

int pl_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}
