# shellcheck shell=bash
# test/tools/perf-oracle.sh — `perf` as the oracle: the pieces that turn
# `perf report` and `perflens report` into comparable tables of self
# shares, and the comparison itself.  Sourced, never run; used by
# viewer/tests/viewer-perf-oracle-test.sh and test/realworld/run.sh.
#
# A table is "SHARE<TAB>NAME" lines, largest first, SHARE in percent.

# A C++ name without its parameter list, as perf prints it (perf report
# demangles without parameters unless verbose; PerfLens keeps them):
# "ns::C<int>::f(int*) const [clone .isra.0]" -> "ns::C<int>::f [clone .isra.0]".
# Names are compared after this on both sides.
ORACLE_AWK_NAME='
function oracle_name(s,   t, sfx, i, c, depth) {
	sub(/@@?[A-Za-z0-9_.]+$/, "", s)
	if (s ~ /^0x[0-9a-f]+$/) return "[unknown]"
	t = s; sfx = ""
	if (match(t, / \[clone [^]]*\]$/)) { sfx = substr(t, RSTART); t = substr(t, 1, RSTART - 1) }
	while (match(t, / (const|volatile|&|&&)$/)) t = substr(t, 1, RSTART - 1)
	if (substr(t, length(t)) != ")") return s
	depth = 0
	for (i = length(t); i > 1; i--) {
		c = substr(t, i, 1)
		if (c == ")") depth++
		else if (c == "(" && --depth == 0) break
	}
	if (i <= 1) return s
	return substr(t, 1, i - 1) sfx
}'

# oracle_perf_self PERF.DATA [PERF REPORT ARGS...]: perf's self shares by
# symbol (--no-children --sort sym), "[k]"/"[.]" dropped, names kept whole
# (C++ names have spaces) but for their parameters.  Symbol versions
# (memcpy@@GLIBC_2.14, which perf prints from .dynsym) are dropped: they
# are not part of the name.  An unresolved address (0x00007f...) becomes
# "[unknown]", as PerfLens names it.
oracle_perf_self() {
	local data=$1
	shift
	perf report -i "$data" --no-children --sort sym --stdio -g none "$@" 2>/dev/null |
		awk "$ORACLE_AWK_NAME"'
		/^ *[0-9.]+%/ {
			sub(/%/, "", $1); name = $3
			for (i = 4; i <= NF; i++) name = name " " $i
			print $1 "\t" oracle_name(name)
		}'
}

# oracle_ours_self REPORT.TXT: the "Top functions" table of `perflens
# report` ("  Self%  Total%  Samples  Function...  Module" until the blank
# line); the function is every field between Samples and the module,
# without its parameters.
oracle_ours_self() {
	awk "$ORACLE_AWK_NAME"'
	/^Top functions/ { on = 1; getline; next } on && NF == 0 { exit }
	on { s = $1; sub(/%/, "", s); name = $4
	     for (i = 5; i < NF; i++) name = name " " $i
	     print s "\t" oracle_name(name) }' "$1"
}

# oracle_compare PERF.TSV OURS.TSV TOP TOLERANCE [MIN [N_PERF N_OURS]]:
# every name among the first TOP of either table (with a share of at
# least MIN points on that side, default 0) must have the same share on
# both sides within TOLERANCE points.  Given the two sample counts, the
# allowance for a name is the larger of TOLERANCE and three standard
# errors of the difference of two samplings of a share p
# (100 * sqrt(p (1 - p) (1/N_PERF + 1/N_OURS))): a symbol with 60 % of
# 2000 samples moves by 1.5 points from one sampling to the next, one with
# 2 % by 0.4.  Names are summed per side first (perf may list one name
# twice, from two DSOs); a name missing on one side counts 0 there.
# Prints "WORST<TAB>MISMATCHES" (MISMATCHES empty when all agree).
oracle_compare() {
	awk -F'\t' -v top="$3" -v tol="$4" -v min="${5:-0}" -v n1="${6:-0}" -v n2="${7:-0}" '
		FNR == 1 { file++ }
		file == 1 { perf[$2] += $1; if (++np <= top && $1 >= min) want[$2] = 1 }
		file == 2 { ours[$2] += $1; if (++no <= top && $1 >= min) want[$2] = 1 }
		END {
			worst = 0; bad = ""
			for (n in want) {
				d = perf[n] - ours[n]; if (d < 0) d = -d
				if (d > worst) worst = d
				allow = tol
				if (n1 > 0 && n2 > 0) {
					p = (perf[n] + ours[n]) / 200
					se3 = 300 * sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
					if (se3 > allow) allow = se3
				}
				if (d > allow) bad = bad sprintf("%s perf %.2f ours %.2f; ", n, perf[n], ours[n])
			}
			printf "%.2f\t%s\n", worst, bad
		}' "$1" "$2"
}

# Thread starts: the outermost frame of a complete user stack (the main
# thread's _start and libc's start functions, a new thread's clone and
# start_thread) or of a new task's first return from the kernel.
ORACLE_ROOTS='^(_start|__libc_start_main|__libc_start_call_main|__clone|__clone3|clone|clone3|start_thread|ret_from_fork|ret_from_fork_asm)$'

# oracle_perf_roots PERF.DATA [PERF SCRIPT ARGS...]: "SAMPLES ROOTED", the
# samples perf script prints and those whose outermost frame is a thread
# start (inline expansion off, symbol versions dropped).
oracle_perf_roots() {
	local data=$1
	shift
	perf script -i "$data" --no-inline -F comm,tid,ip,sym "$@" 2>/dev/null |
		awk -v re="$ORACLE_ROOTS" '
			function done() { if (open) { n++; if (root ~ re) r++ } open = 0; root = "" }
			/^[ \t]*$/ { done(); next }
			/^[ \t]/ { root = $2; sub(/@@?[A-Za-z0-9_.]+$/, "", root); next }
			{ done(); open = 1; if (NF >= 4) { root = $4; sub(/@@?[A-Za-z0-9_.]+$/, "", root) } }
			END { done(); printf "%d %d\n", n, r }'
}

# oracle_ours_roots COLLAPSED: the same from `perflens export --format
# collapsed` ("outer;...;leaf COUNT" lines).
oracle_ours_roots() {
	awk -v re="$ORACLE_ROOTS" '{
		c = $NF; n += c
		f = $0; sub(/ [0-9]+$/, "", f); sub(/;.*/, "", f)
		if (f ~ re) r += c
	} END { printf "%d %d\n", n, r }' "$1"
}
