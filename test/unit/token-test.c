/* token-test.c — the agent's token (agent/token.h): the mixing function is
 * ChaCha20 as RFC 8439 specifies it, generated tokens are 128 bits of hex
 * that differ each time, and unusable tokens are refused without being
 * echoed. */
#include <string.h>

#include "pl-test.h"
#include "token.h"

/* RFC 8439, 2.3.2: the block function's test vector */
static void chacha20_rfc8439_vector(void)
{
	uint32_t in[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, 0x03020100, 0x07060504,
			    0x0b0a0908, 0x0f0e0d0c, 0x13121110, 0x17161514, 0x1b1a1918, 0x1f1e1d1c,
			    0x00000001, 0x09000000, 0x4a000000, 0x00000000 };
	static const uint32_t want[16] = { 0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
					   0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
					   0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
					   0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2 };
	uint32_t out[16];
	pla_chacha20_block(out, in);
	for (int i = 0; i < 16; i++)
		PL_CHECKF(out[i] == want[i], "word %d: %08x, RFC 8439 %08x", i, out[i], want[i]);
}

static void random_tokens_are_hex_and_differ(void)
{
	char a[33], b[33];
	pla_token_random(a);
	pla_token_random(b);
	PL_CHECKF(strlen(a) == 32 && strspn(a, "0123456789abcdef") == 32, "'%s'", a);
	PL_CHECKF(strcmp(a, b) != 0, "two tokens alike: %s", a);
}

static void unusable_tokens_refused_not_echoed(void)
{
	char err[300];
	static const char *bad[] = { "", "ab\ncd", "tab\there" };
	for (int i = 0; i < 3; i++) {
		PL_CHECK(pla_token_check(bad[i], "--token", err, sizeof(err)) < 0);
		PL_CHECKF(strstr(err, "--token") && (!*bad[i] || !strstr(err, bad[i])), "%s", err);
	}
	char longer[PLA_TOKEN_MAX + 2];
	memset(longer, 'k', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	PL_CHECK(pla_token_check(longer, "--token", err, sizeof(err)) < 0);
	PL_CHECK(!strstr(err, "kkkk"));
	longer[PLA_TOKEN_MAX] = 0;
	PL_CHECK(pla_token_check(longer, "--token", err, sizeof(err)) == 0);
	PL_CHECK(pla_token_check("s3cret", "--token", err, sizeof(err)) == 0);
}

PL_TEST_MAIN(PL_CASE(chacha20_rfc8439_vector), PL_CASE(random_tokens_are_hex_and_differ),
	     PL_CASE(unusable_tokens_refused_not_echoed))
