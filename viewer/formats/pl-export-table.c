/* pl-export-table.c — the export formats and their writing; see
 * pl-export-table.h. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-export-table.h"
#include "pl-export.h"

/* ─── the writers, as the table calls them ─────────────────────────── */

static char *file_name(const PlExportInput *in)
{
	return g_path_get_basename(in->in);
}

static gboolean write_collapsed(const PlExportInput *in, const char *path, FILE *fp,
				GError **error)
{
	g_autoptr(PlAggregate) agg =
		pl_profile_aggregate_filtered(in->profile, &in->filter, in->stack_filter);
	return pl_export_collapsed(agg, fp, in->by_weight, error);
}

static gboolean write_pprof(const PlExportInput *in, const char *path, FILE *fp, GError **error)
{
	g_autoptr(PlAggregate) agg =
		pl_profile_aggregate_filtered(in->profile, &in->filter, in->stack_filter);
	GError *local = NULL;
	if (pl_export_pprof(agg, path, &local))
		return TRUE;
	g_propagate_prefixed_error(error, local, "cannot write %s: ", path);
	return FALSE;
}

static gboolean write_svg(const PlExportInput *in, const char *path, FILE *fp, GError **error)
{
	g_autofree char *base = file_name(in);
	g_autoptr(PlAggregate) agg =
		pl_profile_aggregate_filtered(in->profile, &in->filter, in->stack_filter);
	return pl_export_svg(agg, fp, in->title ? in->title : base, in->by_weight, error);
}

static gboolean write_speedscope(const PlExportInput *in, const char *path, FILE *fp,
				 GError **error)
{
	g_autofree char *base = file_name(in);
	return pl_export_speedscope(in->profile, &in->filter, in->stack_filter, fp, base, error);
}

static gboolean write_perf_data(const PlExportInput *in, const char *path, FILE *fp,
				GError **error)
{
	return pl_export_perf_data(in->in, path, in->cancel, in->info, error);
}

static gboolean write_self_contained(const PlExportInput *in, const char *path, FILE *fp,
				     GError **error)
{
	return pl_export_self_contained(in->in, path, in->load, in->top, in->stats, error);
}

static gboolean write_irq_csv(const PlExportInput *in, const char *path, FILE *fp,
			      GError **error)
{
	return pl_export_irq_csv(in->profile, &in->filter, fp, error);
}

static gboolean write_block_csv(const PlExportInput *in, const char *path, FILE *fp,
				GError **error)
{
	return pl_export_block_csv(in->profile, fp, error);
}

static gboolean write_counters_csv(const PlExportInput *in, const char *path, FILE *fp,
				   GError **error)
{
	return pl_export_counters_csv(in->profile, fp, error);
}

/* ─── the table ────────────────────────────────────────────────────── */

/* The order is the order of the messages and of the Export dialog. */
static const PlExporter formats[] = {
	{ "collapsed", ".collapsed.txt", { ".txt", ".folded", NULL },
	  "Collapsed stacks (flamegraph.pl, inferno)", NULL, PL_EXPORT_NEEDS_PROFILE,
	  write_collapsed },
	{ "pprof", ".pb.gz", { NULL }, "pprof (go tool pprof)",
	  "FILE.pb.gz (it is gzipped binary)", PL_EXPORT_NEEDS_PROFILE | PL_EXPORT_NEEDS_FILE,
	  write_pprof },
	{ "svg", ".svg", { NULL }, "Flame graph (SVG)", NULL, PL_EXPORT_NEEDS_PROFILE, write_svg },
	{ "speedscope", ".speedscope.json", { ".json", NULL }, "speedscope (JSON)", NULL,
	  PL_EXPORT_NEEDS_PROFILE, write_speedscope },
	{ "perf-data", ".perf.data", { NULL }, "perf.data (perf report)", "FILE",
	  PL_EXPORT_NEEDS_CAPTURE | PL_EXPORT_NEEDS_FILE, write_perf_data },
	{ "plens-symbolized", ".plens", { NULL },
	  "Self-contained session (names, sources and disassembly inside, for a machine "
	  "without the binaries)",
	  "FILE.plens", PL_EXPORT_NEEDS_SYMBOLS | PL_EXPORT_NEEDS_FILE, write_self_contained },
	{ "irq-csv", ".irq.csv", { NULL },
	  "Interrupt time per IRQ, softirq vector and CPU (CSV; --irq recordings)", NULL,
	  PL_EXPORT_NEEDS_PROFILE, write_irq_csv },
	{ "block-csv", ".block.csv", { NULL },
	  "Block I/O requests with latency and issuing stack (CSV; --block recordings)", NULL,
	  PL_EXPORT_NEEDS_PROFILE | PL_EXPORT_WHOLE, write_block_csv },
	{ "counters-csv", ".counters.csv", { NULL },
	  "Counter tracks: RSS, CPU busy share, frequency, idle, thermal, hwmon values over "
	  "time (CSV)", NULL, PL_EXPORT_NEEDS_PROFILE | PL_EXPORT_WHOLE, write_counters_csv },
};

guint pl_export_n_formats(void)
{
	return G_N_ELEMENTS(formats);
}

const PlExporter *pl_export_nth(guint i)
{
	return i < G_N_ELEMENTS(formats) ? &formats[i] : NULL;
}

const PlExporter *pl_export_find(const char *name)
{
	for (guint i = 0; name && i < G_N_ELEMENTS(formats); i++)
		if (g_str_equal(name, formats[i].name))
			return &formats[i];
	return NULL;
}

const PlExporter *pl_export_for_path(const char *path)
{
	/* every row's own suffix first: ".speedscope.json" before ".json" */
	for (guint i = 0; path && i < G_N_ELEMENTS(formats); i++)
		if (g_str_has_suffix(path, formats[i].suffix))
			return &formats[i];
	for (guint i = 0; path && i < G_N_ELEMENTS(formats); i++)
		for (guint k = 0; k < G_N_ELEMENTS(formats[i].also) && formats[i].also[k]; k++)
			if (g_str_has_suffix(path, formats[i].also[k]))
				return &formats[i];
	return NULL;
}

gboolean pl_export_takes_filter(const PlExporter *e)
{
	return (e->needs & PL_EXPORT_NEEDS_PROFILE) && !(e->needs & PL_EXPORT_WHOLE);
}

/* "a, b, … or z" of the formats keep takes (NULL: all) */
static char *dup_names_where(gboolean (*keep)(const PlExporter *e))
{
	GPtrArray *names = g_ptr_array_new();
	for (guint i = 0; i < G_N_ELEMENTS(formats); i++)
		if (!keep || keep(&formats[i]))
			g_ptr_array_add(names, (gpointer)formats[i].name);
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < names->len; i++) {
		if (i)
			g_string_append(s, i + 1 < names->len ? ", " : " or ");
		g_string_append(s, names->pdata[i]);
	}
	g_ptr_array_free(names, TRUE);
	return g_string_free(s, FALSE);
}

char *pl_export_dup_names(void)
{
	return dup_names_where(NULL);
}

char *pl_export_dup_filter_names(void)
{
	return dup_names_where(pl_export_takes_filter);
}

/* ─── writing ──────────────────────────────────────────────────────── */

static gboolean io_error(GError **error, const char *what, const char *out, int e)
{
	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "%s %s: %s", what,
		    out ? out : "stdout", g_strerror(e));
	return FALSE;
}

/* Flushes and closes what a stream writer wrote; a regular file is synced
 * first, so that "written" means on the disk.  The first failure is the
 * error; fp is closed whatever happens (standard output stays open). */
static gboolean finish_stream(FILE *fp, const char *out, gboolean ok, GError **error)
{
	if (fflush(fp) != 0 && ok)
		ok = io_error(error, "cannot write", out, errno);
	if (!out)
		return ok;
	struct stat st;
	if (ok && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && fsync(fileno(fp)) != 0)
		ok = io_error(error, "cannot sync", out, errno);
	if (fclose(fp) != 0 && ok)
		ok = io_error(error, "cannot write", out, errno);
	return ok;
}

gboolean pl_export_write(const PlExporter *e, const PlExportInput *in, const char *out,
			 GError **error)
{
	g_return_val_if_fail(e && in && in->in, FALSE);
	g_return_val_if_fail(!(e->needs & PL_EXPORT_NEEDS_PROFILE) || in->profile, FALSE);
	if (e->needs & PL_EXPORT_NEEDS_FILE) {
		if (!out) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "the %s format writes a file, not standard output: name one "
				    "(%s)",
				    e->name, e->out_hint);
			return FALSE;
		}
		return e->write(in, out, NULL, error);
	}
	FILE *fp = out ? fopen(out, "w") : stdout;
	if (!fp)
		return io_error(error, "cannot create", out, errno);
	GError *local = NULL;
	gboolean ok = e->write(in, out, fp, &local);
	if (!ok && local)
		g_propagate_prefixed_error(error, local, "cannot write %s: ",
					   out ? out : "stdout");
	else if (!ok)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write %s",
			    out ? out : "stdout");
	return finish_stream(fp, out, ok, error);
}
