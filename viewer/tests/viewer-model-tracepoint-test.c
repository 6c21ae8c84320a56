/* viewer-model-tracepoint-test.c — tracefs format files and raw payloads
 * (pl-tracepoint.h): sched_wakeup's format as this kernel writes it, its
 * fields decoded from a payload laid out by it (both byte orders, a
 * negative pid), __data_loc strings, payloads cut short (a field past the
 * end is absent, never read), a format without fields refused, and every
 * sched:* format of the running kernel parsed (when tracefs is readable). */
#include <string.h>

#include "viewer-test-util.h"

#include "pl-tracepoint.h"

static const char wakeup_fmt[] =
	"name: sched_wakeup\n"
	"ID: 374\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
	"REC->prio, REC->target_cpu\n";

static const char exec_fmt[] =
	"name: sched_process_exec\n"
	"ID: 370\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:const void * ptr;\toffset:24;\tsize:8;\tsigned:0;\n";

static void put(guint8 *p, guint64 v, guint size, gboolean be)
{
	for (guint i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (guint8)(v >> (8 * i));
}

static void wakeup_payload(guint8 *raw, gboolean be)
{
	memset(raw, 0, 40);
	put(raw, 374, 2, be);
	memcpy(raw + 8, "kworker/0:1", 11);
	put(raw + 24, (guint32)-5, 4, be);
	put(raw + 28, 120, 4, be);
	put(raw + 32, 3, 4, be);
}

static void wakeup_fields(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(PlTraceFormat) f = pl_trace_format_parse(wakeup_fmt, strlen(wakeup_fmt), &error);
	PL_CHECKF(f, "%s", error ? error->message : "?");
	PL_CHECK(!strcmp(f->name, "sched_wakeup") && f->id == 374 && f->fields->len == 8);
	const PlTraceField *comm = pl_trace_format_find(f, "comm");
	PL_CHECK(comm && comm->kind == PL_TF_CHARS && comm->offset == 8 && comm->size == 16);
	PL_CHECK(!strcmp(comm->type, "char[16]"));
	const PlTraceField *pid = pl_trace_format_find(f, "pid");
	PL_CHECK(pid && pid->kind == PL_TF_INT && pid->is_signed && !strcmp(pid->type, "pid_t"));
	PL_CHECK(pl_trace_format_find(f, "common_pid")->is_common);
	for (int be = 0; be < 2; be++) {
		guint8 raw[40];
		wakeup_payload(raw, be);
		g_autofree char *s = pl_trace_format_dup_fields(f, raw, sizeof(raw), be);
		PL_CHECKF(!strcmp(s, "comm=kworker/0:1 pid=-5 prio=120 target_cpu=3"), "%s: %s",
			  be ? "big-endian" : "little-endian", s);
		gint64 v;
		PL_CHECK(pl_trace_field_int(pid, raw, sizeof(raw), be, &v) && v == -5);
	}
}

static void cut_short(void)
{
	g_autoptr(PlTraceFormat) f = pl_trace_format_parse(wakeup_fmt, strlen(wakeup_fmt), NULL);
	guint8 raw[40];
	wakeup_payload(raw, FALSE);
	/* 30 bytes: pid (24..28) fits, prio (28..32) and target_cpu do not */
	g_autofree char *s = pl_trace_format_dup_fields(f, raw, 30, FALSE);
	PL_CHECKF(!strcmp(s, "comm=kworker/0:1 pid=-5"), "%s", s);
	gint64 v;
	PL_CHECK(!pl_trace_field_int(pl_trace_format_find(f, "prio"), raw, 31, FALSE, &v));
	PL_CHECK(!pl_trace_field_dup_string(pl_trace_format_find(f, "comm"), raw, 20, FALSE));
	g_autofree char *none = pl_trace_format_dup_fields(f, raw, 0, FALSE);
	PL_CHECK(!strcmp(none, ""));
}

static void data_loc(void)
{
	g_autoptr(PlTraceFormat) f = pl_trace_format_parse(exec_fmt, strlen(exec_fmt), NULL);
	PL_CHECK(f);
	const PlTraceField *fn = pl_trace_format_find(f, "filename");
	PL_CHECK(fn && fn->kind == PL_TF_DATA_LOC && !strcmp(fn->type, "__data_loc char[]"));
	PL_CHECK(pl_trace_format_find(f, "ptr")->pointer);
	guint8 raw[48] = { 0 };
	memcpy(raw + 32, "/bin/true", 10);
	put(raw + 8, (10u << 16) | 32, 4, FALSE);
	put(raw + 12, 77, 4, FALSE);
	put(raw + 24, 0xdeadbeef, 8, FALSE);
	g_autofree char *s = pl_trace_format_dup_fields(f, raw, sizeof(raw), FALSE);
	PL_CHECKF(!strcmp(s, "filename=/bin/true pid=77 old_pid=0 ptr=0xdeadbeef"), "%s", s);
	/* a location past the payload: absent */
	put(raw + 8, (10u << 16) | 40, 4, FALSE);
	PL_CHECK(!pl_trace_field_dup_string(fn, raw, sizeof(raw), FALSE));
	put(raw + 8, (0xffffu << 16) | 0xffff, 4, FALSE);
	PL_CHECK(!pl_trace_field_dup_string(fn, raw, sizeof(raw), FALSE));
}

static void bad_formats(void)
{
	g_autoptr(GError) error = NULL;
	const char junk[] = "name: x\nID: 1\nformat:\n\tfield:;\toffset:zz;\n\tnothing\n";
	PL_CHECK(!pl_trace_format_parse(junk, strlen(junk), &error) && error);
	PL_CHECK(!pl_trace_format_parse("", 0, NULL));
}

/* every sched:* format of the running kernel */
static void kernel_formats(void)
{
	const char *root = "/sys/kernel/tracing/events/sched";
	g_autoptr(GDir) d = g_dir_open(root, 0, NULL);
	if (!d)
		PL_SKIP("[no-kernel-feature:tracefs] %s is not readable here", root);
	guint n = 0;
	for (const char *e; (e = g_dir_read_name(d));) {
		g_autofree char *path = g_build_filename(root, e, "format", NULL);
		g_autofree char *text = NULL;
		gsize len;
		if (!g_file_get_contents(path, &text, &len, NULL))
			continue;
		g_autoptr(GError) error = NULL;
		g_autoptr(PlTraceFormat) f = pl_trace_format_parse(text, len, &error);
		PL_CHECKF(f && f->fields->len >= 4 && !strcmp(f->name, e), "%s: %s", path,
			  error ? error->message : "wrong name or too few fields");
		for (guint i = 0; i < f->fields->len; i++) {
			const PlTraceField *x = f->fields->pdata[i];
			PL_CHECKF(x->kind != PL_TF_INT || x->size == 1 || x->size == 2 ||
					  x->size == 4 || x->size == 8,
				  "%s: %s", e, x->name);
		}
		n++;
	}
	PL_CHECKF(n >= 10, "only %u sched formats parsed", n);
	printf("# %u sched:* formats of this kernel parsed\n", n);
}

PL_TEST_MAIN(PL_CASE(wakeup_fields), PL_CASE(cut_short), PL_CASE(data_loc), PL_CASE(bad_formats),
	     PL_CASE(kernel_formats))
