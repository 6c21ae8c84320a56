/* pl-build-id.c — a GNU build-id as the lower-case hex that names files by it
 * (contract in pl-build-id.h). */
#include "pl-build-id.h"

char *pl_build_id_hex(const guint8 *id, gsize len)
{
	GString *s = g_string_sized_new(len * 2 + 1);
	for (gsize i = 0; i < len; i++)
		g_string_append_printf(s, "%02x", id[i]);
	return g_string_free(s, FALSE);
}
