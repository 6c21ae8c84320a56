#!/usr/bin/env bash
# layers.sh — the viewer's layers are what DESIGN.md draws: GTK in
# viewer/ui/ alone, a headless core under it that the app and the command
# line share.  Read from the sources and from the objects (nm) of
# $PL_BUILD:
#   ui_files_use_gtk      every .c and .h of viewer/ui/ (its tests apart)
#                         includes <gtk/…> or names a GTK or GDK type or
#                         function: a file with no GTK belongs in
#                         viewer/core or below;
#   no_gtk_outside_ui     no source of agent/, common/ and viewer/ outside
#                         ui/ (tests apart) includes <gtk/…> or <gdk/…> or
#                         names a GTK or GDK type or function, and no object
#                         built from them uses a gtk_ or gdk_ symbol;
#   ui_through_core       no object of viewer/ui/ uses a function of the
#                         agent client (pl_client_*, viewer/io/pl-client.c)
#                         and no source there includes pl-client.h: the app
#                         reaches a board through viewer/core (the live
#                         session, pl-agent-connect, pl-flight-save);
#   one_live_session      `perflens record` (viewer/cli/record.o) and the
#                         app's connect form (viewer/ui/pl-connect-view.o)
#                         both start recordings with pl_live_session_start,
#                         and only the live session attaches a recording's
#                         writer to a client (pl_client_set_writer): one
#                         way to record;
#   one_exporter_table    `perflens export` (viewer/cli/export.o) and the
#                         app's Export (viewer/core/pl-saved-session-export.o)
#                         both choose from the export table (pl_export_find)
#                         and write through it (pl_export_write).
# Objects whose .c is gone (a stale build directory) are left out.
# Run by hand: PL_BUILD=build bash test/integration/layers.sh
set -u
export LC_ALL=C
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PL_BUILD:-$top/build}
. "$top/test/pl-test.sh"
pl_plan ui_files_use_gtk no_gtk_outside_ui ui_through_core one_live_session one_exporter_table
trap 'pl_unreported' EXIT
failed=0 # the exit status, for a run by hand
bad() { fail "$@"; failed=1; }
cd "$top" || exit 1

gtk_words='\<(Gtk[A-Z]|Gdk[A-Z]|gtk_|gdk_|GTK_|GDK_)'
# the objects of directory $1 in $build whose .c is still there (a stale
# build directory keeps those of removed files)
objects() {
	local o
	for o in "$build/$1"/*.o; do
		[ -f "$o" ] && [ -f "$1/$(basename "$o" .o).c" ] && echo "$o"
	done
}

# ─── sources ─────────────────────────────────────────────────────────────
ui_src=$(ls viewer/ui/*.[ch])
n=$(printf '%s\n' "$ui_src" | grep -c .)
gtk_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(gtk|gdk)/'
without=$(grep -LE "$gtk_include|$gtk_words" $ui_src)
if [ "$n" -lt 20 ]; then
	bad ui_files_use_gtk "only $n sources in viewer/ui"
elif [ -n "$without" ]; then
	bad ui_files_use_gtk "no GTK in $(echo $without) (headless code goes to viewer/core or below)"
else
	ok ui_files_use_gtk
fi
echo "# viewer/ui: $n sources, each with GTK"

headless_dirs="agent common viewer/io viewer/model viewer/symbols viewer/formats viewer/core viewer/cli viewer/fleet"
src=$(find $headless_dirs -name '*.[ch]' -not -path '*/tests/*' | sort)
n=$(printf '%s\n' "$src" | grep -c .)
with=$(grep -lE "$gtk_include|$gtk_words" $src)
objs=$(for d in $headless_dirs; do objects "$d"; done)
nobj=$(printf '%s\n' "$objs" | grep -c .)
all_objs=$(for d in $headless_dirs viewer/ui; do objects "$d"; done)
ui_objs=$(objects viewer/ui)
# what every object uses, "OBJECT SYMBOL" a line: one nm for them all
# (an nm per object and question cost half a minute)
undefined=$(for o in $all_objs; do echo "$o"; done | xargs -r nm -u -A |
	awk '{ o = $1; sub(/:$/, "", o); print o, $NF }')
# the objects among $2… (one per line) that use a symbol matching the
# extended regex $1, one per line
using() {
	printf '%s\n' "$undefined" | awk -v re="$1" -v list="$2" -v b="$build/" '
		BEGIN { n = split(list, l, "\n"); for (i = 1; i <= n; i++) want[l[i]] = 1 }
		want[$1] && $2 ~ re && !seen[$1]++ { o = $1; if (index(o, b) == 1) o = substr(o, length(b) + 1); print o }'
}
gtk_users=$(using '^(gtk|gdk)_' "$objs")
if [ "$nobj" -lt 100 ]; then
	bad no_gtk_outside_ui "only $nobj objects outside viewer/ui in $build (make)"
elif [ -n "$with$gtk_users" ]; then
	bad no_gtk_outside_ui "GTK outside viewer/ui: $(echo $with $gtk_users)"
else
	ok no_gtk_outside_ui
fi
echo "# outside viewer/ui: $n sources, $nobj objects, none with GTK"

# ─── objects ─────────────────────────────────────────────────────────────
# the objects among $2… that use symbol $1 (nm -u), one per line
users() {
	local sym=$1
	shift
	using "^$sym\$" "$(printf '%s\n' "$@")"
}

if [ -z "$ui_objs" ]; then
	# gtk4's development files are ci/deps.sh's: their absence is a failure
	bad ui_through_core "no objects in $build/viewer/ui (make; gtk4 development files: ci/deps.sh)"
else
	client_users=$(using '^pl_client_' "$ui_objs")
	includers=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"pl-client\.h"' viewer/ui/*.[ch])
	if [ -n "$client_users$includers" ]; then
		bad ui_through_core "viewer/ui uses the agent client directly: $(echo $client_users $includers)"
	else
		ok ui_through_core
	fi
fi

starters=$(users pl_live_session_start $all_objs)
writers=$(users pl_client_set_writer $all_objs)
why=
echo "$starters" | grep -qx viewer/cli/record.o || why="$why viewer/cli/record.o does not call pl_live_session_start;"
echo "$starters" | grep -qx viewer/ui/pl-connect-view.o ||
	why="$why viewer/ui/pl-connect-view.o does not call pl_live_session_start;"
[ "$(echo $writers)" = viewer/core/pl-live-session.o ] ||
	why="$why pl_client_set_writer is used by '$(echo $writers)', not by the live session alone;"
[ -z "$why" ] && ok one_live_session || bad one_live_session "$why"
echo "# pl_live_session_start: $(echo $starters)"

why=
for o in viewer/cli/export.o viewer/core/pl-saved-session-export.o; do
	for s in pl_export_find pl_export_write; do
		users "$s" "$build/$o" | grep -q . || why="$why $o does not use $s;"
	done
done
[ -z "$why" ] && ok one_exporter_table || bad one_exporter_table "$why"
exit "$failed"
