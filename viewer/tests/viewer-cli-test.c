/* viewer-cli-test.c — the perflens binary as a user runs it: report
 * output, --fail-if exit codes, collapsed export, and one-line errors with
 * exit status 2 for bad input. */
#include "viewer-test-util.h"

#define PID 500
#define T0 1000000ull

static char *capture; /* hot_leaf 75 % self, compute_mid 25 % self */
static VtElf *burn;

static const char *need_capture(void)
{
	char *why = NULL;
	g_autofree char *bin = vt_build_path("perflens");
	PL_CHECKF(g_file_test(bin, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", bin);
	if (capture)
		return capture;
	burn = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(burn, "%s", why);
	capture = vt_tmp("cli.plens");
	VtCapture *c = vt_capture_new(capture);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, PID, "burn", T0);
	vt_comm(c, PID, PID + 1, "burn-1", T0);
	vt_mmap(c, PID, burn->map_start, burn->map_len, burn->map_pgoff, burn->path);
	uint64_t hot[] = { T_CTX_USER, vt_sym(burn, "hot_leaf", 0), vt_sym(burn, "compute_mid", 1),
			   vt_sym(burn, "compute_outer", 1), vt_sym(burn, "worker_loop", 1),
			   vt_sym(burn, "thread_main", 1) };
	uint64_t mid[] = { T_CTX_USER, vt_sym(burn, "compute_mid", 0),
			   vt_sym(burn, "compute_outer", 1), vt_sym(burn, "worker_loop", 1),
			   vt_sym(burn, "main", 1) };
	for (int i = 0; i < 3; i++)
		vt_sample(c, 0, PID, PID + 1, T0 + (uint64_t)i, 1000, hot, G_N_ELEMENTS(hot));
	vt_sample(c, 0, PID, PID, T0 + 10, 1000, mid, G_N_ELEMENTS(mid));
	vt_capture_close(c);
	return capture;
}

static void report_output(void)
{
	const char *f = need_capture();
	g_autofree char *out = NULL, *err = NULL;
	int rc = vt_perflens(&out, &err, "report", f, NULL);
	PL_CHECKF(rc == 0, "rc %d: %s", rc, err);
	PL_CHECKF(strstr(out, "4 samples"), "%s", out);
	/* "  75.00%  75.00%         3  hot_leaf   burn" */
	g_autoptr(GRegex) re = g_regex_new("^ +75\\.00% +75\\.00% +3 +hot_leaf +burn$",
					   G_REGEX_MULTILINE, 0, NULL);
	PL_CHECKF(g_regex_match(re, out, 0, NULL), "%s", out);
	g_autoptr(GRegex) re2 = g_regex_new("^ +25\\.00% +100\\.00% +1 +compute_mid +burn$",
					    G_REGEX_MULTILINE, 0, NULL);
	PL_CHECKF(g_regex_match(re2, out, 0, NULL), "%s", out);
	PL_CHECKF(strstr(out, "burn-1") && strstr(out, "Threads:"), "%s", out);

	/* --sort total puts the roots first; --tid keeps one thread */
	g_autofree char *o2 = NULL;
	PL_CHECK(vt_perflens(&o2, NULL, "report", f, "--sort", "total", "--top", "2", NULL) == 0);
	const char *t = strstr(o2, "Top functions");
	PL_CHECK(t && strstr(t, "100.00%"));
	g_autofree char *o3 = NULL;
	PL_CHECK(vt_perflens(&o3, NULL, "report", f, "--tid", "501", NULL) == 0);
	PL_CHECKF(strstr(o3, "100.00%") && !strstr(o3, " main "), "%s", o3);
	g_autofree char *o4 = NULL;
	PL_CHECK(vt_perflens(&o4, NULL, "report", f, "--function", "compute_mid", NULL) == 0);
	PL_CHECKF(strstr(o4, "caller 100.00%  compute_outer") &&
			  strstr(o4, "callee  75.00%  hot_leaf"),
		  "%s", o4);
}

static void fail_if(void)
{
	const char *f = need_capture();
	g_autofree char *err = NULL;
	PL_CHECK(vt_perflens(NULL, &err, "report", f, "--fail-if", "hot_leaf>5%", NULL) == 1);
	PL_CHECKF(strstr(err, "hot_leaf self is 75.00%"), "%s", err);
	PL_CHECK(vt_perflens(NULL, NULL, "report", f, "--fail-if", "hot_leaf>80%", NULL) == 0);
	PL_CHECK(vt_perflens(NULL, NULL, "report", f, "--fail-if", "hot_leaf>=75%", NULL) == 1);
	PL_CHECK(vt_perflens(NULL, NULL, "report", f, "--fail-if", "total:compute_mid<100%",
			     NULL) == 0);
	PL_CHECK(vt_perflens(NULL, NULL, "report", f, "--fail-if", "total:compute_mid<=100%",
			     NULL) == 1);
	/* a gate on a function the report lacks measures nothing: it fails */
	g_autofree char *e0 = NULL;
	PL_CHECK(vt_perflens(NULL, &e0, "report", f, "--fail-if", "no_such_fn>0%", NULL) == 1);
	PL_CHECKF(strstr(e0, "no function named no_such_fn has samples"), "%s", e0);
	PL_CHECK(vt_perflens(NULL, NULL, "report", f, "--fail-if", "no_such_fn<1%", NULL) == 1);
	PL_CHECK(vt_perflens(NULL, NULL, "report", f, "--fail-if", "main>1%", "--fail-if",
			     "hot_leaf>50%", NULL) == 1);
	g_autofree char *e2 = NULL;
	PL_CHECK(vt_perflens(NULL, &e2, "report", f, "--fail-if", "hot_leaf", NULL) == 2);
	PL_CHECKF(strstr(e2, "cannot parse --fail-if"), "%s", e2);
}

static void export_collapsed(void)
{
	const char *f = need_capture();
	g_autofree char *out = NULL;
	PL_CHECK(vt_perflens(&out, NULL, "export", f, "--format", "collapsed", NULL) == 0);
	PL_CHECKF(!strcmp(out, "thread_main;worker_loop;compute_outer;compute_mid;hot_leaf 3\n"
			       "main;worker_loop;compute_outer;compute_mid 1\n"),
		  "%s", out);
	g_autofree char *path = vt_tmp("out.folded");
	PL_CHECK(vt_perflens(NULL, NULL, "export", f, "--format", "collapsed", "--weight", "-o",
			     path, NULL) == 0);
	g_autofree char *w = NULL;
	PL_CHECK(g_file_get_contents(path, &w, NULL, NULL));
	PL_CHECKF(strstr(w, "hot_leaf 3000\n"), "%s", w);
	PL_CHECK(vt_perflens(NULL, NULL, "export", f, "--format", "png", NULL) == 2);
}

/* perf-data export: read back by our own reader and by perf itself. */
static void export_perf_data(void)
{
	const char *f = need_capture();
	g_autofree char *data = vt_tmp("cli.data");
	g_autofree char *err = NULL;
	int rc = vt_perflens(NULL, &err, "export", f, "--format", "perf-data", "-o", data, NULL);
	PL_CHECKF(rc == 0, "%d: %s", rc, err);
	g_autofree char *out = NULL;
	PL_CHECK(vt_perflens(&out, NULL, "report", data, NULL) == 0);
	g_autoptr(GRegex) re = g_regex_new("^ +75\\.00% +75\\.00% +3 +hot_leaf +burn$",
					   G_REGEX_MULTILINE, 0, NULL);
	PL_CHECKF(g_regex_match(re, out, 0, NULL), "%s", out);
	/* perf is the oracle (ci/deps.sh installs it) */
	char *argv[] = { (char *)"perf", (char *)"report", (char *)"-i", data,
			 (char *)"--no-children", (char *)"--sort", (char *)"sym",
			 (char *)"--stdio", (char *)"-g", (char *)"none", NULL };
	g_autofree char *pout = NULL;
	gint status;
	PL_CHECKF(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
			       NULL, NULL, &pout, NULL, &status, NULL),
		  "perf not installed (linux-perf: ci/deps.sh); our own reader agreed");
	g_autoptr(GRegex) pre = g_regex_new("^ +75\\.00% +\\[\\.\\] hot_leaf$", G_REGEX_MULTILINE,
					    0, NULL);
	PL_CHECKF(g_regex_match(pre, pout, 0, NULL), "perf report says: %s", pout);
}

/* Each bad input: exit 2, exactly one line on stderr, nothing on stdout. */
static void check_one_line(int rc, const char *out, const char *err, const char *want)
{
	PL_CHECKF(rc == 2, "rc %d, stderr %s", rc, err);
	PL_CHECKF(err && strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	PL_CHECKF(strstr(err, want), "'%s' not in: %s", want, err);
	PL_CHECKF(!out || !*out, "stdout: %s", out);
}

static void bad_input(void)
{
	const char *f = need_capture();
	g_autofree char *junk = vt_tmp("junk.plens");
	g_autofree char *corrupt = vt_tmp("corrupt.plens");
	PL_CHECK(g_file_set_contents(junk, "this is not a profile", -1, NULL));
	g_autofree char *data = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(f, &data, &len, NULL));
	data[PL_STREAM_HEADER_SIZE + PL_BLOCK_HEADER_SIZE + 5] ^= 0xff;
	PL_CHECK(g_file_set_contents(corrupt, data, (gssize)len, NULL));
	struct {
		const char *args[9]; /* NULL-terminated */
		const char *want;
	} cases[] = {
		{ { "report", junk }, "neither a PerfLens capture" },
		{ { "report", corrupt }, "corrupt" },
		{ { "report", "/nonexistent.plens" }, "cannot open" },
		{ { "report" }, "exactly one FILE" },
		{ { "report", f, "--sort", "sideways" }, "--sort" },
		{ { "report", f, "--bogus" }, "--help" },
		{ { "report", f, "--tid", "999" }, "no thread 999" },
		{ { "frobnicate" }, "unknown command" },
		{ { "record", "127.0.0.1:1", "--token", "x", "--pid", "1", "--timeout", "2" },
		  "cannot connect to 127.0.0.1:1" },
		{ { "record", "127.0.0.1", "--token", "x" }, "exactly one of --pid" },
	};
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char **a = cases[i].args;
		g_autofree char *out = NULL, *err = NULL;
		int rc = vt_perflens(&out, &err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
		check_one_line(rc, out, err, cases[i].want);
	}
}

static void torn_capture_reports(void)
{
	const char *f = need_capture();
	g_autofree char *data = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(f, &data, &len, NULL));
	g_autofree char *torn = vt_tmp("torn.plens");
	/* the capture's blocks, then a torn copy of them: cut after real data
	 * (a stub with no complete block is refused, cli-conventions.sh) */
	g_autoptr(GString) t = g_string_new_len(data, (gssize)len);
	g_string_append_len(t, data + PL_STREAM_HEADER_SIZE, (gssize)(len - PL_STREAM_HEADER_SIZE - 3));
	PL_CHECK(g_file_set_contents(torn, t->str, (gssize)t->len, NULL));
	g_autofree char *out = NULL, *err = NULL;
	int rc = vt_perflens(&out, &err, "report", torn, NULL);
	PL_CHECKF(rc == 0, "%d %s", rc, err);
	PL_CHECKF(strstr(err, "bytes after the last complete block ignored"), "%s", err);
}

static void help(void)
{
	g_autofree char *out = NULL;
	g_autofree char *bin = vt_build_path("perflens");
	PL_CHECKF(g_file_test(bin, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", bin);
	PL_CHECK(vt_perflens(&out, NULL, "--help", NULL) == 0);
	PL_CHECK(strstr(out, "report") && strstr(out, "export") && strstr(out, "record"));
	g_autofree char *o2 = NULL;
	PL_CHECK(vt_perflens(&o2, NULL, "report", "--help", NULL) == 0);
	PL_CHECK(strstr(o2, "--fail-if"));
}

PL_TEST_MAIN(PL_CASE(report_output), PL_CASE(fail_if), PL_CASE(export_collapsed), PL_CASE(export_perf_data),
	     PL_CASE(bad_input), PL_CASE(torn_capture_reports), PL_CASE(help))
