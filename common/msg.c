/* msg.c — message bodies, described once as field tables.
 *
 * Each message type is a list of fields (kind, offset in its struct, cap).
 * One encoder and one decoder walk the list, so a body cannot be written in
 * one order and read in another, and every cap is checked in one place.
 */
#include "msg.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum field_kind {
	F_U8,      /* varint into uint8_t */
	F_U16,     /* varint into uint16_t */
	F_U32,     /* varint into uint32_t */
	F_U64,     /* varint into uint64_t */
	F_S32,     /* zig-zag varint into int32_t */
	F_S64,     /* zig-zag varint into uint64_t (deltas that may be negative) */
	F_STR,     /* struct pl_str, cap bytes */
	F_BYTES,   /* uint32_t len at off, const uint8_t * at off2, cap bytes */
	F_BUILDID, /* uint8_t len at off, uint8_t[PL_MAX_BUILD_ID] at off2 */
	F_U64S,    /* uint32_t count at off, uint64_t[] at off2, cap entries */
	F_CHAIN,   /* as F_U64S, entries zig-zag delta coded */
	F_S64S,    /* as F_U64S, entries zig-zag coded (each on its own) */
	F_STRS,    /* uint32_t count at off, struct pl_str[] at off2, cap entries */
	F_COUNTS,  /* uint32_t count at off, struct pl_counter_value[] at off2 */
	F_TAIL_BYTES, /* as F_BYTES, a message's last field, absent when empty */
	F_TAIL_U32,   /* as F_U32, last, absent (0) in older writers' bodies */
};

struct field {
	uint8_t kind;
	uint16_t off;
	uint16_t off2;
	uint32_t cap;
};

struct msg_desc {
	uint16_t type;
	const char *name;
	const struct field *fields;
	size_t nfields;
};

#define FLD(k, s, m) { k, offsetof(struct s, m), 0, 0 }
#define STR(s, m) { F_STR, offsetof(struct s, m), 0, PL_MAX_STR }
#define ARR(k, s, n, a, cap) { k, offsetof(struct s, n), offsetof(struct s, a), cap }

static const struct field hello_f[] = {
	FLD(F_U32, pl_msg_hello, protocol_version), STR(pl_msg_hello, agent_version),
	STR(pl_msg_hello, machine), FLD(F_U32, pl_msg_hello, e_machine),
	FLD(F_U8, pl_msg_hello, byte_order), FLD(F_U8, pl_msg_hello, word_size),
	FLD(F_U32, pl_msg_hello, page_size), STR(pl_msg_hello, kernel_release),
	STR(pl_msg_hello, hostname), FLD(F_U32, pl_msg_hello, ncpus),
	FLD(F_U32, pl_msg_hello, clock_id), FLD(F_U64, pl_msg_hello, clock_now_ns),
	FLD(F_U64, pl_msg_hello, wall_now_ns), FLD(F_U32, pl_msg_hello, flags),
	FLD(F_S32, pl_msg_hello, perf_errno),
};
static const struct field probe_event_f[] = {
	STR(pl_msg_probe_event, name), STR(pl_msg_probe_event, pmu),
	FLD(F_U32, pl_msg_probe_event, type), FLD(F_U64, pl_msg_probe_event, config),
	FLD(F_S32, pl_msg_probe_event, status), FLD(F_U32, pl_msg_probe_event, flags),
	STR(pl_msg_probe_event, message),
};
static const struct field probe_cg_f[] = {
	FLD(F_U8, pl_msg_probe_callgraph, mode), FLD(F_S32, pl_msg_probe_callgraph, status),
	FLD(F_U32, pl_msg_probe_callgraph, samples),
	FLD(F_U32, pl_msg_probe_callgraph, samples_with_stack),
	FLD(F_U32, pl_msg_probe_callgraph, max_depth), STR(pl_msg_probe_callgraph, message),
};
static const struct field probe_summary_f[] = {
	FLD(F_S32, pl_msg_probe_summary, paranoid),
	FLD(F_U32, pl_msg_probe_summary, max_sample_rate),
	FLD(F_U32, pl_msg_probe_summary, max_stack),
	FLD(F_S32, pl_msg_probe_summary, kptr_restrict),
	FLD(F_S32, pl_msg_probe_summary, perf_errno),
	FLD(F_U8, pl_msg_probe_summary, kernel_stacks_ok),
	FLD(F_U8, pl_msg_probe_summary, user_stacks_ok),
	STR(pl_msg_probe_summary, default_event), STR(pl_msg_probe_summary, pmus),
	STR(pl_msg_probe_summary, message),
};
static const struct field reply_f[] = {
	FLD(F_U32, pl_msg_reply, request_id), FLD(F_U16, pl_msg_reply, command),
	FLD(F_S32, pl_msg_reply, status), STR(pl_msg_reply, message),
};
static const struct field proc_f[] = {
	FLD(F_U32, pl_msg_proc, request_id), FLD(F_U32, pl_msg_proc, pid),
	FLD(F_U32, pl_msg_proc, ppid), FLD(F_U32, pl_msg_proc, uid),
	FLD(F_U32, pl_msg_proc, threads), FLD(F_U64, pl_msg_proc, rss_kb),
	FLD(F_U64, pl_msg_proc, cpu_ms), STR(pl_msg_proc, comm), STR(pl_msg_proc, cmdline),
};
static const struct field session_f[] = {
	FLD(F_U32, pl_msg_session, session_id), FLD(F_U8, pl_msg_session, target),
	FLD(F_U32, pl_msg_session, pid), FLD(F_U8, pl_msg_session, callgraph),
	FLD(F_U32, pl_msg_session, stack_size), FLD(F_U8, pl_msg_session, stacks),
	FLD(F_U64, pl_msg_session, sample_regs_user), FLD(F_U32, pl_msg_session, frequency),
	FLD(F_U32, pl_msg_session, duration_ms), FLD(F_U32, pl_msg_session, ring_pages),
	FLD(F_U64, pl_msg_session, start_ns), STR(pl_msg_session, command),
};
static const struct field event_desc_f[] = {
	FLD(F_U32, pl_msg_event_desc, index), FLD(F_U8, pl_msg_event_desc, role),
	STR(pl_msg_event_desc, name), FLD(F_U32, pl_msg_event_desc, type),
	FLD(F_U64, pl_msg_event_desc, config), FLD(F_U64, pl_msg_event_desc, config1),
	FLD(F_U64, pl_msg_event_desc, config2), FLD(F_U8, pl_msg_event_desc, freq),
	FLD(F_U64, pl_msg_event_desc, period_or_freq),
	FLD(F_U8, pl_msg_event_desc, exclude_kernel),
};
/* The order on the wire puts what repeats from sample to sample first and
 * the time (which never repeats) last, so that zstd sees one long match per
 * sample instead of several short ones. */
static const struct field sample_f[] = {
	FLD(F_U32, pl_msg_sample, event), FLD(F_U32, pl_msg_sample, pid),
	FLD(F_U32, pl_msg_sample, tid), FLD(F_U32, pl_msg_sample, cpu),
	FLD(F_U8, pl_msg_sample, cpumode), FLD(F_U32, pl_msg_sample, stack_id),
	FLD(F_U64, pl_msg_sample, ip), FLD(F_U64, pl_msg_sample, period),
	ARR(F_CHAIN, pl_msg_sample, nr_callchain, callchain, PL_MAX_CALLCHAIN),
	FLD(F_U64, pl_msg_sample, regs_abi),
	ARR(F_U64S, pl_msg_sample, nr_regs, regs, PL_MAX_REGS),
	ARR(F_BYTES, pl_msg_sample, stack_size, stack, PL_MAX_STACK_COPY),
	FLD(F_U32, pl_msg_sample, stack_requested), FLD(F_U32, pl_msg_sample, flags),
	FLD(F_S64, pl_msg_sample, time),
	ARR(F_TAIL_BYTES, pl_msg_sample, raw_size, raw, PL_MAX_RAW),
};
static const struct field stack_f[] = {
	FLD(F_U32, pl_msg_stack, id), ARR(F_CHAIN, pl_msg_stack, nr, chain, PL_MAX_CALLCHAIN),
};
static const struct field stack_delta_f[] = {
	FLD(F_U32, pl_msg_stack_delta, id), FLD(F_U32, pl_msg_stack_delta, base),
	FLD(F_U32, pl_msg_stack_delta, head), FLD(F_U32, pl_msg_stack_delta, drop),
	ARR(F_S64S, pl_msg_stack_delta, nr, diff, PL_MAX_CALLCHAIN),
};
static const struct field batch_f[] = {
	FLD(F_U32, pl_msg_sample_batch, count), FLD(F_U64, pl_msg_sample_batch, base_time),
	ARR(F_BYTES, pl_msg_sample_batch, len, data, PL_MAX_BATCH_BYTES),
};
static const struct field mmap_f[] = {
	FLD(F_U32, pl_msg_mmap, pid), FLD(F_U32, pl_msg_mmap, tid), FLD(F_U64, pl_msg_mmap, time),
	FLD(F_U64, pl_msg_mmap, start), FLD(F_U64, pl_msg_mmap, len),
	FLD(F_U64, pl_msg_mmap, pgoff), FLD(F_U32, pl_msg_mmap, prot),
	FLD(F_U32, pl_msg_mmap, flags), FLD(F_U32, pl_msg_mmap, maj),
	FLD(F_U32, pl_msg_mmap, min), FLD(F_U64, pl_msg_mmap, ino),
	FLD(F_U8, pl_msg_mmap, cpumode), FLD(F_U8, pl_msg_mmap, snapshot),
	ARR(F_BUILDID, pl_msg_mmap, build_id_len, build_id, PL_MAX_BUILD_ID),
	STR(pl_msg_mmap, filename),
};
static const struct field comm_f[] = {
	FLD(F_U32, pl_msg_comm, pid), FLD(F_U32, pl_msg_comm, tid), FLD(F_U64, pl_msg_comm, time),
	FLD(F_U8, pl_msg_comm, exec), FLD(F_U8, pl_msg_comm, snapshot), STR(pl_msg_comm, comm),
};
static const struct field task_f[] = {
	FLD(F_U8, pl_msg_task, kind), FLD(F_U32, pl_msg_task, pid),
	FLD(F_U32, pl_msg_task, ppid), FLD(F_U32, pl_msg_task, tid),
	FLD(F_U32, pl_msg_task, ptid), FLD(F_U64, pl_msg_task, time),
};
static const struct field switch_f[] = {
	FLD(F_U32, pl_msg_switch, pid), FLD(F_U32, pl_msg_switch, tid),
	FLD(F_U64, pl_msg_switch, time), FLD(F_U32, pl_msg_switch, cpu),
	FLD(F_U8, pl_msg_switch, flags), FLD(F_U32, pl_msg_switch, other_pid),
	FLD(F_U32, pl_msg_switch, other_tid),
};
static const struct field lost_f[] = {
	FLD(F_U8, pl_msg_lost, kind), FLD(F_U32, pl_msg_lost, cpu), FLD(F_U64, pl_msg_lost, time),
	FLD(F_U64, pl_msg_lost, count),
};
static const struct field throttle_f[] = {
	FLD(F_U64, pl_msg_throttle, time), FLD(F_U32, pl_msg_throttle, event),
	FLD(F_U8, pl_msg_throttle, unthrottle),
};
static const struct field counters_f[] = {
	FLD(F_U64, pl_msg_counters, time), ARR(F_COUNTS, pl_msg_counters, n, v, PL_MAX_COUNTERS),
};
static const struct field health_f[] = {
	FLD(F_U64, pl_msg_health, time), FLD(F_U32, pl_msg_health, ncpus),
	FLD(F_U32, pl_msg_health, cpu_busy_permille), FLD(F_U64, pl_msg_health, mem_total_kb),
	FLD(F_U64, pl_msg_health, mem_available_kb), FLD(F_U32, pl_msg_health, load1_x100),
	FLD(F_U32, pl_msg_health, load5_x100), FLD(F_U32, pl_msg_health, load15_x100),
	FLD(F_U64, pl_msg_health, agent_cpu_ns), FLD(F_U64, pl_msg_health, agent_rss_kb),
	FLD(F_U64, pl_msg_health, samples), FLD(F_U64, pl_msg_health, lost),
	FLD(F_U64, pl_msg_health, dropped), FLD(F_U64, pl_msg_health, throttled),
	FLD(F_U64, pl_msg_health, bytes_raw), FLD(F_U64, pl_msg_health, bytes_sent),
};
static const struct field build_id_f[] = {
	FLD(F_U32, pl_msg_build_id, pid), FLD(F_U8, pl_msg_build_id, source),
	ARR(F_BUILDID, pl_msg_build_id, len, id, PL_MAX_BUILD_ID), STR(pl_msg_build_id, path),
};
static const struct field chunk_f[] = {
	FLD(F_U8, pl_msg_file_chunk, kind), FLD(F_U32, pl_msg_file_chunk, pid),
	FLD(F_U64, pl_msg_file_chunk, addr), FLD(F_U64, pl_msg_file_chunk, offset),
	FLD(F_U64, pl_msg_file_chunk, total), STR(pl_msg_file_chunk, name),
	ARR(F_BYTES, pl_msg_file_chunk, len, data, PL_MAX_CHUNK),
};
static const struct field end_f[] = {
	FLD(F_U8, pl_msg_end, reason), FLD(F_S32, pl_msg_end, status),
	FLD(F_U64, pl_msg_end, time), STR(pl_msg_end, message),
};
static const struct field log_f[] = {
	FLD(F_U8, pl_msg_log, level), STR(pl_msg_log, message),
};
static const struct field auth_f[] = {
	FLD(F_U32, pl_msg_auth, request_id), STR(pl_msg_auth, token),
};
static const struct field request_f[] = {
	FLD(F_U32, pl_msg_request, request_id),
};
static const struct field start_f[] = {
	FLD(F_U32, pl_msg_start, request_id), FLD(F_U8, pl_msg_start, target),
	FLD(F_U32, pl_msg_start, pid), ARR(F_STRS, pl_msg_start, argc, argv, PL_MAX_ARGV),
	ARR(F_STRS, pl_msg_start, nevents, events, PL_MAX_EVENTS),
	FLD(F_U32, pl_msg_start, frequency), FLD(F_U8, pl_msg_start, callgraph),
	FLD(F_U32, pl_msg_start, stack_size), FLD(F_U8, pl_msg_start, stacks),
	FLD(F_U32, pl_msg_start, duration_ms), FLD(F_U32, pl_msg_start, flags),
	FLD(F_U32, pl_msg_start, counter_interval_ms),
	FLD(F_TAIL_U32, pl_msg_start, track_interval_ms),
};
static const struct field configure_f[] = {
	FLD(F_U32, pl_msg_configure, request_id), FLD(F_U32, pl_msg_configure, frequency),
	ARR(F_STRS, pl_msg_configure, nevents, events, PL_MAX_EVENTS),
};

static const struct field trigger_f[] = {
	FLD(F_U8, pl_msg_trigger, kind), FLD(F_U64, pl_msg_trigger, time),
	FLD(F_U64, pl_msg_trigger, from), FLD(F_U64, pl_msg_trigger, to),
	STR(pl_msg_trigger, spec), STR(pl_msg_trigger, detail),
};
static const struct field track_desc_f[] = {
	FLD(F_U32, pl_msg_track_desc, id), FLD(F_U8, pl_msg_track_desc, kind),
	FLD(F_S32, pl_msg_track_desc, exp10), FLD(F_U32, pl_msg_track_desc, pid),
	FLD(F_S32, pl_msg_track_desc, cpu), FLD(F_U32, pl_msg_track_desc, interval_ms),
	STR(pl_msg_track_desc, name), STR(pl_msg_track_desc, unit),
	STR(pl_msg_track_desc, source),
};
static const struct field track_values_f[] = {
	FLD(F_U64, pl_msg_track_values, time), FLD(F_U32, pl_msg_track_values, first),
	ARR(F_S64S, pl_msg_track_values, n, v, PL_MAX_TRACKS),
};
/* fleet reporting */
static const struct field report_f[] = {
	STR(pl_msg_report, token), ARR(F_STRS, pl_msg_report, nlabels, labels, PL_MAX_LABELS),
	FLD(F_U32, pl_msg_report, session_period_ms),
};

#define MSG(t, n, f) { t, n, f, sizeof(f) / sizeof(f[0]) }
static const struct msg_desc descs[] = {
	MSG(PL_MSG_HELLO, "HELLO", hello_f),
	MSG(PL_MSG_PROBE_EVENT, "PROBE_EVENT", probe_event_f),
	MSG(PL_MSG_PROBE_CALLGRAPH, "PROBE_CALLGRAPH", probe_cg_f),
	MSG(PL_MSG_PROBE_SUMMARY, "PROBE_SUMMARY", probe_summary_f),
	MSG(PL_MSG_REPLY, "REPLY", reply_f),
	MSG(PL_MSG_PROC, "PROC", proc_f),
	MSG(PL_MSG_SESSION, "SESSION", session_f),
	MSG(PL_MSG_EVENT_DESC, "EVENT_DESC", event_desc_f),
	MSG(PL_MSG_SAMPLE, "SAMPLE", sample_f),
	MSG(PL_MSG_MMAP, "MMAP", mmap_f),
	MSG(PL_MSG_COMM, "COMM", comm_f),
	MSG(PL_MSG_TASK, "TASK", task_f),
	MSG(PL_MSG_SWITCH, "SWITCH", switch_f),
	MSG(PL_MSG_LOST, "LOST", lost_f),
	MSG(PL_MSG_THROTTLE, "THROTTLE", throttle_f),
	MSG(PL_MSG_COUNTERS, "COUNTERS", counters_f),
	MSG(PL_MSG_HEALTH, "HEALTH", health_f),
	MSG(PL_MSG_BUILD_ID, "BUILD_ID", build_id_f),
	MSG(PL_MSG_FILE_CHUNK, "FILE_CHUNK", chunk_f),
	MSG(PL_MSG_END, "END", end_f),
	MSG(PL_MSG_LOG, "LOG", log_f),
	MSG(PL_MSG_STACK, "STACK", stack_f),
	MSG(PL_MSG_SAMPLE_BATCH, "SAMPLE_BATCH", batch_f),
	MSG(PL_MSG_STACK_DELTA, "STACK_DELTA", stack_delta_f),
	MSG(PL_MSG_AUTH, "AUTH", auth_f),
	MSG(PL_MSG_LIST, "LIST", request_f),
	MSG(PL_MSG_PROBE, "PROBE", request_f),
	MSG(PL_MSG_START, "START", start_f),
	MSG(PL_MSG_PAUSE, "PAUSE", request_f),
	MSG(PL_MSG_RESUME, "RESUME", request_f),
	MSG(PL_MSG_CONFIGURE, "CONFIGURE", configure_f),
	MSG(PL_MSG_STOP, "STOP", request_f),
	MSG(PL_MSG_BYE, "BYE", request_f),
	MSG(PL_MSG_TRIGGER, "TRIGGER", trigger_f),
	MSG(PL_MSG_SNAPSHOT, "SNAPSHOT", request_f),
	MSG(PL_MSG_TRACK_DESC, "TRACK_DESC", track_desc_f),
	MSG(PL_MSG_TRACK_VALUES, "TRACK_VALUES", track_values_f),
	/* fleet reporting */
	MSG(PL_MSG_REPORT, "REPORT", report_f),
};
#define NDESCS (sizeof(descs) / sizeof(descs[0]))

const uint16_t pl_msg_types[] = {
	PL_MSG_HELLO,	PL_MSG_PROBE_EVENT, PL_MSG_PROBE_CALLGRAPH, PL_MSG_PROBE_SUMMARY,
	PL_MSG_REPLY,	PL_MSG_PROC,	    PL_MSG_SESSION,	    PL_MSG_EVENT_DESC,
	PL_MSG_SAMPLE,	PL_MSG_MMAP,	    PL_MSG_COMM,	    PL_MSG_TASK,
	PL_MSG_SWITCH,	PL_MSG_LOST,	    PL_MSG_THROTTLE,	    PL_MSG_COUNTERS,
	PL_MSG_HEALTH,	PL_MSG_BUILD_ID,    PL_MSG_FILE_CHUNK,	    PL_MSG_END,
	PL_MSG_LOG,	PL_MSG_STACK,	PL_MSG_SAMPLE_BATCH, PL_MSG_STACK_DELTA, PL_MSG_AUTH,	    PL_MSG_LIST,	    PL_MSG_PROBE,
	PL_MSG_START,	PL_MSG_PAUSE,	    PL_MSG_RESUME,	    PL_MSG_CONFIGURE,
	PL_MSG_STOP,	PL_MSG_BYE,
	PL_MSG_TRIGGER, PL_MSG_SNAPSHOT, PL_MSG_TRACK_DESC, PL_MSG_TRACK_VALUES,
	/* fleet reporting */
	PL_MSG_REPORT,
};
const size_t pl_msg_type_count = sizeof(pl_msg_types) / sizeof(pl_msg_types[0]);
_Static_assert(sizeof(pl_msg_types) / sizeof(pl_msg_types[0]) == NDESCS,
	       "every message type needs a descriptor");

static const struct msg_desc *find_desc(uint16_t type)
{
	/* types are few (≈30): a direct table would be a micro-optimisation
	 * of a lookup that is not on any hot path's critical cost */
	for (size_t i = 0; i < NDESCS; i++)
		if (descs[i].type == type)
			return &descs[i];
	return NULL;
}

const char *pl_msg_type_name(uint16_t type)
{
	const struct msg_desc *d = find_desc(type);
	return d ? d->name : NULL;
}

typedef const uint8_t *cbytes; /* a borrowed byte pointer field */
#define AT(base, off, T) ((T *)((char *)(base) + (off)))
#define CAT(base, off, T) ((const T *)((const char *)(base) + (off)))

/* ─── encoding ─────────────────────────────────────────────────────────── */

static int encode_field(struct pl_writer *w, const struct field *f, const void *s)
{
	switch (f->kind) {
	case F_U8:
		pl_w_varint(w, *CAT(s, f->off, uint8_t));
		break;
	case F_U16:
		pl_w_varint(w, *CAT(s, f->off, uint16_t));
		break;
	case F_TAIL_U32:
		if (!*CAT(s, f->off, uint32_t))
			break;
		/* fall through */
	case F_U32:
		pl_w_varint(w, *CAT(s, f->off, uint32_t));
		break;
	case F_U64:
		pl_w_varint(w, *CAT(s, f->off, uint64_t));
		break;
	case F_S32:
		pl_w_svarint(w, *CAT(s, f->off, int32_t));
		break;
	case F_S64:
		pl_w_svarint(w, (int64_t)*CAT(s, f->off, uint64_t));
		break;
	case F_STR: {
		const struct pl_str *str = CAT(s, f->off, struct pl_str);
		if (str->len > f->cap)
			return -EINVAL;
		pl_w_blob(w, str->p, str->len);
		break;
	}
	case F_TAIL_BYTES:
		if (!*CAT(s, f->off, uint32_t))
			break;
		/* fall through */
	case F_BYTES: {
		uint32_t n = *CAT(s, f->off, uint32_t);
		const uint8_t *p = *CAT(s, f->off2, cbytes);
		if (n > f->cap || (n && !p))
			return -EINVAL;
		pl_w_blob(w, p, n);
		break;
	}
	case F_BUILDID: {
		uint8_t n = *CAT(s, f->off, uint8_t);
		if (n > f->cap)
			return -EINVAL;
		pl_w_blob(w, CAT(s, f->off2, uint8_t), n);
		break;
	}
	case F_U64S:
	case F_CHAIN:
	case F_S64S: {
		uint32_t n = *CAT(s, f->off, uint32_t);
		const uint64_t *v = CAT(s, f->off2, uint64_t);
		uint64_t prev = 0;
		if (n > f->cap)
			return -EINVAL;
		pl_w_varint(w, n);
		for (uint32_t i = 0; i < n; i++) {
			if (f->kind == F_U64S) {
				pl_w_varint(w, v[i]);
			} else {
				pl_w_svarint(w, (int64_t)(v[i] - prev));
				prev = f->kind == F_CHAIN ? v[i] : 0;
			}
		}
		break;
	}
	case F_STRS: {
		uint32_t n = *CAT(s, f->off, uint32_t);
		const struct pl_str *v = CAT(s, f->off2, struct pl_str);
		if (n > f->cap)
			return -EINVAL;
		pl_w_varint(w, n);
		for (uint32_t i = 0; i < n; i++) {
			if (v[i].len > PL_MAX_STR)
				return -EINVAL;
			pl_w_blob(w, v[i].p, v[i].len);
		}
		break;
	}
	case F_COUNTS: {
		uint32_t n = *CAT(s, f->off, uint32_t);
		const struct pl_counter_value *v = CAT(s, f->off2, struct pl_counter_value);
		if (n > f->cap)
			return -EINVAL;
		pl_w_varint(w, n);
		for (uint32_t i = 0; i < n; i++) {
			pl_w_varint(w, v[i].event);
			pl_w_varint(w, v[i].value);
			pl_w_varint(w, v[i].enabled_ns);
			pl_w_varint(w, v[i].running_ns);
		}
		break;
	}
	}
	return 0;
}

int pl_msg_encode(struct pl_writer *w, const struct pl_msg *m)
{
	const struct msg_desc *d = find_desc(m->type);
	if (!d)
		return -EINVAL;
	uint8_t *mark = w->p;
	uint8_t *hdr = pl_w_reserve(w, PL_FRAME_HEADER_SIZE);
	int rc = 0;
	for (size_t i = 0; i < d->nfields && rc == 0 && !w->overflow; i++)
		rc = encode_field(w, &d->fields[i], &m->u);
	if (rc == 0 && !w->overflow &&
	    (size_t)(w->p - hdr) - PL_FRAME_HEADER_SIZE > PL_FRAME_MAX)
		rc = -EINVAL;
	if (rc < 0 || w->overflow) {
		w->p = mark; /* nothing partial stays in the block */
		w->overflow = 0;
		return rc < 0 ? rc : -ENOBUFS;
	}
	struct pl_frame_header fh = { m->type, 0, (uint32_t)(w->p - hdr - PL_FRAME_HEADER_SIZE) };
	pl_frame_header_put(hdr, &fh);
	return 0;
}

/* ─── decoding ─────────────────────────────────────────────────────────── */

static void decode_field(struct pl_cursor *c, const struct field *f, void *s)
{
	switch (f->kind) {
	case F_U8:
		*AT(s, f->off, uint8_t) = (uint8_t)pl_cur_varint_max(c, UINT8_MAX);
		break;
	case F_U16:
		*AT(s, f->off, uint16_t) = (uint16_t)pl_cur_varint_max(c, UINT16_MAX);
		break;
	case F_TAIL_U32:
		if (!pl_cur_left(c))
			break; /* absent: left zero by pl_msg_decode */
		/* fall through */
	case F_U32:
		*AT(s, f->off, uint32_t) = pl_cur_u32v(c);
		break;
	case F_U64:
		*AT(s, f->off, uint64_t) = pl_cur_varint(c);
		break;
	case F_S32: {
		int64_t v = pl_cur_svarint(c);
		if (v < INT32_MIN || v > INT32_MAX)
			pl_cur_fail(c, -E2BIG);
		*AT(s, f->off, int32_t) = (int32_t)v;
		break;
	}
	case F_S64:
		*AT(s, f->off, uint64_t) = (uint64_t)pl_cur_svarint(c);
		break;
	case F_STR:
		*AT(s, f->off, struct pl_str) = pl_cur_str(c, f->cap);
		break;
	case F_TAIL_BYTES:
		if (!pl_cur_left(c))
			break; /* absent: left zero by pl_msg_decode */
		/* fall through */
	case F_BYTES:
		*AT(s, f->off2, cbytes) = pl_cur_blob(c, f->cap, AT(s, f->off, uint32_t));
		break;
	case F_BUILDID: {
		uint32_t n;
		const uint8_t *p = pl_cur_blob(c, f->cap, &n);
		*AT(s, f->off, uint8_t) = (uint8_t)n;
		if (p)
			memcpy(AT(s, f->off2, uint8_t), p, n);
		break;
	}
	case F_U64S:
	case F_CHAIN:
	case F_S64S: {
		uint32_t n = (uint32_t)pl_cur_varint_max(c, f->cap);
		uint64_t *v = AT(s, f->off2, uint64_t);
		uint64_t prev = 0;
		for (uint32_t i = 0; i < n && pl_cur_ok(c); i++) {
			if (f->kind == F_U64S)
				v[i] = pl_cur_varint(c);
			else
				v[i] = prev + (uint64_t)pl_cur_svarint(c);
			if (f->kind == F_CHAIN)
				prev = v[i];
		}
		*AT(s, f->off, uint32_t) = pl_cur_ok(c) ? n : 0;
		break;
	}
	case F_STRS: {
		uint32_t n = (uint32_t)pl_cur_varint_max(c, f->cap);
		struct pl_str *v = AT(s, f->off2, struct pl_str);
		for (uint32_t i = 0; i < n && pl_cur_ok(c); i++)
			v[i] = pl_cur_str(c, PL_MAX_STR);
		*AT(s, f->off, uint32_t) = pl_cur_ok(c) ? n : 0;
		break;
	}
	case F_COUNTS: {
		uint32_t n = (uint32_t)pl_cur_varint_max(c, f->cap);
		struct pl_counter_value *v = AT(s, f->off2, struct pl_counter_value);
		for (uint32_t i = 0; i < n && pl_cur_ok(c); i++) {
			v[i].event = pl_cur_u32v(c);
			v[i].value = pl_cur_varint(c);
			v[i].enabled_ns = pl_cur_varint(c);
			v[i].running_ns = pl_cur_varint(c);
		}
		*AT(s, f->off, uint32_t) = pl_cur_ok(c) ? n : 0;
		break;
	}
	}
}

/* Zeroes only the fixed part a decoder may leave unread: the big arrays of
 * SAMPLE are filled up to their counts and never read past them. */
static size_t header_part(uint16_t type)
{
	if (type == PL_MSG_SAMPLE)
		return offsetof(struct pl_msg_sample, callchain);
	if (type == PL_MSG_STACK)
		return offsetof(struct pl_msg_stack, chain);
	if (type == PL_MSG_STACK_DELTA)
		return offsetof(struct pl_msg_stack_delta, diff);
	if (type == PL_MSG_TRACK_VALUES)
		return offsetof(struct pl_msg_track_values, v);
#ifndef PL_BLOCK_NO_DECOMPRESS
	/* the frames of a capture after SAMPLE: their own struct, not the
	 * union's ~75 KiB (a reader met one every few dozen samples) */
	if (type == PL_MSG_SAMPLE_BATCH)
		return sizeof(struct pl_msg_sample_batch);
	if (type == PL_MSG_SWITCH)
		return sizeof(struct pl_msg_switch);
	if (type == PL_MSG_MMAP)
		return sizeof(struct pl_msg_mmap);
	if (type == PL_MSG_COMM)
		return sizeof(struct pl_msg_comm);
	if (type == PL_MSG_TASK)
		return sizeof(struct pl_msg_task);
#endif
	return sizeof(((struct pl_msg *)0)->u);
}

int pl_msg_decode(uint16_t type, const uint8_t *body, size_t len, struct pl_msg *m, char *err,
		  size_t errlen)
{
	const struct msg_desc *d = find_desc(type);
	if (!d)
		return -ENOENT;
	struct pl_cursor c;
	pl_cur_init(&c, body, len);
	m->type = type;
	memset(&m->u, 0, header_part(type));
	if (type == PL_MSG_SAMPLE) {
		m->u.sample.nr_regs = m->u.sample.stack_size = m->u.sample.stack_requested = 0;
		m->u.sample.regs_abi = 0;
		m->u.sample.stack = NULL;
		m->u.sample.raw_size = 0;
		m->u.sample.raw = NULL;
	}
	/* Every field must be there; trailing bytes after the last known one
	 * are fields of a newer writer and are ignored. */
	for (size_t i = 0; i < d->nfields && pl_cur_ok(&c); i++)
		decode_field(&c, &d->fields[i], &m->u);
	if (!pl_cur_ok(&c)) {
		snprintf(err, errlen, "%s frame of %zu bytes is %s", d->name, len,
			 c.err == -E2BIG ? "over a cap" : "malformed or truncated");
		return c.err;
	}
	return 0;
}

/* ─── STACK_DELTA ──────────────────────────────────────────────────────── */

#ifndef PL_BLOCK_NO_DECOMPRESS /* readers only: the agent writes deltas */
uint32_t pl_stack_delta_apply(const struct pl_msg_stack_delta *d, const uint64_t *base,
			      uint32_t base_nr, uint64_t out[PL_MAX_CALLCHAIN])
{
	if ((uint64_t)d->head + d->drop > base_nr || d->nr > PL_MAX_CALLCHAIN ||
	    (uint64_t)base_nr - d->drop + d->nr > PL_MAX_CALLCHAIN)
		return 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->head; i++)
		out[n++] = base[i];
	for (uint32_t i = 0; i < d->nr; i++, n++)
		out[n] = d->diff[i] + pl_stack_delta_guess(base, out, d->head, d->drop, i);
	for (uint32_t i = d->head + d->drop; i < base_nr; i++)
		out[n++] = base[i];
	return n;
}
#endif
