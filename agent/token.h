/* token.h — the agent's token: checked, read from a file, generated,
 * written for the user.  The token opens the board to whoever holds it,
 * so none of these ever puts it in a message or a log line; each returns
 * 0 or -errno and says what went wrong in err (caller-owned). */
#ifndef PLA_TOKEN_H
#define PLA_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#define PLA_TOKEN_MAX 256 /* what the pre-authentication buffer (gate.h) holds */

/* A usable token: not empty, at most PLA_TOKEN_MAX bytes, no control
 * characters.  what names where it came from ("--token", "the token file
 * F"). */
int pla_token_check(const char *token, const char *what, char *err, size_t errlen);
/* The first line of path, without its line end, into buf. */
int pla_token_read(const char *path, char *buf, size_t len, char *err, size_t errlen);
/* 32 hex digits (128 bits) into out[33], never blocking (see token.c). */
void pla_token_random(char out[33]);
/* ChaCha20's block function (RFC 8439 2.3; in: constants, key, counter,
 * nonce as 16 words), what pla_token_random mixes its sources with. */
void pla_chacha20_block(uint32_t out[16], const uint32_t in[16]);
/* Writes token and a newline to path, a new file of mode 0600: whatever
 * was at path is removed first (a stale token of an earlier run; a
 * symbolic link is removed, never followed), and the file is created with
 * O_EXCL | O_NOFOLLOW, so nobody else can have it open. */
int pla_token_write(const char *path, const char *token, char *err, size_t errlen);

/* Where a generated token goes without --write-token: a private
 * directory of the user (never a shared one such as /tmp),
 * $XDG_RUNTIME_DIR or $HOME, /perflens-agent-PORT.token.  NULL when the
 * user has neither. */
const char *pla_token_default_path(int port, char *buf, size_t len);

#endif
