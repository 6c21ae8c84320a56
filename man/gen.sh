#!/usr/bin/env bash
# man/gen.sh — the man pages and shell completions, written from the option
# tables the programs parse with (their hidden --dump-options), so that
# neither can name an option the programs lack or miss one they have.
#
#   man/gen.sh OUTDIR PERFLENS PERFLENS_AGENT
#
# Writes OUTDIR/man1/perflens.1, perflens-COMMAND.1 (one per command),
# perflens-agent.1; OUTDIR/bash/perflens, perflens-agent (bash-completion);
# OUTDIR/zsh/_perflens, _perflens-agent.  The dump's format is described in
# viewer/cli/pl-cli-options.c and agent/args.h: tab-separated lines
#   command NAME SYNOPSIS SUMMARY
#   option PROGRAM GROUP LONG SHORT ARG FLAGS HELP     ("-": none)
#   env NAME HELP
# Run by the build (viewer/viewer.mk); `make install` installs the result.
set -euo pipefail
[ $# = 3 ] || { echo "usage: man/gen.sh OUTDIR PERFLENS PERFLENS_AGENT" >&2; exit 2; }
out=$1 perflens=$2 agent=$3
mkdir -p "$out/man1" "$out/bash" "$out/zsh"
dump=$out/options.tsv
{ "$perflens" --dump-options && "$agent" --dump-options; } >"$dump.tmp"
mv "$dump.tmp" "$dump"
version=$("$perflens" --version)

# ─── man pages ───────────────────────────────────────────────────────────
awk -F'\t' -v out="$out/man1" -v version="$version" -v q="'" '
function esc(s) { # text for troff: backslashes, dashes, a leading dot
	gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s)
	if (substr(s, 1, 1) == "." || substr(s, 1, 1) == q) s = "\\&" s
	return s
}
function head(f, name, what) {
	printf ".TH %s 1 \"\" \"%s\" \"PerfLens Manual\"\n", toupper(name), esc(version) > f
	printf ".SH NAME\n%s \\- %s\n", esc(name), esc(what) > f
}
function opt(f, short, long, arg, help) {
	printf ".TP\n" > f
	if (short != "-") printf "\\fB\\-%s\\fR%s", short, (long != "-" ? ", " : "") > f
	if (long != "-") printf "\\fB\\-\\-%s\\fR", esc(long) > f
	if (arg != "-") printf " \\fI%s\\fR", esc(arg) > f
	printf "\n%s\n", esc(help) > f
}
$1 == "command" { ncmd++; cmd[ncmd] = $2; syn[$2] = $3; sum[$2] = $4; next }
$1 == "env" { nenv++; envn[nenv] = $2; envh[nenv] = $3; next }
$1 == "option" && $7 != "hidden" {
	k = $2; n[k]++; o_grp[k, n[k]] = $3; o_long[k, n[k]] = $4; o_short[k, n[k]] = $5
	o_arg[k, n[k]] = $6; o_help[k, n[k]] = $8
}
END {
	title["symbols"] = "Symbol options"
	title["filters"] = "Stack filters and call-tree transforms"
	# perflens(1)
	f = out "/perflens.1"
	head(f, "perflens", "a remote Linux CPU profiler: reports, exports, live recording")
	printf ".SH SYNOPSIS\n.B perflens\n\\fICOMMAND\\fR [\\fIARGS\\fR]\n.br\n" > f
	printf ".B perflens\n[\\fIFILE\\fR] [\\fB\\-\\-connect\\fR \\fIHOST\\fR[:\\fIPORT\\fR]]\n" > f
	printf ".SH DESCRIPTION\nperflens reads captures of perflens\\-agent(1) (.plens) and perf.data files, " > f
	printf "and records live through an agent on a board.  Without a command it opens the " > f
	printf "desktop app.\n.SH COMMANDS\n" > f
	for (i = 1; i <= ncmd; i++)
		printf ".TP\n\\fBperflens %s\\fR %s\n%s  See perflens\\-%s(1).\n", cmd[i], esc(syn[cmd[i]]),
			esc(sum[cmd[i]]), cmd[i] > f
	printf ".TP\n\\fBperflens help\\fR [\\fICOMMAND\\fR | \\fBenvironment\\fR]\n" > f
	printf "A command%ss options, or the environment variables below.\n", "\\(aq" > f
	printf ".SH OPTIONS\n" > f
	for (j = 1; j <= n["perflens"]; j++)
		opt(f, o_short["perflens", j], o_long["perflens", j], o_arg["perflens", j], o_help["perflens", j])
	printf ".SH ENVIRONMENT\n" > f
	for (i = 1; i <= nenv; i++) printf ".TP\n.B %s\n%s\n", esc(envn[i]), esc(envh[i]) > f
	printf ".SH EXIT STATUS\n0 success; 1 a \\fB\\-\\-fail\\-if\\fR condition held (report); " > f
	printf "2 bad input: usage, an unreadable or corrupt file, an unreachable agent, a wrong token, " > f
	printf "with one line on standard error saying what to do.\n" > f
	printf ".SH SEE ALSO\n" > f
	for (i = 1; i <= ncmd; i++) printf "perflens\\-%s(1), ", cmd[i] > f
	printf "perflens\\-agent(1), perf(1)\n" > f
	close(f)
	# perflens-COMMAND(1)
	for (i = 1; i <= ncmd; i++) {
		c = cmd[i]; f = out "/perflens-" c ".1"
		what = sum[c]; sub(/[:;.].*/, "", what)
		head(f, "perflens-" c, tolower(substr(what, 1, 1)) substr(what, 2))
		printf ".SH SYNOPSIS\n.B perflens %s\n%s\n", c, esc(syn[c]) > f
		printf ".SH DESCRIPTION\n%s\n.SH OPTIONS\n", esc(sum[c]) > f
		g = "-"
		for (j = 1; j <= n[c]; j++) {
			if (o_grp[c, j] != g) {
				g = o_grp[c, j]
				printf ".SS %s\n", (g in title) ? title[g] : esc(g) > f
			}
			opt(f, o_short[c, j], o_long[c, j], o_arg[c, j], o_help[c, j])
		}
		printf ".SH ENVIRONMENT\nSee perflens(1) or \\fBperflens help environment\\fR.\n" > f
		printf ".SH SEE ALSO\nperflens(1), perflens\\-agent(1)\n" > f
		close(f)
	}
	# perflens-agent(1)
	f = out "/perflens-agent.1"; a = "perflens-agent"
	head(f, a, "the PerfLens agent: samples with perf_event_open, streams to a viewer or a file")
	printf ".SH SYNOPSIS\n.B perflens\\-agent\n[\\fIMODE\\fR] [\\fIOPTIONS\\fR] [\\fB\\-\\-\\fR \\fICOMMAND ARGS\\fR...]\n" > f
	printf ".SH DESCRIPTION\nA small static program for the board: it waits for a viewer " > f
	printf "(\\fB\\-\\-listen\\fR), dials one (\\fB\\-\\-server\\fR), serves one over ssh " > f
	printf "(\\fB\\-\\-stdio\\fR) or records headless into a capture file (\\fB\\-\\-output\\fR).  " > f
	printf "The letters \\fB\\-F\\fR, \\fB\\-g\\fR, \\fB\\-e\\fR, \\fB\\-p\\fR, \\fB\\-a\\fR mean what they mean to perf record.\n" > f
	printf ".SH OPTIONS\n" > f
	g = "-"
	for (j = 1; j <= n[a]; j++) {
		if (o_grp[a, j] != g) { g = o_grp[a, j]; sub(/:$/, "", g); printf ".SS %s\n", esc(g) > f; g = o_grp[a, j] }
		opt(f, o_short[a, j], o_long[a, j], o_arg[a, j], o_help[a, j])
	}
	printf ".SH ENVIRONMENT\n.TP\n.B XDG_RUNTIME_DIR\\fR, \\fBHOME\n" > f
	printf "where a generated token is written (perflens\\-agent\\-PORT.token, mode 0600)\n" > f
	printf ".TP\n.B PERFLENS_SYSFS_ROOT\n" > f
	printf "a test hook: put before /sys where the counter tracks (\\fB\\-\\-tracks\\fR) are read, " > f
	printf "so that a test can lay out a tree as the kernel documents it; unset on a board\n" > f
	printf ".SH EXIT STATUS\n0 success; 1 the session failed (perf refused, a file not written); 2 bad usage.\n" > f
	printf ".SH SEE ALSO\nperflens(1), perflens\\-record(1), perf\\-record(1)\n" > f
	close(f)
}' "$dump"

# ─── completions ─────────────────────────────────────────────────────────
# "--long" and "-s" spellings of one program's or command's options
spellings() { # PROGRAM
	awk -F'\t' -v p="$1" '$1 == "option" && $2 == p && $7 != "hidden" {
		if ($4 != "-") printf "--%s ", $4; if ($5 != "-") printf "-%s ", $5 }' "$dump"
}
cmds=$(awk -F'\t' '$1 == "command" { printf "%s ", $2 }' "$dump")
{
	echo "# bash completion for perflens (generated by man/gen.sh from perflens --dump-options)"
	echo "_perflens() {"
	echo "	local cur=\${COMP_WORDS[COMP_CWORD]} cmd= i opts"
	echo "	for ((i = 1; i < COMP_CWORD; i++)); do"
	echo "		case \${COMP_WORDS[i]} in ${cmds// /|}help) cmd=\${COMP_WORDS[i]}; break ;; esac"
	echo "	done"
	echo "	case \$cmd in"
	for c in $cmds; do echo "	$c) opts='$(spellings "$c")' ;;"; done
	echo "	help) COMPREPLY=(\$(compgen -W '${cmds}environment' -- \"\$cur\")); return ;;"
	echo "	*) opts='$(spellings perflens)'"
	echo "	   [[ \$cur == -* ]] || { COMPREPLY=(\$(compgen -W '${cmds}help' -- \"\$cur\") \$(compgen -f -- \"\$cur\")); return; } ;;"
	echo "	esac"
	echo "	if [[ \$cur == -* ]]; then COMPREPLY=(\$(compgen -W \"\$opts\" -- \"\$cur\"))"
	echo "	else COMPREPLY=(\$(compgen -f -- \"\$cur\")); fi"
	echo "}"
	echo "complete -o filenames -F _perflens perflens"
} >"$out/bash/perflens"
{
	echo "# bash completion for perflens-agent (generated by man/gen.sh from perflens-agent --dump-options)"
	echo "_perflens_agent() {"
	echo "	local cur=\${COMP_WORDS[COMP_CWORD]}"
	echo "	if [[ \$cur == -* ]]; then COMPREPLY=(\$(compgen -W '$(spellings perflens-agent)' -- \"\$cur\"))"
	echo "	else COMPREPLY=(\$(compgen -f -- \"\$cur\")); fi"
	echo "}"
	echo "complete -o filenames -F _perflens_agent perflens-agent"
} >"$out/bash/perflens-agent"

# zsh: one _arguments spec per spelling; [, ], : and ' left out of the help
zspecs() { # PROGRAM
	awk -F'\t' -v p="$1" -v q="'" '
	function clean(s) {
		gsub(/\[/, "(", s); gsub(/\]/, ")", s); gsub(/[:\\`$]/, " ", s); gsub(q, "", s)
		return s
	}
	$1 == "option" && $2 == p && $7 != "hidden" {
		h = substr(clean($8), 1, 70)
		a = ($6 == "-") ? "" : ":" clean($6) ":_files"
		if ($4 != "-") printf "\t\t%s*--%s[%s]%s%s \\\n", q, $4, h, a, q
		if ($5 != "-") printf "\t\t%s*-%s[%s]%s%s \\\n", q, $5, h, a, q
	}' "$dump"
}
{
	echo "#compdef perflens"
	echo "# zsh completion for perflens (generated by man/gen.sh from perflens --dump-options)"
	echo "_perflens() {"
	echo "	if (( CURRENT == 2 )); then"
	echo "		_alternative 'commands:command:(${cmds}help)' 'files:file:_files'"
	echo "		[[ \$words[2] == -* ]] || return"
	echo "	fi"
	echo "	case \$words[2] in"
	for c in $cmds; do
		echo "	$c) # options of $c"
		echo "		_arguments \\"
		zspecs "$c"
		echo "		'*:file:_files' ;;"
	done
	echo "	*) # options of perflens"
	echo "		_arguments \\"
	zspecs perflens
	echo "		'*:file:_files' ;;"
	echo "	esac"
	echo "}"
	echo "_perflens \"\$@\""
} >"$out/zsh/_perflens"
{
	echo "#compdef perflens-agent"
	echo "# zsh completion for perflens-agent (generated by man/gen.sh from perflens-agent --dump-options)"
	echo "# options of perflens-agent"
	echo "_arguments \\"
	zspecs perflens-agent
	echo "	'*::command:_normal'"
} >"$out/zsh/_perflens-agent"
