/* pl-disasm.c — objdump for per-instruction counts; see pl-disasm.h. */
#include "pl-disasm.h"

#include <string.h>

#define MAX_OUTPUT (16u << 20) /* one function's listing; more is not a function */

static void line_clear(gpointer p)
{
	g_free(((PlDisasmLine *)p)->text);
}

void pl_disasm_lines_free(GArray *lines)
{
	if (lines)
		g_array_unref(lines);
}

/* "    1234:\tmov ..." → address 0x1234 */
static gboolean insn_addr(const char *l, guint64 *addr)
{
	while (*l == ' ')
		l++;
	const char *h = l;
	while (g_ascii_isxdigit(*l))
		l++;
	if (l == h || l - h > 16 || l[0] != ':' || l[1] != '\t')
		return FALSE;
	*addr = g_ascii_strtoull(h, NULL, 16);
	return TRUE;
}

static GArray *run(const char *objdump, const char *path, const char *symbol, guint64 start,
		   guint64 end, GError **error)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_strdup(objdump));
	g_ptr_array_add(argv, g_strdup("-d"));
	g_ptr_array_add(argv, g_strdup("-l"));
	g_ptr_array_add(argv, g_strdup("--no-show-raw-insn"));
	if (symbol) {
		g_ptr_array_add(argv, g_strdup_printf("--disassemble=%s", symbol));
	} else {
		g_ptr_array_add(argv, g_strdup_printf("--start-address=0x%" G_GINT64_MODIFIER "x", start));
		g_ptr_array_add(argv, g_strdup_printf("--stop-address=0x%" G_GINT64_MODIFIER "x", end));
	}
	g_ptr_array_add(argv, g_strdup(path));
	g_ptr_array_add(argv, NULL);
	g_autofree char *out = NULL, *err = NULL;
	gint status;
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
			  &err, &status, error))
		return NULL;
	if (!g_spawn_check_wait_status(status, NULL)) {
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "%s failed: %.200s", objdump,
			    err ? g_strstrip(err) : "");
		return NULL;
	}
	if (strlen(out) > MAX_OUTPUT)
		out[MAX_OUTPUT] = 0;
	GArray *lines = g_array_new(FALSE, TRUE, sizeof(PlDisasmLine));
	g_array_set_clear_func(lines, line_clear);
	gboolean body = FALSE, any = FALSE;
	g_auto(GStrv) v = g_strsplit(out, "\n", -1);
	for (char **l = v; *l; l++) {
		/* skip objdump's file header: start at the first "<sym>:" */
		if (!body) {
			if (g_str_has_suffix(*l, ">:"))
				body = TRUE;
			else
				continue;
		}
		PlDisasmLine d = { g_strdup(*l), FALSE, 0 };
		d.is_insn = insn_addr(*l, &d.addr);
		any |= d.is_insn;
		g_array_append_val(lines, d);
	}
	if (!any) {
		g_array_unref(lines);
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
			    "%s printed no instruction for %s in %s", objdump,
			    symbol ? symbol : "that range", path);
		return NULL;
	}
	return lines;
}

GArray *pl_disasm_function(const char *prefix, const char *path, const char *symbol,
			   guint64 start, guint64 end, GError **error)
{
	g_autofree char *objdump = g_strdup_printf("%sobjdump", prefix ? prefix : "");
	g_autofree char *found = g_find_program_in_path(objdump);
	if (!found) {
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
			    "%s not found: install binutils%s or give --toolchain-prefix", objdump,
			    prefix ? " for that toolchain" : "");
		return NULL;
	}
	GError *e = NULL;
	GArray *lines = symbol ? run(found, path, symbol, 0, 0, &e) : NULL;
	if (lines || !end) {
		if (!lines)
			g_propagate_error(error, e);
		else
			g_clear_error(&e);
		return lines;
	}
	g_clear_error(&e);
	return run(found, path, NULL, start, end, error);
}
