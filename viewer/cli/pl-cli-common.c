/* pl-cli-common.c — what the subcommands share: loading, symbol options,
 * filters, connecting. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-cli.h"
#include "pl-cli-expr.h"
#include "pl-ldmap.h"
#include "pl-loader.h"
#include "pl-ssh.h"

static void ssh_note(const char *line, gpointer data)
{
	fprintf(stderr, "perflens: %s\n", line);
}

PlClient *pl_cli_connect(const char *target, const char *remote_dir, gboolean quiet,
			 guint timeout_ms, GError **error)
{
	if (pl_ssh_is_url(target)) {
		PlSshOptions o = { .remote_dir = remote_dir, .note = quiet ? NULL : ssh_note };
		return pl_ssh_connect(target, &o, timeout_ms, error);
	}
	if (remote_dir) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "--remote-dir is for ssh:// targets (the agent is copied there)");
		return NULL;
	}
	return pl_client_connect(target, timeout_ms, error);
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
		{ "vmlinux", 0, 0, G_OPTION_ARG_FILENAME, &a->vmlinux,
		  "The board's kernel with DWARF: kernel frames with source lines and inlines "
		  "(refused when it is another build)", "FILE" },
		{ "path-map", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->path_maps,
		  "Rewrite source path prefix FROM as TO (repeatable)", "FROM=TO" },
		{ "inline", 0, 0, G_OPTION_ARG_NONE, &a->inline_,
		  "Show inlined functions as frames of their own (the default)", NULL },
		{ "no-inline", 0, 0, G_OPTION_ARG_NONE, &a->no_inline,
		  "Attribute inlined code to the function it was inlined into", NULL },
		{ "short-names", 0, 0, G_OPTION_ARG_NONE, &a->short_names,
		  "Fold C++ template arguments and parameter lists in function names "
		  "(std::vector<…>::push_back(…))",
		  NULL },
		{ "debuginfod", 0, 0, G_OPTION_ARG_STRING, &a->debuginfod_urls,
		  "Fetch missing files of sampled modules from these debuginfod servers "
		  "(space-separated; default $DEBUGINFOD_URLS; \"\" for none)", "URLS" },
		{ NULL }
	};
	return pl_cli_note_group("symbols", "Symbol options:", "Show symbol options", entries,
				 NULL);
}

void pl_cli_sym_args_clear(PlCliSymArgs *a)
{
	g_clear_pointer(&a->sysroot, g_free);
	g_clear_pointer(&a->binaries, g_strfreev);
	g_clear_pointer(&a->debug_dirs, g_strfreev);
	g_clear_pointer(&a->source_dirs, g_strfreev);
	g_clear_pointer(&a->toolchain_prefix, g_free);
	g_clear_pointer(&a->map_file, g_free);
	g_clear_pointer(&a->vmlinux, g_free);
	g_clear_pointer(&a->path_maps, g_strfreev);
	g_clear_pointer(&a->debuginfod_urls, g_free);
}

/* Every transform option lands here, so that they keep the order in
 * which they were given. */
static gboolean transform_option(const char *name, const char *value, gpointer data,
				 GError **error)
{
	(void)error;
	PlCliFilterArgs *a = data;
	PlTransformKind kind;
	if (!a->transforms)
		a->transforms = pl_transforms_new();
	if (a->transform_error || !pl_transform_kind_from_name(name + 2, &kind))
		return TRUE;
	g_autoptr(GError) e = NULL;
	if (!pl_transforms_push(a->transforms, kind, value, &e))
		a->transform_error = pl_cli_expr_dup_message(name, value ? value : "", e);
	return TRUE; /* reported by pl_cli_stack_filter, like a bad rule */
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
		{ "merge", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: frames of functions matching RE vanish, their time goes to the caller",
		  "RE" },
		{ "merge-module", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: as --merge, for every function of a module matching RE", "RE" },
		{ "focus", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: re-root every stack at its outermost function matching RE; "
		  "drop the others",
		  "RE" },
		{ "focus-inverted", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: end every stack at its innermost function matching RE (what it "
		  "called becomes its self time); drop the others",
		  "RE" },
		{ "focus-subtree", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: keep only stacks starting with the call path A;B;C, re-rooted at C",
		  "A;B;C" },
		{ "drop", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: drop samples with a function matching RE anywhere on the stack",
		  "RE" },
		{ "collapse-module", 0, 0, G_OPTION_ARG_CALLBACK, transform_option,
		  "Transform: each run of frames in a module matching RE becomes one frame", "RE" },
		{ "collapse-recursion", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
		  transform_option,
		  "Transform: fold a function already on the stack (directly or not) into its "
		  "outermost frame; =RE: only functions matching RE",
		  "[RE]" },
		{ "collapse-direct-recursion", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
		  transform_option, "Transform: as --collapse-recursion, for direct calls only",
		  "[RE]" },
		{ NULL }
	};
	return pl_cli_note_group(
		"filters",
		"Stack filters (rename, deny, allow; repeatable), then call-tree transforms "
		"(--merge … --collapse-direct-recursion, in the order given).  RE matches a "
		"function's name, or its label where the name is shared; one of several "
		"functions of a name is also written as the report prints it, 'helper (a.c)'; "
		"a pattern that does not compile is refused with its column (docs/expressions.md):",
		"Show stack filter options", entries, a);
}

void pl_cli_filter_args_clear(PlCliFilterArgs *a)
{
	g_clear_pointer(&a->allow, g_strfreev);
	g_clear_pointer(&a->deny, g_strfreev);
	g_clear_pointer(&a->allow_module, g_strfreev);
	g_clear_pointer(&a->deny_module, g_strfreev);
	g_clear_pointer(&a->rename, g_strfreev);
	g_clear_pointer(&a->transforms, pl_transforms_free);
	g_clear_pointer(&a->transform_error, g_free);
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
				pl_cli_fail_expr(lists[i].opt, *s, error);
				*failed = TRUE;
				return NULL;
			}
		}
	if (a->transform_error) {
		pl_cli_fail_expr_message(a->transform_error);
		*failed = TRUE;
		return NULL;
	}
	for (guint i = 0; i < pl_transforms_get_n(a->transforms); i++)
		pl_transforms_push(pl_stack_filter_get_transforms(sf),
				   pl_transforms_get_kind(a->transforms, i),
				   pl_transforms_get_arg(a->transforms, i), NULL);
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

/* debuginfod fetches: one updating line on a terminal, and a failure
 * (unreachable server, timeout) as one line in any case. */
typedef struct {
	gboolean tty;
	gboolean shown; /* the progress line is on the screen */
	gint64 last_us;
} PlCliFetch;

static gboolean cli_fetch_progress(const PlFetchProgress *f, gpointer data)
{
	PlCliFetch *c = data;
	if (f->finished) {
		if (c->shown)
			fputs("\r\033[K", stderr);
		c->shown = FALSE;
		if (f->message)
			fprintf(stderr, "perflens: %s\n", f->message);
		return TRUE;
	}
	gint64 now = g_get_monotonic_time();
	if (!c->tty || (c->shown && now - c->last_us < 100000))
		return TRUE;
	c->last_us = now;
	c->shown = TRUE;
	g_autofree char *done = g_format_size((guint64)MAX(f->done, 0));
	g_autofree char *total = f->total > 0 ? g_format_size((guint64)f->total) : NULL;
	fprintf(stderr, "\r\033[Kdebuginfod: %s of %s from %s: %s%s%s", f->what, f->module,
		f->url ? f->url : "…", done, total ? " of " : "", total ? total : "");
	fflush(stderr);
	return TRUE;
}

gboolean pl_cli_sym_options(const PlCliSymArgs *a, PlSymOptions *o)
{
	memset(o, 0, sizeof *o);
	if (a->map_file) {
		/* checked here so a bad map is an error, not silently no names */
		g_autoptr(GError) e = NULL;
		g_autoptr(PlLdMap) m = pl_ldmap_load(a->map_file, &e);
		if (!m) {
			pl_cli_fail("--map: %s", e->message);
			return FALSE;
		}
	}
	if (a->vmlinux && !g_file_test(a->vmlinux, G_FILE_TEST_IS_REGULAR)) {
		pl_cli_fail("--vmlinux %s: no such file (the board kernel's unstripped vmlinux, "
			    "from its build directory)", a->vmlinux);
		return FALSE;
	}
	o->sysroot = a->sysroot;
	o->toolchain_prefix = a->toolchain_prefix;
	o->binaries = strv_to_array(a->binaries);
	o->debug_dirs = strv_to_array(a->debug_dirs);
	o->source_dirs = strv_to_array(a->source_dirs);
	o->no_inline = a->no_inline;
	o->map_file = a->map_file;
	o->vmlinux = a->vmlinux;
	o->path_maps = strv_to_array(a->path_maps);
	/* Without a sysroot the board's paths are looked up here: right for a
	 * capture of this machine, and the coverage section says when not. */
	o->host_files = a->sysroot == NULL;
	o->debuginfod_urls = a->debuginfod_urls;
	/* static: the profile symbolizes (and may fetch) after this returns */
	static PlCliFetch fetch;
	fetch.tty = isatty(STDERR_FILENO);
	o->fetch_progress = cli_fetch_progress;
	o->fetch_progress_data = &fetch;
	return TRUE;
}

void pl_cli_sym_options_clear(PlSymOptions *o)
{
	g_clear_pointer(&o->binaries, g_ptr_array_unref);
	g_clear_pointer(&o->debug_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->source_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->path_maps, g_ptr_array_unref);
}

PlProfile *pl_cli_load(const char *path, const PlCliSymArgs *a, PlCaptureInfo *info)
{
	PlSymOptions o;
	if (!pl_cli_sym_options(a, &o))
		return NULL;
	/* the loader the app uses too (viewer/io/pl-loader.h) */
	PlLoadParams lp = { .options = &o };
	g_autoptr(GError) error = NULL;
	PlProfile *p = pl_load_file(path, &lp, info, NULL, &error);
	pl_cli_sym_options_clear(&o);
	if (!p) {
		pl_cli_fail("%s", error->message);
		return NULL;
	}
	pl_profile_set_short_names(p, a->short_names);
	g_autofree char *note = pl_capture_info_dup_note(info);
	if (note)
		fprintf(stderr, "perflens: note: %s: %s\n", path, note);
	return p;
}
