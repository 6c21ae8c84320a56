/* pl-test.h — the tiny unit-test harness.
 *
 * A test binary lists its cases with PL_TESTS(...) and prints one line per
 * case: "ok NAME", "not ok NAME: file:line: what", or "skip NAME: why".
 * test/run.sh adds the lines of every test program up into the closing
 * "N passed, N failed, N skipped" line.  A case that cannot run here calls
 * PL_SKIP("[TAG] why", ...) with a TAG from test/skip-reasons.txt (no PMU,
 * not root, …); it is never counted as passed, and a skip without a listed
 * TAG is counted as a failure.  Something `make` builds or ci/deps.sh
 * installs is never a reason to skip: its absence fails the case.
 */
#ifndef PL_TEST_H
#define PL_TEST_H

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

struct pl_test_case {
	const char *name;
	void (*fn)(void);
};

extern jmp_buf pl_test_jmp;
/* Called after every case, passed or not (a failed check longjmps past the
 * case's own clean-up): helpers register what must not outlive a case. */
extern void (*pl_test_after_case)(void);
extern char pl_test_why[512];
extern int pl_test_outcome; /* 0 ok, 1 fail, 2 skip */

#define PL_CHECK(cond)                                                                           \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			snprintf(pl_test_why, sizeof(pl_test_why), "%s:%d: %s", __FILE__,      \
				 __LINE__, #cond);                                               \
			pl_test_outcome = 1;                                                     \
			longjmp(pl_test_jmp, 1);                                                 \
		}                                                                                \
	} while (0)

#define PL_CHECKF(cond, ...)                                                                     \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			int n_ = snprintf(pl_test_why, sizeof(pl_test_why), "%s:%d: %s: ",      \
					  __FILE__, __LINE__, #cond);                            \
			snprintf(pl_test_why + n_, sizeof(pl_test_why) - (size_t)n_,             \
				 __VA_ARGS__);                                                   \
			pl_test_outcome = 1;                                                     \
			longjmp(pl_test_jmp, 1);                                                 \
		}                                                                                \
	} while (0)

#define PL_SKIP(...)                                                                             \
	do {                                                                                     \
		snprintf(pl_test_why, sizeof(pl_test_why), __VA_ARGS__);                         \
		pl_test_outcome = 2;                                                             \
		longjmp(pl_test_jmp, 1);                                                         \
	} while (0)

int pl_test_main(const struct pl_test_case *cases, size_t n, int argc, char **argv);

#define PL_TEST_MAIN(...)                                                                        \
	jmp_buf pl_test_jmp;                                                                     \
	void (*pl_test_after_case)(void);                                                        \
	char pl_test_why[512];                                                                   \
	int pl_test_outcome;                                                                     \
	int main(int argc, char **argv)                                                          \
	{                                                                                        \
		static const struct pl_test_case cases_[] = { __VA_ARGS__ };                     \
		return pl_test_main(cases_, sizeof(cases_) / sizeof(cases_[0]), argc, argv);    \
	}

#define PL_CASE(fn) { #fn, fn }

/* The runner, included once per test program (header-only keeps the build
 * simple: every test is one .c file). */
static inline int pl_test_run_one(const struct pl_test_case *c)
{
	pl_test_outcome = 0;
	pl_test_why[0] = 0;
	if (setjmp(pl_test_jmp) == 0)
		c->fn();
	if (pl_test_after_case)
		pl_test_after_case();
	if (pl_test_outcome == 0)
		printf("ok %s\n", c->name);
	else if (pl_test_outcome == 2)
		printf("skip %s: %s\n", c->name, pl_test_why);
	else
		printf("not ok %s: %s\n", c->name, pl_test_why);
	fflush(stdout);
	return pl_test_outcome == 1;
}

int pl_test_main(const struct pl_test_case *cases, size_t n, int argc, char **argv)
{
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		failed += pl_test_run_one(&cases[i]);
	}
	return failed ? 1 : 0;
}

#endif
