/* pl-build-id.h — GNU build-ids as the hex that names files by them
 * (.build-id trees, the debug file cache, a PlElf's key).
 *
 * No state; callable from any thread.
 */
#ifndef PL_BUILD_ID_H
#define PL_BUILD_ID_H

#include <glib.h>

G_BEGIN_DECLS

#define PL_SYM_MAX_BUILD_ID 64u

/* The lower-case hex of len bytes of id (g_free it). */
char *pl_build_id_hex(const guint8 *id, gsize len);

G_END_DECLS

#endif
