/* pl-fleet-boards.h — the collector's symbol settings per board, chosen by
 * the labels an agent reports (perflens collect --boards FILE).
 *
 * The file is a GKeyFile, one group per kind of board, tried in the
 * file's order; the first whose match holds gives the settings, and an
 * agent no group matches is symbolized with the defaults (this host's
 * files, $DEBUGINFOD_URLS):
 *
 *   [imx8mp]
 *   match = board=imx8mp,fw!=lab      the --where grammar (pl-fleet-query.h);
 *                                     no match: every agent (a default, last)
 *   sysroot = /srv/sysroots/imx8mp
 *   toolchain-prefix = aarch64-linux-gnu-
 *   debug-dirs = /srv/debug/imx8mp;/srv/debug/common
 *   debuginfod = https://debuginfod.example    ("" : none)
 *   host-files = false                default: true without a sysroot
 *
 * A key or value it does not know fails the load, naming the group and
 * key: a typo must not quietly symbolize a board with the wrong files.
 * Read-only after loading: any thread.
 */
#ifndef PL_FLEET_BOARDS_H
#define PL_FLEET_BOARDS_H

#include "pl-symbols.h"

G_BEGIN_DECLS

typedef struct _PlFleetBoards PlFleetBoards;

PlFleetBoards *pl_fleet_boards_load(const char *path, GError **error);
void pl_fleet_boards_free(PlFleetBoards *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFleetBoards, pl_fleet_boards_free)

/* Fills *o (zeroed by the caller) with the settings for an agent with
 * labels ("KEY=VALUE", NULL-terminated); self may be NULL (defaults).
 * Returns the group chosen (owned by self) or NULL for the defaults.
 * pl_fleet_boards_options_clear frees what it put in o. */
const char *pl_fleet_boards_choose(const PlFleetBoards *self, char **labels, PlSymOptions *o);
void pl_fleet_boards_options_clear(PlSymOptions *o);

G_END_DECLS

#endif
