/* pl-proc-irq-counts.h — the kernel's own interrupt counts beside the
 * recorded ones.  A `record --irq` session's agent reads /proc/interrupts
 * and /proc/softirqs right after its events are on and again before they
 * close (common/msg.h, PL_CHUNK_INTERRUPTS, PL_CHUNK_SOFTIRQS), each read
 * stamped with its time on the samples' clock.  Between the two reads,
 * per line (IRQ number) or softirq vector and per CPU, /proc's delta is
 * what the kernel counted; the irq tracepoint runs the recording holds in
 * the same span (pl-irq.h) are what it sampled.  An interrupt a CPU takes
 * while it idles gives no tracepoint sample on some kernels (6.18 in a
 * VM), so the two differ, and the difference is said, never hidden:
 * missing = /proc's delta - recorded, per line and per CPU (signed: a run
 * entered while the read was under way may be in both).  Samples the
 * recording lost in the span (LOST records) are counted apart, so that
 * idle is not blamed for them.
 *
 * Captures made before the agent sent these have none: then have is
 * FALSE and nothing is compared.  The /proc rows no tracepoint reports
 * (x86's NMI:, LOC:, the IPIs …) are listed as such (traced FALSE).
 *
 * No GTK.  The parser takes the text bounded by its length (no NUL
 * needed); every count, column and line is capped. */
#ifndef PL_PROC_IRQ_COUNTS_H
#define PL_PROC_IRQ_COUNTS_H

#include <glib.h>

#include "pl-irq.h"
#include "pl-proc-irq-reads.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_PROC_IRQ_MAX_CPUS 8192u
#define PL_PROC_IRQ_MAX_LINES 65536u

/* ─── one file as the kernel prints it ──────────────────────────────── */

/* "  36:   123   456   IO-APIC 36-fasteoi virtio1-req.0" or
 * "    NET_RX:  10  20"; a row with fewer counts than columns ("ERR: 0")
 * has n < ncols. */
typedef struct {
	char *key;       /* "36", "NMI", "NET_RX" */
	char *desc;      /* what follows the counts ("" for softirqs) */
	guint handlers;  /* a shared line's handlers: "a, b" is 2 */
	guint n;         /* counts given */
	guint64 *counts; /* by column */
} PlProcIrqLine;

typedef struct {
	guint ncols;
	guint *cpu;       /* the CPU of each column ("CPU0 CPU2": an offline one skipped) */
	GPtrArray *lines; /* PlProcIrqLine* */
} PlProcIrqTable;

/* NULL with error set when text has no "CPUn" header; lines that are not
 * "KEY: counts [desc]" are skipped. */
PlProcIrqTable *pl_proc_irq_table_parse(const char *text, gsize len, GError **error);
void pl_proc_irq_table_free(PlProcIrqTable *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlProcIrqTable, pl_proc_irq_table_free)

/* ─── /proc against the recording ───────────────────────────────────── */

typedef struct {
	gint64 proc;      /* /proc's delta on that CPU */
	guint64 recorded; /* runs recorded there in the span */
} PlProcIrqCpuCount;

typedef struct {
	PlIrqKind kind;
	char *key;        /* "36", "NET_RX", "LOC" */
	char *desc;       /* "IO-APIC 36-fasteoi virtio1-req.0"; a vector's: "" */
	gboolean traced;  /* an IRQ number or a softirq vector: the tracepoints report it */
	guint32 number;   /* the IRQ number or the vector, when traced */
	guint handlers;
	gint64 proc;      /* /proc's delta, all CPUs */
	guint64 recorded; /* interrupts recorded (a shared line: its most-run handler per CPU) */
	gint64 missing;   /* proc - recorded (0 when not traced) */
	GArray *cpus;     /* PlProcIrqCpuCount by CPU number, ncpus long */
} PlProcIrqRow;

typedef struct {
	gboolean have;        /* both reads of at least one file, whole */
	guint64 t0[PL_PROC_NFILES], t1[PL_PROC_NFILES]; /* the reads' times (0: absent) */
	GPtrArray *rows;      /* PlProcIrqRow*: hardirq lines then softirq vectors, file order */
	guint ncpus;          /* highest CPU + 1 */
	GArray *missing;      /* gint64 by CPU: proc - recorded over the traced rows */
	gint64 missing_total;
	gint64 proc_total;    /* over the traced rows */
	guint64 recorded_total;
	gint64 untraced;      /* /proc's delta of the rows no tracepoint reports */
	guint64 lost;         /* samples lost in the span (LOST records; throttles not) */
	char *problem;        /* a read that could not be used, said (or NULL) */
} PlProcIrqCompare;

/* The comparison over the session; have is FALSE when the capture holds
 * no pair of reads (made before the agent sent them, or not --irq). */
PlProcIrqCompare *pl_proc_irq_compare_new(PlProfile *profile);
void pl_proc_irq_compare_free(PlProcIrqCompare *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlProcIrqCompare, pl_proc_irq_compare_free)
/* The row of key ("36", "NET_RX") of kind, or NULL. */
const PlProcIrqRow *pl_proc_irq_compare_find(const PlProcIrqCompare *c, PlIrqKind kind,
					     const char *key);

/* The sentence a user reads: how many interrupts /proc counted that the
 * recording lacks, per CPU, and why (idle; the losses apart), and a hint;
 * or, when filtered (--tid/--from/--to, the window's pick), that the
 * comparison is the whole session's only.  NULL when there is nothing to
 * compare (c->have FALSE).  Owned by the caller. */
char *pl_proc_irq_compare_dup_summary(const PlProcIrqCompare *c, gboolean filtered);
/* TRUE when f narrows the session (thread or range). */
gboolean pl_proc_irq_filter_narrows(const PlFilter *f);

G_END_DECLS

#endif
