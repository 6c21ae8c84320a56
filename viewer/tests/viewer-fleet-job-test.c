/* viewer-fleet-job-test.c — the Fleet page's question (pl-fleet-job.h)
 * refuses what the form gets wrong before it asks anything, in words that
 * name the field, where in it, and why; and picks the per-minute rollup as
 * `perflens fleet` does.  No server: every case ends before a request (the
 * URL names a closed loopback port, so a request would fail otherwise and
 * say "did not answer").  What the answers hold is viewer-ui-fleet-test's,
 * against `perflens fleet` on a real ClickHouse.
 *
 *   fleet_job_needs_store      no URL, or no credentials file: said so
 *   fleet_job_since_refused    Since "2x": the field, character 2, the unit
 *   fleet_job_labels_refused   Labels "fw=": the field, character 4, a value
 *   fleet_job_credentials      a credentials file others can read: refused
 *                              (PL_CLICKHOUSE_ERROR_CREDENTIALS)
 *   fleet_source_auto          all time and 6 h or more from the rollup,
 *                              shorter ranges from every sample
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "pl-clickhouse.h"
#include "pl-fleet-job.h"
#include "pl-test.h"

#define CLOSED_URL "http://127.0.0.1:1"

static char *dir;

static char *credentials(int mode)
{
	if (!dir)
		dir = g_dir_make_tmp("plv-fleetjob-XXXXXX", NULL);
	g_autofree char *name = g_strdup_printf("cred-%o", mode);
	char *path = g_build_filename(dir, name, NULL);
	g_file_set_contents(path, "default:secret\n", -1, NULL);
	g_chmod(path, mode);
	return path;
}

static void fleet_job_needs_store(void)
{
	g_autofree char *cred = credentials(0600);
	PlFleetAsk no_url = { .url = "", .credentials = cred };
	PlFleetAsk no_cred = { .url = CLOSED_URL };
	g_autoptr(GError) e1 = NULL, e2 = NULL;
	PL_CHECK(!pl_fleet_job_run(&no_url, &e1));
	PL_CHECK(!pl_fleet_job_run(&no_cred, &e2));
	PL_CHECKF(g_error_matches(e1, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) &&
			  strstr(e1->message, "ClickHouse URL") && strstr(e1->message, "credentials file"),
		  "%s", e1->message);
	PL_CHECKF(!strcmp(e1->message, e2->message), "%s / %s", e1->message, e2->message);
}

static void fleet_job_since_refused(void)
{
	g_autofree char *cred = credentials(0600);
	PlFleetAsk ask = { .url = CLOSED_URL, .credentials = cred, .since = "2x" };
	g_autoptr(GError) e = NULL;
	PL_CHECK(!pl_fleet_job_run(&ask, &e));
	PL_CHECKF(g_str_has_prefix(e->message, "Since “2x”: at character 2, ") &&
			  !strstr(e->message, "did not answer"),
		  "%s", e->message);
}

static void fleet_job_labels_refused(void)
{
	g_autofree char *cred = credentials(0600);
	PlFleetAsk ask = { .url = CLOSED_URL, .credentials = cred, .where = "fw=" };
	g_autoptr(GError) e = NULL;
	PL_CHECK(!pl_fleet_job_run(&ask, &e));
	PL_CHECKF(g_str_has_prefix(e->message, "Labels “fw=”: at character 4, a value was expected"),
		  "%s", e->message);
}

static void fleet_job_credentials(void)
{
	g_autofree char *cred = credentials(0644);
	PlFleetAsk ask = { .url = CLOSED_URL, .credentials = cred, .where = "fw=1" };
	g_autoptr(GError) e = NULL;
	PL_CHECK(!pl_fleet_job_run(&ask, &e));
	PL_CHECKF(g_error_matches(e, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS), "%s",
		  e->message);
}

static void fleet_source_auto(void)
{
	PL_CHECK(pl_fleet_source_auto(0) == PL_FLEET_MINUTES);
	PL_CHECK(pl_fleet_source_auto(3600) == PL_FLEET_RAW);
	PL_CHECK(pl_fleet_source_auto(PL_FLEET_ROLLUP_FROM_S - 1) == PL_FLEET_RAW);
	PL_CHECK(pl_fleet_source_auto(PL_FLEET_ROLLUP_FROM_S) == PL_FLEET_MINUTES);
	PL_CHECK(pl_fleet_source_auto(7 * 86400) == PL_FLEET_MINUTES);
}

static void cleanup(void)
{
	if (!dir)
		return;
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *n;
	while (d && (n = g_dir_read_name(d))) {
		g_autofree char *p = g_build_filename(dir, n, NULL);
		g_unlink(p);
	}
	g_rmdir(dir);
	g_clear_pointer(&dir, g_free);
}

/* every case's files go when it ends, passed or not */
__attribute__((constructor)) static void set_cleanup(void)
{
	pl_test_after_case = cleanup;
}

PL_TEST_MAIN(PL_CASE(fleet_job_needs_store), PL_CASE(fleet_job_since_refused),
	     PL_CASE(fleet_job_labels_refused), PL_CASE(fleet_job_credentials),
	     PL_CASE(fleet_source_auto))
