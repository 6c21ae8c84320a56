/* pl-proc-irq-reads.h — the agent's reads of /proc/interrupts and
 * /proc/softirqs as they arrive (common/msg.h, PL_CHUNK_INTERRUPTS and
 * PL_CHUNK_SOFTIRQS): the text of the first read of each file (the
 * session's start) and of the last (its end), with the times the agent
 * stamped them.  The profile holds one; pl-proc-irq-counts.h reads it.
 * No GTK; depends on nothing but GLib and the wire's constants. */
#ifndef PL_PROC_IRQ_READS_H
#define PL_PROC_IRQ_READS_H

#include <glib.h>

G_BEGIN_DECLS

#define PL_PROC_IRQ_MAX_TEXT (16u << 20) /* one read of one file */

typedef struct _PlProcIrqReads PlProcIrqReads;

typedef enum { PL_PROC_INTERRUPTS, PL_PROC_SOFTIRQS, PL_PROC_NFILES } PlProcIrqFile;

typedef struct {
	guint64 time;     /* when the agent read it (the chunk's addr) */
	GByteArray *text; /* NULL: none came */
	gboolean whole;   /* its last chunk came, every chunk in order */
} PlProcIrqRead;

/* The first read of each file (the session's start) and the last (its
 * end); reads between (none today) replace the last. */
struct _PlProcIrqReads {
	PlProcIrqRead first[PL_PROC_NFILES], last[PL_PROC_NFILES];
	PlProcIrqRead *cur[PL_PROC_NFILES]; /* the read chunks go to */
};

PlProcIrqReads *pl_proc_irq_reads_new(void);
void pl_proc_irq_reads_free(PlProcIrqReads *r);
/* One FILE_CHUNK of kind PL_CHUNK_INTERRUPTS / PL_CHUNK_SOFTIRQS (other
 * kinds: ignored).  Offset 0 begins a read; a chunk out of order spoils
 * it (whole stays FALSE). */
void pl_proc_irq_reads_add_chunk(PlProcIrqReads *r, guint kind, guint64 addr, guint64 offset,
				 guint64 total, const guint8 *data, gsize len);

G_END_DECLS

#endif
