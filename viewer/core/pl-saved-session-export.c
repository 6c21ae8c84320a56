/* pl-saved-session-export.c — the app's export of a saved session (see
 * the header). */
#include "pl-saved-session-export.h"

#include "pl-export-table.h"

gboolean pl_saved_session_export(const char *in, const char *format, const char *out,
				 const PlLoadParams *lp, GError **error)
{
	const PlExporter *e = pl_export_find(format);
	if (!e) {
		g_autofree char *names = pl_export_dup_names();
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Unknown export format “%s”: choose %s", format ? format : "", names);
		return FALSE;
	}
	PlLoadParams own = *lp;
	own.keep_partial = FALSE;
	PlExportInput x = { .in = in, .load = &own, .cancel = lp->cancel };
	g_autoptr(PlProfile) p = NULL;
	if (e->needs & PL_EXPORT_NEEDS_PROFILE) {
		p = pl_load_file(in, &own, NULL, NULL, error);
		if (!p)
			return FALSE;
		x.profile = p;
		x.filter = PL_FILTER_ALL;
		x.filter.event = pl_profile_get_main_event(p);
		if (x.filter.event == PL_NO_ID) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
				    "%s holds no samples: nothing to export", in);
			return FALSE;
		}
	}
	return pl_export_write(e, &x, out, error);
}
