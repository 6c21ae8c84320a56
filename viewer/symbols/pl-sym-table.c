/* pl-sym-table.c — a module's ELF symbols sorted once, looked up by
 * binary search, with exactly dwfl_module_addrinfo's answers.
 *
 * Why: dwfl_module_addrinfo (libdw 0.188) walks the whole symbol table at
 * every call, and for a sizeless candidate looks sections up too: with
 * libc's 10k symbols that was 11% of `perflens report`.  Here the table is
 * read once (dwfl_module_getsym_info, so the values are libdwfl's own:
 * adjusted the same way, ARM's Thumb bit handled the same way) and each
 * lookup costs a binary search plus a short walk back over the symbols
 * that may contain the address.
 *
 * The rules reproduced (libdwfl/dwfl_module_addrsym.c, __libdwfl_addrsym
 * as dwfl_module_addrinfo calls it):
 *   - eligible: a name, st_shndx not UNDEF, type not SECTION/FILE/TLS,
 *     value <= address;
 *   - the global symbols are searched first, the local ones only when no
 *     global sized symbol contains the address and no global sizeless
 *     symbol sits exactly on it;
 *   - of the sized symbols containing the address, in table order, a
 *     later one replaces the current one when it starts higher or binds
 *     stronger (GLOBAL > WEAK > LOCAL > other), or, at the same start,
 *     when it is smaller and binds no weaker or as large and binds
 *     stronger;
 *   - without one, the sizeless symbol (an assembly label) at the highest
 *     eligible address, the last in table order there, if no symbol seen
 *     extends past it and it lies in the same allocated section of the
 *     main file as the address (a section's end address counting as
 *     inside it: libdwfl's find_section, as dwfl_module_addrinfo uses).
 * The test (sym-table-test.c) compares every byte of burn's code and a
 * fine step over libc's with libdwfl.  No deliberate difference; on top,
 * pl-symbols.c keeps its ARM mapping-symbol fallback and asks
 * pl_sym_table_perf_alias for the name perf report gives among aliases
 * (libdwfl takes a global or weak symbol found first: musl's local label
 * __memcpy_fwd over the global memcpy, the weak qsort_r over __qsort_r,
 * where perf names memcpy and __qsort_r).
 *
 * Thread safety: built and read by the thread that owns the PlSymbols.
 */
#include <string.h>

#include "pl-sym-table.h"

typedef struct {
	guint64 value;
	guint64 size;
	const char *name; /* libdwfl's string: valid while its Dwfl lives */
	guint32 index;    /* in the symbol table: the order libdwfl visits */
	gboolean special; /* section index SHN_LORESERVE and up (SHN_ABS…) */
	guint8 bind;      /* binding_value(): 3 global, 2 weak, 1 local, 0 other */
	guint8 type;      /* STT_* */
} Sym;

typedef struct {
	Sym *syms;        /* sorted by (value, index) */
	guint64 *max_end; /* max_end[i]: the highest value + size of syms[0..i] */
	guint n;
} Pass;

/* An allocated section of the main file, as libdwfl's cache_sections()
 * (derelocate.c) keeps them: sorted by start, end, index. */
typedef struct {
	guint64 start, end;
	guint32 index;
} Sect;

struct _PlSymTable {
	Pass pass[2]; /* globals, then locals (empty when libdwfl does not search them) */
	Sect *sects;
	guint nsects;
};

static guint8 binding_value(guint8 info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static gint cmp_sym(gconstpointer pa, gconstpointer pb)
{
	const Sym *a = pa, *b = pb;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static gint cmp_sect(gconstpointer pa, gconstpointer pb)
{
	const Sect *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* The SHF_ALLOC sections of the module's main file, at the module's
 * addresses. */
static void sections_read(PlSymTable *t, Dwfl_Module *mod)
{
	Dwarf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GArray *a = g_array_new(FALSE, FALSE, sizeof(Sect));
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		Sect x = { sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size,
			   (guint32)elf_ndxscn(scn) };
		g_array_append_val(a, x);
	}
	g_array_sort(a, cmp_sect);
	t->nsects = a->len;
	t->sects = (Sect *)(void *)g_array_free(a, FALSE);
}

static void pass_finish(Pass *p, GArray *a)
{
	/* appended in table order: already sorted unless values go down */
	gboolean sorted = TRUE;
	const Sym *v = (const Sym *)(void *)a->data;
	for (guint i = 1; i < a->len && sorted; i++)
		sorted = v[i - 1].value <= v[i].value;
	if (!sorted)
		g_array_sort(a, cmp_sym);
	p->n = a->len;
	p->syms = (Sym *)(void *)g_array_free(a, FALSE);
	p->max_end = g_new(guint64, MAX(p->n, 1));
	guint64 m = 0;
	for (guint i = 0; i < p->n; i++) {
		guint64 end = p->syms[i].value + p->syms[i].size;
		m = MAX(m, end);
		p->max_end[i] = m;
	}
}

PlSymTable *pl_sym_table_new(Dwfl_Module *mod, guint e_machine)
{
	/* PowerPC64 function descriptors make libdwfl try a second value per
	 * symbol: not reproduced, libdwfl answers there */
	if (!mod || e_machine == EM_PPC64)
		return NULL;
	int n = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	if (n < 0 || first_global < 0)
		return NULL;
	PlSymTable *t = g_new0(PlSymTable, 1);
	sections_read(t, mod);
	GArray *a[2] = { g_array_new(FALSE, FALSE, sizeof(Sym)),
			 g_array_new(FALSE, FALSE, sizeof(Sym)) };
	/* as __libdwfl_addrsym: [first_global, n) first (all of it from 1
	 * when first_global is 0: a .dynsym from the program headers), then
	 * [1, first_global) */
	int g0 = first_global == 0 ? 1 : first_global;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name =
			dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		Sym s = { value, sym.st_size, name, (guint32)i, shndx >= SHN_LORESERVE,
			  binding_value(sym.st_info), (guint8)type };
		g_array_append_val(a[i >= g0 ? 0 : 1], s);
	}
	pass_finish(&t->pass[0], a[0]);
	pass_finish(&t->pass[1], a[1]);
	return t;
}

void pl_sym_table_free(PlSymTable *t)
{
	if (!t)
		return;
	for (guint i = 0; i < 2; i++) {
		g_free(t->pass[i].syms);
		g_free(t->pass[i].max_end);
	}
	g_free(t->sects);
	g_free(t);
}

/* Number of symbols of p with value <= addr. */
static guint upto(const Pass *p, guint64 addr)
{
	guint lo = 0, hi = p->n;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (p->syms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* libdwfl's choice among the sized symbols of p containing addr (the
 * first k of p start at or below it), or NULL. */
static const Sym *sized_pick(const Pass *p, guint k, guint64 addr)
{
	/* the candidates: walked back while a symbol so far may reach addr,
	 * then taken in table order */
	const Sym *local[16];
	g_autofree const Sym **heap = NULL;
	const Sym **cand = local;
	guint nc = 0, cap = G_N_ELEMENTS(local);
	for (guint i = k; i-- > 0 && p->max_end[i] > addr;) {
		const Sym *s = &p->syms[i];
		if (s->size == 0 || addr - s->value >= s->size)
			continue;
		if (nc == cap) {
			cap *= 2;
			const Sym **bigger = g_new(const Sym *, cap);
			memcpy(bigger, cand, nc * sizeof(*cand));
			g_free(heap);
			cand = heap = bigger;
		}
		cand[nc++] = s;
	}
	for (guint i = 1; i < nc; i++) /* table order (few: insertion sort) */
		for (guint j = i; j > 0 && cand[j - 1]->index > cand[j]->index; j--) {
			const Sym *x = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = x;
		}
	const Sym *best = NULL;
	for (guint i = 0; i < nc; i++) {
		const Sym *s = cand[i];
		if (!best || best->value < s->value || best->bind < s->bind)
			best = s;
		else if (best->value == s->value &&
			 ((best->size > s->size && best->bind <= s->bind) ||
			  (best->size >= s->size && best->bind < s->bind)))
			best = s;
	}
	return best;
}

/* libdwfl's __libdwfl_find_section_ndx(): the section holding addr (its
 * end counts as inside unless the next one starts there), else
 * SHN_UNDEF.  The same binary search, so that overlapping sections (TLS)
 * give the same answer. */
static guint32 section_of(const PlSymTable *t, guint64 addr)
{
	gsize l = 0, u = t->nsects;
	while (l < u) {
		gsize idx = (l + u) / 2;
		if (addr < t->sects[idx].start) {
			u = idx;
		} else if (addr > t->sects[idx].end) {
			l = idx + 1;
		} else {
			if (addr == t->sects[idx].end && idx + 1 < t->nsects &&
			    addr == t->sects[idx + 1].start)
				++idx;
			return t->sects[idx].index;
		}
	}
	return SHN_UNDEF;
}

/* libdwfl's same_section() for dwfl_module_addrinfo: addr and the
 * symbol's value lie in one section of the main file (or both in none). */
static gboolean same_section(const PlSymTable *t, const Sym *s, guint64 addr)
{
	if (s->special)
		return s->value == addr;
	return section_of(t, addr) == section_of(t, s->value);
}

/* The last (in table order) sizeless symbol of p at exactly value v that
 * lies in addr's section; the first k of p start at or below addr. */
static const Sym *sizeless_at(const PlSymTable *t, const Pass *p, guint k, guint64 v,
			      guint64 addr)
{
	for (guint i = k; i-- > 0 && p->syms[i].value == v;) {
		const Sym *s = &p->syms[i];
		if (s->size == 0 && same_section(t, s, addr))
			return s;
	}
	return NULL;
}

const char *pl_sym_table_lookup(const PlSymTable *t, guint64 addr, guint64 *off)
{
	const Pass *g = &t->pass[0], *l = &t->pass[1];
	guint kg = upto(g, addr);
	const Sym *hit = sized_pick(g, kg, addr);
	const Sym *label = NULL;
	guint64 top = 0, max_end = 0; /* over the symbols searched so far */
	gboolean any = kg > 0;
	if (!hit && kg > 0) {
		top = g->syms[kg - 1].value;
		max_end = g->max_end[kg - 1];
		label = sizeless_at(t, g, kg, top, addr);
	}
	/* the locals, unless a global label sits right on addr */
	if (!hit && !(label && label->value == addr) && l->n > 0) {
		guint kl = upto(l, addr);
		hit = sized_pick(l, kl, addr);
		if (!hit && kl > 0) {
			guint64 ltop = l->syms[kl - 1].value;
			if (!any || ltop >= top) {
				/* a local label at the top comes later in the table;
				 * a global one lower down loses to it */
				const Sym *ll = sizeless_at(t, l, kl, ltop, addr);
				if (ll || ltop > top || !any)
					label = ll;
				top = ltop;
			}
			max_end = MAX(max_end, l->max_end[kl - 1]);
		}
	}
	if (!hit && label && label->value == top && max_end <= label->value)
		hit = label;
	if (!hit)
		return NULL;
	if (off)
		*off = addr - hit->value;
	return hit->name;
}

/* ─── perf's name among aliases ──────────────────────────────────────── */

static guint underscores(const char *n)
{
	guint k = 0;
	while (n[k] == '_')
		k++;
	return k;
}

/* > 0 when perf report would name an address after a rather than b, two
 * symbols at one address (tools/perf/util/symbol.c, choose_best_symbol):
 * a size, a type (an assembly label loses), not weak, global, fewer
 * leading underscores, the longer name. */
static int perf_prefers(const Sym *a, const Sym *b)
{
	if ((a->size != 0) != (b->size != 0))
		return a->size != 0 ? 1 : -1;
	if ((a->type == STT_NOTYPE) != (b->type == STT_NOTYPE))
		return a->type != STT_NOTYPE ? 1 : -1;
	if ((a->bind == 2) != (b->bind == 2)) /* weak */
		return a->bind != 2 ? 1 : -1;
	if ((a->bind == 3) != (b->bind == 3)) /* global */
		return a->bind == 3 ? 1 : -1;
	guint ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? 1 : -1;
	size_t la = strlen(a->name), lb = strlen(b->name);
	return la > lb ? 1 : la < lb ? -1 : 0;
}

const char *pl_sym_table_perf_alias(const PlSymTable *t, guint64 value, guint64 off)
{
	const Sym *best = NULL;
	for (guint p = 0; p < 2; p++) {
		const Pass *ps = &t->pass[p];
		for (guint i = upto(ps, value); i-- > 0 && ps->syms[i].value == value;) {
			const Sym *s = &ps->syms[i];
			/* code symbols perf loads, that reach the address */
			if (s->special || (s->size && off >= s->size) || s->name[0] == '$' ||
			    (s->type != STT_FUNC && s->type != STT_GNU_IFUNC && s->type != STT_NOTYPE))
				continue;
			if (!best || perf_prefers(s, best) > 0 ||
			    (perf_prefers(s, best) == 0 && s->index < best->index))
				best = s;
		}
	}
	return best ? best->name : NULL;
}
