/* pl-cli-common.c — what the subcommands share: loading, symbol options,
 * errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "pl-cli.h"
#include "pl-ldmap.h"
#include "pl-unwind-ahead.h"

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
		{ "toolchain-prefix", 0, 0, G_OPTION_ARG_STRING, &a->toolchain_prefix,
		  "Cross toolchain prefix, e.g. aarch64-linux-gnu- (gives the sysroot and objdump)",
		  "PREFIX" },
		{ "toolchain", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &a->toolchain_prefix,
		  "Same as --toolchain-prefix", "PREFIX" },
		{ "map", 0, 0, G_OPTION_ARG_FILENAME, &a->map_file,
		  "GNU ld map file (-Wl,-Map=FILE): symbols for a program without them", "FILE" },
		{ "path-map", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->path_maps,
		  "Rewrite source path prefix FROM as TO (repeatable)", "FROM=TO" },
		{ "inline", 0, 0, G_OPTION_ARG_NONE, &a->inline_,
		  "Show inlined functions as frames of their own (the default)", NULL },
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
	g_clear_pointer(&a->map_file, g_free);
	g_clear_pointer(&a->path_maps, g_strfreev);
}

GOptionGroup *pl_cli_filter_group(PlCliFilterArgs *a)
{
	const GOptionEntry entries[] = {
		{ "allow", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->allow,
		  "Keep only stacks with a function matching RE; 'RE (cut)' also drops its callers",
		  "RE" },
		{ "deny", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->deny,
		  "Remove frames of functions matching RE; 'RE (cut)' also removes what they call",
		  "RE" },
		{ "allow-module", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->allow_module,
		  "As --allow, on the module (file) name", "RE" },
		{ "deny-module", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->deny_module,
		  "As --deny, on the module (file) name", "RE" },
		{ "rename", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->rename,
		  "Rename functions: 'RE=REPLACEMENT' (\\1 for groups; repeatable)", "RE=NEW" },
		{ "collapse-recursion", 0, 0, G_OPTION_ARG_NONE, &a->collapse_recursion,
		  "Merge a function calling itself into one frame", NULL },
		{ NULL }
	};
	GOptionGroup *g = g_option_group_new("filters", "Stack filters (applied in the order "
					     "rename, deny, allow; repeatable):",
					     "Show stack filter options", NULL, NULL);
	g_option_group_add_entries(g, entries);
	return g;
}

void pl_cli_filter_args_clear(PlCliFilterArgs *a)
{
	g_clear_pointer(&a->allow, g_strfreev);
	g_clear_pointer(&a->deny, g_strfreev);
	g_clear_pointer(&a->allow_module, g_strfreev);
	g_clear_pointer(&a->deny_module, g_strfreev);
	g_clear_pointer(&a->rename, g_strfreev);
}

PlStackFilter *pl_cli_stack_filter(const PlCliFilterArgs *a, gboolean *failed)
{
	*failed = FALSE;
	g_autoptr(PlStackFilter) sf = pl_stack_filter_new();
	struct {
		char **v;
		PlRuleKind kind;
		const char *opt;
	} lists[] = {
		{ a->rename, PL_RULE_RENAME, "--rename" },
		{ a->deny, PL_RULE_DENY_SYMBOL, "--deny" },
		{ a->deny_module, PL_RULE_DENY_MODULE, "--deny-module" },
		{ a->allow, PL_RULE_ALLOW_SYMBOL, "--allow" },
		{ a->allow_module, PL_RULE_ALLOW_MODULE, "--allow-module" },
	};
	for (guint i = 0; i < G_N_ELEMENTS(lists); i++)
		for (char **s = lists[i].v; s && *s; s++) {
			g_autoptr(GError) error = NULL;
			if (!pl_stack_filter_add(sf, lists[i].kind, *s, &error)) {
				pl_cli_fail("%s: %s", lists[i].opt, error->message);
				*failed = TRUE;
				return NULL;
			}
		}
	pl_stack_filter_set_collapse_recursion(sf, a->collapse_recursion);
	return pl_stack_filter_is_empty(sf) ? NULL : g_steal_pointer(&sf);
}

gboolean pl_cli_event(PlProfile *p, const char *name, const char *path, guint32 *event)
{
	*event = pl_profile_get_main_event(p);
	if (!name)
		return TRUE;
	GPtrArray *evs = pl_profile_get_events(p);
	for (guint i = 0; i < evs->len; i++)
		if (!strcmp(((PlEvent *)evs->pdata[i])->name, name)) {
			*event = ((PlEvent *)evs->pdata[i])->index;
			return TRUE;
		}
	pl_cli_fail("no event '%s' in %s", name, path);
	return FALSE;
}

static GPtrArray *strv_to_array(char **v)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	for (; v && *v; v++)
		g_ptr_array_add(a, g_strdup(*v));
	return a;
}

/* perf.data recorded on this very machine: like perf report, use this
 * machine's kernel symbols for kernel frames (an agent sends its own).
 * Loaded at the first sample with kernel frames: a user-only recording
 * never pays for it. */
typedef struct {
	PlProfile *p;
	gboolean perf_data;
	gboolean local;        /* HELLO named this host and running kernel */
	gboolean kallsyms_done;
	PlUnwindAhead *ahead;  /* perf.data: DWARF stacks unwound on a second core */
	gboolean ahead_attached;
} Loader;

/* The running kernel's build-id from /sys/kernel/notes (ELF notes), as
 * lower-case hex; NULL when unreadable. */
static char *kernel_build_id(void)
{
	g_autofree guint8 *d = NULL;
	gsize len = 0;
	if (!g_file_get_contents("/sys/kernel/notes", (char **)&d, &len, NULL))
		return NULL;
	for (gsize off = 0; off + 12 <= len;) {
		guint32 namesz, descsz, type;
		memcpy(&namesz, d + off, 4);
		memcpy(&descsz, d + off + 4, 4);
		memcpy(&type, d + off + 8, 4);
		gsize name_off = off + 12, desc_off = name_off + ((namesz + 3u) & ~3u);
		gsize next = desc_off + ((descsz + 3u) & ~3u);
		if (namesz > len || descsz > len || next > len || next <= off)
			return NULL;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(d + name_off, "GNU", 4) &&
		    descsz > 0 && descsz <= 64) {
			GString *h = g_string_new(NULL);
			for (guint32 i = 0; i < descsz; i++)
				g_string_append_printf(h, "%02x", d[desc_off + i]);
			return g_string_free(h, FALSE);
		}
		off = next;
	}
	return NULL;
}

static void feed_local_kallsyms(PlProfile *p)
{
	g_autofree char *text = NULL;
	gsize len = 0;
	/* perf record keeps a copy in its build-id cache: a plain file reads
	 * ten times faster than /proc/kallsyms, which the kernel formats line
	 * by line (0.15 s for 120k symbols here) */
	g_autofree char *id = kernel_build_id();
	const char *home = g_get_home_dir();
	g_autofree char *cached = id && home ? g_build_filename(home, ".debug", "[kernel.kallsyms]", id,
								  "kallsyms", NULL)
					     : NULL;
	if (!cached || !g_file_get_contents(cached, &text, &len, NULL) || len == 0 ||
	    g_str_has_prefix(text, "0000000000000000 ")) {
		g_clear_pointer(&text, g_free);
		/* /proc files have no size: g_file_get_contents reads to EOF */
		if (!g_file_get_contents("/proc/kallsyms", &text, &len, NULL) || len == 0 ||
		    g_str_has_prefix(text, "0000000000000000 ")) /* kptr_restrict hides addresses */
			return;
	}
	/* handed over whole, not copied in chunks, and parsed on a second
	 * thread while loading goes on */
	pl_symbols_take_kallsyms(pl_profile_get_symbols(p), g_steal_pointer(&text), len);
}

static gboolean hello_is_local(const struct pl_msg_hello *h)
{
	struct utsname u;
	return uname(&u) == 0 && h->hostname.len == strlen(u.nodename) &&
	       memcmp(h->hostname.p, u.nodename, h->hostname.len) == 0 &&
	       h->kernel_release.len == strlen(u.release) &&
	       memcmp(h->kernel_release.p, u.release, h->kernel_release.len) == 0;
}

static gboolean has_kernel_frames(const struct pl_msg_sample *s)
{
	if ((s->cpumode & 7) == 1) /* PERF_RECORD_MISC_KERNEL */
		return TRUE;
	for (guint i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == (guint64)-128) /* PERF_CONTEXT_KERNEL */
			return TRUE;
	return FALSE;
}

static gboolean load_one(const struct pl_msg *m, gpointer data)
{
	Loader *l = data;
	if (m->type == PL_MSG_HELLO && l->perf_data)
		l->local = hello_is_local(&m->u.hello);
	/* before the sample is ingested (it is held back for reordering,
	 * symbolized later: the table is there by then either way) */
	if (m->type == PL_MSG_SAMPLE && l->local && !l->kallsyms_done &&
	    has_kernel_frames(&m->u.sample)) {
		l->kallsyms_done = TRUE;
		feed_local_kallsyms(l->p);
	}
	/* the model unwinds a sample after its reorder window; the worker
	 * has it from here (the model's PlSymbols exists by the first
	 * sample: HELLO, if any, came before) */
	if (l->ahead && pl_unwind_ahead_feed(l->ahead, m) && !l->ahead_attached) {
		pl_symbols_set_unwind_ahead(pl_profile_get_symbols(l->p), l->ahead);
		l->ahead_attached = TRUE;
	}
	pl_profile_ingest(m, l->p);
	return TRUE;
}

PlProfile *pl_cli_load(const char *path, const PlCliSymArgs *a, PlCaptureInfo *info)
{
	if (a->map_file) {
		/* checked here so a bad map is an error, not silently no names */
		g_autoptr(GError) e = NULL;
		g_autoptr(PlLdMap) m = pl_ldmap_load(a->map_file, &e);
		if (!m) {
			pl_cli_fail("--map: %s", e->message);
			return NULL;
		}
	}
	PlSymOptions o = { 0 };
	o.sysroot = a->sysroot;
	o.toolchain_prefix = a->toolchain_prefix;
	o.binaries = strv_to_array(a->binaries);
	o.debug_dirs = strv_to_array(a->debug_dirs);
	o.source_dirs = strv_to_array(a->source_dirs);
	o.no_inline = a->no_inline;
	o.map_file = a->map_file;
	o.path_maps = strv_to_array(a->path_maps);
	/* Without a sysroot the board's paths are looked up here: right for a
	 * capture of this machine, and the coverage section says when not. */
	o.host_files = a->sysroot == NULL;
	PlProfile *p = pl_profile_new(&o);
	gboolean perf_data = pl_capture_detect(path) == PL_FILE_PERF_DATA;
	/* only perf.data: its reader delivers records in time order, the
	 * order the worker must see them in (see pl-unwind-ahead.c) */
	g_autoptr(PlUnwindAhead) ahead = perf_data && g_get_num_processors() > 1 &&
						 !g_getenv("PERFLENS_NO_UNWIND_AHEAD")
					 ? pl_unwind_ahead_new(&o)
					 : NULL;
	g_ptr_array_unref(o.binaries);
	g_ptr_array_unref(o.debug_dirs);
	g_ptr_array_unref(o.source_dirs);
	g_ptr_array_unref(o.path_maps);

	g_autoptr(GError) error = NULL;
	Loader l = { p, perf_data, FALSE, FALSE, ahead, FALSE };
	if (!pl_capture_load(path, load_one, &l, info, &error)) {
		pl_cli_fail("%s", error->message);
		pl_profile_free(p);
		return NULL;
	}
	pl_profile_finish(p); /* the last held samples are unwound here */
	if (l.ahead_attached)
		pl_symbols_set_unwind_ahead(pl_profile_get_symbols(p), NULL);
	if (ahead && g_getenv("PERFLENS_DEBUG_AHEAD")) {
		guint64 used, missed;
		pl_unwind_ahead_counts(ahead, &used, &missed);
		struct rusage ru;
		getrusage(RUSAGE_THREAD, &ru);
		fprintf(stderr, "perflens: unwind ahead: %" G_GUINT64_FORMAT " used, %" G_GUINT64_FORMAT
			" unwound by the loader; loader thread cpu %.3f s\n", used, missed,
			ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}
	g_autofree char *note = pl_capture_info_dup_note(info);
	if (note)
		fprintf(stderr, "perflens: note: %s: %s\n", path, note);
	return p;
}
