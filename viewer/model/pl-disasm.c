/* pl-disasm.c — objdump for per-instruction counts; see pl-disasm.h. */
#include "pl-disasm.h"
#include "pl-sym-embed.h"

#include <string.h>

#include <gio/gio.h>

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

/* objdump -d -l of symbol (from start when from_start: the one of that
 * name there), else of the range [start, end). */
static GArray *run(const char *objdump, const char *path, const char *symbol,
		   gboolean from_start, guint64 start, guint64 end, GError **error)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_strdup(objdump));
	g_ptr_array_add(argv, g_strdup("-d"));
	g_ptr_array_add(argv, g_strdup("-l"));
	g_ptr_array_add(argv, g_strdup("--no-show-raw-insn"));
	if (symbol) {
		g_ptr_array_add(argv, g_strdup_printf("--disassemble=%s", symbol));
		if (from_start)
			g_ptr_array_add(argv, g_strdup_printf("--start-address=0x%" G_GINT64_MODIFIER
							      "x", start));
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

/* Whether lines has an instruction at or up to 15 bytes below addr (no
 * instruction is longer). */
static gboolean holds(GArray *lines, guint64 addr)
{
	for (guint i = 0; i < lines->len; i++) {
		const PlDisasmLine *d = &g_array_index(lines, PlDisasmLine, i);
		if (d->is_insn && d->addr <= addr && addr - d->addr < 16)
			return TRUE;
	}
	return FALSE;
}

/* Where the symbol holding addr starts: objdump's listing from addr opens
 * with "<NAME+0xOFF>:" (or "<NAME>:" at its entry). */
static gboolean symbol_start(const char *objdump, const char *path, guint64 addr,
			     guint64 *start)
{
	GArray *l = run(objdump, path, NULL, FALSE, addr, addr + 1, NULL);
	gboolean ok = FALSE;
	for (guint i = 0; l && i < l->len && !ok; i++) {
		const char *t = g_array_index(l, PlDisasmLine, i).text;
		if (!g_str_has_suffix(t, ">:"))
			continue;
		const char *plus = g_strrstr(t, "+0x");
		guint64 off = plus ? g_ascii_strtoull(plus + 3, NULL, 16) : 0;
		if (off <= addr) {
			*start = addr - off;
			ok = TRUE;
		}
		break;
	}
	if (l)
		pl_disasm_lines_free(l);
	return ok;
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
	GArray *lines = symbol ? run(found, path, symbol, FALSE, 0, 0, &e) : NULL;
	guint64 entry;
	if (lines && end && !holds(lines, start) && symbol_start(found, path, start, &entry)) {
		/* objdump (binutils 2.40) lists only the first function of a
		 * name: two static helpers of a.c and b.c give a.c's alone.
		 * From the entry of the one holding start, it lists that one. */
		GArray *at = run(found, path, symbol, TRUE, entry, 0, NULL);
		if (at && holds(at, start)) {
			pl_disasm_lines_free(lines);
			lines = at;
		} else if (at) {
			pl_disasm_lines_free(at);
		}
	}
	if (lines || !end) {
		if (!lines)
			g_propagate_error(error, e);
		else
			g_clear_error(&e);
		return lines;
	}
	g_clear_error(&e);
	return run(found, path, NULL, FALSE, start, end, error);
}

/* ─── annotated disassembly ──────────────────────────────────────────── */

void pl_annotation_free(PlAnnotation *a)
{
	if (!a)
		return;
	pl_disasm_lines_free(a->lines);
	g_free(a->self);
	g_free(a->total);
	g_free(a->module);
	g_free(a->path);
	g_free(a->symbol);
	g_free(a->outer);
	g_free(a);
}

/* The file used here for a module the board named by basename. */
static char *local_module_file(PlProfile *p, const char *module)
{
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(pl_profile_get_symbols(p));
	for (guint i = 0; i < rows->len; i++) {
		const PlModuleReport *r = rows->pdata[i];
		g_autofree char *b = g_path_get_basename(r->module);
		if (r->local_path && !strcmp(b, module))
			return g_strdup(r->local_path);
	}
	return NULL;
}

/* The objdump listing a self-contained session carries for (module,
 * symbol), as lines; NULL with error when it has none. */
static GArray *embedded_listing(PlSymEmbed *emb, const char *module, const char *symbol,
				GError **error)
{
	guint n = 0;
	const PlSymEmbedLine *el = module && symbol ? pl_sym_embed_get_disasm(emb, module, symbol, &n)
						    : NULL;
	if (!el || !n) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "The instructions of %s are not in this self-contained session (it "
			    "carries those of its hottest functions only): open the original "
			    "recording where its binaries are",
			    symbol ? symbol : "this function");
		return NULL;
	}
	GArray *lines = g_array_sized_new(FALSE, FALSE, sizeof(PlDisasmLine), n);
	g_array_set_clear_func(lines, line_clear);
	for (guint i = 0; i < n; i++) {
		PlDisasmLine d = { g_strdup(el[i].text), el[i].is_insn, el[i].addr };
		g_array_append_val(lines, d);
	}
	return lines;
}

static void count_add(PlCount *to, const PlCount *c)
{
	to->samples += c->samples;
	to->weight += c->weight;
}

/* The module and real function holding most of func's weight (an
 * inlined function is disassembled inside the one it was inlined into),
 * and the range of its sampled addresses.  FALSE when rows is empty. */
static gboolean pick_outer(GArray *rows, const char **module, const char **outer, guint64 *lo,
			   guint64 *hi)
{
	const PlAddrRow *best = NULL;
	for (guint i = 0; i < rows->len; i++) {
		const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
		if (!best || r->total.weight > best->total.weight)
			best = r;
	}
	if (!best)
		return FALSE;
	*module = best->module;
	*outer = best->outer;
	*lo = G_MAXUINT64;
	*hi = 0;
	for (guint i = 0; i < rows->len; i++) {
		const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
		if (r->module == *module && g_strcmp0(r->outer, *outer) == 0) {
			*lo = MIN(*lo, r->lookup_addr);
			*hi = MAX(*hi, r->lookup_addr);
		}
	}
	return TRUE;
}

/* Puts every row of (module, outer) on its instruction; resets counts. */
static void place(PlAnnotation *a, GArray *rows, PlAggregate *agg, const char *module,
		  const char *outer)
{
	GArray *lines = a->lines;
	memset(a->self, 0, sizeof(PlCount) * lines->len);
	memset(a->total, 0, sizeof(PlCount) * lines->len);
	a->unplaced = (PlCount){ 0, 0 };
	a->all = agg->all;
	a->hot = G_MAXUINT;
	/* instructions in address order with the line they are on; an
	 * instruction runs to the next one's address */
	g_autoptr(GArray) insns = g_array_new(FALSE, FALSE, sizeof(guint));
	for (guint i = 0; i < lines->len; i++)
		if (g_array_index(lines, PlDisasmLine, i).is_insn)
			g_array_append_val(insns, i);
	for (guint i = 0; i < rows->len; i++) {
		const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
		if (g_strcmp0(r->module, module) != 0 || g_strcmp0(r->outer, outer) != 0)
			continue;
		/* the last instruction at or below the address (binary search) */
		guint lo_i = 0, hi_i = insns->len;
		while (lo_i < hi_i) {
			guint mid = (lo_i + hi_i) / 2;
			guint li = g_array_index(insns, guint, mid);
			if (g_array_index(lines, PlDisasmLine, li).addr <= r->lookup_addr)
				lo_i = mid + 1;
			else
				hi_i = mid;
		}
		/* below the first instruction, or well past the last one (no
		 * instruction is longer than 15 bytes): not in this listing */
		if (lo_i == 0 ||
		    (lo_i == insns->len &&
		     r->lookup_addr >= g_array_index(lines, PlDisasmLine,
						     g_array_index(insns, guint, lo_i - 1)).addr + 16)) {
			count_add(&a->unplaced, &r->self);
			continue;
		}
		guint li = g_array_index(insns, guint, lo_i - 1);
		count_add(&a->self[li], &r->self);
		count_add(&a->total[li], &r->total);
	}
	for (guint i = 0; i < lines->len; i++) {
		if (!a->self[i].weight && !a->total[i].weight)
			continue;
		if (a->hot == G_MAXUINT || a->self[i].weight > a->self[a->hot].weight ||
		    (a->self[i].weight == a->self[a->hot].weight &&
		     a->total[i].weight > a->total[a->hot].weight))
			a->hot = i;
	}
}

/* objdump --disassemble=NAME lists every function of that name: two
 * static functions of one name in two files both.  Keeps the one holding
 * address lo (from its "<name>:" header to the next). */
static void keep_function_at(GArray *lines, guint64 lo)
{
	guint start = 0, end = lines->len;
	gboolean found = FALSE;
	for (guint i = 0; i < lines->len; i++) {
		const PlDisasmLine *d = &g_array_index(lines, PlDisasmLine, i);
		if (!d->is_insn && g_str_has_suffix(d->text, ">:")) {
			if (found) {
				end = i;
				break;
			}
			start = i;
		} else if (d->is_insn && d->addr <= lo && !found) {
			/* the block of the last instruction at or below lo: look
			 * at the next instruction to know */
			guint j = i + 1;
			while (j < lines->len && !g_array_index(lines, PlDisasmLine, j).is_insn)
				j++;
			if (j == lines->len || g_array_index(lines, PlDisasmLine, j).addr > lo)
				found = TRUE;
		}
	}
	if (!found)
		return;
	if (end < lines->len)
		g_array_remove_range(lines, end, lines->len - end);
	if (start > 0)
		g_array_remove_range(lines, 0, start);
}

PlAnnotation *pl_disasm_annotate(PlProfile *profile, PlAggregate *agg, guint32 func,
				 GError **error)
{
	const char *label = pl_profile_get_function_label(profile, func);
	g_autoptr(GArray) rows = pl_aggregate_addresses(agg, func);
	const char *module, *outer;
	guint64 lo, hi;
	if (!pick_outer(rows, &module, &outer, &lo, &hi)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "%s has no samples in this selection: widen the time range or pick "
			    "another thread",
			    label);
		return NULL;
	}
	PlSymEmbed *emb = pl_symbols_get_embedded(pl_profile_get_symbols(profile));
	g_autofree char *path = NULL;
	GArray *lines;
	if (emb) {
		/* a self-contained session: the listing made where the binary was */
		lines = embedded_listing(emb, module, outer ? outer : label, error);
		path = g_strdup_printf("embedded listing of %s", module ? module : "?");
	} else {
		path = module ? local_module_file(profile, module) : NULL;
		if (!path) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
				    "No local copy of %s: add the binary (Settings → Binaries) or a "
				    "sysroot",
				    module ? module : "the module");
			return NULL;
		}
		lines = pl_disasm_function(pl_profile_get_toolchain_prefix(profile), path, outer,
					   lo, hi + 16, error);
	}
	if (!lines)
		return NULL;
	/* objdump --disassemble=SYM goes on to print the banners of later
	 * sections: the listing ends at the last instruction */
	while (lines->len && !g_array_index(lines, PlDisasmLine, lines->len - 1).is_insn)
		g_array_set_size(lines, lines->len - 1);
	keep_function_at(lines, lo);
	PlAnnotation *a = g_new0(PlAnnotation, 1);
	a->lines = lines;
	a->self = g_new0(PlCount, lines->len);
	a->total = g_new0(PlCount, lines->len);
	a->module = g_strdup(module);
	a->path = g_steal_pointer(&path);
	a->symbol = g_strdup(outer ? outer : label);
	a->outer = g_strdup(outer);
	place(a, rows, agg, module, outer);
	return a;
}

gboolean pl_annotation_recount(PlAnnotation *a, PlAggregate *agg, guint32 func)
{
	g_autoptr(GArray) rows = pl_aggregate_addresses(agg, func);
	const char *module, *outer;
	guint64 lo, hi;
	if (!pick_outer(rows, &module, &outer, &lo, &hi) || g_strcmp0(module, a->module) != 0 ||
	    g_strcmp0(outer, a->outer) != 0)
		return FALSE;
	place(a, rows, agg, module, outer);
	return TRUE;
}
