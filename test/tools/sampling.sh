# shellcheck shell=bash
# test/tools/sampling.sh — share thresholds from the sampling error.
# Sourced, never run; used by test/integration/boards.sh,
# test/integration/ssh-board.sh and viewer/tests/viewer-agent-e2e-test.sh
# (test/tools/perf-oracle.sh does the same for two samplings compared).
#
# A share a profiler reports is a count: COUNT of N samples fell in a
# function.  When the function's true share of the CPU time is P, sampling
# alone moves COUNT/N by a standard error sqrt(P (1 - P) / N) from one run
# to the next (the binomial approximation: a timer sample lands in the
# function with probability P).  A check that states P0, the share the
# workload guarantees by construction (a lower bound, justified where the
# check is), therefore asks
#
#     COUNT / N >= P0 - K * sqrt(P0 (1 - P0) / N)
#
# and never a fixed percentage of everything sampled: what else a loaded
# machine runs (the kernel's timer work, the agent, other jobs) is kept
# out of N by counting only the workload's own samples (pl_user_samples,
# pl_threads_share).
#
# K = 4 (PL_SHARE_K): for a true share of exactly P0 the chance that one
# check fails by sampling alone is 3e-5 (one-sided normal tail), so the
# thirty-odd such checks of a `make check` fail by chance less than once
# in a thousand runs even if every workload sat exactly on its bound; and
# a broken profiler (hot_leaf named as another function, samples lost to
# [unknown]) moves the share by tens of points, far beyond 4 standard
# errors of a few hundred samples (4.9 points for P0 = 0.6, N = 400).
# Timer samples of a program whose phases interleave every few
# microseconds (burn's hot_leaf and inlined_mix alternate per call) are
# close to independent draws, which the binomial error assumes.

pl_share_k=${PL_SHARE_K:-4}
# below this many samples a share is not judged (pl_share_at_least fails),
# and a recording that gives fewer cannot be checked by share at all
pl_min_samples=30

# pl_share_at_least COUNT N P0 [K]: succeeds when COUNT/N is at least
# P0 - K standard errors (P0 a fraction, 0 < P0 < 1); prints the figures
# either way, for the ok/not ok line: "COUNT/N = S%, floor F% = P0% - K x SE%".
# N below pl_min_samples fails: too few samples to judge a share.
pl_share_at_least() {
	awk -v c="$1" -v n="$2" -v p="$3" -v k="${4:-$pl_share_k}" -v min="$pl_min_samples" 'BEGIN {
		if (n + 0 < min) { printf "%s/%s samples: too few to judge a share", c, n; exit 1 }
		se = sqrt(p * (1 - p) / n); floor = p - k * se; s = c / n
		printf "%d/%d = %.1f%%, floor %.1f%% = %g%% - %g x %.2f%%", c, n, 100 * s, 100 * floor, 100 * p, k, 100 * se
		exit !(s >= floor)
	}'
}

# pl_user_samples PL-DUMP CAPTURE EVENT TID...: how many samples of EVENT
# (its name) the threads TID took in user space, from the capture's raw
# records (pl-dump), independent of symbolization: a sample whose call
# chain begins with PERF_CONTEXT_KERNEL (ffffffffffffff80), or whose IP is
# a 64-bit kernel address, was taken in the kernel.  This is the N of a
# share among a workload's own user-space samples: the kernel's work per
# tick and the other processes grow with the machine's load, a thread's
# own instruction mix does not.
pl_user_samples() {
	local dump=$1 cap=$2 ev=$3
	shift 3
	"$dump" "$cap" 2>/dev/null | awk -v ev="$ev" -v tids=" $* " '
		/^EVENT_DESC / && $0 ~ (" name=" ev " ") { i = $2; sub(/index=/, "", i); want[i] = 1 }
		/^SAMPLE / {
			e = $2; sub(/ev=/, "", e); t = $4; sub(/tid=/, "", t)
			if (!(e in want) || index(tids, " " t " ") == 0) next
			ip = $0; sub(/.* ip=0x/, "", ip); sub(/ .*/, "", ip)
			w = $0; sub(/.* stack=[^ ]*/, "", w); split(w, c, " ")
			if (c[1] == "ffffffffffffff80" || (length(ip) == 16 && ip ~ /^ffff/)) next
			n++
		}
		END { print n + 0 }'
}

# pl_threads_share PL-DUMP PERFLENS CAPTURE REPORT FUNCTION MODULE P0
# THREADS [REPORT ARGS...]: FUNCTION's (in MODULE) share of the user-space
# samples of the threads named in THREADS (comma-separated names, looked
# up in REPORT, a `perflens report` of CAPTURE), at least P0 less K
# standard errors.  The count is the sum of FUNCTION's self samples in
# `perflens report --tid T` of each thread (REPORT ARGS: --binary,
# --sysroot...); N is pl_user_samples of the same threads.  Threads whose
# code is one loop by construction (burn's burn-1 and burn-2: nothing but
# worker_loop after a start of a few hundred instructions) give a share
# that neither the machine's load nor the program's fixed start-up work
# (the loader, creating threads: a larger part of a run the more a
# loaded host starves it) nor a thread woken by the clock (the sleeper)
# moves.  Prints pl_share_at_least's figures.
pl_threads_share() {
	local dump=$1 perflens=$2 cap=$3 rep=$4 fn=$5 mod=$6 p0=$7 names=$8 ev tids="" t c count=0
	shift 8
	ev=$(pl_report_event "$rep")
	for t in ${names//,/ }; do tids="$tids $(pl_report_tid "$rep" "$t")"; done
	if [ -z "$ev" ] || [ "$(echo $tids | wc -w)" != "$(echo ${names//,/ } | wc -w)" ]; then
		echo "no Top functions table, or not every thread of $names in $rep"
		return 1
	fi
	for t in $tids; do
		c=$("$perflens" report "$cap" --tid "$t" --top 0 "$@" 2>/dev/null >"$rep.tid" &&
			pl_report_self "$rep.tid" "$fn" "$mod")
		count=$((count + ${c:-0}))
	done
	rm -f "$rep.tid"
	pl_share_at_least "$count" "$(pl_user_samples "$dump" "$cap" "$ev" $tids)" "$p0"
}

# What pl_user_samples and pl_share_at_least need from a `perflens report`
# text (REPORT, a file): the event its Top functions table counts, the
# tid of the thread named THREAD, and the self samples of FUNCTION in
# MODULE (empty when absent from the table).
pl_report_event() { sed -n 's/^Top functions by self (\([^;]*\);.*/\1/p' "$1" | head -n 1; }
pl_report_tid() {
	awk -v n="$2" '/^Threads:/ { t = 1; next } t && /^$/ { exit } t && $3 == n { print $1; exit }' "$1"
}
pl_report_self() {
	awk -v f="$2" -v m="$3" '/^Top functions/ { t = 1; next } t && /^$/ { exit }
		t && $4 == f && $5 == m { print $3; exit }' "$1"
}

# pl_rate_check PL-DUMP CAPTURE F: the kernel sampled at the frequency
# asked, from the capture's raw records (F Hz; cpu-clock, whose period the
# kernel fixes at 1e9/F ns): every cpu-clock sample carries that period, and no event gave more
# samples than F per second of the session on the guest's own clock
# (SESSION start to END, the agent's CLOCK_MONOTONIC) on each of its CPUs,
# plus one per thread (a thread's first tick).  How many samples a fixed
# time gives is no check: qemu's guest clock follows the host's while the
# host deschedules the emulated CPU, and a timer that expires while it
# does not run gives one sample, not one per period (main's own run under
# check-fresh's load: 570 of the 3,440 ticks of a 3.44 s session); a
# share is judged on at least pl_min_samples of them.  Prints what
# it found; fails on a wrong period or too many samples.
pl_rate_check() {
	"$1" "$2" 2>/dev/null | awk -v f="$3" '
		/^HELLO / { c = $0; sub(/.* cpus=/, "", c); sub(/ .*/, "", c); cpus = c + 0 }
		/^SESSION / { t = $0; sub(/.* start=/, "", t); sub(/ .*/, "", t); st = t + 0 }
		/^END / { t = $0; sub(/.* time=/, "", t); sub(/ .*/, "", t); en = t + 0 }
		/^EVENT_DESC / && / name=cpu-clock / { i = $2; sub(/index=/, "", i); clk[i] = 1 }
		/^SAMPLE / {
			e = $2; sub(/ev=/, "", e); if (!(e in clk)) next
			t = $4; sub(/tid=/, "", t); if (!(t in tids)) { tids[t] = 1; nt++ }
			p = $0; sub(/.* period=/, "", p); sub(/ .*/, "", p)
			n[e]++; if (p + 0 != want) { bad++; badp = p }
		}
		BEGIN { want = int(1e9 / f) }
		END {
			span = (en - st) / 1e9; max = f * span * (cpus ? cpus : 1) + nt
			for (e in n) { tot += n[e]; if (n[e] > max) over = over " " e "=" n[e] }
			printf "%d cpu-clock samples, period %d ns (%d Hz)", tot, want, f
			if (bad) printf "; %d with period %s", bad, badp
			printf "; at most %.0f in the session'\''s %.3f s on %d CPU(s)%s", max, span, cpus, over ? ": event(s)" over " more" : ""
			exit !(tot > 0 && !bad && !over && st > 0 && en > st)
		}'
}
