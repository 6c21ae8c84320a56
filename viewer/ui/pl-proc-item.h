/* pl-proc-item.h — one process of the board's process list (a PROC message
 * of the agent), as the row of a GListModel, and the columns that show it.
 */
#ifndef PL_PROC_ITEM_H
#define PL_PROC_ITEM_H

#include <gtk/gtk.h>

#include "msg.h"

G_BEGIN_DECLS

#define PL_TYPE_PROC_ITEM (pl_proc_item_get_type())
G_DECLARE_FINAL_TYPE(PlProcItem, pl_proc_item, PL, PROC_ITEM, GObject)

/* Read-only once made. */
struct _PlProcItem {
	GObject parent_instance;
	guint32 pid, ppid, threads;
	guint64 rss_kb, cpu_ms;
	char *comm, *cmdline;
};

PlProcItem *pl_proc_item_new(const struct pl_msg_proc *m);
/* TRUE if text is empty, in the name or the command line, or begins the pid. */
gboolean pl_proc_item_matches(PlProcItem *p, const char *text);
/* PID, Name, Threads, CPU, RSS, Command line: columns for a view of PlProcItems. */
void pl_proc_item_add_columns(GtkColumnView *v);

G_END_DECLS

#endif
