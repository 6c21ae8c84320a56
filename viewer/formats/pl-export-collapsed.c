/* pl-export-collapsed.c — Brendan Gregg's folded stacks; see pl-export.h. */
#include <errno.h>

#include "pl-export.h"
#include "pl-function-names.h"

typedef struct {
	PlProfile *p;
	PlFunctionNames *names;
	FILE *out;
	gboolean weight;
	GString *line;
} Collapsed;

/* ';' inside a name would split a frame, a newline a line: replaced. */
static void collapsed_stack(const guint32 *funcs, guint depth, const PlCount *self,
			    gpointer user_data)
{
	Collapsed *c = user_data;
	g_string_truncate(c->line, 0);
	for (guint i = 0; i < depth; i++) {
		if (i)
			g_string_append_c(c->line, ';');
		gsize at = c->line->len;
		g_string_append(c->line, pl_function_names_get(c->names, funcs[i]));
		for (gsize k = at; k < c->line->len; k++)
			if (c->line->str[k] == ';' || c->line->str[k] == '\n')
				c->line->str[k] = ':';
		if (pl_profile_get_function(c->p, funcs[i])->inlined)
			g_string_append(c->line, "_[i]"); /* flamegraph.pl's inline marker */
	}
	fprintf(c->out, "%s %" G_GUINT64_FORMAT "\n", c->line->str,
		c->weight ? self->weight : self->samples);
}

gboolean pl_export_collapsed(PlAggregate *agg, FILE *out, gboolean by_weight, GError **error)
{
	/* static functions of one name in two files: "helper (a.c)" */
	g_autoptr(PlFunctionNames) names = pl_function_names_new(agg->profile, agg);
	Collapsed c = { agg->profile, names, out, by_weight, g_string_new(NULL) };
	pl_aggregate_foreach_stack(agg, collapsed_stack, &c);
	g_string_free(c.line, TRUE);
	if (fflush(out) != 0 || ferror(out)) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s",
			    g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}
