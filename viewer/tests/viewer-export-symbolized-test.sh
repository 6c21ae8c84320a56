#!/usr/bin/env bash
# viewer-export-symbolized-test.sh — self-contained sessions on a real
# recording: burn (test/workloads/burn.c) is built with -g from a copy of
# its source in a temporary directory, recorded by the real agent
# (perflens-agent --output, dwarf call graphs: the walks need the binary's
# CFI) from there, reported and exported as collapsed stacks with its
# files present, and exported with --format plens-symbolized.  Then the
# binary and the source are deleted and, with HOME and the XDG dirs
# private and no debuginfod, the export must give the same report and the
# same collapsed stacks, the source and instructions of hot_leaf, and say
# where and when it was symbolized; the original capture, opened the same
# way, must not (the oracle needs the files: this is what the table is
# for).  The table's malformed-input cases are viewer-sym-embed-test's.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-export-symbolized: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-symexp-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="symexp_written_0600 symexp_files_gone_oracle symexp_same_report symexp_same_collapsed symexp_source_and_disasm symexp_says_where symexp_export_of_export"
pl_plan $ALL
all_fail() { for n in $ALL; do fail "$n" "$1"; done; exit 1; }

for x in "$PERFLENS" "$AGENT"; do [ -x "$x" ] || all_fail "$x not built (make)"; done
command -v cc >/dev/null || all_fail "no C compiler (build-essential: ci/deps.sh)"
mkdir -p "$TMP/src" "$TMP/bin" "$TMP/home"
cp "$TOP/test/workloads/burn.c" "$TMP/src/burn.c"
# as the Makefile builds the workload, but from the copy: its DWARF names $TMP/src/burn.c
cc -O1 -g -fno-omit-frame-pointer -fno-inline-functions-called-once -pthread \
	-o "$TMP/bin/burn" "$TMP/src/burn.c" || all_fail "cannot build burn"
CAP=$TMP/burn.plens OUT=$TMP/burn-self.plens
if ! "$AGENT" --output "$CAP" --callgraph dwarf --frequency 499 -- "$TMP/bin/burn" 2 2 \
	>"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then
		for n in $ALL; do skip "$n" "$why"; done
		exit 0
	fi
	all_fail "the kernel allows perf, but the agent cannot record: $(tail -1 "$TMP/agent.log")"
fi
"$PERFLENS" report "$CAP" --top 15 --function hot_leaf >"$TMP/orig.txt" 2>&1 ||
	all_fail "report of the capture failed: $(tail -1 "$TMP/orig.txt")"
"$PERFLENS" export "$CAP" -f collapsed -o "$TMP/orig.folded" 2>/dev/null ||
	all_fail "collapsed export of the capture failed"
grep -q ' hot_leaf ' "$TMP/orig.txt" || all_fail "hot_leaf is not in the original's report: $(grep -A3 '^Top' "$TMP/orig.txt" | tr '\n' '|')"

# ─── export ─────────────────────────────────────────────────────────────
if "$PERFLENS" export "$CAP" --format plens-symbolized -o "$OUT" 2>"$TMP/export.err"; then
	mode=$(stat -c %a "$OUT")
	if [ "$mode" = 600 ]; then ok symexp_written_0600; echo "# $(tail -1 "$TMP/export.err")"
	else fail symexp_written_0600 "mode $mode"; fi
else
	all_fail "export failed: $(tail -2 "$TMP/export.err" | tr '\n' ' ')"
fi
ls -l "$CAP" "$OUT" | awk '{print "# " $5 " " $NF}'

# ─── the files go ───────────────────────────────────────────────────────
rm -rf "$TMP/src" "$TMP/bin"
elsewhere() {
	HOME=$TMP/home XDG_CACHE_HOME=$TMP/home/cache XDG_CONFIG_HOME=$TMP/home/config \
		XDG_DATA_HOME=$TMP/home/data DEBUGINFOD_URLS= PERFLENS_NO_DEBUG_CACHE=1 "$PERFLENS" "$@"
}
elsewhere report "$CAP" --top 15 >"$TMP/gone.txt" 2>&1
if ! grep -q ' hot_leaf ' "$TMP/gone.txt"; then ok symexp_files_gone_oracle
else fail symexp_files_gone_oracle "the capture still names hot_leaf without its binary: the test does not hide the files"; fi

elsewhere report "$OUT" --top 15 --function hot_leaf --source hot_leaf --annotate hot_leaf \
	>"$TMP/self.txt" 2>&1 || fail symexp_same_report "report failed: $(tail -1 "$TMP/self.txt")"
# the same report, but for its first line (the file name) and the note
# (and the --source/--annotate sections, which the original was not asked for)
sed 1d "$TMP/orig.txt" >"$TMP/a.txt"
sed -e 1d -e '/^  self-contained: /d' -e '/^Source of hot_leaf:/,/^$/d' \
	-e '/^Instructions of hot_leaf:/,/^$/d' "$TMP/self.txt" >"$TMP/b.txt"
if diff -u "$TMP/a.txt" "$TMP/b.txt" >"$TMP/report.diff"; then
	ok symexp_same_report; echo "# $(grep -c '' "$TMP/a.txt") report lines identical"
else fail symexp_same_report "$(head -12 "$TMP/report.diff" | tr '\n' '|')"; fi

elsewhere export "$OUT" -f collapsed -o "$TMP/self.folded" 2>/dev/null
if [ -s "$TMP/orig.folded" ] && cmp -s "$TMP/orig.folded" "$TMP/self.folded"; then
	ok symexp_same_collapsed; echo "# $(wc -l <"$TMP/orig.folded") stacks identical"
else fail symexp_same_collapsed "$(diff "$TMP/orig.folded" "$TMP/self.folded" | head -4 | tr '\n' '|')"; fi

src_line=$(sed -n '/^Source of hot_leaf:/,/^$/p' "$TMP/self.txt" | grep -c 'x = x \* 1664525ul')
insns=$(sed -n '/^Instructions of hot_leaf:/,/^$/p' "$TMP/self.txt" | grep -cE '^ +([0-9.]+% +[0-9.]+% +)?[0-9a-f]+:'$'\t')
hot_insn=$(sed -n '/^Instructions of hot_leaf:/,/^$/p' "$TMP/self.txt" | grep -cE '^ +[0-9.]+% +[0-9.]+% +[0-9a-f]+:')
if [ "$src_line" -ge 1 ] && [ "$insns" -ge 3 ] && [ "$hot_insn" -ge 1 ]; then
	ok symexp_source_and_disasm; echo "# source line found, $insns instructions, $hot_insn with samples"
else fail symexp_source_and_disasm "source line $src_line, instructions $insns, sampled $hot_insn: $(sed -n '/^Source of/,+3p;/^Instructions of/,+3p' "$TMP/self.txt" | tr '\n' '|')"; fi

host=$(hostname)
if grep -qE "^  self-contained: symbolized on $host at 20[0-9-]+ [0-9:]+ UTC by PerfLens [0-9.]+, from burn.plens" "$TMP/self.txt"; then
	ok symexp_says_where
else fail symexp_says_where "$(grep -m1 'self-contained' "$TMP/self.txt" || echo 'no self-contained line')"; fi

# exported again where nothing is: the same answers, the first origin
if elsewhere export "$OUT" --format plens-symbolized -o "$TMP/again.plens" 2>/dev/null &&
	elsewhere export "$TMP/again.plens" -f collapsed -o "$TMP/again.folded" 2>/dev/null &&
	cmp -s "$TMP/orig.folded" "$TMP/again.folded" &&
	elsewhere report "$TMP/again.plens" --top 1 2>&1 | grep -q "symbolized on $host .* from burn.plens"; then
	ok symexp_export_of_export
else fail symexp_export_of_export "$(elsewhere report "$TMP/again.plens" --top 3 2>&1 | head -8 | tr '\n' '|')"; fi
