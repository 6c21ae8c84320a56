#!/usr/bin/env bash
# viewer-export-test.sh — exports, stack filters, diff, annotate/source and
# the off-CPU extras on one real recording: the agent (perflens-agent
# --output) of the burn workload with dwarf call graphs (rich stacks through libc: qsort recursion) and switch records.
# Oracles: our own report's figures (collapsed must add up to the call
# tree), go tool pprof (reads the .pb.gz), python3's json / xml parsers
# (speedscope's file format shape, well-formed SVG), readelf (build-id).
set -u
# PL_AGENT: the agent under test (else the build's).
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-export: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-export-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
bad() { fail "$@"; }
ALL="collapsed_matches_call_tree pprof_go_tool pprof_mappings_build_id speedscope_schema svg_flame_graph filter_deny_cut filter_allow_cut filter_rename filter_collapse_recursion filter_bad_regex diff_self_is_zero diff_tables annotate_instructions source_lines switch_reasons process_tree transform_focus transform_drop transform_order transform_shares report_invert transform_bad_path unwound_dwarf_gate unwound_fp_stops unwound_stack_copy unwound_no_file time_range"
pl_plan $ALL

# make builds them and ci/deps.sh installs python3's users: their absence fails
for x in "$PERFLENS" "$AGENT" "$BURN"; do
	[ -x "$x" ] || { for n in $ALL; do bad "$n" "$x not built (make)"; done; exit 1; }
done
command -v python3 >/dev/null || { for n in $ALL; do bad "$n" "python3 missing"; done; exit 1; }
CAP=$TMP/burn.plens
if ! "$AGENT" --output "$CAP" --callgraph dwarf --frequency 499 -- "$BURN" 2 2 >"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then
		for n in $ALL; do skip "$n" "$why"; done
		exit 0
	fi
	for n in $ALL; do bad "$n" "the kernel allows perf, but the agent cannot record: $(tail -1 "$TMP/agent.log")"; done
	exit 1
fi
"$PERFLENS" report "$CAP" --top 0 >"$TMP/report.txt" 2>&1

# ─── collapsed adds up to the call tree ────────────────────────────────
"$PERFLENS" export "$CAP" -f collapsed --weight -o "$TMP/w.folded" 2>/dev/null
r=$(python3 - "$TMP/w.folded" "$TMP/report.txt" <<'PY'
import sys, re
self_w, total_w, all_w = {}, {}, 0
for line in open(sys.argv[1]):
    stack, w = line.rsplit(' ', 1); w = int(w); all_w += w
    frames = stack.split(';')  # an inline instance keeps its _[i]: a row of its own
    self_w[frames[-1]] = self_w.get(frames[-1], 0) + w
    for f in set(frames): total_w[f] = total_w.get(f, 0) + w
rep, on = {}, False
for line in open(sys.argv[2]):
    if line.startswith('Top functions'): on = True; continue
    if on and not line.strip(): break
    m = re.match(r'\s+([\d.]+)%\s+([\d.]+)%\s+\d+\s+(\S+)\s+(.*)$', line)
    if not (on and m): continue
    # "f" and "f (inlined)" are two rows (and one stack may hold both)
    name = m.group(3) + ('_[i]' if '(inlined)' in m.group(4) else '')
    rep.setdefault(name, [0, 0]); rep[name][0] += float(m.group(1)); rep[name][1] += float(m.group(2))
worst, bad = 0, []
for name, (s, t) in rep.items():
    ours_s = 100.0 * self_w.get(name, 0) / all_w; ours_t = 100.0 * total_w.get(name, 0) / all_w
    d = max(abs(ours_s - s), abs(ours_t - t)); worst = max(worst, d)
    if d > 0.011: bad.append('%s self %.2f/%.2f total %.2f/%.2f' % (name, s, ours_s, t, ours_t))
print('%d %.3f %s' % (len(rep), worst, '; '.join(bad[:5])))
PY
)
n=${r%% *}; rest=${r#* }; worst=${rest%% *}; why=${rest#* }
if [ "$n" -ge 5 ] && [ -z "${why// /}" ]; then ok collapsed_matches_call_tree; echo "# $n functions, worst difference $worst points"
else bad collapsed_matches_call_tree "${n} functions; $why"; fi

# ─── pprof ─────────────────────────────────────────────────────────────
hot_self=$(awk '/^Top functions/ {on=1} on && $4 == "hot_leaf" {sub(/%/, "", $1); print $1; exit}' "$TMP/report.txt")
if ! "$PERFLENS" export "$CAP" -f pprof -o "$TMP/p.pb.gz" 2>"$TMP/pprof.err"; then
	bad pprof_go_tool "export failed: $(head -c 200 "$TMP/pprof.err")"
	bad pprof_mappings_build_id "export failed"
elif ! command -v go >/dev/null; then
	bad pprof_go_tool "go not installed (golang-go: ci/deps.sh)"; bad pprof_mappings_build_id "go not installed"
else
	mkdir -p "$TMP/home"
	export HOME=$TMP/home GOFLAGS=-mod=mod GOTOOLCHAIN=local
	if ! timeout 300 go tool pprof -top "$TMP/p.pb.gz" >"$TMP/top.txt" 2>"$TMP/top.err"; then
		if grep -q 'parsing profile' "$TMP/top.err"; then bad pprof_go_tool "$(head -2 "$TMP/top.err" | tr '\n' ' ')"
		else bad pprof_go_tool "go tool pprof does not run here: $(head -1 "$TMP/top.err")"; fi
		bad pprof_mappings_build_id "go tool pprof does not run here"
	else
		theirs=$(awk '$NF == "hot_leaf" {sub(/%/, "", $2); print $2; exit}' "$TMP/top.txt")
		if [ -n "$theirs" ] && awk -v a="$theirs" -v b="$hot_self" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.02) }'; then
			ok pprof_go_tool; echo "# hot_leaf flat: pprof $theirs%, report $hot_self%"
		else bad pprof_go_tool "hot_leaf flat '$theirs' vs report '$hot_self'"; fi
		timeout 300 go tool pprof -raw "$TMP/p.pb.gz" >"$TMP/raw.txt" 2>/dev/null
		id=$(readelf -n "$BURN" 2>/dev/null | awk '/Build ID/ {print $3}')
		if [ -z "$id" ]; then bad pprof_mappings_build_id "readelf gives no build-id for $BURN"
		elif grep -q "$id" "$TMP/raw.txt" && grep -q "burn" "$TMP/raw.txt" &&
		     timeout 300 go tool pprof -traces "$TMP/p.pb.gz" 2>/dev/null | grep -q "inlined_mix"; then
			ok pprof_mappings_build_id
		else bad pprof_mappings_build_id "build-id $id or inline frames missing from pprof -raw/-traces"; fi
	fi
fi

# ─── speedscope ────────────────────────────────────────────────────────
"$PERFLENS" export "$CAP" -f speedscope -o "$TMP/s.json" 2>/dev/null
r=$(python3 - "$TMP/s.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json'
    frames = d['shared']['frames']
    assert isinstance(frames, list) and frames and all(isinstance(f.get('name'), str) for f in frames)
    assert isinstance(d['profiles'], list) and len(d['profiles']) >= 3
    names = set()
    for p in d['profiles']:
        assert p['type'] == 'sampled' and isinstance(p['name'], str) and p['unit'] in ('none', 'nanoseconds')
        assert len(p['samples']) == len(p['weights']) > 0
        assert all(isinstance(i, int) and 0 <= i < len(frames) for s in p['samples'] for i in s)
        assert p['startValue'] == 0 and p['endValue'] == sum(p['weights'])
        names.add(p['name'].split(' ')[0])
    assert any(f['name'] == 'hot_leaf' for f in frames), 'no hot_leaf frame'
    assert 'burn-1' in names and 'burn-2' in names, names
    print('ok')
except Exception as e:
    print('bad %r' % (e,))
PY
)
[ "$r" = ok ] && ok speedscope_schema || bad speedscope_schema "$r"

# ─── svg ───────────────────────────────────────────────────────────────
"$PERFLENS" export "$CAP" -f svg -o "$TMP/f.svg" 2>/dev/null
r=$(python3 - "$TMP/f.svg" <<'PY'
import sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
try:
    root = E.parse(sys.argv[1]).getroot()
    assert root.tag == ns + 'svg'
    w = float(root.get('width'))
    rects = root.findall('.//' + ns + 'g/' + ns + 'rect')
    titles = [t.text for t in root.findall('.//' + ns + 'title')]
    assert len(rects) >= 10, len(rects)
    assert all(0 <= float(r.get('x')) and float(r.get('x')) + float(r.get('width')) <= w + 0.5 for r in rects)
    assert any(t.startswith('hot_leaf ') for t in titles), 'no hot_leaf frame'
    assert any('(inlined)' in t for t in titles), 'no inline frame'
    assert not root.findall('.//' + ns + 'script') and 'href' not in open(sys.argv[1]).read()
    print('ok')
except Exception as e:
    print('bad %r' % (e,))
PY
)
[ "$r" = ok ] && ok svg_flame_graph || bad svg_flame_graph "$r"

# ─── stack filters ─────────────────────────────────────────────────────
pct_of() { # file column(self=1,total=2) name
	awk -v c="$2" -v n="$3" '/^Top functions/ {on=1} on && NF == 0 {exit} on && $4 == n {v=$c; sub(/%/, "", v); print v; exit}' "$1"
}
# A cut folds a frame and all it calls into its caller: sort_step's self
# after cutting qsort is its share of the stacks that end in it or go on
# into a frame matching /qsort/, computed from the uncut weighted export
# (nearly all of sort_step's total; a sample in a PLT stub or the dynamic
# linker under it, now and then, is neither)
ss_want=$(python3 - "$TMP/w.folded" <<'PY'
import re, sys
tot = kept = under = 0
for line in open(sys.argv[1]):
    stack, w = line.rsplit(' ', 1); w = int(w); tot += w
    f = stack.split(';')
    if 'sort_step' not in f:
        continue
    rest = f[len(f) - f[::-1].index('sort_step'):]
    under += w
    if not rest or re.search('qsort', rest[0]):
        kept += w
print('%.2f %.2f' % (100.0 * kept / tot, 100.0 * under / tot) if tot else '')
PY
)
"$PERFLENS" report "$CAP" --top 0 --deny 'qsort (cut)' --deny 'qsort_r (cut)' >"$TMP/cut.txt" 2>&1
ss_self=$(pct_of "$TMP/cut.txt" 1 sort_step)
if [ -n "$ss_want" ] && [ "${ss_want#* }" != 0.00 ] &&
	awk -v a="$ss_self" -v b="${ss_want% *}" 'BEGIN { d = a - b; exit !(a != "" && d <= 0.01 && d >= -0.01) }' &&
	! grep -q cmp_ulong "$TMP/cut.txt"; then ok filter_deny_cut
else bad filter_deny_cut "sort_step self after cut '$ss_self', from the uncut export '${ss_want% *}' (its total '${ss_want#* }')"; fi
"$PERFLENS" export "$CAP" -f collapsed --allow 'sort_step (cut)' >"$TMP/allow.folded" 2>&1
if [ -s "$TMP/allow.folded" ] && ! grep -qv '^sort_step' "$TMP/allow.folded"; then ok filter_allow_cut
else bad filter_allow_cut "$(grep -v '^sort_step' "$TMP/allow.folded" | head -2)"; fi
"$PERFLENS" report "$CAP" --rename 'hot_(.*)=HOT-\1' >"$TMP/ren.txt" 2>&1
if grep -q ' HOT-leaf ' "$TMP/ren.txt" && ! grep -q ' hot_leaf ' "$TMP/ren.txt"; then ok filter_rename
else bad filter_rename "$(grep -i 'hot' "$TMP/ren.txt" | head -2)"; fi
"$PERFLENS" export "$CAP" -f collapsed --collapse-recursion >"$TMP/rec.folded" 2>/dev/null
"$PERFLENS" export "$CAP" -f collapsed >"$TMP/norec.folded" 2>/dev/null
# stacks with a function twice (directly or through other frames)
rep() { awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); delete seen; for (i = 1; i <= n; i++) { if (f[i] in seen) { c++; break } seen[f[i]] = 1 } } END { print c + 0 }' "$1"; }
sum() { awk '{ s += $NF } END { print s }' "$1"; }
if [ "$(rep "$TMP/rec.folded")" = 0 ] && [ "$(rep "$TMP/norec.folded")" -gt 0 ] &&
   [ "$(sum "$TMP/rec.folded")" = "$(sum "$TMP/norec.folded")" ]; then ok filter_collapse_recursion
else bad filter_collapse_recursion "repeats $(rep "$TMP/rec.folded") (before $(rep "$TMP/norec.folded")), sums $(sum "$TMP/rec.folded")/$(sum "$TMP/norec.folded")"; fi
"$PERFLENS" report "$CAP" --deny '(' >/dev/null 2>"$TMP/re.err"; rc=$?
# two lines: the refusal, then a caret under the column PCRE stopped at
# (the end of "perflens: --deny '(")
if [ $rc = 2 ] && [ "$(wc -l <"$TMP/re.err")" = 2 ] && grep -q -- '--deny' "$TMP/re.err" &&
   [ "$(sed -n 2p "$TMP/re.err")" = "$(printf '%*s^' 19 '')" ]; then ok filter_bad_regex
else bad filter_bad_regex "exit $rc: $(cat "$TMP/re.err")"; fi

# call-tree transforms (pl-transform.h; exact trees in viewer-model-transform-test)
"$PERFLENS" export "$CAP" -f collapsed --focus '^sort_step$' >"$TMP/focus.folded" 2>&1
if [ -s "$TMP/focus.folded" ] && ! grep -qv '^sort_step[; ]' "$TMP/focus.folded"; then ok transform_focus
else bad transform_focus "$(grep -v '^sort_step[; ]' "$TMP/focus.folded" | head -2)"; fi
"$PERFLENS" export "$CAP" -f collapsed --drop '^sort_step$' >"$TMP/drop.folded" 2>&1
if [ -s "$TMP/drop.folded" ] && ! grep -q 'sort_step' "$TMP/drop.folded" &&
   [ "$(sum "$TMP/drop.folded")" -lt "$(sum "$TMP/norec.folded")" ]; then ok transform_drop
else bad transform_drop "sums $(sum "$TMP/drop.folded")/$(sum "$TMP/norec.folded")"; fi
# the order given is the order applied: merging sort_step first leaves nothing to focus on
"$PERFLENS" export "$CAP" -f collapsed --merge '^sort_step$' --focus '^sort_step$' >"$TMP/mf.folded" 2>&1
"$PERFLENS" export "$CAP" -f collapsed --focus '^sort_step$' --merge '^sort_step$' >"$TMP/fm.folded" 2>&1
if [ ! -s "$TMP/mf.folded" ] && [ -s "$TMP/fm.folded" ] && ! grep -q 'sort_step' "$TMP/fm.folded"; then
	ok transform_order
else bad transform_order "merge,focus: $(wc -l <"$TMP/mf.folded") lines; focus,merge: $(head -1 "$TMP/fm.folded")"; fi
# Each transform on the real recording against an oracle written here in
# awk, over the plain folded stacks (frames marked _[i] are inlined; names
# match without the mark): same stacks, same counts, same total.
oracle() { # MODE ARG < plain folded → transformed, summed, sorted
	awk -v mode="$1" -v arg="$2" '
	function nm(x) { sub(/_\[i\]$/, "", x); return x }
	{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";"); d = 0; delete st
		if (mode == "focus-subtree") { np = split(arg, path, ";") }
		keep = (mode == "focus" || mode == "focus-inverted" || mode == "focus-subtree") ? 0 : 1
		last = 0
		for (i = 1; i <= k; i++) {
			m = nm(f[i]) ~ arg
			if (mode == "merge") { if (!m) st[++d] = f[i] }
			else if (mode == "drop") { if (m) { keep = 0; break } st[++d] = f[i] }
			else if (mode == "focus") { if (m && !keep) keep = 1; if (keep) st[++d] = f[i] }
			else if (mode == "focus-inverted") { st[++d] = f[i]; if (m) { keep = 1; last = d } }
			else if (mode == "focus-subtree") {
				if (i <= np) { if (nm(f[i]) != path[i]) break; if (i == np) { keep = 1; st[++d] = f[i] } }
				else st[++d] = f[i]
			}
			else if (mode == "collapse-direct-recursion") { if (!(m && d && nm(st[d]) == nm(f[i]))) st[++d] = f[i] }
			else if (mode == "collapse-recursion") {
				again = 0
				if (m) for (j = 1; j <= d; j++) if (nm(st[j]) == nm(f[i])) { again = j; break }
				if (again) d = again; else st[++d] = f[i]
			}
		}
		if (!keep) next
		if (mode == "focus-inverted") d = last
		if (!d) next
		out = st[1]; for (i = 2; i <= d; i++) out = out ";" st[i]
		sum[out] += n
	}
	END { for (x in sum) print x, sum[x] }' | sort
}
norm() { awk '{ n = $NF; sub(/ [0-9]+$/, ""); s[$0] += n } END { for (x in s) print x, s[x] }' "$1" | sort; }
for t in "merge ^hot_leaf$" "merge ^compute_outer$" "focus ^compute_mid$" "focus ^msort_with_tmp$" \
	"focus-inverted ^worker_loop$" "drop ^sort_step$" "collapse-recursion ^msort_with_tmp$" \
	"collapse-direct-recursion ^msort_with_tmp.part.0$" \
	"focus-subtree _start;__libc_start_main;__libc_start_call_main;main;worker_loop"; do
	mode=${t%% *} arg=${t#* } opt="--${t%% *}=${t#* }" i=$((${i:-0} + 1))
	"$PERFLENS" export "$CAP" -f collapsed "$opt" >"$TMP/tx.folded" 2>"$TMP/tx.err"
	oracle "$mode" "$arg" <"$TMP/norec.folded" >"$TMP/tx.want"
	norm "$TMP/tx.folded" >"$TMP/tx.got"
	if [ -s "$TMP/tx.want" ] && cmp -s "$TMP/tx.got" "$TMP/tx.want"; then ok "transform_oracle_${i}_$mode"
	else bad "transform_oracle_${i}_$mode" "$opt: $(diff "$TMP/tx.got" "$TMP/tx.want" | head -4 | tr '\n' ' ') $(head -c 200 "$TMP/tx.err")"; fi
done
# merge keeps the total; focus makes the focused function 100 % of what is left
plain_sum=$(sum "$TMP/norec.folded")
"$PERFLENS" export "$CAP" -f collapsed --merge '^compute_mid$' >"$TMP/m.folded" 2>/dev/null
"$PERFLENS" report "$CAP" --top 0 --focus '^compute_mid$' >"$TMP/focus.txt" 2>&1
cm_total=$(awk '/^Top functions/ {on=1} on && $4 == "compute_mid" {print $2; exit}' "$TMP/focus.txt")
cm_n=$(awk '$0 ~ /(^|;)compute_mid(;| )/ { s += $NF } END { print s + 0 }' "$TMP/norec.folded")
focus_n=$(sed -n 's/^Top functions.*% of \([0-9]*\) samples.*/\1/p' "$TMP/focus.txt")
if [ "$(sum "$TMP/m.folded")" = "$plain_sum" ] && [ "$cm_total" = "100.00%" ] && [ "$focus_n" = "$cm_n" ]; then
	ok transform_shares
else bad transform_shares "merge sum $(sum "$TMP/m.folded")/$plain_sum, compute_mid total $cm_total, focus keeps $focus_n of $cm_n"; fi
"$PERFLENS" report "$CAP" --invert --top 3 >"$TMP/inv.txt" 2>&1
top_self=$(awk '/^Top functions/ {getline; getline; print $4; exit}' "$TMP/inv.txt")
inv_first=$(awk '/^Inverted call tree/ {getline; getline; print $3; exit}' "$TMP/inv.txt")
if [ -n "$top_self" ] && [ "$top_self" = "$inv_first" ]; then ok report_invert
else bad report_invert "top self '$top_self', first inverted root '$inv_first'"; fi
"$PERFLENS" report "$CAP" --focus-subtree 'main;;x' >/dev/null 2>"$TMP/tx.err"; rc=$?
# the caret under the empty function: "perflens: --focus-subtree 'main;" is 32 columns
if [ $rc = 2 ] && [ "$(wc -l <"$TMP/tx.err")" = 2 ] && grep -q -- '--focus-subtree' "$TMP/tx.err" &&
   [ "$(sed -n 2p "$TMP/tx.err")" = "$(printf '%*s^' 32 '')" ]; then ok transform_bad_path
else bad transform_bad_path "exit $rc: $(cat "$TMP/tx.err")"; fi

# ─── how far stacks were unwound (pl-unwind-quality.c) ─────────────────
# burn with dwarf: rooted; the gate passes
if "$PERFLENS" report "$CAP" --fail-if 'unwound<99%' >"$TMP/uq.txt" 2>&1 &&
   grep -q 'unwound to the start of their program or thread: \(99\|100\)\.' "$TMP/uq.txt"; then ok unwound_dwarf_gate
else bad unwound_dwarf_gate "$(grep -i 'unwound\|fail-if' "$TMP/uq.txt" | head -3)"; fi
# burn-nofp through the kernel's fp chain: nothing reaches a start, the
# chain ends in burn-nofp itself (its code keeps no frame pointers), and
# the gate fails with exit 1
"$AGENT" --output "$TMP/nofp.plens" --callgraph fp --frequency 499 -- "$B/workloads/burn-nofp" 1 1 >/dev/null 2>&1
"$PERFLENS" report "$TMP/nofp.plens" --fail-if 'unwound<99%' >"$TMP/uqfp.txt" 2>"$TMP/uqfp.err"; rc=$?
# (burn-nofp's own row, wherever the load puts it: libc's qsort may hold more)
rows=$(sed -n '/^Where stacks stop short/,/^$/p' "$TMP/uqfp.txt")
if [ $rc = 1 ] && grep -q 'unwound to the start' "$TMP/uqfp.err" &&
   awk '/unwound to the start of their program or thread:/ { v = $10 + 0; found = 1 } END { exit !(found && v < 50) }' "$TMP/uqfp.txt" &&
   echo "$rows" | grep -q ' burn-nofp: the frame-pointer chain ended here'; then ok unwound_fp_stops
else bad unwound_fp_stops "exit $rc, rows: $(echo "$rows" | head -4 | tr '\n' ' ')"; fi
# dwarf with a 512-byte copy: walks run off the copy, and the report says so
"$AGENT" --output "$TMP/small.plens" --callgraph dwarf --stack-size 512 --frequency 499 -- "$BURN" 1 1 >/dev/null 2>&1
"$PERFLENS" report "$TMP/small.plens" >"$TMP/uqs.txt" 2>&1
if sed -n '/^Where stacks stop short/,/^$/p' "$TMP/uqs.txt" | grep -q 'whole stack copy: record with a larger --stack-size'; then
	ok unwound_stack_copy
else bad unwound_stack_copy "$(sed -n '/^Where stacks stop short/,/^$/p' "$TMP/uqs.txt" | head -3)"; fi
# the recorded binary gone from this machine: its module has no file, so no CFI
mkdir -p "$TMP/gone" && cp "$BURN" "$TMP/gone/burn-gone"
"$AGENT" --output "$TMP/gone.plens" --callgraph dwarf --frequency 499 -- "$TMP/gone/burn-gone" 1 1 >/dev/null 2>&1
rm -f "$TMP/gone/burn-gone"
"$PERFLENS" report "$TMP/gone.plens" >"$TMP/uqg.txt" 2>&1
if sed -n '/^Where stacks stop short/,/^$/p' "$TMP/uqg.txt" | grep -q 'burn-gone: no file for this module here'; then
	ok unwound_no_file
else bad unwound_no_file "$(sed -n '/^Where stacks stop short/,/^$/p;/unwound to/p' "$TMP/uqg.txt" | head -3)"; fi

# ─── diff ──────────────────────────────────────────────────────────────
"$PERFLENS" diff "$CAP" "$CAP" --top 0 >"$TMP/diff0.txt" 2>&1
if grep -q '^Functions by change' "$TMP/diff0.txt" &&
   ! awk '/^Functions by change/ {on=1; getline; next} on && NF == 0 {exit} on && $3 != "+0.00" && $3 != "-0.00" {exit 1}' "$TMP/diff0.txt"; then
	bad diff_self_is_zero "$(sed -n 5,8p "$TMP/diff0.txt")"
else ok diff_self_is_zero; fi
"$PERFLENS" report "$CAP" >/dev/null 2>&1 # warm nothing; second recording:
CAP2=$TMP/burn1.plens
"$AGENT" --output "$CAP2" --callgraph dwarf --frequency 499 -- "$BURN" 1 1 >/dev/null 2>&1
"$PERFLENS" diff "$CAP" "$CAP2" >"$TMP/diff.txt" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q 'hot_leaf \[burn\]' "$TMP/diff.txt" && grep -q '^Stacks by change' "$TMP/diff.txt" &&
   grep -q ';hot_leaf$' "$TMP/diff.txt"; then ok diff_tables
else bad diff_tables "exit $rc: $(head -c 300 "$TMP/diff.txt")"; fi

# ─── annotate and source ───────────────────────────────────────────────
if ! command -v objdump >/dev/null; then bad annotate_instructions "objdump missing (binutils)"
else
	"$PERFLENS" report "$CAP" --top 1 --annotate hot_leaf >"$TMP/ann.txt" 2>&1
	s=$(awk '/^Instructions of/ {on=1} on && /^ +[0-9.]+% +[0-9.]+% +[0-9a-f]+:\t/ {v=$1; sub(/%/, "", v); s += v; n++} END {printf "%.2f %d", s, n}' "$TMP/ann.txt")
	if awk -v a="${s% *}" -v b="$hot_self" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 && b > 0) }' && [ "${s#* }" -ge 1 ]; then
		ok annotate_instructions; echo "# hot_leaf: ${s#* } instructions with samples, self ${s% *}% vs $hot_self%"
	else bad annotate_instructions "instructions sum to ${s% *}% over ${s#* } lines, report says $hot_self%"; fi
fi
"$PERFLENS" report "$CAP" --top 1 --source compute_mid >"$TMP/src.txt" 2>&1
hl_total=$(pct_of "$TMP/report.txt" 2 hot_leaf)
call=$(awk '/^Source of/ {on=1} on && /hot_leaf\(x\);/ {print $2; exit}' "$TMP/src.txt" | tr -d %)
inl=$(awk '/^Source of/ {on=1} on && /return inlined_mix\(x\);/ {print $2; exit}' "$TMP/src.txt" | tr -d %)
# compute_mid's call line carries hot_leaf's total, but for the few calls the
# sleeper thread makes to hot_leaf directly (burn.c: sleeper_main), plus the
# few samples on that line in compute_mid itself (the call and its result)
if [ -n "$call" ] && [ -n "$inl" ] && [ "$inl" != "0.00" ] &&
   awk -v a="$call" -v b="$hl_total" 'BEGIN { exit !(a <= b + 0.5 && a >= b - 0.5) }'; then ok source_lines
else bad source_lines "call line total '$call' (hot_leaf total $hl_total), inline call site '$inl'"; fi

# ─── off-CPU extras ────────────────────────────────────────────────────
sl=$(awk '/^Switches/ {on=1} on && $2 == "sleeper" {print $3; exit}' "$TMP/report.txt")
if [ -n "$sl" ] && [ "$sl" -gt 10 ] && grep -q 'Runqueue latency' "$TMP/report.txt"; then ok switch_reasons
else bad switch_reasons "sleeper voluntary switches '$sl'"; fi
if awk '/^Processes and threads/ {on=1} on && /thread [0-9]+ sleeper/ {f=1} END {exit !f}' "$TMP/report.txt" &&
   awk '/^Processes and threads/ {on=1} on && /thread [0-9]+ burn-2/ {f=1} END {exit !f}' "$TMP/report.txt"; then ok process_tree
else bad process_tree "$(sed -n '/^Processes and threads/,/^$/p' "$TMP/report.txt" | head -5)"; fi
# ─── --from/--to: the same samples in export as in report ─────────────
# report's sample count over a window is the oracle for export's; the two
# halves of the recording add up to the whole; a whole-file format refuses
# a range it could not honour.
nsamples() { sed -n 's/^Top functions by self (.*% of \([0-9]*\) samples.*/\1/p' "$1" | head -1; }
folded() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
"$PERFLENS" report "$CAP" --top 1 --from 0.5 --to 1.5 >"$TMP/tr-r.txt" 2>&1
"$PERFLENS" export "$CAP" -f collapsed --from 0.5 --to 1.5 -o "$TMP/tr.folded" 2>"$TMP/tr.err"
"$PERFLENS" export "$CAP" -f collapsed --to 1 -o "$TMP/tr1.folded" 2>>"$TMP/tr.err"
"$PERFLENS" export "$CAP" -f collapsed --from 1 -o "$TMP/tr2.folded" 2>>"$TMP/tr.err"
"$PERFLENS" export "$CAP" -f collapsed -o "$TMP/tr0.folded" 2>>"$TMP/tr.err"
"$PERFLENS" export "$CAP" -f perf-data --from 1 -o "$TMP/tr.data" >"$TMP/tr-pd.txt" 2>&1; pdrc=$?
want=$(nsamples "$TMP/tr-r.txt") got=$(folded "$TMP/tr.folded")
h1=$(folded "$TMP/tr1.folded") h2=$(folded "$TMP/tr2.folded") all=$(folded "$TMP/tr0.folded")
if [ -n "$want" ] && [ "$got" = "$want" ] && [ "$got" -gt 0 ] && [ "$got" -lt "$all" ] &&
   [ $((h1 + h2)) = "$all" ] && [ "$h1" -gt 0 ] && [ "$h2" -gt 0 ] &&
   [ $pdrc = 2 ] && grep -q 'profile formats only' "$TMP/tr-pd.txt" && [ ! -e "$TMP/tr.data" ]; then
	ok time_range
else bad time_range "0.5-1.5 s: export $got, report '$want' of $all; halves $h1 + $h2; perf-data --from: exit $pdrc $(head -c 200 "$TMP/tr-pd.txt") $(head -c 200 "$TMP/tr.err")"; fi
exit 0
