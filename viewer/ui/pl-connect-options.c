/* pl-connect-options.c — the Record form of the Connect page (see the
 * header). */
#include "pl-connect-options.h"

#include <string.h>

#include "pl-record-extras.h"
#include "pl-syscalls.h"

typedef struct {
	char *name, *message;
	gint32 status;
	guint32 flags;
} ProbeEvent;

static void probe_event_free(gpointer p)
{
	ProbeEvent *e = p;
	g_free(e->name);
	g_free(e->message);
	g_free(e);
}

struct _PlConnectOptions {
	GtkWidget parent_instance;
	/* from the template (pl-connect-options.ui) */
	GtkWidget *grid;
	GtkEntry *command;
	GtkCheckButton *whole;
	GtkDropDown *event, *callgraph;
	GtkStringList *event_list;
	GtkSpinButton *freq, *stack;
	GtkEntry *syscalls, *slower;
	GtkCheckButton *irq, *block, *tracks;
	GtkCheckButton *locks;
	GtkLabel *probe_notes;

	GPtrArray *probe_events; /* ProbeEvent* */
	GStrv argv;		 /* what the last START borrows */
	char *sys_spec;		 /* "slow-syscalls:DUR:NR,…", borrowed too */
};

G_DEFINE_FINAL_TYPE(PlConnectOptions, pl_connect_options, GTK_TYPE_WIDGET)

enum { SIG_FREQUENCY_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ─── the probe's findings ───────────────────────────────────────────── */

void pl_connect_options_add_probe_event(PlConnectOptions *self, const char *name,
					gint32 status, guint32 flags, const char *message)
{
	ProbeEvent *e = g_new0(ProbeEvent, 1);
	e->name = g_strdup(name);
	e->message = g_strdup(message);
	e->status = status;
	e->flags = flags;
	/* a re-probe repeats events: keep the newest */
	for (guint i = 0; i < self->probe_events->len; i++)
		if (!strcmp(((ProbeEvent *)self->probe_events->pdata[i])->name, e->name))
			g_ptr_array_remove_index(self->probe_events, i--);
	g_ptr_array_add(self->probe_events, e);
}

void pl_connect_options_clear_probe_events(PlConnectOptions *self)
{
	g_ptr_array_set_size(self->probe_events, 0);
}

guint pl_connect_options_get_n_probe_events(PlConnectOptions *self)
{
	return self->probe_events->len;
}

void pl_connect_options_update(PlConnectOptions *self, guint32 hello_flags)
{
	/* events: what works is offered, what does not is listed with why
	 * (one line per reason: a VM refuses every hardware event alike) */
	GString *notes = g_string_new(NULL);
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->event_list));
	gtk_string_list_splice(self->event_list, 1, n > 1 ? n - 1 : 0, NULL);
	g_autoptr(GPtrArray) reasons = g_ptr_array_new();
	g_autoptr(GHashTable) by_reason = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
								(GDestroyNotify)g_ptr_array_unref);
	for (guint i = 0; i < self->probe_events->len; i++) {
		ProbeEvent *e = self->probe_events->pdata[i];
		if (e->status == 0 && (e->flags & 4 /* PL_PROBE_SAMPLING_OK */)) {
			gtk_string_list_append(self->event_list, e->name);
			continue;
		}
		const char *why = e->message && *e->message ? e->message : g_strerror(-e->status);
		GPtrArray *names = g_hash_table_lookup(by_reason, why);
		if (!names) {
			names = g_ptr_array_new();
			g_hash_table_insert(by_reason, (gpointer)why, names);
			g_ptr_array_add(reasons, (gpointer)why);
		}
		g_ptr_array_add(names, e->name);
	}
	for (guint i = 0; i < reasons->len; i++) {
		GPtrArray *names = g_hash_table_lookup(by_reason, reasons->pdata[i]);
		g_string_append(notes, "Not available: ");
		for (guint k = 0; k < names->len; k++)
			g_string_append_printf(notes, "%s%s", k ? ", " : "", (char *)names->pdata[k]);
		g_string_append_printf(notes, " — %s\n", (char *)reasons->pdata[i]);
	}
	if (!(hello_flags & PL_HELLO_CG_DWARF))
		g_string_append(notes, "DWARF call graphs: the probe got no stack copies\n");
	if (hello_flags & PL_HELLO_CG_LBR)
		g_string_append(notes, "LBR call graphs: a test sample had an LBR call stack; "
				       "PerfLens's LBR conversion is tested on ABI-laid-out records, "
				       "not verified on Intel hardware (auto takes LBR only where "
				       "frame pointers and DWARF both fail)\n");
	else
		g_string_append(notes, "LBR call graphs: not proven on this board (no test sample "
				       "had an LBR call stack): LBR records with frame pointers and "
				       "says why\n");
	if (notes->len)
		g_string_truncate(notes, notes->len - 1);
	gtk_label_set_text(self->probe_notes, notes->str);
	g_string_free(notes, TRUE);
}

void pl_connect_options_set_max_frequency(PlConnectOptions *self, guint hz)
{
	if (hz)
		gtk_spin_button_set_range(self->freq, 1, hz);
}

const char *pl_connect_options_get_probe_notes(PlConnectOptions *self)
{
	return gtk_label_get_text(self->probe_notes);
}

/* ─── START ──────────────────────────────────────────────────────────── */

gboolean pl_connect_options_fill_start(PlConnectOptions *self, const PlAgentInfo *agent,
				       PlProcItem *selected, struct pl_msg_start *s, char **what,
				       GError **error)
{
	const char *cmd = gtk_editable_get_text(GTK_EDITABLE(self->command));
	g_clear_pointer(&self->argv, g_strfreev);
	if (gtk_check_button_get_active(self->whole)) {
		s->target = PL_TARGET_ALL;
		*what = g_strdup("all");
	} else if (cmd && *cmd) {
		if (!g_shell_parse_argv(cmd, NULL, &self->argv, NULL) ||
		    g_strv_length(self->argv) > PL_MAX_ARGV) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "The command cannot be split into words: check its quotes");
			return FALSE;
		}
		s->target = PL_TARGET_COMMAND;
		for (guint i = 0; self->argv[i]; i++)
			s->argv[s->argc++] = pl_str_c(self->argv[i]);
		*what = g_path_get_basename(self->argv[0]);
	} else if (selected) {
		s->target = PL_TARGET_PID;
		s->pid = selected->pid;
		*what = g_strdup(selected->comm);
	} else {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Choose a process in the list, type a command to start, or tick "
			    "“Whole board”");
		return FALSE;
	}
	guint ev = gtk_drop_down_get_selected(self->event);
	const char *evname = ev > 0 && ev != GTK_INVALID_LIST_POSITION
				     ? gtk_string_list_get_string(self->event_list, ev)
				     : NULL;
	if (evname)
		s->events[s->nevents++] = pl_str_c(evname);
	/* slow system calls: the names in the board's numbers (HELLO) */
	const char *sys = gtk_editable_get_text(GTK_EDITABLE(self->syscalls));
	g_clear_pointer(&self->sys_spec, g_free);
	if (sys && *sys) {
		self->sys_spec = pl_syscalls_event_spec(
			agent ? agent->e_machine : 0, sys,
			gtk_editable_get_text(GTK_EDITABLE(self->slower)), error);
		if (!self->sys_spec)
			return FALSE;
		s->events[s->nevents++] = pl_str_c(self->sys_spec);
	}
	/* the kernel's own tracepoints: interrupts, block requests, lock
	 * contention (pl-record-extras.h), beside the sampling */
	PlRecordExtras extras = (gtk_check_button_get_active(self->irq) ? PL_RECORD_IRQ : 0) |
				(gtk_check_button_get_active(self->block) ? PL_RECORD_BLOCK : 0) |
				(gtk_check_button_get_active(self->locks) ? PL_RECORD_LOCKS : 0);
	if (!pl_record_extras_add(s, extras, evname != NULL, agent ? agent->kernel_release : NULL)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Too many events for one recording (at most %u): untick one of "
			    "Interrupts, Block I/O and Lock contention",
			    PL_MAX_EVENTS);
		return FALSE;
	}
	s->frequency = (guint32)gtk_spin_button_get_value_as_int(self->freq);
	static const guint8 cgs[] = { PL_CG_AUTO, PL_CG_FP, PL_CG_DWARF, PL_CG_LBR, PL_CG_NONE };
	guint cgi = gtk_drop_down_get_selected(self->callgraph);
	s->callgraph = cgi < G_N_ELEMENTS(cgs) ? cgs[cgi] : PL_CG_AUTO;
	s->stack_size = (guint32)gtk_spin_button_get_value_as_int(self->stack);
	s->stacks = PL_STACKS_USER;
	s->flags = PL_START_SWITCH_STACKS | PL_START_COUNTERS;
	s->counter_interval_ms = 100;
	s->track_interval_ms = gtk_check_button_get_active(self->tracks) ? 100 : 0;
	return TRUE;
}

/* ─── setters ────────────────────────────────────────────────────────── */

void pl_connect_options_set_command(PlConnectOptions *self, const char *command)
{
	gtk_editable_set_text(GTK_EDITABLE(self->command), command ? command : "");
}

void pl_connect_options_set_frequency(PlConnectOptions *self, guint hz)
{
	gtk_spin_button_set_value(self->freq, hz);
}

void pl_connect_options_set_locks(PlConnectOptions *self, gboolean on)
{
	gtk_check_button_set_active(self->locks, on);
}

void pl_connect_options_set_syscalls(PlConnectOptions *self, const char *list,
				     const char *slower_than)
{
	gtk_editable_set_text(GTK_EDITABLE(self->syscalls), list ? list : "");
	gtk_editable_set_text(GTK_EDITABLE(self->slower), slower_than ? slower_than : "1ms");
}

/* ─── the widget ─────────────────────────────────────────────────────── */

GtkWidget *pl_connect_options_new(void)
{
	return g_object_new(PL_TYPE_CONNECT_OPTIONS, NULL);
}

static void on_freq_changed(GtkSpinButton *s, PlConnectOptions *self)
{
	g_signal_emit(self, signals[SIG_FREQUENCY_CHANGED], 0,
		      (guint)gtk_spin_button_get_value_as_int(s));
}

static void pl_connect_options_dispose(GObject *obj)
{
	PlConnectOptions *self = PL_CONNECT_OPTIONS(obj);
	g_clear_pointer(&self->grid, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_CONNECT_OPTIONS);
	g_clear_pointer(&self->probe_events, g_ptr_array_unref);
	g_clear_pointer(&self->argv, g_strfreev);
	g_clear_pointer(&self->sys_spec, g_free);
	G_OBJECT_CLASS(pl_connect_options_parent_class)->dispose(obj);
}

static void pl_connect_options_class_init(PlConnectOptionsClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_connect_options_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-connect-options.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlConnectOptions, name)
	CHILD(grid);
	CHILD(command);
	CHILD(whole);
	CHILD(event);
	CHILD(event_list);
	CHILD(callgraph);
	CHILD(freq);
	CHILD(stack);
	CHILD(syscalls);
	CHILD(slower);
	CHILD(irq);
	CHILD(block);
	CHILD(tracks);
	CHILD(locks);
	CHILD(probe_notes);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_freq_changed);
	signals[SIG_FREQUENCY_CHANGED] =
		g_signal_new("frequency-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
			     NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void pl_connect_options_init(PlConnectOptions *self)
{
	self->probe_events = g_ptr_array_new_with_free_func(probe_event_free);
	gtk_widget_init_template(GTK_WIDGET(self));
}
