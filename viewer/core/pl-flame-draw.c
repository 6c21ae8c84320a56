/* pl-flame-draw.c — a flame graph layout drawn (see the header). */
#include "pl-flame-draw.h"

#include <pango/pangocairo.h>

static void set_rgb(cairo_t *cr, guint32 c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
			     (c & 0xff) / 255.0);
}

/* Dimmed towards grey: non-matches while a search is active. */
static guint32 dim(guint32 c)
{
	guint r = (c >> 16) & 0xff, g = (c >> 8) & 0xff, b = c & 0xff;
	guint grey = (r * 3 + g * 6 + b) / 10;
	r = (r + grey * 3) / 4;
	g = (g + grey * 3) / 4;
	b = (b + grey * 3) / 4;
	return (r << 16) | (g << 8) | b;
}

#define MATCH_RGB 0xc040e0u

void pl_flame_draw(cairo_t *cr, const PlFlameLayout *l, const PlFlameStyle *s, double width,
		   double height)
{
	PangoLayout *pl = pango_cairo_create_layout(cr);
	PangoFontDescription *fd = pango_font_description_from_string(s->font ? s->font : "Sans 9");
	pango_layout_set_font_description(pl, fd);
	pango_layout_set_ellipsize(pl, PANGO_ELLIPSIZE_END);
	pango_font_description_free(fd);
	double min_text = 28.0; /* px: narrower frames get no label */
	/* only what the clip shows: the widget draws its visible tiles */
	double cx0, cy0, cx1, cy1;
	cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1);
	cy0 = MAX(cy0, 0);
	cy1 = MIN(cy1, height);

	for (guint d = 0; d < l->n_rows; d++) {
		double y = pl_flame_row_y(l, s, d, height);
		if (y + s->row_h < cy0 || y > cy1)
			continue;
		for (guint i = l->row_start[d]; i < l->row_start[d + 1]; i++) {
			const PlFlameRect *r = &l->rects[i];
			double x = r->x * width, w = r->w * width;
			if (w < 0.35 || x + w < cx0)
				continue; /* sub-pixel: invisible anyway */
			if (x > cx1)
				break; /* a row is sorted by x */
			guint32 c = s->colors ? s->colors[r->node] : 0xe08040;
			if (s->match)
				c = s->match[r->node] ? MATCH_RGB : dim(c);
			set_rgb(cr, c);
			cairo_rectangle(cr, x, y, w > 1.5 ? w - 0.5 : w, s->row_h - 1);
			cairo_fill(cr);
			if (w >= min_text && s->labels && s->labels[r->node]) {
				pango_layout_set_text(pl, s->labels[r->node], -1);
				pango_layout_set_width(pl, (int)((w - 6) * PANGO_SCALE));
				int th;
				pango_layout_get_pixel_size(pl, NULL, &th);
				set_rgb(cr, s->match && s->match[r->node] ? 0xffffff : s->text_rgb);
				cairo_move_to(cr, x + 3, y + (s->row_h - 1 - th) / 2);
				pango_cairo_show_layout(cr, pl);
			}
		}
	}
	g_object_unref(pl);
}
