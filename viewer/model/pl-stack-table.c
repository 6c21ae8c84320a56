/* pl-stack-table.c — the session model's interning tables: functions,
 * call-tree nodes, source locations and the address trie of stacks (each
 * address symbolized once, when first interned, and again when its
 * process's perf map has arrived), and their accessors.  Ids are indices
 * that never change. */
#include "pl-profile.h"
#include "pl-profile-private.h"
#include "pl-name-shorten.h"

#include <string.h>

/* ─── stacks ─────────────────────────────────────────────────────────── */

guint32 pl_profile_function_intern(PlProfile *self, const char *name, const char *module,
				   gboolean inlined, const char *file, guint line)
{
	const char *n = name ? g_string_chunk_insert_const(self->strings, name) : NULL;
	const char *mo = g_string_chunk_insert_const(self->strings, module ? module : "[unknown]");
	const char *fi = file ? g_string_chunk_insert_const(self->strings, file) : NULL;
	/* the key's second half names (module, file) by one interned string:
	 * "module\x01file" (control characters name no module) */
	const char *where = mo;
	if (fi) {
		g_autofree char *mf = g_strconcat(mo, "\x01", fi, NULL);
		where = g_string_chunk_insert_const(self->strings, mf);
	}
	guint64 a = (guint64)(guintptr)n, b = ((guint64)(guintptr)where << 1) | (inlined ? 1 : 0);
	guint32 id = pl_id_table_lookup(&self->func_tab, a, b);
	if (id != PL_NO_ID)
		return id;
	PlFunction f = { n, mo, inlined, fi, fi ? line : 0 };
	id = self->funcs->len;
	g_array_append_val(self->funcs, f);
	g_ptr_array_add(self->func_labels, NULL);
	pl_id_table_insert(&self->func_tab, a, b, id);
	return id;
}

guint32 pl_profile_node_intern(PlProfile *self, guint32 parent, guint32 func)
{
	guint32 id = pl_id_table_lookup(&self->node_tab, parent, func);
	if (id != PL_NO_ID)
		return id;
	id = self->nodes->len;
	PlNode n = { parent, func, PL_NO_ID, PL_NO_ID };
	guint32 none = PL_NO_ID;
	g_array_append_val(self->nodes, n);
	g_array_append_val(self->last_child, none);
	guint32 *last = &g_array_index(self->last_child, guint32, parent);
	if (*last == PL_NO_ID)
		g_array_index(self->nodes, PlNode, parent).first_child = id;
	else
		g_array_index(self->nodes, PlNode, *last).next_sibling = id;
	*last = id;
	pl_id_table_insert(&self->node_tab, parent, func, id);
	return id;
}

static guint32 location_intern(PlProfile *self, const char *file, guint line)
{
	const char *f = g_string_chunk_insert_const(self->strings, file);
	guint32 id = pl_id_table_lookup(&self->loc_tab, (guint64)(guintptr)f, line);
	if (id != PL_NO_ID)
		return id;
	PlLocation l = { f, line };
	id = self->locs->len;
	g_array_append_val(self->locs, l);
	pl_id_table_insert(&self->loc_tab, (guint64)(guintptr)f, line, id);
	return id;
}

guint32 pl_profile_addr_root(PlProfile *self, guint32 event, guint32 pid)
{
	guint64 key = (guint64)event << 32 | pid;
	guint32 id = pl_id_table_lookup(&self->addr_tab, key, (guint64)AF_ROOT << 56 | PL_NO_ID);
	if (id != PL_NO_ID)
		return id;
	AddrNode n = { PL_NO_ID, 0, 0, 0, (guint16)MIN(event, G_MAXUINT16), pid, AF_ROOT };
	id = self->addrs->len;
	g_array_append_val(self->addrs, n);
	pl_id_table_insert(&self->addr_tab, key, (guint64)AF_ROOT << 56 | PL_NO_ID, id);
	return id;
}

/* Sets an's call-tree node to its parent's extended by fr's frames
 * (innermost first; n == 0: an unknown frame) and appends their source
 * locations. */
static void addr_set_frames(PlProfile *self, AddrNode *an, PlFrameInfo *fr, guint n)
{
	if (n == 0) {
		fr[0] = (PlFrameInfo){ .module = (an->flags & AF_KERNEL) ? "[kernel]" : "[unknown]" };
		n = 1;
	}
	for (guint i = n; i-- > 0;) {
		const char *module = fr[i].module;
		if (!module)
			module = (an->flags & AF_KERNEL) ? "[kernel]" : "[unknown]";
		guint32 f = pl_profile_function_intern(self, fr[i].function, module, fr[i].inlined,
						       fr[i].function ? fr[i].decl_file : NULL,
						       fr[i].decl_line);
		an->fnode = pl_profile_node_intern(self, an->fnode, f);
	}
	an->loc_first = self->node_locs->len;
	an->loc_n = 0;
	for (guint i = 0; i < n; i++)
		if (fr[i].file && fr[i].line) {
			guint32 l = location_intern(self, fr[i].file, fr[i].line);
			g_array_append_val(self->node_locs, l);
			an->loc_n++;
		}
}

/* Interns (parent, pc) and, the first time, symbolizes pc: its frames
 * (innermost first) extend the parent's call-tree node. */
guint32 pl_profile_addr_intern(PlProfile *self, guint32 parent, guint32 pid, guint64 pc,
			   guint8 flags)
{
	guint64 kb = (guint64)flags << 56 | parent;
	guint32 id = pl_id_table_lookup(&self->addr_tab, pc, kb);
	if (id != PL_NO_ID)
		return id;
	PlFrameInfo fr[MAX_INLINE];
	guint n = pl_symbols_resolve(pl_profile_get_symbols(self), pid, pc,
				     (flags & AF_RETURN) != 0, fr, MAX_INLINE);
	const AddrNode *pn = &g_array_index(self->addrs, AddrNode, parent);
	AddrNode an = { parent, pn->fnode, 0, 0, pn->event, pc, flags };
	addr_set_frames(self, &an, fr, n);
	id = self->addrs->len;
	g_array_append_val(self->addrs, an);
	pl_id_table_insert(&self->addr_tab, pc, kb, id);
	return id;
}

/* TRUE when call-tree node n's function may be named by a perf map: it
 * has no name, or it came from one. */
static gboolean perf_map_may_name(PlProfile *self, guint32 n)
{
	const PlFunction *f = &g_array_index(self->funcs, PlFunction,
					     g_array_index(self->nodes, PlNode, n).func);
	return !f->name || (f->module && g_str_has_prefix(f->module, "perf-") &&
			    g_str_has_suffix(f->module, ".map"));
}

/* pid's perf map has arrived whole: its addresses are looked up again.
 * An address is symbolized when it is first interned, but the agent sends
 * /tmp/perf-PID.map when the process ends (perf reads it at report time,
 * after every sample), so without this a JIT's code stays anonymous but
 * for the samples still held for reordering.  Addresses of pid that had
 * no name, or a name from an older copy of the map, are resolved again,
 * and the call-tree nodes of everything interned below a renamed one
 * follow (a parent always precedes its children in self->addrs).
 * Samples name address-trie nodes, so every later aggregate sees the
 * names. */
void pl_profile_addrs_resolve_again(PlProfile *self, guint32 pid)
{
	guint32 n = self->addrs->len;
	if (n == 0)
		return;
	AddrNode *v = (AddrNode *)(void *)self->addrs->data; /* addrs does not grow here */
	g_autofree guint32 *old = g_new(guint32, n);          /* fnode before this pass */
	g_autofree guint8 *in_pid = g_new0(guint8, n);
	PlSymbols *syms = pl_profile_get_symbols(self);
	for (guint32 x = 0; x < n; x++) {
		old[x] = v[x].fnode;
		if (v[x].flags & AF_ROOT) {
			in_pid[x] = v[x].pc == pid;
			continue;
		}
		if (v[x].parent >= x || !(in_pid[x] = in_pid[v[x].parent]))
			continue;
		guint32 pf = v[v[x].parent].fnode, old_pf = old[v[x].parent];
		if (!(v[x].flags & AF_KERNEL) && perf_map_may_name(self, old[x])) {
			PlFrameInfo fr[MAX_INLINE];
			guint k = pl_symbols_resolve(syms, pid, v[x].pc, (v[x].flags & AF_RETURN) != 0,
						     fr, MAX_INLINE);
			AddrNode an = v[x];
			an.fnode = pf;
			guint locs = self->node_locs->len;
			addr_set_frames(self, &an, fr, k);
			if (an.fnode != v[x].fnode)
				v[x] = an;
			else
				g_array_set_size(self->node_locs, locs); /* nothing changed */
		} else if (pf != old_pf) {
			/* the same frames, under the parent's new node */
			guint32 funcs[MAX_INLINE];
			guint k = 0;
			for (guint32 nd = old[x]; nd != old_pf && nd != 0 && k < MAX_INLINE;
			     nd = g_array_index(self->nodes, PlNode, nd).parent)
				funcs[k++] = g_array_index(self->nodes, PlNode, nd).func;
			guint32 f = pf;
			for (guint i = k; i-- > 0;)
				f = pl_profile_node_intern(self, f, funcs[i]);
			v[x].fnode = f;
		}
	}
}

/* ─── accessors ──────────────────────────────────────────────────────── */

guint pl_profile_get_n_functions(PlProfile *self)
{
	return self->funcs->len;
}

const PlFunction *pl_profile_get_function(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->funcs->len, NULL);
	return &g_array_index(self->funcs, PlFunction, id);
}

const char *pl_profile_get_function_label(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->funcs->len, "?");
	const PlFunction *f = &g_array_index(self->funcs, PlFunction, id);
	if (f->name && !self->short_names)
		return f->name;
	const char *l = self->func_labels->pdata[id];
	if (!l) {
		/* "[kernel]" stays as is; "burn" becomes "[burn]" */
		g_autofree char *s = f->name		   ? pl_name_shorten(f->name)
				     : f->module[0] == '[' ? g_strdup(f->module)
							   : g_strdup_printf("[%s]", f->module);
		l = g_string_chunk_insert_const(self->strings, s);
		self->func_labels->pdata[id] = (gpointer)l;
	}
	return l;
}

void pl_profile_set_short_names(PlProfile *self, gboolean on)
{
	if (self->short_names == !!on)
		return;
	self->short_names = !!on;
	/* every label is made again, named functions' too */
	for (guint i = 0; i < self->func_labels->len; i++)
		self->func_labels->pdata[i] = NULL;
	g_byte_array_set_size(self->uq_root, 0); /* roots are judged by label */
}

gboolean pl_profile_get_short_names(PlProfile *self)
{
	return self->short_names;
}

guint32 pl_profile_find_function(PlProfile *self, const char *name)
{
	for (guint i = 0; i < self->funcs->len; i++)
		if (g_strcmp0(g_array_index(self->funcs, PlFunction, i).name, name) == 0)
			return i;
	return PL_NO_ID;
}

guint pl_profile_get_n_nodes(PlProfile *self)
{
	return self->nodes->len;
}

const PlNode *pl_profile_get_node(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->nodes->len, NULL);
	return &g_array_index(self->nodes, PlNode, id);
}

guint32 pl_profile_get_stack_node(PlProfile *self, guint32 stack)
{
	g_return_val_if_fail(stack < self->addrs->len, 0);
	return g_array_index(self->addrs, AddrNode, stack).fnode;
}

guint32 pl_profile_get_stack_event(PlProfile *self, guint32 stack)
{
	g_return_val_if_fail(stack < self->addrs->len, 0);
	return g_array_index(self->addrs, AddrNode, stack).event;
}

guint pl_profile_get_n_stacks(PlProfile *self)
{
	return self->addrs->len;
}

gboolean pl_profile_get_stack_frame(PlProfile *self, guint32 stack, PlStackFrame *out)
{
	if (stack >= self->addrs->len)
		return FALSE;
	const AddrNode *a = &g_array_index(self->addrs, AddrNode, stack);
	guint32 root = stack;
	while (g_array_index(self->addrs, AddrNode, root).parent != PL_NO_ID)
		root = g_array_index(self->addrs, AddrNode, root).parent;
	*out = (PlStackFrame){
		.pc = (a->flags & AF_ROOT) ? 0 : a->pc,
		.parent = a->parent,
		.pid = (guint32)g_array_index(self->addrs, AddrNode, root).pc,
		.event = a->event,
		.node = a->fnode,
		.is_return = (a->flags & AF_RETURN) != 0,
		.kernel = (a->flags & AF_KERNEL) != 0,
		.root = (a->flags & AF_ROOT) != 0,
	};
	return TRUE;
}

guint pl_profile_get_n_locations(PlProfile *self)
{
	return self->locs->len;
}

const PlLocation *pl_profile_get_location(PlProfile *self, guint32 id)
{
	g_return_val_if_fail(id < self->locs->len, NULL);
	return &g_array_index(self->locs, PlLocation, id);
}

GArray *pl_profile_dup_stack_functions(PlProfile *self, guint32 stack, guint max)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(guint32));
	if (stack >= self->addrs->len)
		return a;
	guint32 n = g_array_index(self->addrs, AddrNode, stack).fnode;
	while (n != 0 && n < self->nodes->len && (max == 0 || a->len < max)) {
		const PlNode *node = &g_array_index(self->nodes, PlNode, n);
		g_array_append_val(a, node->func);
		n = node->parent;
	}
	return a;
}
