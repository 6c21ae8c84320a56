#!/usr/bin/env bash
# include-cycles.sh — dependencies point one way (STYLE.md habit 10: no
# include circles; shared types in one small header both sides include):
#   include_graph_acyclic    the graph of #include "…" lines of viewer/,
#                            agent/ and common/ (a quoted name is looked up
#                            next to the including file, then in the
#                            directories the Makefiles pass with -I) has no
#                            cycle;
#   symbols_objects_acyclic  the graph of which object of viewer/symbols
#                            uses a function or variable another one
#                            defines (nm of $PL_BUILD/viewer/symbols/*.o)
#                            has no cycle: an include graph cannot show a
#                            circle hidden behind one header that declares
#                            everyone's internals, the objects do;
#   symbols_header_per_file  every header of viewer/symbols is named after
#                            the .c that provides it, but the shared types
#                            (pl-symbols-types.h): no such catch-all header
#                            comes back.
#   product_objects_acyclic  the same graph of calls over every object of
#                            the product — agent/ (and its static libc
#                            parts), common/, and viewer's io/, model/,
#                            symbols/, formats/, core/, fleet/, cli/ and
#                            ui/ — together: no files call
#                            each other in a circle, within a directory or
#                            across two (which would also be a layer
#                            calling up).  Objects whose .c is gone (a
#                            stale build directory) are left out.
# A cycle is printed with its members.  Run by hand:
#   PL_BUILD=build bash test/integration/include-cycles.sh
set -u
export LC_ALL=C # sort and join agree on the order
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PL_BUILD:-$top/build}
. "$top/test/pl-test.sh"
pl_plan include_graph_acyclic symbols_objects_acyclic symbols_header_per_file \
	product_objects_acyclic
trap 'pl_unreported' EXIT
failed=0 # the exit status, for a run by hand
bad() { fail "$@"; failed=1; }
cd "$top" || exit 1

# the -I directories of the Makefiles (top Makefile, viewer/viewer.mk,
# viewer/ui/ui.mk, the .mk files of viewer/formats, viewer/symbols and
# viewer/fleet) and agent/static (its files include each other by name);
# anything not found there (system, generated, test/) is outside the graph
search="common agent agent/static viewer/io viewer/model viewer/symbols viewer/formats viewer/core viewer/fleet viewer/ui viewer/cli viewer/tests"

# Prints the cycles tsort finds in the edges "FROM TO" on stdin, as
# "a -> b -> a; …" (nothing when there are none).  tsort names each loop
# in edge order, and breaks it before looking for the next.
cycles() {
	tsort 2>&1 >/dev/null | awk '
		function close_loop() { if (c != "") out = out (out != "" ? "; " : "") c " -> " first; c = "" }
		/^tsort: .*input contains a loop/ { close_loop(); next }
		/^tsort: / { sub(/^tsort: /, ""); if (c == "") first = $0; c = c (c != "" ? " -> " : "") $0 }
		END { close_loop(); printf "%s", out }'
}

# ─── #include "…" lines ──────────────────────────────────────────────────
# (the files found are named by one realpath at the end: one per edge
# cost ten seconds)
found=$(find viewer agent common -name '*.[ch]' | sort | while read -r f; do
	dir=${f%/*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			for d in "$dir" $search; do
				if [ -f "$d/$inc" ]; then
					echo "$f $d/$inc"
					break
				fi
			done
		done
done)
edges=
if [ -n "$found" ]; then
	edges=$(paste -d ' ' <(printf '%s\n' "$found" | cut -d ' ' -f 1) \
		<(printf '%s\n' "$found" | cut -d ' ' -f 2 | xargs realpath -m --relative-to=.))
fi
n=$(printf '%s\n' "$edges" | grep -c .)
loop=$(printf '%s\n' "$edges" | cycles)
if [ "$n" -lt 100 ]; then
	bad include_graph_acyclic "only $n include edges found under viewer/ agent/ common/"
elif [ -n "$loop" ]; then
	bad include_graph_acyclic "headers include each other in a circle: $loop"
else
	ok include_graph_acyclic
fi
echo "# $n include edges"

# Prints the edges "USER DEFINER" of the objects given as "NAME PATH"
# lines on stdin: USER uses a function or variable that DEFINER defines.
# One nm over all the objects for each question (nm -A names the object on
# each line): an nm, sort and join per object cost half a minute.
calls() {
	local objs
	objs=$(cat)
	[ -n "$objs" ] || return 0
	# "name PATH" lines, then nm's definitions, then its uses, each set
	# after a line "--"
	{
		printf '%s\n' "$objs"
		echo --
		printf '%s\n' "$objs" | awk '{ print $2 }' | xargs -r nm -A -g --defined-only
		echo --
		printf '%s\n' "$objs" | awk '{ print $2 }' | xargs -r nm -A -u
	} | awk '
		$0 == "--" { part++; next }
		part == 0 { name[$2] = $1; next }
		part == 1 && NF == 3 { o = $1; sub(/:[^:]*$/, "", o); if (o in name) def[$3] = def[$3] " " name[o]; next }
		part == 2 { o = $1; sub(/:$/, "", o); if (!(o in name) || !($NF in def)) next
			n = split(def[$NF], d, " ")
			for (i = 1; i <= n; i++) if (d[i] != name[o]) print name[o], d[i] }' | sort -u
}

# ─── objects of viewer/symbols (nm) ──────────────────────────────────────
objs=$(ls "$build"/viewer/symbols/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	bad symbols_objects_acyclic "no objects in $build/viewer/symbols (make)"
else
	uses=$(for o in $objs; do echo "$(basename "$o" .o) $o"; done | calls)
	loop=$(printf '%s\n' "$uses" | cycles)
	if [ -z "$uses" ]; then
		bad symbols_objects_acyclic "no object of $build/viewer/symbols uses another: nm failed?"
	elif [ -n "$loop" ]; then
		bad symbols_objects_acyclic "files of viewer/symbols use each other in a circle: $loop"
	else
		ok symbols_objects_acyclic
	fi
	printf '%s\n' "$uses" | awk '{ a[$1] = a[$1] " " $2 } END { for (f in a) print "# " f " ->" a[f] }' | sort
fi

# ─── every object of the product (nm) ────────────────────────────────────
dirs="agent agent/static common viewer/io viewer/model viewer/symbols viewer/formats viewer/core viewer/fleet viewer/cli viewer/ui"
objs=$(for d in $dirs; do
	for o in "$build/$d"/*.o; do
		[ -f "$o" ] || continue
		n=$d/$(basename "$o" .o)
		[ -f "$n.c" ] && echo "$n $o"
	done
done)
n=$(printf '%s\n' "$objs" | grep -c .)
if [ "$n" -lt 100 ]; then
	bad product_objects_acyclic "only $n objects of agent/ common/ viewer/ in $build (make)"
else
	uses=$(printf '%s\n' "$objs" | calls)
	loop=$(printf '%s\n' "$uses" | cycles)
	if [ -z "$uses" ]; then
		bad product_objects_acyclic "no object of the product uses another: nm failed?"
	elif [ -n "$loop" ]; then
		bad product_objects_acyclic "files call each other in a circle (which uses a symbol the next defines: nm): $loop"
	else
		ok product_objects_acyclic
	fi
	echo "# $n objects, $(printf '%s\n' "$uses" | grep -c .) edges between them"
fi

# ─── one header per file ─────────────────────────────────────────────────
orphans=
for h in viewer/symbols/*.h; do
	b=${h%.h}
	[ "$h" = viewer/symbols/pl-symbols-types.h ] || [ -f "$b.c" ] || orphans="$orphans ${h##*/}"
done
if [ -n "$orphans" ]; then
	bad symbols_header_per_file "headers named after no .c of viewer/symbols:$orphans (types go in pl-symbols-types.h, functions in their file's header)"
else
	ok symbols_header_per_file
fi
exit "$failed"
