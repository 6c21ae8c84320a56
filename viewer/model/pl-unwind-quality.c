/* pl-unwind-quality.c — how far stacks were unwound: the share of samples
 * whose stack reaches the program's or a thread's start ("rooted"), and
 * for the others the module their outermost frame is in and why the walk
 * stopped there (pl-profile.h).  What a user reads before trusting a flame
 * graph, and what `report --fail-if 'unwound<99%'` gates on. */
#include "pl-profile.h"
#include "pl-profile-private.h"

#include <string.h>

#include "pl-symbols.h"

/* Where stacks begin.  An fp chain cannot say it ended at the root (the
 * kernel stops at a zero frame pointer and at a broken one alike), so the
 * outermost function's name decides: the C runtime's entry and start
 * functions (glibc, musl, the dynamic loader), a thread's start, or main
 * itself (glibc's __libc_start_call_main keeps no frame pointer). */
static const char *const roots[] = {
	"_start", "__start", "_start_c", "__libc_start_main", "__libc_start_call_main", "main",
	"_dl_start", "_dl_start_user", "_dl_start_final", "__dls2", "__dls3",
	"clone", "clone3", "__clone", "__clone3", "start_thread", "thread_start", "start",
};

static gboolean is_root(const char *label)
{
	for (guint i = 0; i < G_N_ELEMENTS(roots); i++)
		if (!strcmp(label, roots[i]))
			return TRUE;
	return FALSE;
}

gboolean pl_unwind_is_root_name(const char *label)
{
	return label && is_root(label);
}

#define UQ_UNKNOWN (PL_NO_ID - 1) /* no function id gets this large */

/* The function of the outermost node above call-tree node `node`
 * (PL_NO_ID for the root), remembered per node. */
static guint32 outer_function(PlProfile *self, guint32 node)
{
	GArray *c = self->uq_top;
	if (node < c->len && g_array_index(c, guint32, node) != UQ_UNKNOWN)
		return g_array_index(c, guint32, node);
	guint32 start = node;
	while (node != 0 && node != PL_NO_ID) {
		const PlNode *nd = pl_profile_get_node(self, node);
		if (nd->parent == 0 || nd->parent == PL_NO_ID)
			break;
		node = nd->parent;
	}
	guint32 f = node ? pl_profile_get_node(self, node)->func : PL_NO_ID;
	if (start == PL_NO_ID)
		return f;
	if (c->len <= start) {
		guint old = c->len;
		g_array_set_size(c, start + 1);
		for (guint i = old; i <= start; i++)
			g_array_index(c, guint32, i) = UQ_UNKNOWN;
	}
	g_array_index(c, guint32, start) = f;
	return f;
}

void pl_profile_note_unwind(PlProfile *self, guint32 outer, guint n, gboolean user, UqWalk walk)
{
	if (!user || outer == PL_NO_ID)
		return;
	PlProfileStats *st = &self->stats;
	st->unwind_user_samples++;
	/* the outermost function: the call-tree node of the outermost
	 * address, climbed past the frames inlined into it; nodes never
	 * change, so the climb is remembered per node, and whether a function
	 * is a root per function (its label, until short names are toggled) */
	guint32 node = g_array_index(self->addrs, AddrNode, outer).fnode;
	guint32 f = outer_function(self, node);
	gboolean rooted;
	if (f == PL_NO_ID) {
		rooted = is_root("");
	} else {
		if (self->uq_root->len <= f) {
			guint old = self->uq_root->len;
			g_byte_array_set_size(self->uq_root, f + 1);
			memset(self->uq_root->data + old, 0, f + 1 - old);
		}
		guint8 *r = &self->uq_root->data[f];
		if (!*r)
			*r = is_root(pl_profile_get_function_label(self, f)) ? 1 : 2;
		rooted = *r == 1;
	}
	if (walk == UQ_DWARF_DONE || rooted) {
		st->unwind_rooted++;
		return;
	}
	PlUnwindStop stop = walk == UQ_DWARF_FAILED	 ? PL_STOP_NOT_UNWOUND
			    : walk == UQ_DWARF_COPY_FULL ? PL_STOP_STACK_COPY
			    : walk == UQ_DWARF_ENDED	 ? PL_STOP_CFI_ENDED
							 : PL_STOP_FP_ENDED;
	if (n >= PL_MAX_CALLCHAIN)
		stop = PL_STOP_DEPTH;
	const char *module = f != PL_NO_ID ? pl_profile_get_function(self, f)->module : NULL;
	if (!module)
		module = "[unknown]";
	guint64 *counts = g_hash_table_lookup(self->unwind_stops, module);
	if (!counts) {
		counts = g_new0(guint64, PL_N_STOPS);
		g_hash_table_insert(self->unwind_stops, (gpointer)module, counts);
	}
	counts[stop]++;
}

/* The samples stopped in module (every reason). */
static guint64 module_stopped(PlProfile *self, const char *module)
{
	const guint64 *counts = g_hash_table_lookup(self->unwind_stops, module);
	guint64 n = 0;
	for (guint s = 0; counts && s < PL_N_STOPS; s++)
		n += counts[s];
	return n;
}

double pl_profile_get_unwound_share(PlProfile *self)
{
	const PlProfileStats *st = &self->stats;
	if (!st->unwind_user_samples)
		return 100.0;
	guint64 rooted = st->unwind_rooted;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, pl_profile_thread_starts(self));
	while (g_hash_table_iter_next(&it, &k, &v))
		rooted += MIN(((const PlThreadStarts *)v)->stacks, module_stopped(self, k));
	return 100.0 * (double)MIN(rooted, st->unwind_user_samples) /
	       (double)st->unwind_user_samples;
}

const char *pl_unwind_stop_describe(PlUnwindStop stop)
{
	switch (stop) {
	case PL_STOP_NOT_UNWOUND:
		return "nothing unwound: the sampled address is in no mapping known here, or the "
		       "sample carried no registers or stack";
	case PL_STOP_NO_FILE:
		return "no file for this module here, so no CFI: give it with --sysroot or "
		       "--binary";
	case PL_STOP_NO_CFI:
		return "its file has no CFI (.eh_frame, .debug_frame or ARM EHABI): build it with "
		       "-fasynchronous-unwind-tables, or give its debug file";
	case PL_STOP_STACK_COPY:
		return "the walk used the whole stack copy: record with a larger --stack-size";
	case PL_STOP_CFI_ENDED:
		return "its CFI led no further (hand-written assembly, or a caller in a file "
		       "missing here)";
	case PL_STOP_FP_ENDED:
		return "the frame-pointer chain ended here: build it with -fno-omit-frame-pointer, "
		       "or record with --callgraph dwarf";
	case PL_STOP_DEPTH:
		return "deeper than a stack holds: the outermost frames were cut";
	case PL_N_STOPS:
		break;
	}
	return "?";
}

static gint most_stopped_first(gconstpointer a, gconstpointer b)
{
	const PlUnwindModule *x = a, *y = b;
	if (x->stopped != y->stopped)
		return x->stopped > y->stopped ? -1 : 1;
	return strcmp(x->module, y->module);
}

GArray *pl_profile_dup_unwind_stops(PlProfile *self)
{
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(PlUnwindModule));
	/* what the symbol side knows of each file: found here, with CFI */
	g_autoptr(GHashTable) files = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) cov = pl_symbols_coverage(pl_profile_get_symbols(self));
	for (guint i = 0; i < cov->len; i++) {
		const PlModuleReport *r = cov->pdata[i];
		const char *base = strrchr(r->module, '/');
		g_hash_table_insert(files, (gpointer)(base ? base + 1 : r->module), (gpointer)r);
	}
	GHashTable *starts = pl_profile_thread_starts(self);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, self->unwind_stops);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		PlUnwindModule row = { k, 0, { 0 }, PL_STOP_NOT_UNWOUND, 0, 0, 0 };
		memcpy(row.by_stop, v, sizeof(row.by_stop));
		/* a dwarf walk that ended in a module without its file or its
		 * CFI ended for that reason first: what the walk did without
		 * them (libdw's frame-pointer guess, running on to the end of
		 * the copy) says nothing more */
		const PlModuleReport *r = g_hash_table_lookup(files, k);
		PlUnwindStop why = !r			       ? PL_STOP_CFI_ENDED
				   : !r->local_path		       ? PL_STOP_NO_FILE
				   : !r->has_cfi && !r->has_ehabi ? PL_STOP_NO_CFI
								  : PL_STOP_CFI_ENDED;
		if (why != PL_STOP_CFI_ENDED) {
			row.by_stop[why] += row.by_stop[PL_STOP_CFI_ENDED] +
					    row.by_stop[PL_STOP_STACK_COPY];
			row.by_stop[PL_STOP_CFI_ENDED] = row.by_stop[PL_STOP_STACK_COPY] = 0;
		}
		/* a start is no stop: those stacks leave the reasons that
		 * hold the most (they all ended the one way) */
		const PlThreadStarts *ts = g_hash_table_lookup(starts, k);
		guint64 total = 0;
		for (guint s = 0; s < PL_N_STOPS; s++)
			total += row.by_stop[s];
		if (ts) {
			row.at_start = MIN(ts->stacks, total);
			row.start_threads = ts->threads;
			row.start_processes = ts->processes;
		}
		for (guint64 left = row.at_start; left;) {
			guint most = 0;
			for (guint s = 1; s < PL_N_STOPS; s++)
				if (row.by_stop[s] > row.by_stop[most])
					most = s;
			guint64 take = MIN(left, row.by_stop[most]);
			row.by_stop[most] -= take;
			left -= take;
		}
		for (guint s = 0; s < PL_N_STOPS; s++) {
			row.stopped += row.by_stop[s];
			if (row.by_stop[s] > row.by_stop[row.main_stop])
				row.main_stop = (PlUnwindStop)s;
		}
		if (row.stopped || row.at_start)
			g_array_append_val(rows, row);
	}
	g_array_sort(rows, most_stopped_first);
	return rows; /* module names are the profile's strings, not cov's */
}
