#!/usr/bin/env bash
# viewer-cli-expr-test.sh — the expressions users write (viewer/model/pl-expr.h,
# docs/expressions.md) on a recording of the burn workload made by the real
# agent (fp call graphs), with perf report on our perf-data export of the
# same recording as the oracle of the shares.
#
#   gate_double_operator  'hot_leaf>>1%' is refused: exit 2, nothing on
#                         stdout, two lines on stderr, the caret under the
#                         column where the name's stray '>' stands
#   gate_bad_measure      'foo:hot_leaf>1%': refused, caret under 'foo'
#   gate_absent_fails     'nosuchfn>5%' and 'nosuchfn<5%' fail the run (exit
#                         1) after the report, saying no function of that
#                         name has samples; a placeholder ([x_placeholder])
#                         measures 0 % instead
#   gate_out_of_range     'hot_leaf>500%' (caret under the 5), a negative and
#                         an exponent limit are refused
#   gate_malformed        more refusals, each with the caret where reading
#                         stopped: no operator, no name, '%%', an unclosed
#                         '<', an unclosed quote
#   gate_thresholds       hot_leaf's self share and worker_loop's total share
#                         as perf report gives them: a gate 0.5 below or
#                         above fails (exit 1) or passes (exit 0) as it must,
#                         in every spelling (spaces, self:, quotes, >=, <=)
#   gate_unwound          'unwound<=100%' fails, 'unwound<0%' passes, a
#                         function named unwound is 'self:unwound…', and on
#                         kernel samples alone (no user frames to unwind)
#                         'unwound<99%' fails, saying it cannot be measured
#   filter_regex_caret    --deny, --allow … (cut), --rename, --merge,
#                         --focus-subtree refuse a bad argument with the caret
#                         at PCRE's column (or the empty path element)
#   filter_valid_applies  --merge '^hot_leaf$' is read and applied: no
#                         hot_leaf row, its caller's self grows by the share
#                         of hot_leaf it called (report --function)
#   pair_refusals         --pair without --markers, 'ab' (no ';') and
#                         'a(;b' (caret at the begin regex's column)
#   help_says_absent      report --help says what a gate on an absent
#                         function does and where the grammar is
set -u
export LC_ALL=C
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-cli-expr: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-expr-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="gate_double_operator gate_bad_measure gate_absent_fails gate_out_of_range gate_malformed gate_thresholds gate_unwound filter_regex_caret filter_valid_applies pair_refusals help_says_absent"
pl_plan $ALL
all_fail() { for n in $ALL; do pl_was_reported "$n" || fail "$n" "$1"; done; exit 1; }

for x in "$PERFLENS" "$AGENT" "$BURN"; do [ -x "$x" ] || all_fail "$x not built (make)"; done
command -v perf >/dev/null || all_fail "perf missing (ci/deps.sh)"
CAP=$TMP/burn.plens
if ! "$AGENT" --output "$CAP" --callgraph fp --frequency 999 -- "$BURN" 1 2 >"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	all_fail "the kernel allows perf, but the agent cannot record: $(tail -1 "$TMP/agent.log")"
fi

# refusal WHAT COL ARGS…: exit 2, nothing on stdout, two lines on stderr: the
# first "perflens: WHAT '…", the second a caret under column COL of the
# expression (0 = its first character).  Prints why not, or nothing.
refusal() {
	local what=$1 col=$2 rc head
	shift 2
	"$PERFLENS" report "$CAP" "$@" >"$TMP/r.out" 2>"$TMP/r.err"; rc=$?
	head="perflens: $what '"
	if [ $rc != 2 ]; then echo "$*: exit $rc (want 2): $(head -c 300 "$TMP/r.err")"
	elif [ -s "$TMP/r.out" ]; then echo "$*: stdout not empty"
	elif [ "$(wc -l <"$TMP/r.err")" != 2 ]; then echo "$*: not two lines: $(cat "$TMP/r.err")"
	elif [ "$(head -c ${#head} "$TMP/r.err")" != "$head" ]; then echo "$*: first line: $(head -1 "$TMP/r.err")"
	elif [ "$(sed -n 2p "$TMP/r.err")" != "$(printf '%*s^' $((${#head} + col)) '')" ]; then
		echo "$*: caret not at column $col: $(cat "$TMP/r.err")"
	fi
}
gate_refusal() { refusal "cannot parse --fail-if" "$2" --fail-if "$1"; }
rc_of() { "$PERFLENS" report "$CAP" "$@" >"$TMP/g.out" 2>"$TMP/g.err"; echo $?; }

# ─── refusals ───────────────────────────────────────────────────────────
why=$(gate_refusal 'hot_leaf>>1%' 8)
grep -q "closes no '<'" "$TMP/r.err" || why="$why no word on the stray '>': $(head -1 "$TMP/r.err")"
[ -z "$why" ] && ok gate_double_operator || fail gate_double_operator "$why"

why=$(gate_refusal 'foo:hot_leaf>1%' 0)
grep -q "'foo:' is not a measure" "$TMP/r.err" || why="$why $(head -1 "$TMP/r.err")"
[ -z "$why" ] && ok gate_bad_measure || fail gate_bad_measure "$why"

why=""
for e in 'nosuchfn>5%' 'nosuchfn<5%'; do
	rc=$(rc_of --fail-if "$e")
	[ "$rc" = 1 ] && grep -qF -- "--fail-if '$e': no function named nosuchfn has samples" "$TMP/g.err" &&
		grep -q '^Top functions' "$TMP/g.out" || why="$why $e: exit $rc, $(head -c 200 "$TMP/g.err");"
done
# a placeholder the recording lacks measures 0 %
r0=$(rc_of --fail-if '[x_placeholder]>0%') r1=$(rc_of --fail-if '[x_placeholder]>=0%')
[ "$r0 $r1" = "0 1" ] || why="$why [x_placeholder] >0% >=0%: exits $r0 $r1 (want 0 1);"
[ -z "$why" ] && ok gate_absent_fails || fail gate_absent_fails "$why"

why=$(gate_refusal 'hot_leaf>500%' 9)
grep -q "500% is not a share" "$TMP/r.err" || why="$why $(head -1 "$TMP/r.err")"
why="$why$(gate_refusal 'hot_leaf>-1%' 9)$(gate_refusal 'hot_leaf>1e2' 10)$(gate_refusal 'hot_leaf > 100.5 %' 11)"
[ -z "$why" ] && ok gate_out_of_range || fail gate_out_of_range "$why"

why=""
while read -r col e; do
	why="$why$(gate_refusal "$e" "$col")"
done <<'CASES'
8 hot_leaf
0 >5%
11 hot_leaf>5%%
6 vector<int>5%
0 "unterminated>1%
4 "ab"c>1%
5 self:>1%
CASES
[ -z "$why" ] && ok gate_malformed || fail gate_malformed "$why"

# ─── the gates measure what perf measures ───────────────────────────────
"$PERFLENS" export "$CAP" -f perf-data -o "$TMP/burn.data" >/dev/null 2>"$TMP/exp.err" ||
	all_fail "export -f perf-data: $(head -1 "$TMP/exp.err")"
perf report -i "$TMP/burn.data" --stdio -q -g none --sort sym 2>/dev/null >"$TMP/perf.txt"
# "  CHILDREN%  SELF%  [.] SYM"
S=$(awk '$4 == "hot_leaf" { sub(/%/, "", $2); print $2; exit }' "$TMP/perf.txt")
T=$(awk '$4 == "worker_loop" { sub(/%/, "", $1); print $1; exit }' "$TMP/perf.txt")
W=$(awk '$4 == "worker_loop" { sub(/%/, "", $2); print $2; exit }' "$TMP/perf.txt")
why=""
if [ -z "$S" ] || [ -z "$T" ]; then
	why="perf report names no hot_leaf / worker_loop: $(head -5 "$TMP/perf.txt")"
else
	lo=$(awk -v v="$S" 'BEGIN { printf "%.2f", v - 0.5 }') hi=$(awk -v v="$S" 'BEGIN { v += 0.5; printf "%.2f", (v > 100 ? 100 : v) }')
	whi=$(awk -v v="$W" 'BEGIN { printf "%.2f", v + 0.5 }')
	tlo=$(awk -v v="$T" 'BEGIN { printf "%.2f", v - 0.5 }') thi=$(awk -v v="$T" 'BEGIN { v += 0.5; printf "%.2f", (v > 100 ? 100 : v) }')
	want="" got=""
	while read -r w e; do
		e=${e//@LO/$lo}; e=${e//@HI/$hi}; e=${e//@TLO/$tlo}; e=${e//@THI/$thi}; e=${e//@WHI/$whi}
		want="$want $w"; got="$got $(rc_of --fail-if "$e")"; [ -n "${PL_DEBUG:-}" ] && echo "# $e: $(head -2 "$TMP/g.err")"
	done <<'CASES'
1 hot_leaf>@LO%
0 hot_leaf>@HI%
1 hot_leaf >= @LO
0  self:hot_leaf > @HI %
1 "hot_leaf">@LO%
1 self:"hot_leaf"<@HI%
0 hot_leaf<=@LO%
1 total:worker_loop<@THI%
0 total:worker_loop<@TLO%
1 total:worker_loop>=@TLO%
0 worker_loop>@WHI%
CASES
	[ "$want" = "$got" ] || why="exits$got, want$want (perf: hot_leaf self $S%, worker_loop total $T%, self $W%)"
	# the failing gate names the share perf gives
	rc_of --fail-if "hot_leaf>$lo%" >/dev/null
	lo_c=$(awk -v v="$lo" 'BEGIN { print v + 0 }') # as the gate reads it: 76.9, not 76.90
	grep -qF "hot_leaf self is $S% (> $lo_c%)" "$TMP/g.err" || why="$why message: $(cat "$TMP/g.err")"
fi
[ -z "$why" ] && ok gate_thresholds || fail gate_thresholds "$why"

u1=$(rc_of --fail-if 'unwound<=100%') u2=$(rc_of --fail-if 'unwound<0%') u3=$(rc_of --fail-if 'self:unwound<1%')
grep -q "no function named unwound" "$TMP/g.err"; u4=$?
# kernel samples alone (perf record, cpu-clock:k): no stack has user
# frames, so the share cannot be measured and 'unwound<99%' fails
perf record -q -F 999 -e cpu-clock:k -o "$TMP/k.data" -- dd if=/dev/zero of=/dev/null bs=1M count=3000 \
	>/dev/null 2>"$TMP/perf-k.err"
"$PERFLENS" report "$TMP/k.data" --fail-if 'unwound<99%' >/dev/null 2>"$TMP/k.err"; u5=$?
grep -q "has user frames, so the unwound share cannot be measured" "$TMP/k.err"; u6=$?
[ "$u1 $u2 $u3 $u4 $u5 $u6" = "1 0 1 0 1 0" ] && ok gate_unwound ||
	fail gate_unwound "exits $u1 $u2 $u3, message $u4, kernel-only $u5 $u6 (want 1 0 1 0 1 0): $(head -c 200 "$TMP/g.err") $(head -c 200 "$TMP/k.err")"

# ─── filters and transforms ─────────────────────────────────────────────
why="$(refusal --deny 1 --deny '(')$(refusal --deny 7 --deny 'foo(bar')"
why="$why$(refusal --allow 3 --allow 'a[b (cut)')$(refusal --rename 2 --rename 'x(=y')"
why="$why$(refusal --rename 5 --rename '^(x)=y\')$(refusal --rename 3 --rename 'abc')"
why="$why$(refusal --merge 0 --merge '*x')$(refusal --focus-subtree 5 --focus-subtree 'main;;x')"
why="$why$(refusal --drop 5 --drop 'x{2,1}')"
[ -z "$why" ] && ok filter_regex_caret || fail filter_regex_caret "$why"

"$PERFLENS" report "$CAP" --top 0 >"$TMP/plain.txt" 2>&1
rc=$(rc_of --top 0 --merge '^hot_leaf$')
self_of() { awk -v f="$2" '/^Top functions/ { t = 1 } t && $4 == f { sub(/%/, "", $1); print $1; exit }' "$1"; }
# hot_leaf's caller (the report's --function) gets its self time
# (the share of hot_leaf's samples that caller made: a stack cut short at
# hot_leaf has no caller to take its time)
"$PERFLENS" report "$CAP" --function hot_leaf >"$TMP/fn.txt" 2>/dev/null
caller=$(awk '$1 == "caller" { print $3; exit }' "$TMP/fn.txt")
via=$(awk '$1 == "caller" { sub(/%/, "", $2); print $2; exit }' "$TMP/fn.txt")
w0=$(self_of "$TMP/plain.txt" "$caller") w1=$(self_of "$TMP/g.out" "$caller")
h1=$(self_of "$TMP/g.out" hot_leaf)
if [ "$rc" = 0 ] && [ -n "$caller" ] && [ -z "$h1" ] && [ -n "$w1" ] &&
   awk -v a="${w0:-0}" -v b="$w1" -v s="${via:-0}" 'BEGIN { exit !(b - a > s - 0.05 && b - a < s + 0.05) }'; then
	ok filter_valid_applies
else fail filter_valid_applies "exit $rc, hot_leaf row '${h1}', its caller ${caller:-?}'s self ${w0:-?} → ${w1:-?} (hot_leaf was $S%, ${via:-?}% through that caller)"; fi

# ─── marker pairs ───────────────────────────────────────────────────────
why=""
"$PERFLENS" report "$CAP" --pair 'a;b' >/dev/null 2>"$TMP/p.err"; rc=$?
[ $rc = 2 ] && grep -q -- '--pair adds intervals to --markers' "$TMP/p.err" || why="no --markers: exit $rc $(cat "$TMP/p.err");"
why="$why$(refusal --pair 2 --markers --pair 'ab')$(refusal --pair 2 --markers --pair 'a(;b')"
why="$why$(refusal --pair 6 --markers --pair 'ok;b[x')"
grep -q 'BEGIN_REGEX;END_REGEX' <("$PERFLENS" report "$CAP" --markers --pair 'ab' 2>&1) || why="$why 'ab' does not say BEGIN_REGEX;END_REGEX"
[ -z "$why" ] && ok pair_refusals || fail pair_refusals "$why"

"$PERFLENS" report --help >"$TMP/help.txt" 2>&1
if grep -q 'no samples in the report fails the gate' "$TMP/help.txt" && grep -q 'docs/expressions.md' "$TMP/help.txt" &&
   [ -f "${PL_TOP:-.}/docs/expressions.md" ]; then ok help_says_absent
else fail help_says_absent "$(grep -A3 -- '--fail-if' "$TMP/help.txt" | head -8)"; fi
