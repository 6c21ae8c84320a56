/* pl-export-speedscope.c — speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): shared.frames, and
 * one "sampled" profile per thread whose samples are frame-index stacks
 * (outermost first) with their weights.  Identical stacks of a thread are
 * merged into one sample (speedscope's left-heavy and sandwich views are
 * unchanged by that; its time-order view then shows stacks, not time). */
#include <errno.h>
#include <string.h>

#include "pl-export.h"
#include "pl-function-names.h"

typedef struct {
	PlProfile *p;
	PlFunctionNames *names; /* of every thread's stacks: frames are shared */
	GString *out;
	GHashTable *frame_of; /* function id + 1 → frame index + 1 */
	GString *frames;      /* JSON of shared.frames, without brackets */
	guint n_frames;
	GString *samples, *weights;
	guint n_samples;
	guint64 total;
	gboolean by_weight;
} Ss;

static void json_str(GString *s, const char *t)
{
	g_string_append_c(s, '"');
	for (const guchar *c = (const guchar *)t; *c; c++) {
		if (*c == '"' || *c == '\\')
			g_string_append_printf(s, "\\%c", *c);
		else if (*c < 0x20)
			g_string_append_printf(s, "\\u%04x", *c);
		else
			g_string_append_c(s, (char)*c);
	}
	g_string_append_c(s, '"');
}

static guint frame_index(Ss *ss, guint32 func)
{
	gpointer v = g_hash_table_lookup(ss->frame_of, GUINT_TO_POINTER(func + 1));
	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	const PlFunction *f = pl_profile_get_function(ss->p, func);
	if (ss->n_frames)
		g_string_append_c(ss->frames, ',');
	g_string_append(ss->frames, "{\"name\":");
	g_autofree char *name = g_strdup_printf("%s%s", pl_function_names_get(ss->names, func),
						f->inlined ? " (inlined)" : "");
	json_str(ss->frames, name);
	if (f->module) {
		/* speedscope shows "file" beside the name: the module says where
		 * the code lives when there is no source file */
		g_string_append(ss->frames, ",\"file\":");
		json_str(ss->frames, f->module);
	}
	g_string_append_c(ss->frames, '}');
	g_hash_table_insert(ss->frame_of, GUINT_TO_POINTER(func + 1),
			    GUINT_TO_POINTER(ss->n_frames + 1));
	return ss->n_frames++;
}

static void stack(const guint32 *funcs, guint depth, const PlCount *self, gpointer data)
{
	Ss *ss = data;
	guint64 w = ss->by_weight ? self->weight : self->samples;
	if (!w)
		return;
	if (ss->n_samples) {
		g_string_append_c(ss->samples, ',');
		g_string_append_c(ss->weights, ',');
	}
	g_string_append_c(ss->samples, '[');
	for (guint i = 0; i < depth; i++)
		g_string_append_printf(ss->samples, i ? ",%u" : "%u", frame_index(ss, funcs[i]));
	g_string_append_c(ss->samples, ']');
	g_string_append_printf(ss->weights, "%" G_GUINT64_FORMAT, w);
	ss->n_samples++;
	ss->total += w;
}

static int cmp_u32(gconstpointer a, gconstpointer b)
{
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
	return x < y ? -1 : x > y;
}

gboolean pl_export_speedscope(PlProfile *p, const PlFilter *filter, const PlStackFilter *sf,
			      FILE *out, const char *name, GError **error)
{
	PlFilter base = filter ? *filter : PL_FILTER_ALL;
	const PlEvent *ev = base.event != PL_NO_ID ? pl_profile_lookup_event(p, base.event) : NULL;
	gboolean ns = ev && (ev->role == PL_ROLE_SWITCH || !strcmp(ev->name, "cpu-clock") ||
			     !strcmp(ev->name, "task-clock"));
	/* the threads with samples under the filter, in tid order */
	g_autoptr(PlAggregate) all = pl_profile_aggregate_filtered(p, &base, sf);
	g_autoptr(PlFunctionNames) names = pl_function_names_new(p, all);
	Ss ss = { p, names, NULL, g_hash_table_new(NULL, NULL), g_string_new(NULL), 0,
		  g_string_new(NULL), g_string_new(NULL), 0, 0, ns };
	GString *profiles = g_string_new(NULL);
	guint n_profiles = 0;

	g_autoptr(GArray) tids = g_array_new(FALSE, FALSE, sizeof(guint32));
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, all->threads);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		guint32 tid = GPOINTER_TO_UINT(k);
		g_array_append_val(tids, tid);
	}
	g_array_sort(tids, cmp_u32);
	for (guint i = 0; i < tids->len; i++) {
		PlFilter f = base;
		f.tid = g_array_index(tids, guint32, i);
		g_autoptr(PlAggregate) agg = tids->len == 1 ? NULL
							    : pl_profile_aggregate_filtered(p, &f, sf);
		g_string_truncate(ss.samples, 0);
		g_string_truncate(ss.weights, 0);
		ss.n_samples = 0;
		ss.total = 0;
		pl_aggregate_foreach_stack(agg ? agg : all, stack, &ss);
		if (!ss.n_samples)
			continue;
		const PlThread *t = pl_profile_lookup_thread(p, f.tid);
		g_autofree char *tname = g_strdup_printf("%s (tid %u)", t && t->name ? t->name : "?",
							 f.tid);
		if (n_profiles++)
			g_string_append_c(profiles, ',');
		g_string_append(profiles, "{\"type\":\"sampled\",\"name\":");
		json_str(profiles, tname);
		g_string_append_printf(profiles,
				       ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" G_GUINT64_FORMAT
				       ",\"samples\":[%s],\"weights\":[%s]}",
				       ns ? "nanoseconds" : "none", ss.total, ss.samples->str,
				       ss.weights->str);
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"perflens\",\"name\":", out);
	GString *n = g_string_new(NULL);
	json_str(n, name ? name : "perflens");
	fputs(n->str, out);
	g_string_free(n, TRUE);
	fprintf(out, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[%s]},\"profiles\":[%s]}\n",
		ss.frames->str, profiles->str);
	g_string_free(profiles, TRUE);
	g_string_free(ss.frames, TRUE);
	g_string_free(ss.samples, TRUE);
	g_string_free(ss.weights, TRUE);
	g_hash_table_destroy(ss.frame_of);
	if (fflush(out) != 0 || ferror(out)) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s",
			    g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}
