/* viewer-ui-sessions-index-test.c — renaming saved sessions on a real
 * directory: never over anything already at the new name.  No display. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "pl-sessions-index.h"
#include "pl-test.h"

static char *tmp_dir;

static void rm_tmp(void)
{
	if (tmp_dir && !getenv("PL_KEEP_TMP")) {
		char *argv[] = { (char *)"rm", (char *)"-rf", tmp_dir, NULL };
		g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
			     NULL);
	}
}

static char *tmp(const char *name)
{
	if (!tmp_dir) {
		tmp_dir = g_dir_make_tmp("plsessions-XXXXXX", NULL);
		atexit(rm_tmp);
	}
	return g_build_filename(tmp_dir, name, NULL);
}

static char *slurp(const char *path)
{
	char *s = NULL;
	return g_file_get_contents(path, &s, NULL, NULL) ? s : NULL;
}

/* A session renamed onto an existing one, or onto a dangling symlink
 * (which a test for existence does not see), is refused with both left as
 * they were; a free name takes the file and its sidecar. */
static void rename_never_replaces(void)
{
	g_autofree char *a = tmp("a.plens"), *b = tmp("b.plens"), *l = tmp("link.plens");
	g_autofree char *away = tmp("away"), *ai = tmp("a.plens.idx");
	PL_CHECK(g_file_set_contents(a, "session a", -1, NULL));
	PL_CHECK(g_file_set_contents(ai, "[session]\n", -1, NULL));
	PL_CHECK(g_file_set_contents(b, "session b", -1, NULL));
	PL_CHECK(symlink(away, l) == 0);
	g_autoptr(GError) error = NULL;
	char *np = NULL;

	PL_CHECK(!pl_session_rename(a, "b", &np, &error));
	PL_CHECKF(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_EXISTS), "%s", error->message);
	g_clear_error(&error);
	g_autofree char *sb = slurp(b), *sa = slurp(a);
	PL_CHECK(sb && !strcmp(sb, "session b") && sa && !strcmp(sa, "session a"));

	gboolean ok = pl_session_rename(a, "link", &np, &error);
	g_free(np);
	np = NULL;
	PL_CHECKF(!ok, "renamed over the symlink %s", l);
	PL_CHECKF(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_EXISTS), "%s", error->message);
	g_clear_error(&error);
	GStatBuf st;
	PL_CHECK(g_lstat(l, &st) == 0 && S_ISLNK(st.st_mode));
	PL_CHECK(g_file_test(a, G_FILE_TEST_IS_REGULAR));

	PL_CHECKF(pl_session_rename(a, "c", &np, &error), "%s", error->message);
	g_autofree char *c = tmp("c.plens"), *ci = tmp("c.plens.idx");
	PL_CHECK(np && !strcmp(np, c));
	g_free(np);
	g_autofree char *sc = slurp(c);
	PL_CHECK(sc && !strcmp(sc, "session a") && !g_file_test(a, G_FILE_TEST_EXISTS));
	PL_CHECK(g_file_test(ci, G_FILE_TEST_IS_REGULAR) && !g_file_test(ai, G_FILE_TEST_EXISTS));
}

PL_TEST_MAIN(PL_CASE(rename_never_replaces))
