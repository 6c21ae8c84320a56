/* viewer-export-table-test.c — the export table as its two callers use it:
 * `perflens export` (the binary, run as a user runs it) and the app's
 * export of a saved session (pl_saved_session_export, the headless core the
 * Export dialog calls).  For every format of the table: the same bytes from
 * a good capture, the same error from a damaged one (and no file left), and
 * a write that fails at the device (a private "full" device, as /dev/full)
 * reported by both, never an exit status 0. */
#include "viewer-test-util.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "pl-export-table.h"
#include "pl-saved-session-export.h"

#define PID 700
#define T0 1000000ull

static VtElf *burn;

/* Two blocks of samples of the burn workload; ends: the file offset after
 * each block. */
static char *two_blocks(const char *name, GArray **ends)
{
	char *why = NULL;
	if (!burn)
		burn = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(burn, "%s", why);
	char *path = vt_tmp(name);
	VtCapture *c = vt_capture_new(path);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, PID, "burn", T0);
	vt_mmap(c, PID, burn->map_start, burn->map_len, burn->map_pgoff, burn->path);
	uint64_t hot[] = { T_CTX_USER, vt_sym(burn, "hot_leaf", 0), vt_sym(burn, "compute_mid", 1),
			   vt_sym(burn, "compute_outer", 1), vt_sym(burn, "worker_loop", 1),
			   vt_sym(burn, "main", 1) };
	for (int i = 0; i < 4; i++)
		vt_sample(c, 0, PID, PID, T0 + (uint64_t)i, 1000, hot, G_N_ELEMENTS(hot));
	vt_capture_flush(c);
	for (int i = 4; i < 8; i++)
		vt_sample(c, 0, PID, PID, T0 + (uint64_t)i, 1000, hot, G_N_ELEMENTS(hot));
	vt_capture_flush(c);
	*ends = g_array_copy(c->block_ends);
	vt_capture_close(c);
	return path;
}

static gboolean core_export(const char *in, const char *format, const char *out, GError **error)
{
	PlLoadParams lp = { 0 }; /* default symbol options, as the command line's */
	return pl_saved_session_export(in, format, out, &lp, error);
}

static char *out_path(const char *tag, const PlExporter *e)
{
	g_autofree char *name = g_strconcat(tag, "-", e->name, e->suffix, NULL);
	return vt_tmp(name);
}

/* A good capture: the command line and the core write the same bytes
 * (the self-contained session records when it was made, to the second:
 * its sizes are compared, and that both load). */
static void same_bytes(void)
{
	GArray *ends;
	g_autofree char *in = two_blocks("good.plens", &ends);
	g_array_free(ends, TRUE);
	PL_CHECK(pl_export_n_formats() == 9); /* counters-csv the ninth */
	for (guint i = 0; i < pl_export_n_formats(); i++) {
		const PlExporter *e = pl_export_nth(i);
		g_autofree char *cli = out_path("cli", e), *core = out_path("core", e);
		g_autofree char *err = NULL;
		int rc = vt_perflens(NULL, &err, "export", in, "--format", e->name, "-o", cli, NULL);
		PL_CHECKF(rc == 0, "%s: rc %d: %s", e->name, rc, err);
		g_autoptr(GError) error = NULL;
		PL_CHECKF(core_export(in, e->name, core, &error), "%s: %s", e->name,
			  error->message);
		g_autofree char *a = NULL, *b = NULL;
		gsize na = 0, nb = 0;
		PL_CHECK(g_file_get_contents(cli, &a, &na, NULL));
		PL_CHECK(g_file_get_contents(core, &b, &nb, NULL));
		PL_CHECKF(na > 0 && na == nb, "%s: %zu and %zu bytes", e->name, na, nb);
		if (!(e->needs & PL_EXPORT_NEEDS_SYMBOLS))
			PL_CHECKF(!memcmp(a, b, na), "%s: the two files differ", e->name);
	}
	/* what the table lists is what the command line takes */
	PL_CHECK(pl_export_for_path("x.speedscope.json") == pl_export_find("speedscope"));
	PL_CHECK(pl_export_for_path("x.json") == pl_export_find("speedscope"));
	PL_CHECK(pl_export_for_path("x.folded") == pl_export_find("collapsed"));
	PL_CHECK(pl_export_for_path("x.png") == NULL);
	g_autofree char *err = NULL;
	PL_CHECK(vt_perflens(NULL, &err, "export", in, "--format", "png", NULL) == 2);
	g_autofree char *names = pl_export_dup_names();
	PL_CHECKF(strstr(err, names), "%s", err);
	g_autoptr(GError) error = NULL;
	PL_CHECK(!core_export(in, "png", "x.png", &error));
	PL_CHECKF(strstr(error->message, names), "%s", error->message);
}

/* Block 2 damaged after block 1 was read: both refuse with the reader's
 * words (the app used to write what came before the damage), no file. */
static void corrupt_same_error(void)
{
	GArray *ends;
	g_autofree char *in = two_blocks("corrupt.plens", &ends);
	g_autofree char *data = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(in, &data, &len, NULL));
	data[g_array_index(ends, long, 0) + PL_BLOCK_HEADER_SIZE + 3] ^= 0x55;
	PL_CHECK(g_file_set_contents(in, data, (gssize)len, NULL));
	g_array_free(ends, TRUE);
	for (guint i = 0; i < pl_export_n_formats(); i++) {
		const PlExporter *e = pl_export_nth(i);
		g_autofree char *cli = out_path("bad-cli", e), *core = out_path("bad-core", e);
		g_autofree char *err = NULL;
		int rc = vt_perflens(NULL, &err, "export", in, "--format", e->name, "-o", cli, NULL);
		PL_CHECKF(rc == 2, "%s: rc %d: %s", e->name, rc, err);
		g_autoptr(GError) error = NULL;
		PL_CHECKF(!core_export(in, e->name, core, &error), "%s: the core wrote it",
			  e->name);
		PL_CHECKF(strstr(error->message, "corrupt.plens") && strstr(error->message, "checksum"),
			  "%s: %s", e->name, error->message);
		g_autofree char *want = g_strdup_printf("perflens: %s\n", error->message);
		PL_CHECKF(!strcmp(err, want), "%s: the command line said\n%sthe core\n%s", e->name,
			  err, want);
		PL_CHECKF(!g_file_test(cli, G_FILE_TEST_EXISTS) &&
				  !g_file_test(core, G_FILE_TEST_EXISTS),
			  "%s: a file was left", e->name);
	}
}

/* Every format writing to a device that takes no byte: the failure is the
 * caller's error, from the command line with exit status 2, and the
 * device is left in place (a failed perf.data is removed only when it is a
 * file the writer made). */
static void full_device(void)
{
	GArray *ends;
	g_autofree char *in = two_blocks("full.plens", &ends);
	g_array_free(ends, TRUE);
	g_autofree char *full = vt_tmp("full");
	if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0)
		PL_SKIP("[not-root] cannot make a full device (mknod c 1 7): %s",
			g_strerror(errno));
	/* a /tmp mounted nodev (a tmpfs, as in make check-fresh's root) keeps
	 * the node but refuses to open it: then it goes beside the build */
	int fd = open(full, O_WRONLY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		unlink(full);
		g_free(full);
		full = g_strdup_printf("%s/test-full-device-%d", vt_build(), (int)getpid());
		unlink(full);
		PL_CHECKF(mknod(full, S_IFCHR | 0666, makedev(1, 7)) == 0, "mknod %s: %s", full,
			  g_strerror(errno));
		fd = open(full, O_WRONLY | O_CLOEXEC);
	}
	PL_CHECKF(fd >= 0, "cannot open the full device %s: %s", full, g_strerror(errno));
	close(fd);
	for (guint i = 0; i < pl_export_n_formats(); i++) {
		const PlExporter *e = pl_export_nth(i);
		/* the self-contained session is written beside its destination
		 * and renamed over it: a device is never written through */
		if (e->needs & PL_EXPORT_NEEDS_SYMBOLS)
			continue;
		g_autofree char *err = NULL;
		int rc = vt_perflens(NULL, &err, "export", in, "--format", e->name, "-o", full, NULL);
		PL_CHECKF(rc == 2 && strstr(err, full), "%s: rc %d: %s", e->name, rc, err);
		g_autoptr(GError) error = NULL;
		PL_CHECKF(!core_export(in, e->name, full, &error), "%s: the core said it wrote",
			  e->name);
		PL_CHECKF(strstr(error->message, full), "%s: %s", e->name, error->message);
		if (!(e->needs & PL_EXPORT_NEEDS_FILE))
			PL_CHECKF(strstr(error->message, g_strerror(ENOSPC)), "%s: %s", e->name,
				  error->message);
		struct stat st;
		PL_CHECKF(stat(full, &st) == 0 && S_ISCHR(st.st_mode), "%s: the device is gone",
			  e->name);
	}
	unlink(full);
}

PL_TEST_MAIN(PL_CASE(same_bytes), PL_CASE(corrupt_same_error), PL_CASE(full_device))
