/* viewer-loader-test.c — one loader for the command line and the app
 * (viewer/io/pl-loader.h): a perf.data recorded here by the real `perf
 * record --call-graph dwarf` of burn-nofp is loaded
 *   - through pl_cli_load, the command line's entry (`perflens report`),
 *   - through pl_load_file with what the app's window passes (settings
 *     chosen by the board's hostname, a cancellable, a progress counter,
 *     keep_partial),
 * and both give the same profile: the same samples and the same stacks,
 * symbol for symbol (collapsed export).  The app's path runs the DWARF
 * unwinding worker too, reports its progress, and a cancelled load gives
 * G_IO_ERROR_CANCELLED and no profile. */
#include <sys/utsname.h>

#include "viewer-test-util.h"

#include "pl-cli.h"
#include "pl-export.h"
#include "pl-loader.h"

static char *data_path;
static char *fail_why;

/* perf.data of burn-nofp with DWARF stacks, recorded once.  Skipped only
 * where the kernel refuses perf; a missing burn or perf (make, ci/deps.sh)
 * or a failing perf record is a failure. */
static const char *need_data(void)
{
	if (data_path)
		return data_path;
	PL_CHECKF(!fail_why, "%s", fail_why);
	g_autofree char *burn = vt_build_path("workloads/burn-nofp");
	PL_CHECKF(g_file_test(burn, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", burn);
	g_autofree char *perf = g_find_program_in_path("perf");
	PL_CHECKF(perf, "perf is not installed (linux-perf: ci/deps.sh)");
	pl_need_kernel_perf();
	char *out = vt_tmp("dwarf.data");
	char *argv[] = { perf, (char *)"record", (char *)"-q", (char *)"-e", (char *)"cpu-clock",
			 (char *)"-F", (char *)"999", (char *)"--call-graph", (char *)"dwarf",
			 (char *)"-o", out, (char *)"--", burn, (char *)"2", (char *)"2", NULL };
	char *err = NULL;
	gint status = -1;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
			  &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL) || !g_file_test(out, G_FILE_TEST_EXISTS)) {
		fail_why = g_strdup_printf("perf record could not record here: %.300s",
					   err ? err : "?");
		g_free(err);
		g_free(out);
		PL_CHECKF(0, "%s", fail_why);
	}
	g_free(err);
	data_path = out;
	return data_path;
}

/* The stacks as `perflens export --format collapsed` writes them. */
static char *collapsed(PlProfile *p)
{
	PlAggregate *agg = pl_profile_aggregate(p, &PL_FILTER_ALL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_export_collapsed(agg, f, FALSE, &error);
	fclose(f);
	pl_aggregate_free(agg);
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	return buf;
}

/* What pl-window.c's options_for_host does with no stored settings: the
 * board's paths read here. */
typedef struct {
	guint calls;
	char *host;
} HostSeen;

static void app_options(const char *host, PlSymOptions *o, gpointer data)
{
	HostSeen *h = data;
	h->calls++;
	g_free(h->host);
	h->host = g_strdup(host);
	o->binaries = g_ptr_array_new_with_free_func(g_free);
	o->debug_dirs = g_ptr_array_new_with_free_func(g_free);
	o->source_dirs = g_ptr_array_new_with_free_func(g_free);
	o->path_maps = g_ptr_array_new_with_free_func(g_free);
	o->host_files = TRUE;
}

static void app_options_clear(PlSymOptions *o, gpointer data)
{
	g_clear_pointer(&o->binaries, g_ptr_array_unref);
	g_clear_pointer(&o->debug_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->source_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->path_maps, g_ptr_array_unref);
}

static void test_app_path_gives_the_cli_report(void)
{
	const char *path = need_data();

	PlCliSymArgs args = { 0 };
	PlCaptureInfo cli_info;
	g_autoptr(PlProfile) cli = pl_cli_load(path, &args, &cli_info);
	PL_CHECKF(cli != NULL, "pl_cli_load failed on %s", path);

	HostSeen seen = { 0 };
	g_autoptr(GCancellable) cancel = g_cancellable_new();
	gsize progress = 0;
	PlLoadParams lp = { .options_for_host = app_options,
			    .options_clear = app_options_clear,
			    .data = &seen,
			    .cancel = cancel,
			    .progress = &progress,
			    .keep_partial = TRUE };
	PlCaptureInfo app_info;
	PlLoadStats stats;
	g_autoptr(GError) error = NULL;
	g_autoptr(PlProfile) app = pl_load_file(path, &lp, &app_info, &stats, &error);
	PL_CHECKF(app != NULL, "%s", error ? error->message : "?");

	/* the board's settings were asked for once, by the recording's host */
	struct utsname u;
	uname(&u);
	PL_CHECKF(seen.calls == 1, "options_for_host called %u times", seen.calls);
	PL_CHECKF(seen.host && !strcmp(seen.host, u.nodename), "host %s, expected %s",
		  seen.host ? seen.host : "(none)", u.nodename);
	g_free(seen.host);

	PL_CHECK(app_info.messages == cli_info.messages);
	PL_CHECKF(progress == app_info.messages,
		  "progress %" G_GSIZE_FORMAT " of %" G_GUINT64_FORMAT " messages", progress,
		  app_info.messages);
	const PlProfileStats *a = pl_profile_get_stats(app), *c = pl_profile_get_stats(cli);
	PL_CHECKF(c->samples > 100 && c->dwarf_samples == c->samples,
		  "%" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT " with DWARF stacks",
		  c->samples, c->dwarf_samples);
	PL_CHECK(a->samples == c->samples);
	PL_CHECK(a->dwarf_samples == c->dwarf_samples);
	PL_CHECK(a->dwarf_failed == c->dwarf_failed);
	PL_CHECK(a->dwarf_truncated == c->dwarf_truncated);
	if (g_get_num_processors() > 1 && !g_getenv("PERFLENS_NO_UNWIND_AHEAD"))
		PL_CHECKF(stats.unwind_ahead && stats.ahead_used > 0,
			  "the app's load unwound nothing ahead (%" G_GUINT64_FORMAT " used, %"
			  G_GUINT64_FORMAT " missed)", stats.ahead_used, stats.ahead_missed);

	g_autofree char *sc = collapsed(cli);
	g_autofree char *sa = collapsed(app);
	PL_CHECKF(strstr(sc, "hot_leaf") != NULL, "hot_leaf not in the stacks");
	if (strcmp(sc, sa) != 0) {
		g_autofree char *fc = vt_tmp("cli.collapsed"), *fa = vt_tmp("app.collapsed");
		g_file_set_contents(fc, sc, -1, NULL);
		g_file_set_contents(fa, sa, -1, NULL);
		PL_CHECKF(FALSE, "the stacks differ: diff %s %s (PL_KEEP_TMP=1 keeps them)", fc, fa);
	}
}

static void test_cancelled_load(void)
{
	const char *path = need_data();
	HostSeen seen = { 0 };
	g_autoptr(GCancellable) cancel = g_cancellable_new();
	g_cancellable_cancel(cancel);
	PlLoadParams lp = { .options_for_host = app_options,
			    .options_clear = app_options_clear,
			    .data = &seen,
			    .cancel = cancel,
			    .keep_partial = TRUE };
	g_autoptr(GError) error = NULL;
	PlProfile *p = pl_load_file(path, &lp, NULL, NULL, &error);
	g_free(seen.host);
	PL_CHECK(p == NULL);
	PL_CHECKF(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED), "%s",
		  error ? error->message : "no error");
}

static void test_missing_file(void)
{
	g_autofree char *path = vt_tmp("no-such.data");
	g_autoptr(GError) error = NULL;
	PlLoadParams lp = { .keep_partial = TRUE };
	PlProfile *p = pl_load_file(path, &lp, NULL, NULL, &error);
	PL_CHECK(p == NULL);
	PL_CHECKF(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO), "%s",
		  error ? error->message : "no error");
}

/* What the app's window is given for a stub of a capture (the first 100
 * bytes of a real recording of burn by the agent): no profile and an
 * error that says the recording holds no samples, never an empty window
 * as if it were a profile; the same file cut 3 bytes short of its end
 * still loads, with its samples. */
static void test_capture_stub(void)
{
	g_autofree char *agent = vt_agent();
	g_autofree char *burn = vt_build_path("workloads/burn");
	PL_CHECKF(g_file_test(agent, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", agent);
	PL_CHECKF(g_file_test(burn, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", burn);
	pl_need_kernel_perf();
	g_autofree char *cap = vt_tmp("real.plens");
	char *argv[] = { agent, (char *)"--output", cap, (char *)"--frequency", (char *)"499",
			 (char *)"--", burn, (char *)"0.5", (char *)"1", NULL };
	g_autofree char *err = NULL;
	int status = 0;
	gboolean ran = g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
				    &err, &status, NULL);
	PL_CHECKF(ran && g_spawn_check_wait_status(status, NULL), "the agent could not record: %s",
		  err ? err : "");
	g_autofree char *bytes = NULL;
	gsize len = 0;
	PL_CHECK(g_file_get_contents(cap, &bytes, &len, NULL) && len > 200);
	g_autofree char *stub = vt_tmp("stub.plens");
	g_autofree char *torn = vt_tmp("torn.plens");
	PL_CHECK(g_file_set_contents(stub, bytes, 100, NULL));
	PL_CHECK(g_file_set_contents(torn, bytes, (gssize)len - 3, NULL));

	PlLoadParams lp = { .keep_partial = TRUE };
	g_autoptr(GError) error = NULL;
	PlProfile *p = pl_load_file(stub, &lp, NULL, NULL, &error);
	PL_CHECK(p == NULL);
	PL_CHECKF(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT) &&
			  strstr(error->message, "holds no samples") &&
			  strstr(error->message, "record again"),
		  "%s", error ? error->message : "no error");

	g_autoptr(GError) error2 = NULL;
	g_autoptr(PlProfile) q = pl_load_file(torn, &lp, NULL, NULL, &error2);
	PL_CHECKF(q, "%s", error2 ? error2->message : "no profile");
	PL_CHECK(pl_profile_get_stats(q)->samples > 0);
}

PL_TEST_MAIN({ "loader_app_path_gives_the_cli_report", test_app_path_gives_the_cli_report },
	     { "loader_cancelled_load", test_cancelled_load },
	     { "loader_missing_file", test_missing_file },
	     { "loader_capture_stub", test_capture_stub })
