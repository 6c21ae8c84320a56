/* pl-trace-format.h — a tracepoint's tracefs `format` file read into
 * fields, and a raw payload decoded with it.
 *
 * Everything here is bounds-checked against the payload: a field that
 * does not fit it (a truncated payload, a format from another kernel)
 * decodes as absent, never past the bytes.  Pure functions over their
 * arguments: no profile, no GTK. */
#ifndef PL_TRACE_FORMAT_H
#define PL_TRACE_FORMAT_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
	PL_TF_INT,      /* size 1, 2, 4 or 8, signed or not */
	PL_TF_CHARS,    /* char name[N]: a NUL-padded string; N = 0: to the payload's end */
	PL_TF_DATA_LOC, /* __data_loc char[]: u32, offset in the low 16 bits, length above */
	PL_TF_BYTES,    /* anything else (other arrays, structs): shown as hex */
} PlTraceFieldKind;

typedef struct {
	char *name;
	char *type; /* as the format declares it: "pid_t", "char[16]"… */
	guint offset, size;
	gboolean is_signed;
	gboolean is_common; /* common_type, common_pid…: the same for every tracepoint */
	gboolean pointer;   /* shown in hex */
	PlTraceFieldKind kind;
} PlTraceField;

typedef struct {
	char *name; /* "sched_wakeup" */
	guint id;
	GPtrArray *fields; /* PlTraceField*, in the format's order */
} PlTraceFormat;

/* Parses a tracefs format file.  NULL with error when it has no field. */
PlTraceFormat *pl_trace_format_parse(const char *text, gsize len, GError **error);
void pl_trace_format_free(PlTraceFormat *f);
/* The format of an event whose payload the agent lays out itself or that
 * tracefs does not list (msg.h): a probe ("u:…", "k:…": the probed
 * address, word_size bytes; "…%return": the function and the address it
 * returned to) or "slow-syscalls" (struct pl_slow_syscall).
 * NULL for any other name. */
PlTraceFormat *pl_trace_format_builtin(const char *event, guint word_size);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlTraceFormat, pl_trace_format_free)
const PlTraceField *pl_trace_format_find(const PlTraceFormat *f, const char *name);

/* An integer field's value (sign-extended when signed); FALSE when the
 * field is not an integer or does not fit the payload. */
gboolean pl_trace_field_int(const PlTraceField *f, const guint8 *raw, gsize len,
			    gboolean big_endian, gint64 *out);
/* A string field (CHARS or DATA_LOC), up to its NUL; NULL when absent.
 * Owned by the caller. */
char *pl_trace_field_dup_string(const PlTraceField *f, const guint8 *raw, gsize len,
				gboolean big_endian);
/* Appends "value" as text (decimal, 0x… for pointers, the string, or hex
 * bytes); FALSE (nothing appended) when the field does not fit. */
gboolean pl_trace_field_append(const PlTraceField *f, const guint8 *raw, gsize len,
			       gboolean big_endian, GString *out);
/* "name=value name=value …" for the non-common fields. */
char *pl_trace_format_dup_fields(const PlTraceFormat *f, const guint8 *raw, gsize len,
				 gboolean big_endian);

G_END_DECLS

#endif
