/* args-test.c — the agent's command-line reader (agent/args.c): long names,
 * values after '=' or in the next word, unambiguous prefixes, -h/-V, "--"
 * and the first non-option ending the options, and refusals whose message
 * never repeats a value (a mistyped --tokn=SECRET). */
#include <string.h>

#include "pl-test.h"
#include "args.h"

enum { O_TOKEN = 256, O_TOKEN_FILE, O_PORT, O_LISTEN, O_NO_AUTH, O_NO_OFFCPU, O_FREQ, O_ALL, O_FP };
static const struct pla_opt opts[] = {
	{ "token", 1, O_TOKEN, 0, 0, 0 },	  { "token-file", 1, O_TOKEN_FILE, 0, 0, 0 },
	{ "port", 1, O_PORT, 0, 0, 0 },	  { "listen", 0, O_LISTEN, 0, 0, 0 },
	{ "no-auth", 0, O_NO_AUTH, 0, 0, 0 }, { "no-offcpu", 0, O_NO_OFFCPU, 0, 0, 0 },
	{ "A heading of the help", 0, 0, 0, 0, 0 },
	{ "frequency", 1, O_FREQ, 'F', 0, 0 }, { "all", 0, O_ALL, 'a', 0, 0 },
	{ "", 0, O_FP, 'g', 0, 0 },
	{ 0, 0, 0, 0, 0, 0 },
};

/* Reads words (NULL-terminated) and writes "id[=value] …|next" or "err:…". */
static void run(char **words, char *out, size_t len)
{
	int argc = 0;
	while (words[argc])
		argc++;
	struct pla_args a;
	pla_args_init(&a, argc, words);
	out[0] = 0;
	int c;
	while ((c = pla_args_next(&a, opts)) != 0) {
		size_t n = strlen(out);
		if (c < 0) {
			snprintf(out + n, len - n, "err:%s", a.err);
			return;
		}
		snprintf(out + n, len - n, "%d%s%s ", c, a.arg ? "=" : "", a.arg ? a.arg : "");
	}
	size_t n = strlen(out);
	snprintf(out + n, len - n, "|%d", a.next);
}

#define EXPECT(want, ...)                                                                        \
	do {                                                                                     \
		char *w_[] = { "perflens-agent", __VA_ARGS__, NULL };                            \
		char got_[256];                                                                  \
		run(w_, got_, sizeof(got_));                                                     \
		PL_CHECKF(!strcmp(got_, want), "got '%s', want '%s'", got_, want);              \
	} while (0)

static void values(void)
{
	EXPECT("256=abc |3", "--token", "abc");
	EXPECT("256=abc |2", "--token=abc");
	EXPECT("256= |2", "--token=");                  /* an empty value is the caller's to refuse */
	EXPECT("259 258=9 |4", "--listen", "--port", "9");
	EXPECT("257=f |3", "--token-file", "f");        /* exact, though a prefix of none */
	EXPECT("258=1 |2", "--po=1");                   /* a unique prefix */
	EXPECT("104 86 |3", "-h", "-V");
}

static void end_of_options(void)
{
	EXPECT("259 |3", "--listen", "--", "--port");   /* "--": the rest is the command */
	EXPECT("259 |2", "--listen", "burn", "--port"); /* the command's own options stay its */
	EXPECT("|1", "-");
	EXPECT("|1", NULL);
}

/* perf's letters: a value attached or in the next word, letters bundled */
static void short_options(void)
{
	EXPECT("262=99 |3", "-F", "99");
	EXPECT("262=99 |2", "-F99");
	EXPECT("263 264 |2", "-ag");
	EXPECT("264 263 262=9 |2", "-gaF9");
	EXPECT("263 259 |3", "-a", "--listen");
	EXPECT("263 |2", "-a", "burn", "-F", "9"); /* the command's own options stay its */
	EXPECT("err:option '-F' needs a value", "-F");
	EXPECT("263 err:unknown option '-x'", "-ax"); /* after the letters before it */
	EXPECT("err:unknown option '--A'", "--A"); /* a line of the help is no option */
	EXPECT("err:ambiguous option '--'", "--=1"); /* not the letter-only one */
}

static void refusals(void)
{
	EXPECT("err:unknown option '--tokn'", "--tokn=SECRET");
	EXPECT("err:ambiguous option '--no'", "--no");
	EXPECT("err:ambiguous option '--to'", "--to=x");
	EXPECT("err:option '--listen' takes no value", "--listen=yes");
	EXPECT("err:option '--port' needs a value", "--port");
	EXPECT("err:unknown option '-x'", "-xSECRET");
	/* never the value, whatever the refusal */
	char *w[] = { "a", "--tokenz=hunter2", NULL };
	char got[256];
	run(w, got, sizeof(got));
	PL_CHECKF(!strstr(got, "hunter2"), "%s", got);
}

PL_TEST_MAIN(PL_CASE(values), PL_CASE(end_of_options), PL_CASE(short_options),
	     PL_CASE(refusals))
