/* pl-proc-item.c — the rows of the board's process list and their columns
 * (see pl-proc-item.h).
 */
#include "pl-proc-item.h"

#include <string.h>

G_DEFINE_FINAL_TYPE(PlProcItem, pl_proc_item, G_TYPE_OBJECT)
static void pl_proc_item_finalize(GObject *o)
{
	PlProcItem *p = PL_PROC_ITEM(o);
	g_free(p->comm);
	g_free(p->cmdline);
	G_OBJECT_CLASS(pl_proc_item_parent_class)->finalize(o);
}
static void pl_proc_item_class_init(PlProcItemClass *k)
{
	G_OBJECT_CLASS(k)->finalize = pl_proc_item_finalize;
}
static void pl_proc_item_init(PlProcItem *p)
{
}

PlProcItem *pl_proc_item_new(const struct pl_msg_proc *m)
{
	PlProcItem *p = g_object_new(PL_TYPE_PROC_ITEM, NULL);
	p->pid = m->pid;
	p->ppid = m->ppid;
	p->threads = m->threads;
	p->rss_kb = m->rss_kb;
	p->cpu_ms = m->cpu_ms;
	p->comm = g_strndup(m->comm.p, m->comm.len);
	p->cmdline = g_strndup(m->cmdline.p, m->cmdline.len);
	return p;
}

gboolean pl_proc_item_matches(PlProcItem *p, const char *text)
{
	if (!text || !*text)
		return TRUE;
	if (strstr(p->comm, text) || (p->cmdline && strstr(p->cmdline, text)))
		return TRUE;
	char pid[16];
	g_snprintf(pid, sizeof pid, "%u", p->pid);
	return g_str_has_prefix(pid, text);
}

enum { PC_PID, PC_NAME, PC_THREADS, PC_CPU, PC_RSS, PC_CMD };

static void proc_setup(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	GtkWidget *l = gtk_label_new(NULL);
	int c = GPOINTER_TO_INT(col);
	gtk_label_set_xalign(GTK_LABEL(l), c == PC_NAME || c == PC_CMD ? 0 : 1);
	gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_END);
	gtk_list_item_set_child(li, l);
}

static void proc_bind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	PlProcItem *p = gtk_list_item_get_item(li);
	GtkLabel *l = GTK_LABEL(gtk_list_item_get_child(li));
	char buf[64];
	switch (GPOINTER_TO_INT(col)) {
	case PC_PID:
		g_snprintf(buf, sizeof buf, "%u", p->pid);
		break;
	case PC_NAME:
		gtk_label_set_text(l, p->comm);
		return;
	case PC_THREADS:
		g_snprintf(buf, sizeof buf, "%u", p->threads);
		break;
	case PC_CPU:
		g_snprintf(buf, sizeof buf, "%.1f s", p->cpu_ms / 1000.0);
		break;
	case PC_RSS:
		g_snprintf(buf, sizeof buf, "%.1f MB", p->rss_kb / 1024.0);
		break;
	case PC_CMD:
		gtk_label_set_text(l, p->cmdline);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), p->cmdline);
		return;
	}
	gtk_label_set_text(l, buf);
}

static void add_column(GtkColumnView *v, const char *title, int col, gboolean expand)
{
	GtkListItemFactory *f = gtk_signal_list_item_factory_new();
	g_signal_connect(f, "setup", G_CALLBACK(proc_setup), GINT_TO_POINTER(col));
	g_signal_connect(f, "bind", G_CALLBACK(proc_bind), GINT_TO_POINTER(col));
	GtkColumnViewColumn *c = gtk_column_view_column_new(title, f);
	gtk_column_view_column_set_expand(c, expand);
	gtk_column_view_column_set_resizable(c, TRUE);
	gtk_column_view_append_column(v, c);
	g_object_unref(c);
}

void pl_proc_item_add_columns(GtkColumnView *v)
{
	add_column(v, "PID", PC_PID, FALSE);
	add_column(v, "Name", PC_NAME, FALSE);
	add_column(v, "Threads", PC_THREADS, FALSE);
	add_column(v, "CPU", PC_CPU, FALSE);
	add_column(v, "RSS", PC_RSS, FALSE);
	add_column(v, "Command line", PC_CMD, TRUE);
}
