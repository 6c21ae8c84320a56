/* pl-msg-pack.c — decoded messages packed into bytes and back; see
 * pl-msg-pack.h. */
#include "pl-msg-pack.h"

#include <string.h>

gboolean pl_msg_packable(guint32 type)
{
	return type == PL_MSG_SAMPLE || type == PL_MSG_MMAP || type == PL_MSG_COMM ||
	       type == PL_MSG_TASK || type == PL_MSG_SWITCH;
}

/* A sample's fixed part around its arrays: [0, callchain), [regs_abi,
 * regs), [stack_size, end). */
#define SAMPLE_HEAD offsetof(struct pl_msg_sample, callchain)
#define SAMPLE_MID_AT offsetof(struct pl_msg_sample, regs_abi)
#define SAMPLE_MID (offsetof(struct pl_msg_sample, regs) - SAMPLE_MID_AT)
#define SAMPLE_TAIL_AT offsetof(struct pl_msg_sample, stack_size)
#define SAMPLE_TAIL (sizeof(struct pl_msg_sample) - SAMPLE_TAIL_AT)

/* A packed sample's flag: no registers, stack copy or payload (a frame-
 * pointer sample), so the middle and tail parts, all zero, are left out. */
#define PACKED_BARE (1u << 30)

static inline gboolean sample_bare(const struct pl_msg_sample *s)
{
	return !s->regs_abi && !s->nr_regs && !s->stack_size && !s->stack_requested &&
	       !s->raw_size;
}

gsize pl_msg_packed_size(const struct pl_msg *m)
{
	gsize n = sizeof(m->type);
	switch (m->type) {
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *s = &m->u.sample;
		gsize chain = (s->flags & PL_SAMPLE_CHAIN_SERIAL) ? 0 : s->nr_callchain;
		if (sample_bare(s))
			return n + SAMPLE_HEAD + chain * sizeof(guint64);
		return n + SAMPLE_HEAD + chain * sizeof(guint64) + SAMPLE_MID +
		       s->nr_regs * sizeof(guint64) + SAMPLE_TAIL + s->stack_size + s->raw_size;
	}
	case PL_MSG_MMAP:
		return n + sizeof(m->u.mmap) + m->u.mmap.filename.len;
	case PL_MSG_COMM:
		return n + sizeof(m->u.comm) + m->u.comm.comm.len;
	case PL_MSG_TASK:
		return n + sizeof(m->u.task);
	default: /* SWITCH */
		return n + sizeof(m->u.sw);
	}
}

static inline guint8 *put(guint8 *p, const void *src, gsize n)
{
	if (n)
		memcpy(p, src, n);
	return p + n;
}

static inline const guint8 *get(const guint8 *p, void *dst, gsize n)
{
	if (n)
		memcpy(dst, p, n);
	return p + n;
}

void pl_msg_pack(guint8 *p, const struct pl_msg *m)
{
	p = put(p, &m->type, sizeof(m->type));
	switch (m->type) {
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *s = &m->u.sample;
		guint8 *head = p;
		p = put(p, s, SAMPLE_HEAD);
		if (!(s->flags & PL_SAMPLE_CHAIN_SERIAL))
			p = put(p, s->callchain, s->nr_callchain * sizeof(guint64));
		if (sample_bare(s)) { /* the reader leaves no flag of the wire's set */
			guint32 flags = s->flags | PACKED_BARE;
			memcpy(head + offsetof(struct pl_msg_sample, flags), &flags, sizeof(flags));
			break;
		}
		p = put(p, (const guint8 *)s + SAMPLE_MID_AT, SAMPLE_MID);
		p = put(p, s->regs, s->nr_regs * sizeof(guint64));
		p = put(p, (const guint8 *)s + SAMPLE_TAIL_AT, SAMPLE_TAIL);
		p = put(p, s->stack, s->stack_size);
		put(p, s->raw, s->raw_size);
		break;
	}
	case PL_MSG_MMAP:
		p = put(p, &m->u.mmap, sizeof(m->u.mmap));
		put(p, m->u.mmap.filename.p, m->u.mmap.filename.len);
		break;
	case PL_MSG_COMM:
		p = put(p, &m->u.comm, sizeof(m->u.comm));
		put(p, m->u.comm.comm.p, m->u.comm.comm.len);
		break;
	case PL_MSG_TASK:
		put(p, &m->u.task, sizeof(m->u.task));
		break;
	default:
		put(p, &m->u.sw, sizeof(m->u.sw));
		break;
	}
}

void pl_msg_unpack(const guint8 *p, struct pl_msg *m)
{
	p = get(p, &m->type, sizeof(m->type));
	switch (m->type) {
	case PL_MSG_SAMPLE: {
		struct pl_msg_sample *s = &m->u.sample;
		p = get(p, s, SAMPLE_HEAD);
		if (!(s->flags & PL_SAMPLE_CHAIN_SERIAL))
			p = get(p, s->callchain, s->nr_callchain * sizeof(guint64));
		if (s->flags & PACKED_BARE) {
			s->flags &= ~PACKED_BARE;
			s->regs_abi = 0;
			s->nr_regs = 0;
			s->stack_size = s->stack_requested = 0;
			s->stack = NULL;
			s->raw_size = 0;
			s->raw = NULL;
			break;
		}
		p = get(p, (guint8 *)s + SAMPLE_MID_AT, SAMPLE_MID);
		p = get(p, s->regs, s->nr_regs * sizeof(guint64));
		p = get(p, (guint8 *)s + SAMPLE_TAIL_AT, SAMPLE_TAIL);
		s->stack = s->stack_size ? p : NULL;
		p += s->stack_size;
		s->raw = s->raw_size ? p : NULL;
		break;
	}
	case PL_MSG_MMAP:
		p = get(p, &m->u.mmap, sizeof(m->u.mmap));
		m->u.mmap.filename.p = (const char *)p;
		break;
	case PL_MSG_COMM:
		p = get(p, &m->u.comm, sizeof(m->u.comm));
		m->u.comm.comm.p = (const char *)p;
		break;
	case PL_MSG_TASK:
		get(p, &m->u.task, sizeof(m->u.task));
		break;
	default:
		get(p, &m->u.sw, sizeof(m->u.sw));
		break;
	}
}
