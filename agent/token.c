/* token.c — the agent's token; see token.h. */
#include "token.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int pla_token_check(const char *token, const char *what, char *err, size_t errlen)
{
	size_t n = strlen(token);
	const char *why = !n ? "is empty"
			: n > PLA_TOKEN_MAX ? "is longer than 256 characters"
					    : NULL;
	for (size_t i = 0; i < n && !why; i++)
		if ((unsigned char)token[i] < 0x20 || token[i] == 0x7f)
			why = "holds a control character";
	if (!why)
		return 0;
	snprintf(err, errlen,
		 "the token of %s %s: give 1 to 256 printable characters (--token, "
		 "--token-file), or none to have one generated",
		 what, why);
	return -EINVAL;
}

int pla_token_read(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	struct pla_lines f;
	if (pla_lines_open(&f, path) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot read the token file %s: %s", path, strerror(e));
		return -e;
	}
	if (!pla_lines_next(&f, buf, len))
		buf[0] = 0; /* empty (or unreadable): pla_token_check refuses it */
	pla_lines_close(&f);
	buf[strcspn(buf, "\r\n")] = 0;
	return 0;
}

/* ChaCha20's block function (RFC 8439, 2.3), its quarter rounds from a
 * table of their four words: a loop is a fifth of the unrolled code. */
void pla_chacha20_block(uint32_t out[16], const uint32_t in[16])
{
	static const uint8_t qr[8][4] = { { 0, 4, 8, 12 }, { 1, 5, 9, 13 }, { 2, 6, 10, 14 },
					  { 3, 7, 11, 15 }, { 0, 5, 10, 15 }, { 1, 6, 11, 12 },
					  { 2, 7, 8, 13 },  { 3, 4, 9, 14 } };
	static const uint8_t rot[4] = { 16, 12, 8, 7 };
	uint32_t x[16];
	memcpy(x, in, sizeof(x));
	for (int r = 0; r < 80; r++) { /* 20 rounds of 4 quarter rounds */
		const uint8_t *q = qr[r & 7];
		for (int k = 0; k < 4; k++) {
			uint32_t *a = &x[q[(k & 1) ? 2 : 0]], *b = &x[q[(k & 1) ? 1 : 3]];
			*a += (k & 1) ? x[q[3]] : x[q[1]];
			*b ^= *a;
			*b = (*b << rot[k]) | (*b >> (32 - rot[k]));
		}
	}
	for (int i = 0; i < 16; i++)
		out[i] = x[i] + in[i];
}

/* 128 bits without ever blocking.  getrandom() with GRND_NONBLOCK fails
 * (EAGAIN) only while the kernel's pool is not initialised yet — early
 * boot, where a board's init may start the agent, and where a blocking
 * call could hang the boot for minutes on a board without a hardware RNG —
 * and with ENOSYS before Linux 3.17.  The fallback is AT_RANDOM: 16 bytes
 * the kernel drew for this exec from the same pool, as good as the pool
 * was then (what the kernel itself gives this process's stack protector).
 * Those bytes are libc's stack canary and pointer guard, so they must never
 * leave the process as they are: both sources are the key of one ChaCha20
 * block (the clock and the pid as nonce) and the token is that block's
 * output, from which the key cannot be recovered.  With getrandom's bytes
 * the token is as strong as getrandom; without them, as AT_RANDOM. */
void pla_token_random(char out[33])
{
	static const char hex[] = "0123456789abcdef";
	uint32_t in[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 }, ks[16];
	const void *at = (const void *)getauxval(AT_RANDOM);
	if (getrandom(&in[4], 16, GRND_NONBLOCK) != 16)
		memset(&in[4], 0, 16);
	if (at)
		memcpy(&in[8], at, 16);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	in[13] = (uint32_t)ts.tv_nsec;
	in[14] = (uint32_t)ts.tv_sec;
	in[15] = (uint32_t)getpid();
	pla_chacha20_block(ks, in);
	const uint8_t *b = (const uint8_t *)ks;
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[32] = 0;
	memset(in, 0, sizeof(in));
	memset(ks, 0, sizeof(ks));
}

int pla_token_write(const char *path, const char *token, char *err, size_t errlen)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		int e = errno;
		snprintf(err, errlen, "cannot replace %s to write the token there: %s", path,
			 strerror(e));
		return -e;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot write the token to %s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	size_t n = strlen(token);
	int ok = write(fd, token, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
	int e = ok ? 0 : errno ? errno : EIO;
	if (close(fd) < 0 && !e)
		e = errno;
	if (e) {
		snprintf(err, errlen, "writing the token to %s failed: %s", path, strerror(e));
		unlink(path);
		return -e;
	}
	return 0;
}

const char *pla_token_default_path(int port, char *buf, size_t len)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (!dir || !*dir)
		dir = getenv("HOME");
	if (!dir || !*dir)
		return NULL;
	snprintf(buf, len, "%s/perflens-agent-%d.token", dir, port);
	return buf;
}
