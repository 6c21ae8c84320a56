/* pl-profile-samples.c — SAMPLE messages into the session model: each
 * sample's stack (the kernel's fp callchain, or the user part unwound from
 * the copied stack, past the clone wrapper for a creation sample) interned
 * in the address trie (pl-stack-table.c), and the sample kept for the
 * timeline; thread-creation samples paired with their FORK instead, and
 * pl_profile_thread_creation_stack. */
#include "pl-profile.h"
#include "pl-profile-private.h"
#include "pl-msg-pack.h"
#include "pl-tracepoint.h"

#include <string.h>

/* perf's callchain context markers (include/uapi/linux/perf_event.h):
 * entries ≥ PERF_CONTEXT_MAX are markers, not addresses. */
#define CTX_HV ((guint64)-32)
#define CTX_KERNEL ((guint64)-128)
#define CTX_USER ((guint64)-512)
#define CTX_GUEST ((guint64)-2048)
#define CTX_GUEST_KERNEL ((guint64)-2176)
#define CTX_GUEST_USER ((guint64)-2560)
#define CTX_MAX ((guint64)-4095)

/* Fills self->pcs (innermost first) from an fp callchain.  After each
 * context marker the first entry is the interrupted IP and the following
 * ones are return addresses. */
static guint callchain_pcs(PlProfile *self, const struct pl_msg_sample *s, gboolean user_too)
{
	guint n = 0;
	guint8 ctx = (s->cpumode & 7) == 1 ? AF_KERNEL : 0; /* PERF_RECORD_MISC_KERNEL */
	gboolean first = TRUE, skip = FALSE;
	for (guint i = 0; i < s->nr_callchain && n < PL_MAX_CALLCHAIN; i++) {
		guint64 pc = s->callchain[i];
		if (pc >= CTX_MAX) {
			first = TRUE;
			skip = FALSE;
			if (pc == CTX_KERNEL)
				ctx = AF_KERNEL;
			else if (pc == CTX_USER)
				ctx = 0;
			else
				skip = TRUE; /* hypervisor, guest: not ours to symbolize */
			if (pc == CTX_USER && !user_too)
				break;
			continue;
		}
		if (skip)
			continue;
		self->pcs[n] = pc;
		self->pc_flags[n] = ctx | (first ? 0 : AF_RETURN);
		n++;
		first = FALSE;
	}
	return n;
}

/* A sample with registers and a stack copy: a DWARF sample, or an event
 * of any session (msg.h, PL_EVENT_STACK). */
static gboolean is_dwarf_sample(const struct pl_msg_sample *s)
{
	return s->regs_abi != 0 && s->nr_regs != 0 && s->stack_size != 0;
}

/* Where the unwinding of an event's copy stopped early (it ran off the
 * copy, or could not step at all), the user fp chain the event also
 * carries goes on (msg.h, PL_EVENT_STACK): its entries after the last one
 * the unwound frames also hold (the innermost at least: both start at the
 * sampled IP) are appended to upcs.  The chain skips the frames of code
 * without frame pointers but does not invent any, so what follows a
 * shared frame is outer to every unwound one.  Nothing is appended when
 * the two share no frame.  Returns the new count. */
static guint follow_frame_chain(const struct pl_msg_sample *s, guint64 *upcs, guint un, guint max)
{
	guint from = s->nr_callchain, last = 0;
	for (guint i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == CTX_USER)
			from = i + 1;
	gboolean shared = FALSE;
	for (guint i = from; i < s->nr_callchain && s->callchain[i] < CTX_MAX; i++)
		for (guint j = 0; j < un; j++)
			if (upcs[j] == s->callchain[i]) {
				last = i;
				shared = TRUE;
				break;
			}
	if (!shared)
		return un;
	for (guint i = last + 1; i < s->nr_callchain && s->callchain[i] < CTX_MAX && un < max; i++)
		upcs[un++] = s->callchain[i];
	return un;
}

/* Index of perf register `bit` in a sample's regs (they come in the order
 * of the mask's set bits), -1 when not sampled. */
static int reg_index(guint64 mask, guint bit, guint nr_regs)
{
	if (bit >= 64 || !(mask >> bit & 1))
		return -1;
	int i = __builtin_popcountll(mask & ((1ull << bit) - 1));
	return (guint)i < nr_regs ? i : -1;
}

/* A creation sample stops in libc's clone wrapper at the syscall, which
 * glibc deliberately leaves without CFI (__clone3 ends its FDE there: the
 * child must not unwind past it), so the unwinder stops at the first
 * frame.  The wrapper has pushed nothing and touched no callee-saved
 * register, so its caller's state is one step away: the return address is
 * at [sp] on x86-64 (sp then moves up 8), in lr on ARM.  Unwinds from
 * there into pcs (the wrapper's own IP first); returns the count, 0 when
 * this architecture or sample does not allow it. */
static guint unwind_past_syscall(PlProfile *self, const struct pl_msg_sample *s, guint64 *pcs,
				 guint max, gboolean *truncated)
{
	guint64 mask = self->stats.sample_regs_user;
	guint64 regs[PL_MAX_REGS];
	const guint8 *stack = s->stack;
	guint32 stack_size = s->stack_size;
	int ip, sp, lr = -1;
	guint e = pl_profile_get_symbols(self) ? self->arch.e_machine : 0;
	if (e == 62) { /* EM_X86_64: perf regs SP 7, IP 8 */
		ip = reg_index(mask, 8, s->nr_regs);
		sp = reg_index(mask, 7, s->nr_regs);
	} else if (e == 183) { /* EM_AARCH64: x30 (lr) 30, sp 31, pc 32 */
		lr = reg_index(mask, 30, s->nr_regs);
		sp = reg_index(mask, 31, s->nr_regs);
		ip = reg_index(mask, 32, s->nr_regs);
	} else if (e == 40) { /* EM_ARM: sp 13, lr 14, pc 15 */
		sp = reg_index(mask, 13, s->nr_regs);
		lr = reg_index(mask, 14, s->nr_regs);
		ip = reg_index(mask, 15, s->nr_regs);
	} else if (e == 243) { /* EM_RISCV: pc 0, ra 1, sp 2 */
		ip = reg_index(mask, 0, s->nr_regs);
		lr = reg_index(mask, 1, s->nr_regs);
		sp = reg_index(mask, 2, s->nr_regs);
	} else {
		return 0;
	}
	if (ip < 0 || sp < 0 || (e != 62 && lr < 0) || max < 2 || s->nr_regs > PL_MAX_REGS)
		return 0;
	memcpy(regs, s->regs, s->nr_regs * sizeof(regs[0]));
	if (e == 62) {
		if (stack_size < 8)
			return 0;
		guint64 ret = 0;
		for (int i = 0; i < 8; i++) /* x86-64 is little-endian */
			ret |= (guint64)stack[i] << (8 * i);
		regs[ip] = ret;
		regs[sp] += 8;
		stack += 8;
		stack_size -= 8;
	} else {
		regs[ip] = regs[lr];
	}
	pcs[0] = s->regs[ip];
	guint n = pl_symbols_unwind(pl_profile_get_symbols(self), s->pid, s->tid, mask, regs,
				    s->nr_regs, stack, stack_size, pcs + 1, max - 1, truncated);
	return n ? n + 1 : 0;
}

/* ─── stacks seen before ─────────────────────────────────────────────── */

/* Most samples repeat a stack seen before: the address trie would find
 * every one of its nodes again, one lookup per frame.  A direct-mapped
 * cache from a hash of the whole stack to its leaf skips that; the leaf is
 * taken only when the trie path up from it is exactly this stack (address
 * and flags of every frame, then the root of this event and pid), so a
 * collision or an evicted entry costs the walk down the trie, never a
 * different answer.  Trie nodes never change address, flags or parent
 * (a perf map renames their functions, not them). */
static guint64 stack_hash(PlProfile *self, guint32 event, guint32 pid, guint n)
{
	guint64 h = ((guint64)event << 32 | pid) * 0x9e3779b97f4a7c15ull ^ n;
	for (guint i = 0; i < n; i++) {
		h ^= self->pcs[i] + ((guint64)self->pc_flags[i] << 59);
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static gboolean stack_memo_find(PlProfile *self, guint64 h, guint32 event, guint32 pid, guint n,
				guint32 *leaf, guint32 *outer)
{
	if (!self->stack_memo || event >= G_MAXUINT16)
		return FALSE;
	const PlStackMemo *e = &self->stack_memo[h & (PL_STACK_MEMO_SIZE - 1)];
	if (e->hash != h || e->leaf == PL_NO_ID)
		return FALSE;
	const AddrNode *a = (const AddrNode *)(void *)self->addrs->data;
	guint32 x = e->leaf, last = PL_NO_ID;
	for (guint i = 0; i < n; i++) {
		if (x == PL_NO_ID || (a[x].flags & AF_ROOT) || a[x].pc != self->pcs[i] ||
		    a[x].flags != self->pc_flags[i])
			return FALSE;
		last = x;
		x = a[x].parent;
	}
	if (x == PL_NO_ID || !(a[x].flags & AF_ROOT) || a[x].pc != pid || a[x].event != event)
		return FALSE;
	*leaf = e->leaf;
	*outer = last;
	return TRUE;
}

static void stack_memo_put(PlProfile *self, guint64 h, guint32 event, guint32 leaf)
{
	if (event >= G_MAXUINT16) /* the trie keeps 16 bits of it */
		return;
	if (!self->stack_memo) {
		self->stack_memo = g_new(PlStackMemo, PL_STACK_MEMO_SIZE);
		memset(self->stack_memo, 0xff, PL_STACK_MEMO_SIZE * sizeof(PlStackMemo));
	}
	self->stack_memo[h & (PL_STACK_MEMO_SIZE - 1)] = (PlStackMemo){ h, leaf };
}

/* A sample whose chain comes with a load-wide serial
 * (PL_SAMPLE_CHAIN_SERIAL): its stack is a function of the serial, the
 * event, the pid and whether its cpumode is the kernel's (callchain_pcs),
 * so what the walk gave for them once it gives again; the trie's nodes
 * never change.  One slot per serial: another pid or event with the same
 * chain takes the walk (and the slot). */
static PlSerialMemo *serial_memo_slot(PlProfile *self, guint32 serial)
{
	if (!self->serial_memo)
		self->serial_memo = g_array_new(FALSE, FALSE, sizeof(PlSerialMemo));
	GArray *a = self->serial_memo;
	if (serial >= a->len) {
		guint old = a->len, len = MAX(serial + 1, old * 2);
		g_array_set_size(a, len);
		for (guint i = old; i < len; i++)
			g_array_index(a, PlSerialMemo, i).leaf = PL_NO_ID;
	}
	return &g_array_index(a, PlSerialMemo, serial);
}

/* Interns the sample's stack; returns its address-trie leaf.  st gets the
 * stack statistics (a scratch copy for samples that must not count). */
static guint32 sample_stack(PlProfile *self, const struct pl_msg_sample *s, PlProfileStats *st)
{
	guint n;
	UqWalk walk = UQ_CHAIN;
	PlSerialMemo *memo = NULL;
	gboolean dwarf = is_dwarf_sample(s);
	if (!dwarf && (s->flags & PL_SAMPLE_CHAIN_SERIAL) && s->stack_id &&
	    s->event < G_MAXUINT16) {
		memo = serial_memo_slot(self, s->stack_id);
		gboolean kernel = (s->cpumode & 7) == 1;
		if (memo->leaf != PL_NO_ID && memo->pid == s->pid && memo->event == s->event &&
		    memo->kernel == kernel) {
			if (memo->n == 1)
				st->samples_no_stack++;
			if (st == &self->stats)
				pl_profile_note_unwind(self, memo->outer, memo->n, memo->user,
						       UQ_CHAIN);
			return memo->leaf;
		}
		*memo = (PlSerialMemo){ .pid = s->pid, .leaf = PL_NO_ID, .event = (guint16)s->event,
					.kernel = kernel };
	}
	if (dwarf) {
		/* kernel part from the callchain, user part unwound from the copy */
		st->dwarf_samples++;
		n = callchain_pcs(self, s, FALSE);
		gboolean truncated = FALSE;
		guint64 upcs[PL_MAX_CALLCHAIN];
		guint un = pl_symbols_unwind(pl_profile_get_symbols(self), s->pid, s->tid,
					     self->stats.sample_regs_user,
					     s->regs, s->nr_regs, s->stack, s->stack_size, upcs,
					     PL_MAX_CALLCHAIN - n, &truncated);
		if (un <= 1 && pl_profile_event_get(self, s->event)->role == PL_ROLE_CREATE) {
			guint un2 = unwind_past_syscall(self, s, upcs, PL_MAX_CALLCHAIN - n,
							&truncated);
			if (un2 > un)
				un = un2;
		}
		if (truncated || un <= 1) { /* the hybrid of events: fp beyond */
			guint have = un ? un : 1;
			if (!un)
				upcs[0] = s->ip;
			guint got = follow_frame_chain(s, upcs, have, PL_MAX_CALLCHAIN - n);
			if (got > have)
				un = got;
		}
		walk = UQ_DWARF_DONE;
		if (un == 0) {
			st->dwarf_failed++;
			upcs[0] = s->ip;
			un = 1;
			walk = UQ_DWARF_FAILED;
		} else if (truncated) {
			st->dwarf_truncated++;
			walk = s->stack_requested && s->stack_size >= s->stack_requested
				       ? UQ_DWARF_COPY_FULL
				       : UQ_DWARF_ENDED;
		}
		for (guint i = 0; i < un && n < PL_MAX_CALLCHAIN; i++) {
			self->pcs[n] = upcs[i];
			self->pc_flags[n] = i ? AF_RETURN : 0;
			n++;
		}
	} else {
		n = callchain_pcs(self, s, TRUE);
	}
	if (n == 0) {
		memo = NULL; /* the stack is the sample's ip: not the chain's */
		st->samples_no_stack++;
		self->pcs[0] = s->ip;
		self->pc_flags[0] = (s->cpumode & 7) == 1 ? AF_KERNEL : 0;
		n = 1;
	} else if (n == 1) {
		st->samples_no_stack++;
	}
	guint32 node, outer = PL_NO_ID;
	gboolean user = FALSE;
	guint64 h = stack_hash(self, s->event, s->pid, n);
	if (!stack_memo_find(self, h, s->event, s->pid, n, &node, &outer)) {
		node = pl_profile_addr_root(self, s->event, s->pid);
		for (guint i = n; i-- > 0;) {
			node = pl_profile_addr_intern(self, node, s->pid, self->pcs[i],
						      self->pc_flags[i]);
			if (outer == PL_NO_ID)
				outer = node;
		}
		stack_memo_put(self, h, s->event, node);
	}
	for (guint i = 0; i < n; i++)
		user |= !(self->pc_flags[i] & AF_KERNEL);
	if (memo && n <= G_MAXUINT16) {
		memo->leaf = node;
		memo->outer = outer;
		memo->n = (guint16)n;
		memo->user = user;
	}
	if (st == &self->stats) /* a CPU sample, not a thread's creation */
		pl_profile_note_unwind(self, outer, n, user, walk);
	return node;
}

/* A thread-creation sample: its stack goes to the child (pl-profile.h),
 * nothing is counted as CPU time. */
static void ingest_creation(PlProfile *self, const struct pl_msg_sample *s)
{
	PlProfileStats scratch = { 0 };
	self->stats.creation_samples++;
	pl_profile_see_time(self, s->time);
	guint32 stack = sample_stack(self, s, &scratch);
	ForkMark *f = g_hash_table_lookup(self->forks, GUINT_TO_POINTER(s->tid));
	PlThread *child = f ? g_hash_table_lookup(self->threads, GUINT_TO_POINTER(f->child)) : NULL;
	if (!child || s->time < f->time || s->time - f->time > CREATION_MAX_DELAY_NS ||
	    child->creation_stack != PL_NO_ID) {
		/* unpaired unless its FORK follows within CREATION_EARLY_NS */
		self->stats.creation_unpaired++;
		if (!f) {
			f = g_new0(ForkMark, 1);
			g_hash_table_insert(self->forks, GUINT_TO_POINTER(s->tid), f);
		}
		f->early = TRUE;
		f->early_stack = stack;
		f->early_time = s->time;
		return;
	}
	child->creation_stack = stack;
	g_hash_table_remove(self->forks, GUINT_TO_POINTER(s->tid));
}

/* perf's stack pointer register for the board's architecture, or -1. */
static int sp_reg(PlProfile *self)
{
	guint e = pl_profile_get_symbols(self) ? self->arch.e_machine : 0;
	return e == 62 ? 7 : e == 183 ? 31 : e == 40 ? 13 : -1; /* x86-64, AArch64, ARM */
}

/* The word at user address a, from the sample's stack copy (which starts
 * at sp); FALSE when outside it. */
static gboolean copy_word(PlProfile *self, const struct pl_msg_sample *s, guint64 sp, guint64 a,
			  guint64 *out)
{
	guint w = self->arch.word_size == 4 ? 4 : 8;
	if (a < sp || a - sp > s->stack_size || s->stack_size - (a - sp) < w)
		return FALSE;
	const guint8 *p = s->stack + (a - sp);
	*out = 0;
	for (guint i = 0; i < w; i++)
		*out |= (guint64)p[self->arch.big_endian ? w - 1 - i : i] << (8 * i);
	return TRUE;
}

/* A marker's text (msg.h, PL_MARKER_TRACEPOINT): the writev's iovecs and
 * the text they point at, read from the stack copy, the signature checked.
 * NULL for any other writev, or when the copy does not hold them. */
static const guint8 *marker_text(PlProfile *self, const struct pl_msg_sample *s, PlEvent *ev,
				 guint32 *len)
{
	const PlTraceFormat *f = g_hash_table_lookup(self->trace_formats,
						     GUINT_TO_POINTER(ev->index));
	const PlTraceField *vec = pl_trace_format_find(f, "vec");
	gint64 v;
	int sp = sp_reg(self);
	guint64 mask = self->stats.sample_regs_user;
	if (!vec || sp < 0 || !s->stack_size || !(mask >> sp & 1) ||
	    !pl_trace_field_int(vec, s->raw, s->raw_size, self->arch.big_endian, &v))
		return NULL;
	int ri = __builtin_popcountll(mask & ((1ull << sp) - 1));
	if ((guint)ri >= s->nr_regs)
		return NULL;
	guint64 sp_val = s->regs[ri], a = (guint64)v, w = self->arch.word_size == 4 ? 4 : 8;
	guint64 iov[6];
	for (guint i = 0; i < 6; i++)
		if (!copy_word(self, s, sp_val, a + i * w, &iov[i]))
			return NULL;
	if (iov[2] != PL_MARKER_SIG1 || iov[3] != 0 || iov[4] != PL_MARKER_SIG2 || iov[5] != 0 ||
	    iov[1] > PL_MAX_STR || iov[0] < sp_val || iov[0] - sp_val > s->stack_size ||
	    s->stack_size - (iov[0] - sp_val) < iov[1])
		return NULL;
	*len = (guint32)iov[1];
	return s->stack + (iov[0] - sp_val);
}

/* A tracepoint hit: kept with its stack and a copy of its
 * payload, apart from the CPU samples; the fields are decoded when asked
 * (pl-tracepoint.c).  A marker keeps its text as payload. */
static void ingest_trace(PlProfile *self, PlEvent *ev, const struct pl_msg_sample *s)
{
	PlProfileStats scratch = { 0 };
	pl_profile_see_time(self, s->time);
	const guint8 *raw = s->raw;
	guint32 raw_len = s->raw_size;
	gboolean marker = !g_strcmp0(ev->name, "markers");
	if (marker)
		raw = marker_text(self, s, ev, &raw_len);
	if (self->trace_events->len >= PL_MAX_TRACE_EVENTS ||
	    self->trace_raw->len > G_MAXUINT32 - PL_MAX_RAW || (raw_len && !raw) ||
	    (marker && !raw)) {
		self->stats.trace_dropped++;
		return;
	}
	self->stats.trace_events++;
	ev->samples++;
	pl_profile_thread_get(self, s->pid, s->tid);
	PlTraceEvent e = { s->time, s->pid, s->tid, s->event, sample_stack(self, s, &scratch),
			   self->trace_raw->len, raw_len, marker, s->cpu };
	g_byte_array_append(self->trace_raw, raw, raw_len);
	g_array_append_val(self->trace_events, e);
}

guint32 pl_profile_sample_ctx_intern(PlProfile *self, guint32 tid, guint64 weight)
{
	if (self->last_ctx != PL_NO_ID) {
		const PlSampleCtx *c = &g_array_index(self->sample_ctx, PlSampleCtx, self->last_ctx);
		if (c->tid == tid && c->weight == weight)
			return self->last_ctx;
	}
	guint32 id = pl_id_table_lookup(&self->ctx_tab, tid, weight);
	if (id == PL_NO_ID) {
		id = pl_profile_sample_ctx_add(self, tid, weight);
		pl_id_table_insert(&self->ctx_tab, tid, weight, id);
	}
	self->last_ctx = id;
	return id;
}

guint32 pl_profile_sample_ctx_add(PlProfile *self, guint32 tid, guint64 weight)
{
	PlSampleCtx c = { weight, tid };
	g_array_append_val(self->sample_ctx, c);
	return self->sample_ctx->len - 1;
}

void pl_profile_ingest_sample(PlProfile *self, const struct pl_msg_sample *s)
{
	PlProfileStats *st = &self->stats;
	PlEvent *ev = pl_profile_event_get(self, s->event);
	if (ev->role == PL_ROLE_CREATE) {
		ingest_creation(self, s);
		return;
	}
	if (ev->role == PL_ROLE_TRACEPOINT) {
		/* a probe fires in every process (agent/events.c): a --pid or
		 * --command session shows its own processes' hits */
		if (ev->everywhere && st->target != PL_TARGET_ALL && s->pid != st->target_pid &&
		    !g_hash_table_contains(self->processes, GUINT_TO_POINTER(s->pid))) {
			st->probe_hits_elsewhere++;
			return;
		}
		ingest_trace(self, ev, s);
		return;
	}
	st->samples++;
	pl_profile_see_time(self, s->time);
	guint32 node = sample_stack(self, s, st);

	PlThread *t = pl_profile_thread_get(self, s->pid, s->tid);
	t->samples++;
	ev->samples++;
	/* a switch sample is weighed by the off-CPU time that follows:
	 * known at switch-in */
	guint64 w = ev->role == PL_ROLE_SWITCH ? 0 : s->period ? s->period : 1;
	PlSample sm = { s->time, node, pl_profile_sample_ctx_intern(self, s->tid, w) };
	if (ev->role == PL_ROLE_SWITCH) {
		guint idx = self->samples->len;
		if (t->pending->len < 4096)
			g_array_append_val(t->pending, idx);
	}
	g_array_append_val(self->samples, sm);
}

/* ─── thread creation ────────────────────────────────────────────────── */

guint32 pl_profile_thread_creation_stack(PlProfile *self, guint32 tid, const char **why)
{
	const PlProfileStats *st = &self->stats;
	PlThread *t = g_hash_table_lookup(self->threads, GUINT_TO_POINTER(tid));
	if (why)
		*why = NULL;
	if (t && t->creation_stack != PL_NO_ID)
		return t->creation_stack;
	if (!why || !t || !t->start || !t->ptid)
		return PL_NO_ID; /* no FORK: it was there before the session */
	if (st->creation_missing)
		*why = st->creation_missing;
	else if (!st->creation_recorded)
		*why = "this recording has no thread creations (an agent older than "
		       "protocol 3, or a perf.data file)";
	else
		*why = "its creation sample was lost (see the recording's losses)";
	return PL_NO_ID;
}
