/* viewer-ui-sessions-index-test.c — renaming saved sessions on a real
 * directory: never over anything already at the new name; the view state
 * kept beside a session (pl-view-state.h): written 0600 in order, read
 * back, a corrupt one refused in words, moved and deleted with its
 * session.  No display. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-sessions-index.h"
#include "pl-view-state.h"
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

static void view_state_kept_with_session(void)
{
	g_autofree char *a = tmp("v.plens"), *av = tmp("v.plens.view");
	PL_CHECK(g_file_set_contents(a, "session v", -1, NULL));
	g_autoptr(PlViewState) st = pl_view_state_new();
	pl_view_state_set_session(st, a);
	PL_CHECK(pl_view_state_get_n(st) == 0 && !g_file_test(av, G_FILE_TEST_EXISTS));
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_view_state_push_text(st, "merge\t^hot_leaf$", &error), "%s",
		  error ? error->message : "");
	PL_CHECK(pl_view_state_push(st, PL_TX_FOCUS, "^worker_loop$", NULL));
	PL_CHECK(pl_view_state_push(st, PL_TX_COLLAPSE_RECURSION, NULL, NULL));
	/* a bad one changes nothing, file included */
	PL_CHECK(!pl_view_state_push_text(st, "focus\t(", &error));
	g_clear_error(&error);
	PL_CHECK(!pl_view_state_push_text(st, "sharpen\tx", &error));
	g_clear_error(&error);
	GStatBuf sb;
	PL_CHECK(g_stat(av, &sb) == 0);
	PL_CHECKF((sb.st_mode & 0777) == 0600, "%s is mode %o", av, sb.st_mode & 0777);
	g_autofree char *text = slurp(av);
	PL_CHECKF(text && !strcmp(text, "merge\t^hot_leaf$\nfocus\t^worker_loop$\ncollapse-recursion\n"),
		  "%s holds '%s'", av, text ? text : "");

	/* opened again: the same stack, in order */
	g_autoptr(PlViewState) again = pl_view_state_new();
	pl_view_state_set_session(again, a);
	PL_CHECK(pl_view_state_get_n(again) == 3 && !pl_view_state_get_error(again));
	const PlTransforms *t = pl_view_state_get_transforms(again);
	PL_CHECK(pl_transforms_get_kind(t, 1) == PL_TX_FOCUS &&
		 !strcmp(pl_transforms_get_arg(t, 1), "^worker_loop$"));
	pl_view_state_remove(again, 0);
	g_free(text);
	text = slurp(av);
	PL_CHECK(text && g_str_has_prefix(text, "focus\t"));

	/* renamed and deleted with the session */
	char *np = NULL;
	PL_CHECKF(pl_session_rename(a, "w", &np, &error), "%s", error ? error->message : "");
	g_autofree char *wv = tmp("w.plens.view");
	PL_CHECK(g_file_test(wv, G_FILE_TEST_IS_REGULAR) && !g_file_test(av, G_FILE_TEST_EXISTS));
	PL_CHECK(pl_session_delete(np, &error));
	PL_CHECK(!g_file_test(wv, G_FILE_TEST_EXISTS));
	g_free(np);

	/* a corrupt file: an empty stack, and why */
	g_autofree char *b = tmp("x.plens"), *bv = tmp("x.plens.view");
	PL_CHECK(g_file_set_contents(bv, "focus\t^a$\nsharpen\tb\n", -1, NULL));
	g_autoptr(PlViewState) bad = pl_view_state_new();
	pl_view_state_set_session(bad, b);
	PL_CHECK(pl_view_state_get_n(bad) == 0);
	const char *why = pl_view_state_get_error(bad);
	PL_CHECKF(why && strstr(why, "sharpen"), "error: %s", why ? why : "(none)");

	/* Reset: no stack, no file */
	pl_view_state_set_session(st, b);
	PL_CHECK(pl_view_state_push(st, PL_TX_DROP, "^x$", NULL) && g_file_test(bv, G_FILE_TEST_EXISTS));
	pl_view_state_reset(st);
	PL_CHECK(pl_view_state_get_n(st) == 0 && !g_file_test(bv, G_FILE_TEST_EXISTS));
}

PL_TEST_MAIN(PL_CASE(rename_never_replaces), PL_CASE(view_state_kept_with_session))
