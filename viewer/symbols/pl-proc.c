/* pl-proc.c — a process's mappings: the PlProc of a pid (made at first
 * need) and the load bias of each mapping, solved over the run of
 * mappings of its file.  The mappings themselves are kept by
 * pl_symbols_add_mapping (pl-symbols.c); symbolization and unwinding both
 * ask here for the bias.
 */
#include "pl-elf-locator.h"
#include "pl-proc.h"

PlProc *pl_proc_get(PlSymbols *self, guint32 pid, gboolean create)
{
	PlProc *p = g_hash_table_lookup(self->procs, GUINT_TO_POINTER(pid));
	if (p || !create)
		return p;
	p = g_new0(PlProc, 1);
	p->pid = pid;
	p->maps = g_array_new(FALSE, FALSE, sizeof(PlMapping));
	g_hash_table_insert(self->procs, GUINT_TO_POINTER(pid), p);
	return p;
}

gboolean pl_mapping_bias(const PlProc *proc, const PlMapping *m, guint64 *bias)
{
	/* Segments can share a file page: r-- .rodata and rw- .data both at
	 * pgoff 0x2000, or in a small static binary the code and the data
	 * both at pgoff 0.  pgoff alone may then name the wrong PT_LOAD, which
	 * would give one file two biases (and the unwinder a second, bogus
	 * module over the first).  One load of a file has one bias: ld.so and
	 * the kernel map its PT_LOADs in order, lowest first, so every mapping
	 * of a run after the first takes the PT_LOAD that gives the bias of
	 * the mapping before it, if one does (else it is another load of the
	 * file, at its own bias); pl_elf_bias picks the best fit otherwise. */
	PlMapping *v = (PlMapping *)(void *)proc->maps->data;
	const PlElf *elf = m->elf;
	if (!elf || !elf->loads || elf->loads->len == 0)
		return FALSE;
	gssize i = m - v;
	if (i < 0 || (guint)i >= proc->maps->len)
		return pl_elf_bias(elf, m, NULL, bias);
	if (v[i].load_known) {
		*bias = v[i].load_bias;
		return v[i].load_ok;
	}
	/* the run of mappings of this file below m (up to 32 back), solved
	 * from its lowest member upwards */
	gssize first = i;
	for (gssize j = i - 1, steps = 0; j >= 0 && steps < 32; j--, steps++)
		if (v[j].elf == elf)
			first = j;
	gboolean have_prev = FALSE;
	guint64 prev = 0;
	for (gssize j = first; j <= i; j++) {
		PlMapping *x = &v[j];
		if (x->elf != elf)
			continue;
		if (!x->load_known) {
			x->load_known = TRUE;
			x->load_ok = pl_elf_bias(elf, x, have_prev ? &prev : NULL, &x->load_bias);
		}
		if (x->load_ok) {
			have_prev = TRUE;
			prev = x->load_bias;
		}
	}
	*bias = v[i].load_bias;
	return v[i].load_ok;
}

const PlMapping *pl_proc_mapping_at(const PlProc *proc, guint64 pc)
{
	if (!proc)
		return NULL;
	const PlMapping *v = (const PlMapping *)(void *)proc->maps->data;
	guint lo = 0, hi = proc->maps->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (v[mid].end <= pc)
			lo = mid + 1;
		else if (v[mid].start > pc)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}
