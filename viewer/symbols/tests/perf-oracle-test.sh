#!/usr/bin/env bash
# perf-oracle-test.sh — programs recorded by the agent on this host are
# named as perf names them, with perf as the oracle twice:
#   - the same run: the capture exported as perf.data (perflens export
#     --format perf-data keeps the raw addresses and the kernel's MMAP
#     records) and read by `perf report`, which symbolizes on its own;
#   - a run of perf record on the same program.
# The top self function must be the same name in all three; on the same
# run every function with 2 % or more must have the same name and share
# (within 1 point); across runs the top share must agree within what the
# sampling noise allows (of perf record's user-mode samples: the agent
# records user stacks); no more than 2 % of the time may stay unnamed,
# or no more than a point beyond what perf report leaves unnamed on the
# same run (a library shipped without symbols is unnamed to both).
#
#   static_musl_named_as_perf   burn.c built fully static by this project's
#                               own musl toolchain (lld: code and .rodata
#                               share a file page, the load bias must come
#                               from the code's PT_LOAD)
#   node_jit_named_as_perf      node --perf-basic-prof: JIT code named from
#                               /tmp/perf-PID.map, which the agent sends
#                               when the process ends
#   *_perf_data_named_as_perf   perf record's perf.data of the same program,
#                               read by perflens and by perf report
#
# A case skips only where the kernel refuses perf events (pl_perf_refused
# asks perf, not the agent) or, for the musl case, on a host that is not
# x86_64; perf, node (ci/deps.sh), the agent, perflens, the musl sysroot
# (make agents) missing, and the agent or perf record failing, are failures.
set -u
B=$(cd "${PL_BUILD:-build}" && pwd)
TOP=${PL_TOP:-$(pwd)}
AGENT=${PL_AGENT:-$B/perflens-agent} PERFLENS=$B/perflens
case $AGENT in /*) ;; *) AGENT=$(pwd)/$AGENT ;; esac
. "$TOP/test/pl-test.sh" || { echo "not ok perf_oracle: cannot read $TOP/test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plsym-oracle-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
MUSL_CASES="static_musl_named_as_perf static_musl_perf_data_named_as_perf"
NODE_CASES="node_jit_named_as_perf node_jit_perf_data_named_as_perf"
# shellcheck disable=SC2086
pl_plan $MUSL_CASES $NODE_CASES
export XDG_CACHE_HOME="$TMP/xdg"
HZ=999

# Self shares (percent, then name), largest first, from a perflens capture;
# inlined code counts for the function it was inlined into, as in perf's
# sym sort.
perflens_shares() {
	"$PERFLENS" export "$1" --format collapsed --weight --no-inline |
		awk '{ c = $NF; $NF = ""; sub(/ $/, ""); n = split($0, f, ";"); s[f[n]] += c; t += c }
		     END { for (k in s) printf "%.2f\t%s\n", 100 * s[k] / t, k }' | sort -t'	' -k1,1 -rn
}

# The same from perf report, cpu-clock only (the export also holds the
# context switches as an event).  With "user", of the user-mode samples
# only: the agent records user stacks, so a sample taken in the kernel
# counts for the user function that made the system call, where perf
# names a kernel function.
perf_shares() {
	perf report -i "$1" --no-children --sort sym -g none --stdio 2>/dev/null |
		awk '/^# Samples: .* of event / { on = ($0 ~ /event .cpu-clock/) }
		     on && /^ *[0-9.]+%/ { print }' |
		sed -n 's/^ *\([0-9.]*\)%  *\(\[[^]]*\]\) \(.*[^ ]\) *$/\1\t\2\t\3/p' |
		awk -F'\t' -v user="${2:-}" '!user || $2 == "[.]" { p[NR] = $1; n[NR] = $3; t += $1 }
			END { for (i in p) printf "%.2f\t%s\n", (user ? 100 / t : 1) * p[i], n[i] }' |
		sort -t'	' -k1,1 -rn
}

share_of() { # NAME SHARES-FILE
	awk -F'\t' -v n="$1" '$2 == n { s += $1 } END { printf "%.2f", s + 0 }' "$2"
}
top_of() { head -n 1 "$1" | cut -f2; }
# points between two shares, absolute
apart() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; printf "%.2f", d < 0 ? -d : d }'; }
over() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# Functions of 2 % or more on either side of the same samples whose share
# differs by over 1 point (aliases, labels, JIT names): "name: A B; ".
misnamed() {
	awk -F'\t' 'FNR == 1 { f++ } f == 1 { a[$2] += $1 } f == 2 { b[$2] += $1 }
		END { for (n in a) if (a[n] >= 2 || b[n] >= 2) { d = a[n] - b[n]; if (d < 0) d = -d
			if (d > 1) printf "%s: %.2f %.2f; ", n, a[n], b[n] }
		      for (n in b) if (!(n in a) && b[n] >= 2) printf "%s: 0 %.2f; ", n, b[n] }' "$1" "$2"
}
# The share of perflens's [anon] / [unknown] / [module] frames.
unnamed() { awk -F'\t' '$2 ~ /^\[/ { s += $1 } END { printf "%.2f", s + 0 }' "$1"; }
# The share perf report leaves unnamed (a bare address, [unknown]).
perf_unnamed() { awk -F'\t' '$2 ~ /^(0x[0-9a-f]+|\[unknown\])$/ { s += $1 } END { printf "%.2f", s + 0 }' "$1"; }

# perf_data CASE DIR: perf record's perf.data read by perflens and by perf
# report: the same functions of 2 % or more, the same top, little unnamed.
perf_data() {
	local name=$1 d=$2
	perflens_shares "$d/perf.data" >"$d/pd-own.txt" 2>"$d/pd-own.err"
	perf_shares "$d/perf.data" >"$d/pd-perf.txt"
	local top ptop bad unnamed
	top=$(top_of "$d/pd-own.txt") ptop=$(top_of "$d/pd-perf.txt")
	bad=$(misnamed "$d/pd-own.txt" "$d/pd-perf.txt")
	unnamed=$(unnamed "$d/pd-own.txt")
	echo "# $name: perflens $top $(share_of "$top" "$d/pd-own.txt") %, perf report" \
		"$ptop $(share_of "$ptop" "$d/pd-perf.txt") %; unnamed $unnamed %"
	if [ ! -s "$d/pd-own.txt" ]; then
		fail "$name" "perflens export of perf.data gave nothing: $(head -c 200 "$d/pd-own.err")"
	elif [ "$top" != "$ptop" ]; then
		fail "$name" "top self function: perflens '$top', perf report '$ptop'"
	elif [ -n "$bad" ]; then
		fail "$name" "named otherwise than perf (name: perflens %, perf %): $bad"
	elif over "$unnamed" 2; then
		fail "$name" "$unnamed % of the time unnamed"
	else
		ok "$name"
	fi
}

# compare CASE DIR POINTS: DIR holds own.txt (perflens), same.txt (perf
# report on the export of the same run) and perf.txt (perf record's own
# run); POINTS: how far apart the two runs' shares may be.
compare() {
	local name=$1 d=$2 tol=$3
	local top same_top perf_top
	top=$(top_of "$d/own.txt") same_top=$(top_of "$d/same.txt") perf_top=$(top_of "$d/perf.txt")
	local own same perf
	own=$(share_of "$top" "$d/own.txt") same=$(share_of "$top" "$d/same.txt")
	perf=$(share_of "$top" "$d/perf.txt")
	local misnamed unnamed punnamed
	misnamed=$(misnamed "$d/own.txt" "$d/same.txt")
	unnamed=$(unnamed "$d/own.txt") punnamed=$(perf_unnamed "$d/same.txt")
	echo "# $name: perflens $top $own %, perf report on the same run $same_top" \
		"$(share_of "$same_top" "$d/same.txt") %, perf record $perf_top" \
		"$(share_of "$perf_top" "$d/perf.txt") % of user samples; unnamed $unnamed %" \
		"(perf report on the same run: $punnamed %)"
	echo "# $name: perflens top 5: $(head -n 5 "$d/own.txt" | tr '\t\n' ' ;')"
	echo "# $name: perf record top 5 (user): $(head -n 5 "$d/perf.txt" | tr '\t\n' ' ;')"
	if [ "$top" != "$same_top" ] || [ "$top" != "$perf_top" ]; then
		fail "$name" "top self function: perflens '$top', perf on the same run '$same_top', perf record '$perf_top'"
	elif over "$(apart "$own" "$same")" 1; then
		fail "$name" "$top: perflens $own %, perf report on the same run $same %"
	elif [ -n "$misnamed" ]; then
		fail "$name" "named otherwise than perf on the same run (name: perflens %, perf %): $misnamed"
	elif over "$(apart "$own" "$perf")" "$tol"; then
		fail "$name" "$top: perflens $own %, perf record $perf % of its user samples (over $tol points apart)"
	# more than 2 % only where perf, reading the same samples with the
	# same files, cannot name them either (a library without symbols)
	elif over "$unnamed" 2 && over "$unnamed" "$(awk -v p="$punnamed" 'BEGIN { print p + 1 }')"; then
		fail "$name" "$unnamed % of the time unnamed, perf report on the same run $punnamed % ($(grep -P '\t\[' "$d/own.txt" | head -3 | tr '\t\n' ' ;'); perf: $(grep -P '\t(0x[0-9a-f]+|\[unknown\])$' "$d/same.txt" | head -3 | tr '\t\n' ' ;'))"
	else
		ok "$name"
	fi
}

# report_all OUTCOME WHY CASES...: the same skip or failure for each case.
report_all() {
	local how=$1 why=$2 c
	shift 2
	for c in "$@"; do "$how" "$c" "$why"; done
}

# record CASE DIR PROGRAM ARGS...: the agent's capture, its export read by
# perf report, and perf record's own run.  Returns 1 after printing the
# case's line when it cannot go on, with rec_how (skip or fail) and rec_why
# saying how, for the cases that needed the recording.
record() {
	local name=$1 d=$2
	shift 2
	mkdir -p "$d"
	rec_how=fail rec_why="$name could not record"
	if ! (cd "$d" && "$AGENT" --output "$d/x.plens" --event cpu-clock --frequency "$HZ" \
		--callgraph fp -- "$@") >"$d/agent.log" 2>&1; then
		if rec_why=$(pl_perf_refused); then
			rec_how=skip
			skip "$name" "$rec_why"
			return 1
		fi
		rec_why="the kernel allows perf, but the agent failed: $(tail -n 2 "$d/agent.log" | tr '\n' ' ')"
		fail "$name" "$rec_why"
		return 1
	fi
	if ! perflens_shares "$d/x.plens" >"$d/own.txt" || [ ! -s "$d/own.txt" ]; then
		rec_why="perflens export gave no stacks"
		fail "$name" "$rec_why"
		return 1
	fi
	if ! "$PERFLENS" export "$d/x.plens" --format perf-data -o "$d/same.data" >"$d/export.log" 2>&1; then
		rec_why="perflens export --format perf-data failed: $(tail -n 1 "$d/export.log")"
		fail "$name" "$rec_why"
		return 1
	fi
	perf_shares "$d/same.data" >"$d/same.txt"
	# perf itself sometimes aborts at exit under load (seen once in ten
	# runs of burn-musl, status 134): the oracle gets a second try
	local try rc
	for try in 1 2; do
		(cd "$d" && perf record -e cpu-clock -F "$HZ" -g -o "$d/perf.data" -- "$@") \
			>"$d/perf-record.log" 2>&1
		rc=$?
		[ $rc = 0 ] && break
	done
	if [ $rc != 0 ]; then
		if rec_why=$(pl_perf_refused); then
			rec_how=skip
			skip "$name" "$rec_why"
			return 1
		fi
		rec_why="perf record failed twice (status $rc): $(grep -iE 'error|fail|denied|paranoid|assert' "$d/perf-record.log" | head -n 1)"
		fail "$name" "$rec_why"
		return 1
	fi
	perf_shares "$d/perf.data" user >"$d/perf.txt"
	if [ ! -s "$d/same.txt" ] || [ ! -s "$d/perf.txt" ]; then
		rec_why="perf report gave no samples (same run: $(wc -l <"$d/same.txt"), perf record: $(wc -l <"$d/perf.txt"))"
		fail "$name" "$rec_why"
		return 1
	fi
}

# The cached musl sysroot of an arch (ci/agents.sh builds them).
sysroot_of() {
	local root=${PERFLENS_TC_CACHE:-$HOME/.cache/perflens/toolchains} t
	for t in "$root"/*/TARGET; do
		[ -f "$t" ] && [ "$(cat "$t")" = "$1" ] && dirname "$t"
	done | sort | tail -n 1
}

static_musl() {
	local name=static_musl_named_as_perf d=$TMP/musl
	local sysroot
	sysroot=$(sysroot_of x86_64)
	if [ "$(uname -m)" != x86_64 ]; then
		# shellcheck disable=SC2086
		report_all skip "[other-arch] the case builds x86_64 code and runs it; this host is $(uname -m)" $MUSL_CASES
		return
	fi
	if [ -z "$sysroot" ]; then
		# shellcheck disable=SC2086
		report_all fail "no cached x86_64 musl sysroot: run make agents (ci/agents.sh builds the sysroots; make check does before the tests)" $MUSL_CASES
		return
	fi
	mkdir -p "$d"
	if ! PERFLENS_SYSROOT=$sysroot PERFLENS_STRIP=0 PL_TC_QUIET=1 "$TOP/toolchains/cc.sh" x86_64 \
		-g -O1 -fno-omit-frame-pointer -o "$d/burn-musl" "$TOP/test/workloads/burn.c" -lpthread \
		>"$d/cc.log" 2>&1; then
		# shellcheck disable=SC2086
		report_all fail "toolchains/cc.sh failed: $(tail -n 2 "$d/cc.log" | tr '\n' ' ')" $MUSL_CASES
		return
	fi
	if ! record "$name" "$d" "$d/burn-musl" 3 1; then
		"$rec_how" static_musl_perf_data_named_as_perf "$rec_why"
		return
	fi
	# two runs of ~700 samples each with hot_leaf near 57 %: the
	# difference has a standard deviation of about 2.6 points
	compare "$name" "$d" 10
	perf_data static_musl_perf_data_named_as_perf "$d"
}

node_jit() {
	local name=node_jit_named_as_perf d=$TMP/node
	if ! command -v node >/dev/null; then
		# shellcheck disable=SC2086
		report_all fail "node is not installed (nodejs: ci/deps.sh)" $NODE_CASES
		return
	fi
	mkdir -p "$d"
	cat >"$d/hot.js" <<-'EOF'
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	const end = Date.now() + Number(process.argv[2]) * 1000;
	let s = 0;
	while (Date.now() < end) s += fib(25);
	if (!(s > 0)) process.exit(1);
	EOF
	record "$name" "$d" node --perf-basic-prof "$d/hot.js" 3
	local rc=$?
	# fib near 95 % of ~900 samples: about 1 point
	if [ $rc = 0 ]; then
		compare "$name" "$d" 5
		# perf.data recorded here: JIT names from this host's
		# /tmp/perf-PID.map, as perf report reads it
		perf_data node_jit_perf_data_named_as_perf "$d"
	else
		"$rec_how" node_jit_perf_data_named_as_perf "$rec_why"
	fi
	# node leaves its maps in /tmp: those naming this test's hot.js (its
	# directory is unique) go, whichever run wrote them
	grep -lF "$d/hot.js" /tmp/perf-[0-9]*.map 2>/dev/null | xargs -r rm -f
}

# shellcheck disable=SC2086
command -v perf >/dev/null || { report_all fail "perf not installed (linux-perf: ci/deps.sh)" $MUSL_CASES $NODE_CASES; exit 1; }
# shellcheck disable=SC2086
[ -x "$AGENT" ] && [ -x "$PERFLENS" ] || { report_all fail "$AGENT or $PERFLENS not built (make)" $MUSL_CASES $NODE_CASES; exit 1; }
static_musl
node_jit
exit 0
