#!/usr/bin/env bash
# cli-install.sh — `make install` into a prefix gives working man pages and
# shell completions, and every option they name is one the programs take,
# and every option the programs take is named there (both ways, per
# command).  The programs' own tables come from their --dump-options (the
# tables the parsers read); man renders the pages (--warnings: troff's
# complaints fail the case); bash itself runs the completion function.
set -u
TOP=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/test/pl-test.sh"
B=${PL_BUILD:-$TOP/build}
TMP=$(mktemp -d)
trap '[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"; pl_unreported' EXIT
CASES="install_runs man_renders man_options_match bash_completion_matches zsh_completion_matches"
pl_plan $CASES

case $(basename "$B") in
build-san) pl_skip_all "[by-design] make install is checked once, with the plain build" ;;
esac
[ -x "$B/perflens" ] && [ -x "$B/perflens-agent" ] || pl_fail_all "$B/perflens not built (make)"

root=$TMP/root prefix=/opt/perflens-test
if make -s -C "$TOP" install BUILD="$B" DESTDIR="$root" PREFIX="$prefix" >"$TMP/install.log" 2>&1; then
	ok install_runs
else
	pl_fail_all "make install failed: $(tail -n 3 "$TMP/install.log" | tr '\n' ' ')"
fi
P=$root$prefix
cmds=$("$B/perflens" --dump-options | awk -F'\t' '$1 == "command" { print $2 }')
[ -n "$cmds" ] || pl_fail_all "perflens --dump-options lists no command"

# ─── man renders every page ─────────────────────────────────────────────
bad=
for page in perflens perflens-agent $(for c in $cmds; do echo "perflens-$c"; done); do
	out=$(MANPATH=$P/share/man MANWIDTH=80 man --warnings -P cat "$page" 2>"$TMP/man.err")
	rc=$?
	if [ $rc != 0 ] || [ -s "$TMP/man.err" ] || ! echo "$out" | grep -q '^OPTIONS'; then
		bad="$bad [$page: exit $rc $(head -c 200 "$TMP/man.err")]"
	fi
done
if [ -z "$bad" ]; then ok man_renders; else fail man_renders "$bad"; fi

# The options of PROGRAM (perflens, a command, perflens-agent) in the
# table: one spelling a line, "--long" and "-s", hidden ones left out.
table() {
	{ "$B/perflens" --dump-options; "$B/perflens-agent" --dump-options; } |
		awk -F'\t' -v p="$1" '$1 == "option" && $2 == p && $7 != "hidden" {
			if ($4 != "-") print "--" $4; if ($5 != "-") print "-" $5 }' | sort -u
}
# The options a man page documents: the spellings on each .TP's tag line.
man_options() {
	awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' "$1" |
		grep -oE '\\fB\\-(\\-[a-z0-9\\-]+|[A-Za-z])\\fR' | sed 's/\\fB//; s/\\fR//; s/\\-/-/g' | sort -u
}
compare() { # WHAT EXPECTED-FILE ACTUAL-FILE → "" or a description
	if ! [ -s "$2" ]; then echo "[$1: the table is empty]"; return; fi
	local d
	d=$(diff "$2" "$3" | grep '^[<>]' | tr '\n' ' ')
	[ -z "$d" ] || echo "[$1: < only in the table, > only in the page: $d]"
}

# ─── man pages: perflens(1) the top level, perflens-CMD(1), perflens-agent(1)
bad=
table perflens >"$TMP/t.perflens"
man_options "$P/share/man/man1/perflens.1" | awk '1' >"$TMP/m.perflens"
# perflens(1)'s COMMANDS entries are tagged with commands, not options
bad="$bad$(compare perflens "$TMP/t.perflens" "$TMP/m.perflens")"
for c in $cmds; do
	table "$c" >"$TMP/t.$c"
	man_options "$P/share/man/man1/perflens-$c.1" >"$TMP/m.$c"
	bad="$bad$(compare "perflens-$c(1)" "$TMP/t.$c" "$TMP/m.$c")"
done
table perflens-agent >"$TMP/t.agent"
man_options "$P/share/man/man1/perflens-agent.1" >"$TMP/m.agent"
bad="$bad$(compare "perflens-agent(1)" "$TMP/t.agent" "$TMP/m.agent")"
if [ -z "$bad" ]; then ok man_options_match; else fail man_options_match "$bad"; fi

# ─── bash: what the completion function offers after "-" ────────────────
complete_bash() { # FILE WORDS...: the offered words starting with "-", sorted
	local file=$1; shift
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@" -); COMP_CWORD=$#
		fn=$(complete -p "$1" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		$fn
		printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$@" | grep '^-' | sort -u
}
bad=
bc=$P/share/bash-completion/completions
complete_bash "$bc/perflens" perflens >"$TMP/b.perflens"
bad="$bad$(compare "bash perflens" "$TMP/t.perflens" "$TMP/b.perflens")"
for c in $cmds; do
	complete_bash "$bc/perflens" perflens "$c" >"$TMP/b.$c"
	bad="$bad$(compare "bash perflens $c" "$TMP/t.$c" "$TMP/b.$c")"
done
complete_bash "$bc/perflens-agent" perflens-agent >"$TMP/b.agent"
bad="$bad$(compare "bash perflens-agent" "$TMP/t.agent" "$TMP/b.agent")"
if [ -z "$bad" ]; then ok bash_completion_matches; else fail bash_completion_matches "$bad"; fi

# ─── zsh: the _arguments specs of each section ──────────────────────────
# (zsh itself is not a dependency: the specs are read as text, one
# "'*--name[help]…'" line per spelling, under "# options of NAME")
zsh_options() { # FILE SECTION
	awk -v s="# options of $2" 'index($0, s) { on = 1; next } on && /^[ \t]*[a-z*]+\) #/ { on = 0 }
		on && /^# options of/ { on = 0 } on' "$1" |
		grep -oE "^[[:space:]]*'\\*?(--[a-z0-9-]+|-[A-Za-z])\\[" | sed "s/^[[:space:]]*'\\*\\{0,1\\}//; s/\\[\$//" | sort -u
}
bad=
zf=$P/share/zsh/site-functions
zsh_options "$zf/_perflens" perflens >"$TMP/z.perflens"
bad="$bad$(compare "zsh perflens" "$TMP/t.perflens" "$TMP/z.perflens")"
for c in $cmds; do
	zsh_options "$zf/_perflens" "$c" >"$TMP/z.$c"
	bad="$bad$(compare "zsh perflens $c" "$TMP/t.$c" "$TMP/z.$c")"
done
zsh_options "$zf/_perflens-agent" perflens-agent >"$TMP/z.agent"
bad="$bad$(compare "zsh perflens-agent" "$TMP/t.agent" "$TMP/z.agent")"
head -n 1 "$zf/_perflens" | grep -qx '#compdef perflens' || bad="$bad [_perflens has no #compdef line]"
if [ -z "$bad" ]; then ok zsh_completion_matches; else fail zsh_completion_matches "$bad"; fi
