#!/usr/bin/env bash
# viewer-cli-statics-test.sh — the command line on a program with two static
# functions of one name: helper in a.c and in b.c (viewer/tests/source-dwarf,
# a.c's looping four times as long as b.c's), built here with -g and recorded
# by the real agent with DWARF call graphs.
#
#   report     two rows, "helper (a.c)" and "helper (b.c)": the files are the
#              ones nm -l gives for the two helper symbols, and each row has
#              exactly the samples perf attributes to that file (perf script's
#              srcline of each sample's address, on our perf-data export of the
#              same recording), a.c's more than twice b.c's; every other name
#              is printed plain;
#   --fail-if  a bare 'helper' is refused (exit 2, one line naming both
#              spellings); 'helper (a.c)', the full path and total: measure one;
#              'helper (c.c)' (no such helper) fails the gate, saying so;
#   --source, --function, --annotate   'helper (b.c)' is b.c's; a bare helper
#              is the one with more samples, with a note on stderr;
#   exports    collapsed, svg and speedscope name both apart; pprof keeps them
#              apart by file with a stack filter too (go tool pprof -filefunctions);
#   diff       against a recording of a.c's helper alone: "helper (a.c)" on both
#              sides, "helper (b.c)" new;
#   filters    --merge, --deny, --rename, --focus, --drop, --allow take
#              'helper (a.c)' as the report prints it (and the app's anchored
#              '^helper \(a\.c\)$') for that helper alone, its samples going
#              where the option sends them: perf script's per-file counts
#              (--merge 'helper (a.c)': b.c's row keeps its count, run_a's self
#              grows by a.c's); a plain '^helper$' still takes both;
#   --tracepoints  a uprobe on helper (the agent takes the first ELF symbol of
#              that name): each hit's stack starts with that helper's spelling,
#              the one whose nm address the hit's ip is at;
#   files      the same two built as x/util.c and y/util.c: "helper (x/util.c)"
#              and "helper (y/util.c)", and 'helper (util.c)' is ambiguous; b.c
#              built without -g: "helper (a.c)" and "helper (?)".
set -u
export LC_ALL=C # sort order and the decimal point of the figures
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
SRC=$(cd "${PL_TOP:-.}/viewer/tests/source-dwarf" && pwd)
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-cli-statics: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-statics-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="report_rows_by_file report_plain_names fail_if_refuses_bare fail_if_spellings source_by_file function_and_annotate export_collapsed export_svg_speedscope export_pprof_files filters_merge_by_file filters_merge_anchored filters_by_file filters_plain_name filters_help diff_by_file probe_stacks_by_file rows_by_path_tail rows_without_dwarf help_spelling"
pl_plan $ALL
all_fail() { for n in $ALL; do fail "$n" "$1"; done; exit 1; }

for x in "$PERFLENS" "$AGENT"; do [ -x "$x" ] || all_fail "$x not built (make)"; done
# ci/deps.sh installs them all: their absence fails
for x in cc nm perf objdump python3 go; do command -v $x >/dev/null || all_fail "$x missing (ci/deps.sh)"; done
cc -O1 -g -fno-omit-frame-pointer -o "$TMP/statics" "$SRC/a.c" "$SRC/b.c" "$SRC/main.c" 2>"$TMP/cc.err" ||
	all_fail "cannot build the statics program: $(head -1 "$TMP/cc.err")"
CAP=$TMP/statics.plens
if ! "$AGENT" --output "$CAP" --callgraph dwarf --frequency 999 -- "$TMP/statics" 1.5 >"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then
		for n in $ALL; do skip "$n" "$why"; done
		exit 0
	fi
	all_fail "the kernel allows perf, but the agent cannot record: $(tail -1 "$TMP/agent.log")"
fi

# nm -l: "ADDR t helper<TAB>FILE:LINE", one per definition
nm -l "$TMP/statics" | awk '$3 == "helper" { sub(/:[0-9]+$/, "", $4); print $1, $4 }' | sort -k2 >"$TMP/nm.txt"
A_ADDR=$(awk '$2 ~ /\/a\.c$/ {print $1}' "$TMP/nm.txt") A_FILE=$(awk '$2 ~ /\/a\.c$/ {print $2}' "$TMP/nm.txt")
B_ADDR=$(awk '$2 ~ /\/b\.c$/ {print $1}' "$TMP/nm.txt") B_FILE=$(awk '$2 ~ /\/b\.c$/ {print $2}' "$TMP/nm.txt")
[ "$(wc -l <"$TMP/nm.txt")" = 2 ] && [ -n "$A_ADDR" ] && [ -n "$B_ADDR" ] ||
	all_fail "nm -l does not give one helper in a.c and one in b.c: $(tr '\n' ' ' <"$TMP/nm.txt")"
A=helper\ \(a.c\) BB=helper\ \(b.c\)

"$PERFLENS" report "$CAP" --event cpu-clock --top 0 >"$TMP/report.txt" 2>"$TMP/report.err"
# the rows of the function table: "SELF TOTAL SAMPLES<TAB>LABEL<TAB>MODULE"
# (the label is the 40-column field after the samples)
rows() {
	awk '/^Top functions/ {on=1; getline; next} on && NF == 0 {exit}
	     on { l = substr($0, 30, 40); sub(/ +$/, "", l); m = substr($0, 71)
	          s = $1; t = $2; sub(/%/, "", s); sub(/%/, "", t); print s "\t" t "\t" $3 "\t" l "\t" m }' "$1"
}
rows "$TMP/report.txt" >"$TMP/rows.txt"
col() { awk -F'\t' -v l="$2" -v c="$1" '$4 == l { print $c; exit }' "$TMP/rows.txt"; }

# ─── report: the rows, against nm -l and perf's attribution ────────────
# perf script on the same samples: each cpu-clock sample in helper, with the
# source file its address is in (perf's addr2line)
"$PERFLENS" export "$CAP" -f perf-data -o "$TMP/s.data" 2>"$TMP/pd.err"
perf script -i "$TMP/s.data" -F event,ip,sym,srcline -G 2>/dev/null |
	awk '/^ *cpu-clock:/ { h = ($3 == "helper"); next } h && NF { split($1, f, ":"); print f[1]; h = 0 }' |
	sort | uniq -c >"$TMP/perf.txt"
perf_a=$(awk '$2 == "a.c" {print $1}' "$TMP/perf.txt") perf_b=$(awk '$2 == "b.c" {print $1}' "$TMP/perf.txt")
helpers=$(awk -F'\t' '$4 ~ /^helper( |$)/ {print $4}' "$TMP/rows.txt" | sort | tr '\n' '|')
a_n=$(col 3 "$A") b_n=$(col 3 "$BB")
want="helper ($(basename "$A_FILE"))|helper ($(basename "$B_FILE"))|"
if [ "$helpers" = "$want" ] && [ -n "$perf_a" ] && [ -n "$perf_b" ] &&
   [ "$a_n" = "$perf_a" ] && [ "$b_n" = "$perf_b" ] && [ "$a_n" -gt $((2 * b_n)) ]; then
	ok report_rows_by_file; echo "# helper (a.c) $a_n samples, helper (b.c) $b_n (perf script: a.c $perf_a, b.c $perf_b)"
else bad_rows=$(tr '\n' ' ' <"$TMP/perf.txt"); fail report_rows_by_file "rows '$helpers' (want '$want'), samples a.c '$a_n' b.c '$b_n', perf: $bad_rows $(head -c 200 "$TMP/pd.err")"; fi

# names of one function each are printed as they always were
others=$(awk -F'\t' '$4 !~ /^helper / && $4 ~ / \(/ {print $4}' "$TMP/rows.txt" | head -3 | tr '\n' ' ')
if [ -n "$(col 3 main)" ] && [ -n "$(col 3 run_a)" ] && [ -n "$(col 3 run_b)" ] && [ -z "$others" ] &&
   [ "$(col 5 "$A")" = statics ]; then ok report_plain_names
else fail report_plain_names "main/run_a/run_b rows missing or others qualified: '$others'"; fi

# ─── --fail-if ─────────────────────────────────────────────────────────
"$PERFLENS" report "$CAP" --event cpu-clock --fail-if 'helper>1%' >"$TMP/fi.out" 2>"$TMP/fi.err"; rc=$?
if [ $rc = 2 ] && [ ! -s "$TMP/fi.out" ] && [ "$(wc -l <"$TMP/fi.err")" = 1 ] &&
   grep -qF "'$A'" "$TMP/fi.err" && grep -qF "'$BB'" "$TMP/fi.err" && grep -qF -- "--fail-if '$A>1%'" "$TMP/fi.err"; then
	ok fail_if_refuses_bare
else fail fail_if_refuses_bare "exit $rc, stderr: $(head -c 300 "$TMP/fi.err")"; fi

a_self=$(col 1 "$A") b_self=$(col 1 "$BB")
mid=$(awk -v a="$a_self" -v b="$b_self" 'BEGIN { printf "%.2f", (a + b) / 2 }')
fi_rc() { "$PERFLENS" report "$CAP" --event cpu-clock --fail-if "$1" >/dev/null 2>"$TMP/fi2.err"; echo $?; }
r1=$(fi_rc "$A>$mid%"); grep -qF "$A self is $a_self%" "$TMP/fi2.err"; m1=$?
r2=$(fi_rc "$BB>$mid%")
r3=$(fi_rc "helper ($B_FILE)<$mid%")
r4=$(fi_rc "total:$BB<$mid%")
# no helper of c.c: the gate measures nothing, so it fails and says why
r5=$(fi_rc "helper (c.c)>0%"); grep -qF "no function named helper (c.c) has samples" "$TMP/fi2.err"; m5=$?
if [ "$r1 $m1 $r2 $r3 $r4 $r5 $m5" = "1 0 0 1 1 1 0" ]; then ok fail_if_spellings
else fail fail_if_spellings "exits (want 1 0 0 1 1 1 0): $r1 $m1 $r2 $r3 $r4 $r5 $m5 (a.c $a_self%, b.c $b_self%, limit $mid%)"; fi

# ─── --source, --function, --annotate ──────────────────────────────────
"$PERFLENS" report "$CAP" --event cpu-clock --top 1 --source "$BB" >"$TMP/srcb.txt" 2>"$TMP/srcb.err"
"$PERFLENS" report "$CAP" --event cpu-clock --top 1 --source helper >"$TMP/src.txt" 2>"$TMP/src.err"
src_lines() { sed -n '/^Source of/,/^$/p' "$1"; }
# b.c's loop body, with samples; a.c's not there; the bare name: a.c's, and a note
if src_lines "$TMP/srcb.txt" | grep -qF "Source of $BB:" &&
   src_lines "$TMP/srcb.txt" | grep -qE '^ +[0-9.]+% +[0-9.]+% +[0-9]+[[:space:]]+x \^= \(x << 7\)' &&
   ! src_lines "$TMP/srcb.txt" | grep -q '6364136223846793005' && [ ! -s "$TMP/srcb.err" ] &&
   src_lines "$TMP/src.txt" | grep -qF "Source of $A:" &&
   src_lines "$TMP/src.txt" | grep -qE '^ +[0-9.]+% +[0-9.]+% +[0-9]+[[:space:]]+x = x \* 6364136223846793005' &&
   grep -qF "note: --source helper: 2 functions have that name here: '$A' ($a_n samples), '$BB' ($b_n samples)" "$TMP/src.err"; then
	ok source_by_file
else fail source_by_file "$(src_lines "$TMP/srcb.txt" | head -3 | tr '\n' ' ') / $(head -c 200 "$TMP/src.err")"; fi

"$PERFLENS" report "$CAP" --event cpu-clock --top 1 --function "$BB" --annotate "$BB" >"$TMP/fa.txt" 2>"$TMP/fa.err"
rel=$(sed -n '/^Callers and callees of/,/^$/p' "$TMP/fa.txt")
ann=$(sed -n '/^Instructions of/,/^$/p' "$TMP/fa.txt")
b_hex=$(printf '%x' "0x$B_ADDR")
ann_self=$(echo "$ann" | awk '/^ +[0-9.]+% +[0-9.]+% +[0-9a-f]+:/ { v = $1; sub(/%/, "", v); s += v } END { printf "%.2f", s }')
# the source says run_b alone calls b.c's helper; the listing is the code at
# nm's address of b.c's helper (its first instruction, with or without
# samples), its instructions holding all of its self share
if echo "$rel" | grep -qF "Callers and callees of $BB:" && echo "$rel" | grep -qE '^  caller +[0-9.]+%  run_b$' &&
   ! echo "$rel" | grep -q run_a && echo "$ann" | grep -qF "Instructions of $BB:" &&
   echo "$ann" | grep -qE "^ +([0-9.]+% +[0-9.]+% +)?$b_hex:" && ! echo "$ann" | grep -q 'fall on no instruction' &&
   awk -v a="$ann_self" -v b="$b_self" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05) }'; then
	ok function_and_annotate
else fail function_and_annotate "$(echo "$rel" | head -3 | tr '\n' ' ') / $(echo "$ann" | head -4 | tr '\n' ' ') instructions $ann_self% of $b_self% $(head -c 200 "$TMP/fa.err")"; fi

# ─── exports ───────────────────────────────────────────────────────────
"$PERFLENS" export "$CAP" -f collapsed --event cpu-clock >"$TMP/c.folded" 2>/dev/null
leaf_sum() { awk -v l="$1" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); if (f[k] == l) t += n } END { print t + 0 }' "$TMP/c.folded"; }
bare=$(grep -cE '(^|;)helper( [0-9]+$|;)' "$TMP/c.folded")
if [ "$bare" = 0 ] && [ "$(leaf_sum "$A")" = "$a_n" ] && [ "$(leaf_sum "$BB")" = "$b_n" ] &&
   grep -qF ";run_a;$A " "$TMP/c.folded" && grep -qF ";run_b;$BB " "$TMP/c.folded" &&
   ! grep -qF ";run_a;$BB" "$TMP/c.folded" && ! grep -qF ";run_b;$A" "$TMP/c.folded"; then ok export_collapsed
else fail export_collapsed "$bare bare helper frames; leaves a.c $(leaf_sum "$A")/$a_n b.c $(leaf_sum "$BB")/$b_n: $(head -2 "$TMP/c.folded" | tr '\n' ' ')"; fi

"$PERFLENS" export "$CAP" -f svg --event cpu-clock -o "$TMP/f.svg" 2>/dev/null
"$PERFLENS" export "$CAP" -f speedscope --event cpu-clock -o "$TMP/s.json" 2>/dev/null
r=$(python3 - "$TMP/f.svg" "$TMP/s.json" "$A" "$BB" <<'PY'
import json, sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
try:
    titles = [t.text for t in E.parse(sys.argv[1]).getroot().findall('.//' + ns + 'title')]
    for l in sys.argv[3:]:
        assert any(t.startswith(l + ' [statics]') for t in titles), 'svg: no frame ' + l
    assert not any(t.startswith('helper [') for t in titles), 'svg: a bare helper frame'
    names = [f['name'] for f in json.load(open(sys.argv[2]))['shared']['frames']]
    assert sorted(n for n in names if n.startswith('helper')) == sorted(sys.argv[3:]), names
    print('ok')
except Exception as e:
    print('bad %r' % (e,))
PY
)
[ "$r" = ok ] && ok export_svg_speedscope || fail export_svg_speedscope "$r"

# pprof names functions by name and file (profile.proto's Function): two
# helper rows with -filefunctions, from addresses and, with a stack filter,
# from the function paths
mkdir -p "$TMP/home"
pp() { # OUT [filter…]
	local out=$1; shift
	"$PERFLENS" export "$CAP" -f pprof --event cpu-clock -o "$out" "$@" 2>/dev/null &&
		HOME=$TMP/home GOFLAGS=-mod=mod GOTOOLCHAIN=local timeout 300 go tool pprof -top -filefunctions "$out" 2>/dev/null |
		awk '$6 == "helper" {print $7}' | sort | tr '\n' '|'
}
want_pp="$A_FILE|$B_FILE|"
p1=$(pp "$TMP/p.pb.gz") p2=$(pp "$TMP/pf.pb.gz" --deny '^__libc_start_call_main$')
if [ "$p1" = "$want_pp" ] && [ "$p2" = "$want_pp" ]; then ok export_pprof_files
else fail export_pprof_files "helper rows by file: '$p1', with a filter '$p2' (want '$want_pp')"; fi

# ─── stack filters and transforms ──────────────────────────────────────
# fr OUT FILTER…: the report's rows under the filter; fc OUT COL LABEL
fr() { local out=$1; shift; "$PERFLENS" report "$CAP" --event cpu-clock --top 0 "$@" >"$out.txt" 2>"$out.err"; rows "$out.txt" >"$out"; }
fc() { awk -F'\t' -v l="$3" -v c="$2" '$4 == l { print $c; exit }' "$1"; }
fhelpers() { awk -F'\t' '$4 ~ /^helper( |$)/ {print $4 "=" $3}' "$1" | sort | tr '\n' '|'; }
ra=$(col 3 run_a) rb=$(col 3 run_b)
fr "$TMP/m.rows" --merge "$A"
# b.c's helper alone now: printed plain, with b.c's samples; a.c's in run_a
got=$(fhelpers "$TMP/m.rows") m_ra=$(fc "$TMP/m.rows" 3 run_a) m_rb=$(fc "$TMP/m.rows" 3 run_b)
if [ "$got" = "helper=$perf_b|" ] && [ "$m_ra" = $((ra + perf_a)) ] && [ "$m_rb" = "$rb" ]; then
	ok filters_merge_by_file; echo "# --merge '$A': helper rows '$got', run_a self $m_ra (was $ra, + a.c's $perf_a)"
else fail filters_merge_by_file "helper rows '$got' (want 'helper=$perf_b|'), run_a $m_ra (want $ra + $perf_a), run_b $m_rb (want $rb) $(head -c 200 "$TMP/m.rows.err")"; fi

# the app's frame menu writes the label anchored and escaped: the same rows
fr "$TMP/ma.rows" --merge '^helper \(a\.c\)$'
if [ "$(fhelpers "$TMP/ma.rows")" = "helper=$perf_b|" ] && cmp -s "$TMP/ma.rows" "$TMP/m.rows"; then ok filters_merge_anchored
else fail filters_merge_anchored "--merge '^helper \(a\.c\)\$' helper rows '$(fhelpers "$TMP/ma.rows")', run_a $(fc "$TMP/ma.rows" 3 run_a)"; fi

fr "$TMP/d.rows" --deny "$BB"                  # b.c's frames go: run_b gets its samples
fr "$TMP/r.rows" --rename "$A=hot_a"           # a.c's alone renamed
fr "$TMP/f.rows" --focus "$BB"                 # stacks through b.c's, from it
fr "$TMP/x.rows" --drop "$A"                   # samples with a.c's dropped
fr "$TMP/al.rows" --allow "helper ($A_FILE)"   # the full path: a.c's stacks only
why=
[ "$(fhelpers "$TMP/d.rows")|$(fc "$TMP/d.rows" 3 run_b)" = "helper=$perf_a||$((rb + perf_b))" ] || why="$why deny: $(fhelpers "$TMP/d.rows") run_b $(fc "$TMP/d.rows" 3 run_b);"
[ "$(fhelpers "$TMP/r.rows")|$(fc "$TMP/r.rows" 3 hot_a)" = "helper=$perf_b||$perf_a" ] || why="$why rename: $(fhelpers "$TMP/r.rows") hot_a $(fc "$TMP/r.rows" 3 hot_a);"
[ "$(fhelpers "$TMP/f.rows")|$(wc -l <"$TMP/f.rows")" = "helper=$perf_b||1" ] || why="$why focus: $(fhelpers "$TMP/f.rows") $(wc -l <"$TMP/f.rows") rows;"
# (run_a keeps any sample of its own, outside helper)
ra_own=; [ "${ra:-0}" -gt 0 ] && ra_own=$ra
[ "$(fhelpers "$TMP/x.rows")|$(fc "$TMP/x.rows" 3 run_a)" = "helper=$perf_b||$ra_own" ] || why="$why drop: $(fhelpers "$TMP/x.rows") run_a '$(fc "$TMP/x.rows" 3 run_a)';"
[ "$(fhelpers "$TMP/al.rows")|$(fc "$TMP/al.rows" 3 run_b)" = "helper=$perf_a||" ] || why="$why allow: $(fhelpers "$TMP/al.rows") run_b '$(fc "$TMP/al.rows" 3 run_b)';"
if [ -z "$why" ]; then ok filters_by_file
else fail filters_by_file "(a.c $perf_a, b.c $perf_b)$why"; fi

# a plain name, as before: both helpers (old saved views and scripts)
fr "$TMP/p.rows" --merge '^helper$'
got=$(fhelpers "$TMP/p.rows")
if [ -z "$got" ] && [ "$(fc "$TMP/p.rows" 3 run_a)" = $((ra + perf_a)) ] && [ "$(fc "$TMP/p.rows" 3 run_b)" = $((rb + perf_b)) ]; then
	ok filters_plain_name
else fail filters_plain_name "helper rows '$got', run_a $(fc "$TMP/p.rows" 3 run_a) run_b $(fc "$TMP/p.rows" 3 run_b)"; fi

"$PERFLENS" report --help-filters >"$TMP/help-f.txt" 2>&1
if grep -qF "written as the report prints it, 'helper (a.c)'" "$TMP/help-f.txt"; then ok filters_help
else fail filters_help "report --help-filters does not say how to name one of several functions"; fi

# ─── diff ──────────────────────────────────────────────────────────────
# A: a.c's helper alone; B: both.  a.c's is matched with a.c's
CAPA=$TMP/only-a.plens
"$AGENT" --output "$CAPA" --callgraph dwarf --frequency 999 -- "$TMP/statics" 1 a >/dev/null 2>&1
"$PERFLENS" diff "$CAPA" "$CAP" --event cpu-clock --top 0 >"$TMP/diff.txt" 2>&1; rc=$?
fn=$(sed -n '/^Functions by change/,/^$/p' "$TMP/diff.txt")
if [ $rc = 0 ] && echo "$fn" | grep -qE ' helper \(a\.c\) \[statics\]$' &&
   echo "$fn" | grep -qE ' helper \(b\.c\) \[statics\] \(new\)$' && ! echo "$fn" | grep -qE ' helper \[' &&
   sed -n '/^Stacks by change/,$p' "$TMP/diff.txt" | grep -qF ";run_b;$BB"; then ok diff_by_file
else fail diff_by_file "exit $rc: $(echo "$fn" | grep helper | head -3 | tr '\n' ' ')"; fi

# ─── stacks of events ──────────────────────────────────────────────────
if [ ! -e /sys/bus/event_source/devices/uprobe/type ]; then
	skip probe_stacks_by_file "[no-kernel-feature:uprobe PMU] no /sys/bus/event_source/devices/uprobe"
else
	"$AGENT" --output "$TMP/probe.plens" --callgraph dwarf --event cpu-clock --event "u:$TMP/statics:helper" \
		--frequency 999 -- "$TMP/statics" 0.5 >"$TMP/probe.log" 2>&1
	"$PERFLENS" report "$TMP/probe.plens" --tracepoints >"$TMP/probe.txt" 2>&1
	# which helper the probe is on: the one whose address is the hits' ip in
	# its page (the program is mapped at a page boundary)
	ip=$(awk '$4 ~ /^u:/ { sub(/^ip=/, "", $5); print $5; exit }' "$TMP/probe.txt")
	want=
	[ -n "$ip" ] && [ $((0x$A_ADDR & 0xfff)) = $((ip & 0xfff)) ] && want="$A ;run_a"
	[ -n "$ip" ] && [ $((0x$B_ADDR & 0xfff)) = $((ip & 0xfff)) ] && want="$BB ;run_b"
	hits=$(grep -c ' u:' "$TMP/probe.txt") good=$(grep -cF "[${want% ;*} < ${want#* ;} < main" "$TMP/probe.txt")
	if [ -n "$want" ] && [ "$hits" -gt 100 ] && [ "$good" = "$hits" ]; then ok probe_stacks_by_file
	else fail probe_stacks_by_file "ip '$ip' ($want): $good of $hits hits with that stack: $(grep -m1 ' u:' "$TMP/probe.txt") $(tail -1 "$TMP/probe.log")"; fi
fi

# ─── what tells files apart ────────────────────────────────────────────
# record OUT.plens PROGRAM SOURCE…: built (cc -O1, -g unless the file is
# given as nodebug:FILE), recorded 1 s, reported; the helper rows on stdout
record_variant() {
	local out=$1 prog=$2 objs=() f; shift 2
	for f in "$@"; do
		local dbg=-g
		case $f in nodebug:*) dbg=; f=${f#nodebug:} ;; esac
		cc -O1 $dbg -fno-omit-frame-pointer -I"$SRC" -c -o "$f.o" "$f" || return 1
		objs+=("$f.o")
	done
	cc -o "$prog" "${objs[@]}" &&
		"$AGENT" --output "$out" --callgraph dwarf --frequency 999 -- "$prog" 1 >/dev/null 2>&1 &&
		"$PERFLENS" report "$out" --event cpu-clock --top 0 >"$out.txt" 2>&1 &&
		rows "$out.txt" | awk -F'\t' '$4 ~ /^helper/ {print $4}' | sort | tr '\n' '|'
}
mkdir -p "$TMP/p/x" "$TMP/p/y"
cp "$SRC/a.c" "$TMP/p/x/util.c"; cp "$SRC/b.c" "$TMP/p/y/util.c"; cp "$SRC/main.c" "$TMP/p/main.c"
got=$(record_variant "$TMP/tail.plens" "$TMP/p/tail" "$TMP/p/x/util.c" "$TMP/p/y/util.c" "$TMP/p/main.c" 2>"$TMP/tail.err")
"$PERFLENS" report "$TMP/tail.plens" --event cpu-clock --fail-if 'helper (util.c)>1%' >/dev/null 2>"$TMP/tail-fi.err"; rc=$?
"$PERFLENS" report "$TMP/tail.plens" --event cpu-clock --fail-if 'helper (y/util.c)>99%' >/dev/null 2>&1; rc2=$?
if [ "$got" = "helper (x/util.c)|helper (y/util.c)|" ] && [ $rc = 2 ] && [ $rc2 = 0 ] &&
   grep -qF "'helper (x/util.c)', 'helper (y/util.c)'" "$TMP/tail-fi.err"; then ok rows_by_path_tail
else fail rows_by_path_tail "rows '$got', 'helper (util.c)' exit $rc: $(head -c 200 "$TMP/tail-fi.err"), 'helper (y/util.c)' exit $rc2 $(head -c 200 "$TMP/tail.err")"; fi
mkdir -p "$TMP/q"
cp "$SRC/a.c" "$SRC/b.c" "$SRC/main.c" "$TMP/q/"
got=$(record_variant "$TMP/nodbg.plens" "$TMP/q/nodbg" "$TMP/q/a.c" "nodebug:$TMP/q/b.c" "$TMP/q/main.c" 2>"$TMP/nodbg.err")
"$PERFLENS" report "$TMP/nodbg.plens" --event cpu-clock --top 1 --source 'helper (a.c)' >"$TMP/nodbg-src.txt" 2>&1
"$PERFLENS" report "$TMP/nodbg.plens" --event cpu-clock --fail-if 'helper (?)>0%' >/dev/null 2>&1; rc=$?
"$PERFLENS" report "$TMP/nodbg.plens" --event cpu-clock --fail-if 'helper (?)>99%' >/dev/null 2>&1; rc2=$?
if [ "$got" = "helper (?)|helper (a.c)|" ] && [ $rc = 1 ] && [ $rc2 = 0 ] &&
   sed -n '/^Source of/,/^$/p' "$TMP/nodbg-src.txt" | grep -qF 'Source of helper (a.c):'; then ok rows_without_dwarf
else fail rows_without_dwarf "rows '$got', 'helper (?)' exits $rc $rc2 $(head -c 200 "$TMP/nodbg.err")"; fi

"$PERFLENS" report --help >"$TMP/help.txt" 2>&1
if grep -qF "'helper (a.c)>5%'" "$TMP/help.txt" && grep -qF "'NAME (FILE)'" "$TMP/help.txt"; then ok help_spelling
else fail help_spelling "report --help does not say how to name one of several functions"; fi
exit 0
