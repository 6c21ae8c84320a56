# shellcheck shell=bash
# test/tools/perf-oracle.sh — `perf` as the oracle: the pieces that turn
# `perf report` and `perflens report` into comparable tables of self
# shares, and the comparison itself.  Sourced, never run; used by
# viewer/tests/viewer-perf-oracle-test.sh and test/realworld/run.sh.
#
# A table is "SHARE<TAB>NAME" lines, largest first, SHARE in percent.

# oracle_perf_self PERF.DATA [PERF REPORT ARGS...]: perf's self shares by
# symbol (--no-children --sort sym), "[k]"/"[.]" dropped, names kept whole
# (C++ names have spaces).  Symbol versions (memcpy@@GLIBC_2.14, which
# perf prints from .dynsym) are dropped: they are not part of the name.
# An unresolved address (0x00007f...) becomes "[unknown]", as PerfLens
# names it.
oracle_perf_self() {
	local data=$1
	shift
	perf report -i "$data" --no-children --sort sym --stdio -g none "$@" 2>/dev/null |
		awk '/^ *[0-9.]+%/ {
			sub(/%/, "", $1); name = $3
			for (i = 4; i <= NF; i++) name = name " " $i
			sub(/@@?[A-Za-z0-9_.]+$/, "", name)
			if (name ~ /^0x[0-9a-f]+$/) name = "[unknown]"
			print $1 "\t" name
		}'
}

# oracle_ours_self REPORT.TXT: the "Top functions" table of `perflens
# report` ("  Self%  Total%  Samples  Function...  Module" until the blank
# line); the function is every field between Samples and the module.
oracle_ours_self() {
	awk '/^Top functions/ { on = 1; getline; next } on && NF == 0 { exit }
	     on { s = $1; sub(/%/, "", s); name = $4
	          for (i = 5; i < NF; i++) name = name " " $i
	          print s "\t" name }' "$1"
}

# oracle_compare PERF.TSV OURS.TSV TOP TOLERANCE [MIN]: every name among
# the first TOP of either table (with a share of at least MIN points on
# that side, default 0) must have the same share on both sides within
# TOLERANCE points.  Names are summed per side first (perf may list one
# name twice, from two DSOs); a name missing on one side counts 0 there.
# Prints "WORST<TAB>MISMATCHES" (MISMATCHES empty when all agree).
oracle_compare() {
	awk -F'\t' -v top="$3" -v tol="$4" -v min="${5:-0}" '
		FNR == 1 { file++ }
		file == 1 { perf[$2] += $1; if (++np <= top && $1 >= min) want[$2] = 1 }
		file == 2 { ours[$2] += $1; if (++no <= top && $1 >= min) want[$2] = 1 }
		END {
			worst = 0; bad = ""
			for (n in want) {
				d = perf[n] - ours[n]; if (d < 0) d = -d
				if (d > worst) worst = d
				if (d > tol) bad = bad sprintf("%s perf %.2f ours %.2f; ", n, perf[n], ours[n])
			}
			printf "%.2f\t%s\n", worst, bad
		}' "$1" "$2"
}
