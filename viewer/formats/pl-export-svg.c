/* pl-export-svg.c — a flame graph as one self-contained SVG file.
 *
 * Drawn as flamegraph.pl draws it: the root at the bottom, callers below
 * callees, each frame as wide as its total, children ordered by name so
 * the same stacks always land in the same place.  Every frame carries a
 * <title> (shown as a tooltip by browsers) with the exact count and share;
 * labels are cut to the frame width.  No script: the file opens anywhere
 * (browsers, image viewers, documents). */
#include <errno.h>
#include <string.h>

#include "pl-export.h"
#include "pl-function-names.h"

#define WIDTH 1200.0
#define PAD 10.0
#define FRAME_H 16.0
#define FONT 12.0
#define CHAR_W 7.0   /* average advance of a 12 px sans-serif glyph */
#define MIN_W 0.3    /* narrower frames are not drawn */
#define MAX_DEPTH 1024

typedef struct {
	PlAggregate *agg;
	PlProfile *p;
	PlFunctionNames *names; /* labels: "helper (a.c)" where two files share one */
	FILE *out;
	gboolean weight;
	double scale; /* px per unit */
	guint64 all;
	guint max_depth;
} Svg;

static guint64 val(const Svg *s, guint32 n)
{
	return s->weight ? s->agg->total[n].weight : s->agg->total[n].samples;
}

static void xml_escape(FILE *out, const char *t, gsize max_chars)
{
	gsize n = 0;
	for (const char *c = t; *c && n < max_chars; c = g_utf8_next_char(c), n++) {
		gunichar u = g_utf8_get_char_validated(c, -1);
		if (u == (gunichar)-1 || u == (gunichar)-2)
			break;
		switch (u) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if (u < 0x20)
				fputc('?', out);
			else
				fwrite(c, 1, (gsize)(g_utf8_next_char(c) - c), out);
		}
	}
}

/* Warm colours for code, distinct families for kernel, inlined, unknown;
 * the hue comes from the name so a function keeps its colour. */
static void colour(const Svg *s, guint32 func, char *buf, gsize len)
{
	const PlFunction *f = func == PL_NO_ID ? NULL : pl_profile_get_function(s->p, func);
	guint h = g_str_hash(f && f->name ? f->name : "?");
	guint v1 = h % 55, v2 = (h >> 8) % 80;
	if (!f)
		g_snprintf(buf, len, "rgb(200,200,200)");
	else if (!f->name)
		g_snprintf(buf, len, "rgb(%u,%u,%u)", 180 + v1 / 3, 180 + v1 / 3, 180 + v1 / 3);
	else if (f->inlined)
		g_snprintf(buf, len, "rgb(%u,%u,%u)", 80 + v1, 190 + v2 / 3, 190 + v2 / 3);
	else if (!g_strcmp0(f->module, "[kernel]") || (f->module && g_str_has_prefix(f->module, "[k")))
		g_snprintf(buf, len, "rgb(%u,%u,%u)", 200 + v1, 120 + v2, 40);
	else
		g_snprintf(buf, len, "rgb(%u,%u,%u)", 200 + v1, 90 + v2, 50 + v1 / 2);
}

static void frame(Svg *s, guint32 func, guint depth, double x, double w, guint64 v,
		  const char *label)
{
	double y = PAD * 3 + (s->max_depth - depth) * FRAME_H;
	char col[40];
	colour(s, func, col, sizeof(col));
	fprintf(s->out, "<g><title>");
	xml_escape(s->out, label, 4096);
	if (func != PL_NO_ID) {
		const PlFunction *f = pl_profile_get_function(s->p, func);
		fprintf(s->out, " [");
		xml_escape(s->out, f->module ? f->module : "?", 256);
		fprintf(s->out, "]%s", f->inlined ? " (inlined)" : "");
	}
	fprintf(s->out, " — %" G_GUINT64_FORMAT " %s, %.2f%%</title>", v,
		s->weight ? "units" : "samples", s->all ? 100.0 * (double)v / (double)s->all : 0);
	fprintf(s->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			"rx=\"2\"/>",
		x, y, w, FRAME_H - 1, col);
	gsize fit = (gsize)((w - 6) / CHAR_W);
	if (fit >= 3) {
		fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		glong len = g_utf8_strlen(label, -1);
		if ((gsize)len <= fit) {
			xml_escape(s->out, label, fit);
		} else {
			xml_escape(s->out, label, fit - 2);
			fputs("..", s->out);
		}
		fputs("</text>", s->out);
	}
	fputs("</g>\n", s->out);
}

static int cmp_label(gconstpointer a, gconstpointer b, gpointer data)
{
	Svg *s = data;
	const PlNode *x = pl_profile_get_node(s->p, *(const guint32 *)a);
	const PlNode *y = pl_profile_get_node(s->p, *(const guint32 *)b);
	return strcmp(pl_function_names_get(s->names, x->func),
		      pl_function_names_get(s->names, y->func));
}

static void draw(Svg *s, guint32 node, guint depth, double x)
{
	guint64 v = val(s, node);
	double w = (double)v * s->scale;
	if (w < MIN_W || depth > MAX_DEPTH)
		return;
	const PlNode *nd = pl_profile_get_node(s->p, node);
	if (node != 0)
		frame(s, nd->func, depth, x, w, v, pl_function_names_get(s->names, nd->func));
	g_autoptr(GArray) kids = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint32 c = nd->first_child; c != PL_NO_ID; c = pl_profile_get_node(s->p, c)->next_sibling)
		if (c < s->agg->n_nodes && val(s, c))
			g_array_append_val(kids, c);
	g_array_sort_with_data(kids, cmp_label, s);
	for (guint i = 0; i < kids->len; i++) {
		guint32 c = g_array_index(kids, guint32, i);
		draw(s, c, depth + 1, x);
		x += (double)val(s, c) * s->scale;
	}
}

static guint deepest(Svg *s, guint32 node, guint depth)
{
	if ((double)val(s, node) * s->scale < MIN_W || depth > MAX_DEPTH)
		return 0;
	guint best = depth;
	const PlNode *nd = pl_profile_get_node(s->p, node);
	for (guint32 c = nd->first_child; c != PL_NO_ID; c = pl_profile_get_node(s->p, c)->next_sibling)
		if (c < s->agg->n_nodes && val(s, c)) {
			/* not MAX(best, deepest(…)): the macro evaluates its
			 * arguments twice, 2^depth calls on a deep stack */
			guint d = deepest(s, c, depth + 1);
			if (d > best)
				best = d;
		}
	return best;
}

gboolean pl_export_svg(PlAggregate *agg, FILE *out, const char *title, gboolean by_weight,
		       GError **error)
{
	g_autoptr(PlFunctionNames) names = pl_function_names_new(agg->profile, agg);
	Svg s = { agg, agg->profile, names, out, by_weight, 0, 0, 0 };
	/* what the tree holds: samples left out by an allow filter are not in
	 * it, the root's total is the drawn whole */
	s.all = by_weight ? agg->total[0].weight : agg->total[0].samples;
	s.scale = s.all ? (WIDTH - 2 * PAD) / (double)s.all : 0;
	s.max_depth = s.all ? deepest(&s, 0, 0) : 0;
	double height = PAD * 5 + (s.max_depth + 1) * FRAME_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		     "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		WIDTH, height, WIDTH, height);
	fprintf(out, "<style>text { font-family: Verdana, sans-serif; font-size: %.0fpx; "
		     "fill: #000; } rect:hover { stroke: #000; stroke-width: 0.5; }</style>\n",
		FONT);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n");
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" style=\"font-size:17px\">",
		WIDTH / 2, PAD * 2);
	xml_escape(out, title ? title : "Flame graph", 200);
	fprintf(out, "</text>\n");
	if (!s.all)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">no samples</text>\n", PAD, PAD * 4);
	else {
		g_autofree char *root = g_strdup_printf("all (%" G_GUINT64_FORMAT " %s)", s.all,
							by_weight ? "units" : "samples");
		frame(&s, PL_NO_ID, 0, PAD, (double)s.all * s.scale, s.all, root);
		const PlNode *r = pl_profile_get_node(s.p, 0);
		double x = PAD;
		g_autoptr(GArray) kids = g_array_new(FALSE, FALSE, sizeof(guint32));
		for (guint32 c = r->first_child; c != PL_NO_ID;
		     c = pl_profile_get_node(s.p, c)->next_sibling)
			if (c < agg->n_nodes && val(&s, c))
				g_array_append_val(kids, c);
		g_array_sort_with_data(kids, cmp_label, &s);
		for (guint i = 0; i < kids->len; i++) {
			guint32 c = g_array_index(kids, guint32, i);
			draw(&s, c, 1, x);
			x += (double)val(&s, c) * s.scale;
		}
	}
	fprintf(out, "</svg>\n");
	if (fflush(out) != 0 || ferror(out)) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s",
			    g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}
