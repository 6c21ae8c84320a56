/* pl-cli-common.c — what the subcommands share: loading, symbol options,
 * errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "pl-cli.h"

int pl_cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	/* one line: flatten anything multi-line that came from below */
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(stderr, "perflens: %s\n", msg);
	return PL_EXIT_BAD_INPUT;
}

gboolean pl_cli_parse(GOptionContext *ctx, int *argc, char ***argv, const char *cmd)
{
	g_autoptr(GError) error = NULL;
	if (!g_option_context_parse(ctx, argc, argv, &error)) {
		pl_cli_fail("%s: %s (run perflens %s --help)", cmd, error->message, cmd);
		return FALSE;
	}
	return TRUE;
}

GOptionGroup *pl_cli_sym_group(PlCliSymArgs *a)
{
	const GOptionEntry entries[] = {
		{ "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &a->sysroot,
		  "Find the board's files under DIR", "DIR" },
		{ "binary", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->binaries,
		  "Unstripped copy of a program or library (repeatable)", "FILE" },
		{ "debug-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->debug_dirs,
		  "Directory of .build-id / .debug files (repeatable)", "DIR" },
		{ "source-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->source_dirs,
		  "Where source files are (repeatable)", "DIR" },
		{ "toolchain", 0, 0, G_OPTION_ARG_STRING, &a->toolchain_prefix,
		  "Cross toolchain prefix, e.g. aarch64-linux-gnu-", "PREFIX" },
		{ "no-inline", 0, 0, G_OPTION_ARG_NONE, &a->no_inline,
		  "Attribute inlined code to the function it was inlined into", NULL },
		{ NULL }
	};
	GOptionGroup *g = g_option_group_new("symbols", "Symbol options:",
					     "Show symbol options", NULL, NULL);
	g_option_group_add_entries(g, entries);
	return g;
}

void pl_cli_sym_args_clear(PlCliSymArgs *a)
{
	g_clear_pointer(&a->sysroot, g_free);
	g_clear_pointer(&a->binaries, g_strfreev);
	g_clear_pointer(&a->debug_dirs, g_strfreev);
	g_clear_pointer(&a->source_dirs, g_strfreev);
	g_clear_pointer(&a->toolchain_prefix, g_free);
}

static GPtrArray *strv_to_array(char **v)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	for (; v && *v; v++)
		g_ptr_array_add(a, g_strdup(*v));
	return a;
}

/* perf.data recorded on this very machine: like perf report, use this
 * machine's /proc/kallsyms for kernel frames (an agent sends its own). */
typedef struct {
	PlProfile *p;
	gboolean perf_data;
	gboolean kallsyms_done;
} Loader;

static void feed_local_kallsyms(PlProfile *p, const struct pl_msg_hello *h)
{
	struct utsname u;
	if (uname(&u) < 0 || h->hostname.len != strlen(u.nodename) ||
	    memcmp(h->hostname.p, u.nodename, h->hostname.len) != 0 ||
	    h->kernel_release.len != strlen(u.release) ||
	    memcmp(h->kernel_release.p, u.release, h->kernel_release.len) != 0)
		return;
	g_autofree char *text = NULL;
	gsize len = 0;
	/* /proc files have no size: g_file_get_contents reads to EOF */
	if (!g_file_get_contents("/proc/kallsyms", &text, &len, NULL) || len == 0 ||
	    g_str_has_prefix(text, "0000000000000000 ")) /* kptr_restrict hides addresses */
		return;
	PlSymbols *syms = pl_profile_get_symbols(p);
	const gsize chunk = 512 * 1024;
	for (gsize off = 0; off < len; off += chunk)
		pl_symbols_add_chunk(syms, PL_CHUNK_KALLSYMS, 0, 0, off, (const guint8 *)text + off,
				     MIN(chunk, len - off));
}

static gboolean load_one(const struct pl_msg *m, gpointer data)
{
	Loader *l = data;
	pl_profile_ingest(m, l->p);
	if (m->type == PL_MSG_HELLO && l->perf_data && !l->kallsyms_done) {
		l->kallsyms_done = TRUE;
		feed_local_kallsyms(l->p, &m->u.hello);
	}
	return TRUE;
}

PlProfile *pl_cli_load(const char *path, const PlCliSymArgs *a, PlCaptureInfo *info)
{
	PlSymOptions o = { 0 };
	o.sysroot = a->sysroot;
	o.toolchain_prefix = a->toolchain_prefix;
	o.binaries = strv_to_array(a->binaries);
	o.debug_dirs = strv_to_array(a->debug_dirs);
	o.source_dirs = strv_to_array(a->source_dirs);
	o.no_inline = a->no_inline;
	/* Without a sysroot the board's paths are looked up here: right for a
	 * capture of this machine, and the coverage section says when not. */
	o.host_files = a->sysroot == NULL;
	PlProfile *p = pl_profile_new(&o);
	g_ptr_array_unref(o.binaries);
	g_ptr_array_unref(o.debug_dirs);
	g_ptr_array_unref(o.source_dirs);

	g_autoptr(GError) error = NULL;
	Loader l = { p, pl_capture_detect(path) == PL_FILE_PERF_DATA, FALSE };
	if (!pl_capture_load(path, load_one, &l, info, &error)) {
		pl_cli_fail("%s", error->message);
		pl_profile_free(p);
		return NULL;
	}
	pl_profile_finish(p);
	g_autofree char *note = pl_capture_info_dup_note(info);
	if (note)
		fprintf(stderr, "perflens: note: %s: %s\n", path, note);
	return p;
}
