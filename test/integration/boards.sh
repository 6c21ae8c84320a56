#!/usr/bin/env bash
# Emulated ARM boards with real kernels (test/boards/README.md): boots
# Debian's arm64 kernel under qemu-system-aarch64 and the armmp kernel under
# qemu-system-arm, and big-endian kernels built from Debian's kernel source
# (test/boards/kernel.sh: aarch64_be and armeb BE8, and riscv64 under
# qemu-system-riscv64 with OpenSBI), each with the static
# agent and a cross-built workload in its initramfs; the host's `perflens
# record` profiles the workload through a forwarded port in fp and dwarf
# mode (the little-endian boards: Debian glibc builds, a shared library,
# and a fully static musl build in fp mode; the big-endian ones, which have
# no Debian user space: static musl builds in fp and dwarf mode),
# `perflens report`/`export` symbolize with Debian's cross sysroot or the
# board's ELF files alone, and the figures go to the results table.  Each
# board then boots a second time with the agent as the kernel's init
# (boot_row: the boot recorded from the kernel's hand-over until the
# board's agent serves).
#
# Every board also records, in the same boot: `cycles` sampling with the
# perf-stat style counters (IPC where cycles and instructions both count)
# when the agent's probe in the HELLO says cycles samples there, else a row
# quoting the probe's line; and `--all` (the whole board while a detached
# workload runs); and a kprobe, `-e k:do_nanosleep`, checked against a
# syscall-entry tracepoint of the same run, and its return probe
# (`k:do_nanosleep%return`) against the entries (kprobe_check; where the
# kernel has no kprobe PMU, the agent's refusal is the row).  Every recording has
# kernel stacks (`perflens record`
# always asks for user and kernel stacks), named from the board's
# /proc/kallsyms the agent sends; the fp row checks the sleeper's
# nanosleep syscall path there.  The board x86_64 is this host: the same
# modes with the x86_64 agent on loopback (not in the default list).
#
# Env: PL_BOARDS=arm64,armhf,arm64be,armeb,riscv64[,x86_64] (which boards),
#      PL_BOARD_HZ (default 1000),
#      PL_BOARD_ROWS=naps,tracks,kprobe,boot,fleet,periods,irq (only those rows:
#      each board boots and records them alone, no clock or icount runs;
#      boot or fleet alone: only their own boots, fleet on the big-endian
#      boards; periods: that boot with -icount shift=0; default every row
#      but tracks, boot, fleet, periods and irq (irq on arm64 only): a second boot
#      of every board took 6-129 s a board on a loaded host, and make
#      check's time is CI's),
#      PL_BOARDS_RESULTS (results file, rewritten each run; default
#      $PL_BUILD/boards/results.md; docs/boards-results.md is refreshed with
#      PL_BOARDS=arm64,armhf,arm64be,armeb,riscv64,x86_64
#      PL_BOARDS_RESULTS=docs/boards-results.md).
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PL_BUILD:-$top/build}
here=$top/test/boards
case "$build" in
*build-san)
	# The board side (agent, kernel, workload) is the same for every host
	# build, and the viewer's code is exercised under ASan by the other
	# tests: one run per `make check` is enough.
	echo "skip boards: [by-design] emulated boards run once, with the plain build (this is $(basename "$build"))"
	exit 0 ;;
esac
perflens=$build/perflens
dump=$build/tools/pl-dump
# what make builds is never a reason to skip (test/skip-reasons.txt)
for f in "$perflens" "$dump"; do
	[ -x "$f" ] || { echo "not ok boards: $f not built (run make)"; exit 1; }
done
# ci/deps.sh installed these up front; a test installs nothing
if ! PL_APT_CHECK=1 "$here/deps.sh" >"$build/boards-deps.log" 2>&1; then
	echo "not ok boards: $(tail -n 1 "$build/boards-deps.log")"
	exit 1
fi
# PL_AGENTS_DIR: agents built elsewhere (ci/agents.sh PERFLENS_AGENTS_DIR).
# mkinitramfs.sh takes them from <its top>/dist: it runs from a shadow top
# of symlinks whose dist is that directory.
agents=$top/dist mkinitramfs=$here/mkinitramfs.sh
if [ -n "${PL_AGENTS_DIR:-}" ]; then
	agents=$(cd "$PL_AGENTS_DIR" && pwd)
	shadow=$build/boards-top
	rm -rf "$shadow"
	mkdir -p "$shadow/test"
	ln -s "$agents" "$shadow/dist"
	ln -s "$here" "$shadow/test/boards"
	ln -s "$top/test/workloads" "$shadow/test/workloads"
	ln -s "$top/toolchains" "$shadow/toolchains"
	mkinitramfs=$shadow/test/boards/mkinitramfs.sh
fi
# shellcheck source=../tools/sampling.sh
. "$top/test/tools/sampling.sh"
hz=${PL_BOARD_HZ:-1000}
# dwarf mode copies 8 KiB of stack per sample; at 1000 Hz the agent on an
# emulated CPU loses most of them in the kernel ring (see the results), and
# the survivors over-represent process start-up, where Debian's armhf libc
# has no unwind tables (pthread_create, mmap: EXIDX_CANTUNWIND)
dwarf_hz=${PL_BOARD_DWARF_HZ:-500}
# make check writes into the build dir; bench/run-all.sh passes docs/boards-results.md
results=${PL_BOARDS_RESULTS:-$build/boards/results.md}
token=board$$
failed=0
ok() { echo "ok $1"; }
nok() { echo "not ok $1: $2"; failed=1; }

qpid=
stop_qemu() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	qpid=
}
trap stop_qemu EXIT

free_port() { # a port nothing listens on, from a range tests elsewhere do not use
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + (RANDOM % 20000)))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

# field NAME from "key=value" words
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" | head -n 1; }

# Unwind share from collapsed stacks (one "frame;frame;... count" a line,
# outermost first).  A stack is complete when it reaches the program's
# main or a thread's start function.  Stacks whose outermost frame is in
# the dynamic loader are its start-up work before main (about 2% of a 3 s
# run under emulation): the loader is stripped in Debian, so a complete
# loader stack cannot be told from a broken one; they are counted apart.
# A new thread's first frames are in clone before start_thread runs: an
# outermost __clone/__clone3/start_thread is that thread's start; in static
# musl programs the thread start is musl's start (start_c11 for C11
# threads), which an fp walk through musl's frame-pointer-less libc reaches
# from the syscall wrapper.  The bottoms are test/tools/perf-oracle.sh's
# thread starts too: glibc's _start (a stack there, through
# __libc_start_main before main, reached the process's first frame) and
# a new task's first return from the kernel (ret_from_fork): the start-up
# work before main and a thread's first instructions, fixed work whose
# share of the samples grows the more a loaded host starves an emulated
# CPU (arm64 here: 6 of 699 dwarf samples), are complete stacks, not
# failures to unwind.  The exec itself (a kernel stack through execve,
# between the launcher's image and the workload's: no user frames to
# unwind) is start-up like the loader's and counted with it (arm64 dwarf
# row here: 3 of 204 samples of a starved board).
# Prints: total complete loader
unwind_share() {
	awk '{
		n = $NF; $NF = ""; total += n
		if ($0 ~ /(^|;)(main|thread_main|sleeper_main|timer_main)(;| |$)/ || $0 ~ /^(__clone3?|start_thread|start|start_c11|_start|ret_from_fork(_asm)?)[; ]/) complete += n
		else if ($0 ~ /^(\[ld-linux|_dl_)/ || $0 ~ /(^|;)(__[a-z0-9]+_sys_execve|__do_sys_execve|do_execveat_common[.a-z]*);/) loader += n
	} END { printf "%d %d %d\n", total, complete, loader }'
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", 100 * a / b; else print "n/a" }'; }

rows=()      # results table rows, one per board and mode

# The probe's line for EVENT from a capture's PROBE_EVENT frames (the
# agent probes every event when a viewer connects and sends the answers
# after its HELLO).
probe_line() { "$dump" "$1" 2>/dev/null | grep -m1 "^PROBE_EVENT name=$2 "; }
# does the probe say EVENT samples there (status 0, PL_PROBE_SAMPLING_OK)?
probe_samples() {
	local l; l=$(probe_line "$1" "$2")
	[ "$(echo "$l" | kv status)" = 0 ] && [ $(($(echo "$l" | kv flags) & 4)) -ne 0 ]
}
# a counter's value from a report's Counters section
counter() { awk -v n="$2" '/^Counters:/ { t = 1; next } t && /^$/ { exit } t && $1 == n { print $2; exit }' "$1"; }

# Kernel frames from the board's vmlinux (`--vmlinux`, the big-endian and
# riscv64 boards' self-built kernels, which have DWARF): perflens's source lines of
# do_nanosleep (`report --source`) must be those the cross binutils'
# addr2line (the oracle) gives for the same callchain addresses: each
# sample's kernel IP, and its return addresses looked up at ra - 1 as
# perflens does, do_nanosleep's line taken from addr2line's inline chain.
# Sets vml_note (for the row) and adds the checks.
vmlinux_check() {
	local rec=$1 vml=${fetched:-}/vmlinux a2l rep=$out/$mode-vmlinux-report.txt
	vml_note=""
	case "$arch" in
	arm64be) a2l=aarch64-linux-gnu-addr2line ;;
	armeb) a2l=arm-linux-gnueabihf-addr2line ;;
	riscv64) a2l=riscv64-linux-gnu-addr2line ;;
	*) return 0 ;;
	esac
	[ -e "$vml" ] || { nok "boards-$arch${icount:+-icount}-vmlinux" "$vml missing (kernel.sh keeps it)"; return 0; }
	# the kernel's sources: kernel.sh's build/source is the tree it was
	# built from (with --sysroot, riscv64's, the report reads no host
	# path unless given a source directory)
	"$perflens" report "$rec" --top 30 --lines --source=do_nanosleep "${symargs[@]}" \
		--vmlinux "$vml" --source-dir "${fetched:-}/build/source" >"$rep" 2>&1
	local n kind a
	"$dump" "$rec" | awk '/^SAMPLE/ { n++; k = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "ffffffffffffff80") { k = 1; first = 1; continue }
			if ($i ~ /^fffffffffffff[0-9a-f][0-9a-f][0-9a-f]$/) { k = 0; continue }
			if (k && $i ~ /^[0-9a-f]+$/) { print n, (first ? "ip" : "ra"), $i; first = 0 }
		} }' | while read -r n kind a; do
		[ "$kind" = ra ] && a=$(printf '%x' $((0x$a - 1)))
		echo "$n $a"
	done >"$out/$mode-kaddrs.txt"
	cut -d' ' -f2 "$out/$mode-kaddrs.txt" | sort -u | sed 's/^/0x/' |
		"$a2l" -a -f -i -e "$vml" >"$out/$mode-addr2line.txt" 2>&1
	# per line of do_nanosleep: samples whose kernel stack is there (once a sample)
	local want got file_a file_p
	want=$(awk 'NR == FNR {
			if ($0 ~ /^0x[0-9a-f]+$/) { addr = $0; sub(/^0x0*/, "", addr); f = 1; next }
			if (f) { fn = $0; f = 0; next }
			if (fn == "do_nanosleep") { l = $1; sub(/ .*/, "", l); at[addr] = at[addr] " " l }
			f = 1; next }
		{ a = $2; sub(/^0*/, "", a); if (!(a in at)) next
		  m = split(at[a], ls, " ")
		  for (i = 1; i <= m; i++) if (!seen[$1 SUBSEP ls[i]]++) c[ls[i]]++ }
		END { for (l in c) print l, c[l] }' "$out/$mode-addr2line.txt" "$out/$mode-kaddrs.txt" | sort)
	file_a=$(echo "$want" | head -n 1 | cut -d' ' -f1 | sed 's/:[0-9]*$//')
	file_p=$(sed -n '/^Source of do_nanosleep:/{n;s/^ *\([^ ]*\).*/\1/p;q}' "$rep")
	got=$(awk -v f="$file_p" '/^Source of do_nanosleep:/ { s = 1; next }
		s && /% of [0-9]+ samples/ { N = $0; sub(/.*% of /, "", N); sub(/ .*/, "", N); next }
		s && /^ +[0-9.]+% +[0-9.]+% +[0-9]+ / { t = $2; sub(/%/, "", t)
			if (t + 0 > 0) printf "%s:%d %d\n", f, $3, int(t * N / 100 + 0.5); next }
		s && /^[A-Z]/ { exit }' "$rep" | sort)
	if [ -n "$want" ] && [ "$file_a" = "$file_p" ] && [ "$want" = "$got" ]; then
		ok "boards-$arch${icount:+-icount}-vmlinux-lines # do_nanosleep's lines as addr2line's: $(echo "$want" | sed 's|.*/||' | tr '\n' ' ')"
	else
		nok "boards-$arch${icount:+-icount}-vmlinux-lines" "perflens --vmlinux: [$(echo "$got" | tr '\n' ' ')] addr2line: [$(echo "$want" | tr '\n' ' ')] (see $rep, $out/$mode-addr2line.txt)"
	fi
	# the capture carries the board kernel's build-id (/sys/kernel/notes),
	# the same as the vmlinux's: perflens used the vmlinux, no problem said
	if grep -q "^FILE_CHUNK kind=6" < <("$dump" "$rec") && ! grep -q "not the board's kernel\|another build" "$rep" &&
		grep -q '^  \[kernel.kallsyms\].* lines' "$rep"; then
		ok "boards-$arch${icount:+-icount}-vmlinux-build-id # the agent sent /sys/kernel/notes; the vmlinux matches"
	else
		nok "boards-$arch${icount:+-icount}-vmlinux-build-id" "no notes chunk, or the vmlinux was refused: $(grep -A3 '^Symbol coverage' "$rep" | tr '\n' ' ')"
	fi
	local top hot
	top=$(echo "$want" | sort -k2 -n | tail -n 1)
	hot=$(awk '/^Hot source lines:/ { t = 1; next } t && /^$/ { exit } t && $3 ~ /linux-source/ { print $3; exit }' "$rep" | sed 's|.*linux-source-[^/]*/||')
	vml_note="vmlinux (--vmlinux, checked with $a2l): do_nanosleep at $(echo "$top" | sed 's|.*linux-source-[^/]*/||;s/ / (/') samples), hottest kernel line ${hot:-–}"
}

# Whether the workload ran its SECS on the guest's clock (REC, REP its
# report, SECS, MODE): the session ended by its duration (the agent's, on
# the guest's clock: END reason 3) or by the viewer's (on the host's,
# reason 2: under qemu's -icount the guest's clock follows the
# instructions, slower than the host's on a loaded host) while the
# workload still ran; or the workload ended first (reason 1), and then a
# workload started by the session (--command: every mode but pid and
# all) lived at least SECS in it, its threads' on-CPU plus off-CPU time
# from the switch records (its own nanosleep of SECS: a kernel whose
# timers fire early ends it sooner).  The pid and all rows' workload
# lives until the test kills it after the record (end_workload): their
# session must end by its duration.  No share of SECS is asked of the
# samples' span: the start-up before the first sample and the pauses of
# an emulated CPU on a loaded host are not the workload's; the span is
# printed.  Prints what it found; fails when the workload ran short.
cover_check() {
	local rec=$1 rep=$2 secs=$3 mode=$4 st reason wpid life cov
	st=$("$dump" "$rec" 2>/dev/null | sed -n 's/^SESSION .* start=\([0-9]*\) .*/\1/p' | head -n 1)
	reason=$("$dump" "$rec" 2>/dev/null | sed -n 's/^END reason=\([0-9]*\) .*/\1/p' | head -n 1)
	wpid=$(awk '/^Threads:/ { t = 1; next } t && /^$/ { exit } t && $3 == "burn-1" { print $2; exit }' "$rep")
	life=$(awk -v p="${wpid:-none}" '/^Threads:/ { t = 1; next } t && /^$/ { exit }
		t && $2 == p && NF >= 7 && $6 + $7 > m { m = $6 + $7 } END { printf "%.3f", m / 1000 }' "$rep")
	cov=$("$dump" "$rec" 2>/dev/null | sed -n 's/^SAMPLE .* time=\([0-9]*\) .*/\1/p' | sort -n |
		awk -v s="${st:-0}" '
		NR == 1 { first = $1 } NR > 1 && $1 - prev > gap { gap = $1 - prev } { prev = $1 }
		END { if (s > 0 && NR > 1) printf "samples from %.3f s to %.3f s of the session, longest pause %.3f s",
			(first - s) / 1e9, (prev - s) / 1e9, gap / 1e9 }')
	case "$reason" in
	2 | 3) echo "the session ended by its $secs s ($([ "$reason" = 3 ] && echo "the agent's, guest clock" || echo "the viewer's, host clock")), the workload's threads lived ${life} s in it; $cov" ;;
	1)
		echo "the workload ended first, its threads lived ${life} s in the session; $cov"
		case "$mode" in pid | all) echo "(it was to live until killed after the record)"; return 1 ;; esac
		awk -v l="$life" -v s="$secs" 'BEGIN { exit !(l >= s) }' ;;
	*) echo "END reason ${reason:-none}; $cov"; return 1 ;;
	esac
}

# hot_leaf's share of the user-space samples of the workload's threads
# burn-1 and burn-2 (pl_threads_share): COUNT, hot_leaf's self samples in
# module MOD (`report --tid` of each thread), of N, their samples whose
# leaf is in user space, counted from the capture's raw records (no
# symbolization in N, so a sample named wrongly lowers the share).  Those
# two threads run nothing but worker_loop, so neither the kernel's
# per-tick work nor the agent nor other processes (with --all) are in N,
# nor the main thread's start-up (the loader, creating threads) nor the
# sleeper's wake-ups: fixed work per run or per guest second, a larger
# part of the samples the more a loaded host starves an emulated CPU
# (arm64 here: hot_leaf 61 % of all the workload's user-space samples of
# the fp row, 142 of 233, 20 of them in the loader).
#
# P0 = 0.60, from test/workloads/burn.c by construction: per worker_loop
# step hot_leaf runs 150 x 2000 iterations of a multiply-add (with the
# loop's compare and branch, 4 operations: 1.2 M), everything else at
# most 150 x 200 iterations of inlined_mix (6 operations: 180 k) and one
# libc step (the boards' lfind: 64 x 2 x 48 iterations of key_of, 5
# operations: 31 k; the host's qsort, 50 compute steps to one sort of
# 256 longs: about 60 k against hot_leaf's 400 k).  hot_leaf is 77-85 %
# of a worker thread's operations (the host measures 79-81 %); 0.60
# leaves 17 points for operations of unequal cost (a multiply against a
# shift).  Prints pl_share_at_least's figures; fails below the floor.
hot_share() {
	local rec=$1 rep=$2 mod=$3
	shift 3
	pl_threads_share "$dump" "$perflens" "$rec" "$rep" hot_leaf "$mod" 0.60 burn-1,burn-2 "$@"
}

# end_workload PID: ends the detached workload PID of the --pid and --all
# rows (it lives until then) and waits until `perflens ps` no longer lists
# it running, so that the next mode has the board's CPU to itself: gone,
# or a zombie (no command line: it exited, and the big-endian boards'
# /init, init.c, reaps only the agent).  On the boards
# `/detach --kill PID` (a session of its own: the big-endian boards have
# no `kill`), on this host kill(1).  Each look is one connection (the
# clock check's).  The bound is generous: the SIGTERM ends it at once.
# Sets workload_end (for the duration check's line); fails when PID was
# gone before the kill (it should have lived until now) or stays listed.
end_workload() {
	local p=$1 w st
	if [ "$arch" = x86_64 ]; then
		kill "$p" 2>/dev/null || { workload_end="pid $p was gone before the kill"; return 1; }
	else
		host_starts+=("$(date +%s.%N)")
		"$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
			--command "/detach --kill $p" -e cpu-clock -F 10 --duration 5 \
			-o "$out/$mode-kill.plens" >"$out/$mode-kill-record.log" 2>&1
		st=$("$dump" "$out/$mode-kill.plens" 2>/dev/null | sed -n 's/^END .* status=\([-0-9]*\) .*/\1/p' | head -n 1)
		if [ "$st" != 0 ]; then
			workload_end="/detach --kill $p exited ${st:-unknown} (pid $p gone before the kill?): $(tail -n 2 "$out/$mode-kill-record.log" | tr '\n' ' ')"
			return 1
		fi
	fi
	for w in $(seq 1 20); do
		host_starts+=("$(date +%s.%N)")
		if "$perflens" ps "127.0.0.1:$port" --token "$token" --timeout 60 >"$out/$mode-ps-end.log" 2>&1 &&
			! awk -v p="$p" '$1 == p && NF >= 7 { f = 1 } END { exit !f }' "$out/$mode-ps-end.log"; then
			workload_end="the workload (pid $p) lived until killed after the record, gone $w look(s) later"
			return 0
		fi
		sleep 1
	done
	workload_end="the workload (pid $p) still running by perflens ps 20 looks after the kill (see $out/$mode-ps-end.log)"
	return 1
}

# clock_check (board()'s guest_conn, host_starts, rec_conn, rec_end): the
# guest's uptime at each record's connection (guest_conn: the console's
# stamps, the first one `perflens ps` during boot) minus the host's clock
# at that record's start is at least the same minus the host's clock at
# its end of any other record: max(g - end) <= min(g - start), the
# offset between the clocks one number for all.  A guest clock running
# at rate r drifts (r - 1) x the time between two records, which breaks
# that as soon as it exceeds the two records' intervals.  Prints the
# figures; fails when no offset fits.
clock_check() {
	local k i
	for k in "${!rec_conn[@]}"; do
		i=${rec_conn[$k]}
		echo "${guest_conn[$((i + 1))]} ${host_starts[$i]} ${rec_end[$k]}"
	done | awk '
		{ g = $1; s = $2; e = $3
		  if (NR == 1 || g - e > lo) lo = g - e
		  if (NR == 1 || g - s < hi) hi = g - s
		  if (NR == 1) { g0 = g; s0 = s } gl = g; sl = s }
		END {
			printf "%d records: guest %.2f s, host %.2f s from the first connection to the last", NR, gl - g0, sl - s0
			if (lo <= hi) printf "; every guest stamp inside its record'\''s host interval for one offset (%.2f s to spare)", hi - lo
			else printf "; no offset puts every guest stamp inside its record'\''s host interval (%.2f s short)", lo - hi
			exit !(NR >= 2 && lo <= hi)
		}'
}

# Record one mode on the board whose agent answers at 127.0.0.1:$port, check
# it and add its row (uses board()'s locals: arch, out, port, console,
# sysroot, fpprog, host_starts, boot_s, first_ms, probe_rec).  Returns 1
# when the record itself failed.
record_mode() {
	local mode=$1 prog cg f secs_run rec rep col target evs=(-e cpu-clock) extra=() note=""
	case "$mode" in
	fp) prog=/burn cg=fp f=$hz secs_run=3 ;;
	dwarf) prog=/burn-nofp cg=dwarf f=$dwarf_hz secs_run=8 ;;
	lib) prog=/burn-lib cg=dwarf f=$dwarf_hz secs_run=8 ;;
	# static musl (toolchains/cc.sh): named from the binary alone
	musl) prog=/burn-musl cg=fp f=$hz secs_run=3 ;;
	# the same with EHABI tables (armeb) or .eh_frame (arm64be)
	musl-dwarf) prog=/burn-musl-nofp cg=dwarf f=$dwarf_hz secs_run=8 ;;
	# hardware event: only where the probe (in an earlier capture of this
	# boot) says cycles samples; instructions too where it counts
	hw)
		prog=$fpprog cg=fp f=$hz secs_run=3
		local pc pi
		pc=$(probe_line "$probe_rec" cycles | cut -d' ' -f2-)
		pi=$(probe_line "$probe_rec" instructions | cut -d' ' -f2-)
		if [ -z "$pc" ]; then
			nok "boards-$arch${icount:+-icount}-hw-probe" "no PROBE_EVENT for cycles in ${probe_rec:-any capture}"
			return 0
		fi
		if ! probe_samples "$probe_rec" cycles; then
			ok "boards-$arch${icount:+-icount}-hw-probe # no PMU: the probe says $pc"
			rows+=("| $arch | $kver | hardware event | – | – | – | – | – | no PMU, probe: \`$pc\` |")
			return 0
		fi
		ok "boards-$arch${icount:+-icount}-hw-probe # cycles: $pc; instructions: $pi"
		evs=(-e cycles) extra=(--counters)
		probe_samples "$probe_rec" instructions && evs+=(-e instructions)
		note="probe: instructions \`$(echo "$pi" | kv status)\`" ;;
	# the whole board while a detached workload runs
	all) prog=/burn-musl cg=fp f=$hz secs_run=2 ;;
	# --pid: attach to a workload already running (started detached, its
	# pid from `perflens ps`), dwarf stacks
	pid) prog=$dwprog cg=dwarf f=$dwarf_hz secs_run=3 ;;
	esac
	[ "$arch" = x86_64 ] && prog=${host_prog[$mode]}
	target=(--command "$prog $secs_run 2")
	rec=$out/$mode.plens
	rm -f "$rec"
	local wpid="" workload_end="" workload_ok=1
	if [ "$mode" = all ] || [ "$mode" = pid ]; then
		# A workload that outlives its launcher (that session ends at
		# once) and lives until end_workload kills it after the record:
		# however long the launcher's session, ps and the connection
		# take on a loaded host, it runs through the whole record (the
		# 3600 s only bound a test killed before it could end it)
		local launch=(/detach "$prog" 3600 2)
		[ "$arch" = x86_64 ] && launch=(sh -c "$prog 3600 2 >/dev/null 2>&1 &")
		host_starts+=("$(date +%s.%N)")
		if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
			--command "$(printf '%q ' "${launch[@]}")" -e cpu-clock -F 10 --duration 5 \
			-o "$out/$mode-start.plens" >"$out/$mode-start-record.log" 2>&1; then
			nok "boards-$arch${icount:+-icount}-$mode-start" "$(tail -n 2 "$out/$mode-start-record.log" | tr '\n' ' ')"
			return 1
		fi
		host_starts+=("$(date +%s.%N)")
		"$perflens" ps "127.0.0.1:$port" --token "$token" --timeout 60 >"$out/$mode-ps.log" 2>&1
		wpid=$(awk -v p="$prog" '$7 == p && $8 == "3600" { print $1 }' "$out/$mode-ps.log" | sort -n | tail -n 1)
		if [ -z "$wpid" ]; then
			nok "boards-$arch${icount:+-icount}-$mode-start" "perflens ps does not list $prog 3600 2 (see $out/$mode-ps.log)"
			return 0
		fi
		target=(--all)
		[ "$mode" = pid ] && target=(--pid "$wpid")
	fi
	local bin=$out/root$prog
	[ "$arch" = x86_64 ] && bin=$prog
	local symargs=(--binary "$bin")
	[ -n "$sysroot" ] && symargs+=(--sysroot "$sysroot")
	[ "$mode" = lib ] && symargs+=(--binary "$out/root/lib/libboardhot.so")
	rep=$out/$mode-report.txt col=$out/$mode-collapsed.txt
	# A board its loaded host gives almost no CPU (qemu on a busy
	# machine: 14 samples in 3.6 s at 1000 Hz of a spinning workload) has
	# too few samples to judge anything by: the same record again, twice
	# as long, at most twice; every check below reads the last one.  Under
	# a tenth of the rate asked: a quiet host gives armhf's rows 30-56 %
	# (musl 1019 in 3.1 s at 1000 Hz, all 771 in 2.5 s, pid 840 in 3 s at
	# 500 Hz: the emulated CPU and the agent share one core).
	local rrc samples secs lost sent try=1 secs_try=$secs_run
	while :; do
		host_starts+=("$(date +%s.%N)")
		"$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
			"${target[@]}" --callgraph "$cg" "${evs[@]}" "${extra[@]}" -F "$f" --duration "$secs_try" \
			-o "$rec" >"$out/$mode-record.log" 2>&1
		rrc=$?
		# this record's connection and the host's clock around it (clock_check)
		rec_conn+=($((${#host_starts[@]} - 1))) rec_end+=("$(date +%s.%N)")
		[ $rrc -eq 0 ] || break
		"$perflens" report "$rec" --top 30 "${symargs[@]}" >"$rep" 2>&1
		"$perflens" export "$rec" --format collapsed "${symargs[@]}" >"$col" 2>>"$rep"
		samples=$(sed -n 's/.*: \([0-9]*\) samples over .*/\1/p' "$rep" | head -n 1)
		secs=$(sed -n 's/.* samples over \([0-9.]*\) s.*/\1/p' "$rep" | head -n 1)
		# riscv64's hw row too: qemu's emulated overflow interrupts stop
		# when the host starves it (2 cycles samples in 6 s at load 9-11,
		# 146 at load 2-8, the counters counting all along)
		if [ $try -lt 3 ] && { [ "$mode" != hw ] || [ "$arch" = riscv64 ]; } &&
			awk -v n="${samples:-0}" -v f="$f" -v s="${secs:-0}" 'BEGIN { exit !(n < f * s / 10) }'; then
			echo "# boards-$arch${icount:+-icount}-$mode-record: ${samples:-no} samples in ${secs:-?} s at $f Hz, the board got little CPU: recording again for $((secs_try * 2)) s"
			try=$((try + 1)) secs_try=$((secs_try * 2))
			# a command the agent starts runs as long as the record
			[ -n "$wpid" ] || target=(--command "$prog $secs_try 2")
			continue
		fi
		break
	done
	secs_run=$secs_try
	[ -n "$wpid" ] && { end_workload "$wpid" || workload_ok=0; }
	if [ $rrc -ne 0 ]; then
		nok "boards-$arch${icount:+-icount}-$mode-record" "$(grep -v '^perflens: next' "$out/$mode-record.log" | tail -n 2 | tr '\n' ' ') (console: $(grep -E 'PL-|panic|Kernel' "$console" 2>/dev/null | tail -n 2 | tr '\n' ' '))"
		return 1
	fi
	[ -n "$probe_rec" ] || probe_rec=$rec
	if [ -z "$boot_s" ] && [ "$arch" != x86_64 ]; then
		boot_s=$(grep -m1 -o 'PL-AGENT-START uptime=[0-9.]*' "$console" | kv uptime)
		# viewer connected -> first sample, both on the guest's
		# clock (CLOCK_MONOTONIC samples; /proc/uptime stamped on
		# the agent's "connected" line by /init).  The first
		# connection was `perflens ps`; this record's is the second
		# (unless it was made again: then no figure).
		local first_ns conn
		first_ns=$("$dump" "$rec" | awk '/^SAMPLE/ { print; exit }' | kv time)
		conn=$(grep 'controller .* connected' "$console" | sed -n '2s/^\[\([0-9.]*\)\].*/\1/p')
		[ $try = 1 ] && [ -n "$first_ns" ] && [ -n "$conn" ] &&
			first_ms=$(awk -v f="$first_ns" -v u="$conn" 'BEGIN { printf "%.0f", f / 1e6 - u * 1000 }')
	fi
	lost=$(sed -n 's/.*LOST \([0-9]*\):.*/\1/p' "$rep" | head -n 1)
	sent=$(sed -n 's/.*sent \([0-9]*\) bytes.*/\1/p' "$rep" | head -n 1)
	local fbytes; fbytes=$(stat -c %s "$rec")
	# enough samples to judge the shares below (pl_min_samples), taken
	# at the frequency asked (pl_rate_check; the hardware event's period
	# is the kernel's to adapt)
	local rate_msg="" rate_ok=0
	if [ "$mode" = hw ]; then
		rate_msg="${samples:-no} samples of ${evs[*]}"; rate_ok=1
	else
		rate_msg=$(pl_rate_check "$dump" "$rec" "$f") && rate_ok=1
	fi
	if [ -z "$samples" ] || [ "$samples" -lt "$pl_min_samples" ] || [ $rate_ok = 0 ]; then
		nok "boards-$arch${icount:+-icount}-$mode-record" "${samples:-no} samples (at least $pl_min_samples wanted): $rate_msg (see $rep)"
		return 0
	fi
	ok "boards-$arch${icount:+-icount}-$mode-record # $rate_msg"
	# The stream decoded on this little-endian host: every block of
	# the capture reads back (pl-dump says nothing on stderr), and the
	# HELLO's machine, kernel and byte order are what the guest's
	# /init printed from uname (1 little, 2 big endian).
	local hello want_order=1 guest_m guest_k dump_err
	case "$arch" in arm64be | armeb) want_order=2 ;; esac
	if [ "$arch" = x86_64 ]; then
		guest_m=$(uname -m) guest_k=$(uname -r)
	else
		guest_m=$(grep -m1 -o 'PL-BOOT .*' "$console" | kv machine | tr -d '\r')
		guest_k=$(grep -m1 -o 'PL-BOOT .*' "$console" | kv kernel | tr -d '\r')
	fi
	dump_err=$("$dump" "$rec" 2>&1 >/dev/null | head -n 2 | tr '\n' ' ')
	hello=$("$dump" "$rec" 2>/dev/null | awk '/^HELLO/ { print; exit }')
	if [ -z "$dump_err" ] && [ "$(echo "$hello" | kv order)" = "$want_order" ] &&
		[ "$(echo "$hello" | kv machine)" = "$guest_m" ] && [ "$(echo "$hello" | kv kernel)" = "$guest_k" ]; then
		ok "boards-$arch${icount:+-icount}-$mode-decode # $guest_m order=$want_order"
	else
		nok "boards-$arch${icount:+-icount}-$mode-decode" "want machine=$guest_m kernel=$guest_k order=$want_order, pl-dump: ${hello:-no HELLO} ${dump_err}"
	fi
	# the workload ran its SECS on the guest's clock (cover_check; with
	# the clock check below: on the host's too)
	local cover
	cover=$(cover_check "$rec" "$rep" "$secs_run" "$mode")
	if [ $? -eq 0 ] && [ $workload_ok = 1 ]; then
		ok "boards-$arch${icount:+-icount}-$mode-duration # $cover${workload_end:+; $workload_end}"
	elif [ $workload_ok = 1 ]; then
		nok "boards-$arch${icount:+-icount}-$mode-duration" "the workload ran short of its ${secs_run} s: $cover (the guest's timers?)"
	else
		nok "boards-$arch${icount:+-icount}-$mode-duration" "$workload_end; $cover"
	fi

	# the hot function, from the right module: hot_leaf's share of the
	# user-space samples of the workload's worker threads (hot_share) is
	# at least P0 less K standard errors (test/tools/sampling.sh)
	local hotmod=${prog##*/}; [ "$mode" = lib ] && hotmod=libboardhot.so
	local hot_msg
	if hot_msg=$(hot_share "$rec" "$rep" "$hotmod" "${symargs[@]}"); then
		ok "boards-$arch${icount:+-icount}-$mode-hot-leaf # hot_leaf in $hotmod: $hot_msg"
	else
		nok "boards-$arch${icount:+-icount}-$mode-hot-leaf" "hot_leaf in $hotmod, of burn-1's and burn-2's user-space samples: $hot_msg; top functions: $(grep -A4 '^Top functions' "$rep" | tail -n 3 | tr -s ' ' | tr '\n' '|')"
	fi
	local missing="" n names="burn-1 burn-2 sleeper"
	# the sleeper is on a CPU for well under 1% of a busy host's time
	[ "$arch$mode" = x86_64all ] && names="burn-1 burn-2"
	for n in $names; do
		awk -v n="$n" '/^Threads:/ { t = 1; next } t && /^$/ { exit } t && $3 == n { f = 1 } END { exit !f }' "$rep" ||
			missing="$missing $n"
	done
	if [ -z "$missing" ]; then ok "boards-$arch${icount:+-icount}-$mode-thread-names"
	else nok "boards-$arch${icount:+-icount}-$mode-thread-names" "missing:$missing"; fi

	local total complete loader share
	read -r total complete loader < <(unwind_share <"$col")
	share=$(pct "$complete" $((total - loader)))
	# 99% rooted is the goal (P0), judged as every share here is: at least
	# P0 less K standard errors of the samples counted (sampling.sh), so
	# that a few stacks more or fewer in Debian libc's code without unwind
	# tables (EXIDX_CANTUNWIND on armhf) in one run do not decide it
	if [ "$cg" = dwarf ]; then
		local unwind_msg
		if unwind_msg=$(pl_share_at_least "$complete" "$((total - loader))" 0.99); then
			ok "boards-$arch${icount:+-icount}-$mode-unwind-99 # $unwind_msg"
		else
			nok "boards-$arch${icount:+-icount}-$mode-unwind-99" "$share% of $((total - loader)) samples after start-up reach main or a thread start: $unwind_msg (see $col)"
		fi
	fi
	if [ "$mode" = hw ]; then
		local ev_n cyc ins ipc="–"
		ev_n=$(sed -n 's/.*samples by event: .*cycles \([0-9]*\).*/\1/p' "$rep" | head -n 1)
		if [ -n "$ev_n" ] && [ "$ev_n" -gt 0 ]; then
			ok "boards-$arch${icount:+-icount}-hw-cycles # $ev_n cycles samples"
		else
			nok "boards-$arch${icount:+-icount}-hw-cycles" "no cycles samples: $(grep 'samples by event' "$rep")"
		fi
		cyc=$(counter "$rep" cycles) ins=$(counter "$rep" instructions)
		if [ -n "$cyc" ]; then ok "boards-$arch${icount:+-icount}-hw-counters # cycles $cyc, instructions ${ins:-not counted}"
		else nok "boards-$arch${icount:+-icount}-hw-counters" "no cycles counter in the report's Counters section (see $rep)"; fi
		if [ -n "$icount" ]; then
			if [ -n "$ins" ] && [ "$ins" -gt 0 ]; then
				ok "boards-$arch-icount-instructions # qemu $icount: instructions $ins"
			else
				nok "boards-$arch-icount-instructions" "qemu $icount counts no instructions: probe \`$pi\`"
			fi
		fi
		[ -n "$cyc" ] && [ -n "$ins" ] && ipc=$(awk -v i="$ins" -v c="$cyc" 'BEGIN { if (c > 0) printf "%.2f", i / c }')
		note="${evs[*]}; counters: cycles ${cyc:-–}, instructions ${ins:-not counted} ($note), IPC $ipc"
	fi
	# Kernel stacks: every record asks for user and kernel stacks; kernel
	# frames are named from the /proc/kallsyms the agent sent.  The
	# sleeper's nanosleep goes through the syscall into hrtimer_nanosleep
	# → do_nanosleep on every kernel here: a stack naming that path shows
	# real kernel functions, in the right order, under user frames.
	local kpath kn kshare
	kpath='sys_[a-z0-9_]*nanosleep[^;]*;(common_nsleep;)?hrtimer_nanosleep;do_nanosleep'
	kn=$(awk -v re="$kpath" '$0 ~ re { n += $NF } END { print n + 0 }' "$col")
	kshare=$(awk '/^Top functions/ { t = 1; next } t && /^$/ { exit } t && $NF == "[kernel]" { s += $1 } END { printf "%.1f", s }' "$rep")
	if [ "$mode" = "${fpmode:-fp}" ]; then
		local kex
		kex=$(grep -E "$kpath" "$col" | sort -t' ' -k2 -n | tail -n 1 | sed 's/ [0-9]*$//' | awk -F';' '{ s = $(NF - 5); for (i = NF - 4; i <= NF; i++) s = s ";" $i; print s }')
		if [ "$kn" -gt 0 ]; then
			ok "boards-$arch${icount:+-icount}-kernel-stacks # $kn samples through ${kex}"
		else
			nok "boards-$arch${icount:+-icount}-kernel-stacks" "no stack goes through the nanosleep syscall into hrtimer_nanosleep;do_nanosleep (see $col and $rep)"
		fi
		local vml_note=""
		vmlinux_check "$rec"
		rows+=("| $arch | $kver | kernel stacks (the $mode row's record) | $samples | – | ${lost:-0} | – | – | kernel leaf ${kshare}% (top 30 functions); $kn samples through the nanosleep syscall: \`…;${kex}\`${vml_note:+; $vml_note} |")
	fi
	local label="$mode (${prog##*/}, $cg)"
	case "$mode" in
	hw) label="hardware event (${prog##*/}, $cg)${icount:+, qemu $icount}" ;;
	all) label="--all (${prog##*/} running, $cg)" ;;
	pid) label="--pid (${prog##*/} attached, $cg)" ;;
	esac
	rows+=("| $arch | $kver | $label | $samples | $share% ($complete/$((total - loader))) | ${lost:-0} | $((sent / samples)) | $((fbytes / samples)) | $f Hz, $secs_run s; loader $(pct "$loader" "$total")%; kernel leaf ${kshare}%; hot_leaf ${hot_msg%%,*} of burn-1's and burn-2's user-space samples${note:+; $note} |")
	return 0
}

# A kprobe (`--event k:do_nanosleep`, the kprobe PMU of perf_event_open)
# checked against a tracepoint of the same calls on the same run: every
# clock_nanosleep the workload makes enters do_nanosleep (hrtimer_nanosleep)
# right after its sys_enter: ≥ 99 % of the entries are followed by a hit
# on their thread (an early return, EINVAL, makes none).  Where the board's
# kernel has no kprobe PMU the agent says so (CONFIG_KPROBE_EVENTS) and the
# row says that, not a number.
kprobe_check() {
	local rec=$out/kprobe.plens rep=$out/kprobe-report.txt log=$out/kprobe-record.log
	# 32-bit ARM libcs sleep with clock_nanosleep_time64 (EABI 407, or 265
	# with 32-bit time), whose syscalls:* tracepoint never fires on these
	# kernels (0 hits on armhf 6.1): the raw entry tracepoint, by number
	local tp=syscalls:sys_enter_clock_nanosleep match=""
	case "$arch" in armhf | armeb) tp=raw_syscalls:sys_enter match='id=(407|265) ' ;; esac
	host_starts+=("$(date +%s.%N)")
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--command "$fpprog 2 2" -e k:do_nanosleep -e k:do_nanosleep%return -e "$tp" \
		-e cpu-clock -F 10 --callgraph fp --duration 2 -o "$rec" >"$log" 2>&1; then
		if grep -q 'CONFIG_KPROBE_EVENTS' "$log"; then
			ok "boards-$arch-kprobe # no kprobe PMU in this kernel: $(grep -m1 CONFIG_KPROBE_EVENTS "$log")"
			rows+=("| $arch | $kver | kprobe | – | – | – | – | – | the agent refuses it: \`$(grep -m1 -o 'no kprobe PMU.*' "$log")\` |")
		else
			nok "boards-$arch-kprobe" "$(tail -n 2 "$log" | tr '\n' ' ')"
		fi
		return 0
	fi
	"$perflens" report --tracepoints "$rec" >"$rep" 2>&1
	# each clock_nanosleep entry (tracepoint) followed by its do_nanosleep
	# (kprobe) on the same thread before that thread's next entry: the
	# program's own order, no time window (an emulated CPU on a loaded
	# host may stop for milliseconds of guest time between the two); the
	# kprobe, opened per CPU, also sees the last sleeps after the per-task
	# tracepoint's end
	local res nk ns paired
	res=$(awk -v tp="$tp" -v m="$match" '$4 == "k:do_nanosleep" || ($4 == tp && $0 ~ m) { print $1, $2, $4 }' "$rep" |
		sort -n | awk '
		$3 == "k:do_nanosleep" { nk++; if (open[$2] != "") { paired++; open[$2] = "" } next }
		{ ns++; open[$2] = $1 }
		END { printf "%d %d %d\n", nk, ns, paired }')
	read -r nk ns paired <<<"$res"
	if [ "$ns" -gt 10 ] && [ $((paired * 100)) -ge $((ns * 99)) ]; then
		ok "boards-$arch-kprobe # k:do_nanosleep $nk hits; $paired of $ns clock_nanosleep entries followed by one"
	else
		nok "boards-$arch-kprobe" "k:do_nanosleep $nk hits; $paired of $ns clock_nanosleep entries followed by one on their thread before its next entry (see $rep)"
	fi
	rows+=("| $arch | $kver | kprobe (\`-e k:do_nanosleep\`) | $nk | – | – | – | – | $paired of the same run's $ns $tp${match:+ (clock_nanosleep by number)} hits followed by one on their thread before its next entry |")
	# the return probe of the same run: each entry hit followed, on its
	# thread and before its next one, by a return whose payload names the
	# entry's function (func = the entry's ip) and whose stack begins in a
	# caller: a named kernel function of the nanosleep path (the kernel's
	# source: do_nanosleep's callers are hrtimer_nanosleep and its restart),
	# not do_nanosleep.  (The entry's own stack is no oracle: a chain taken
	# at a function's first instruction skips the caller in the link
	# register on arm64, and on armhf reads do_nanosleep <
	# arm_probes_decode_insn.)
	local rr
	rr=$(python3 - "$rep" <<'PY'
import re, sys
# an entry counts when a return probe could answer it: before the last
# return seen (the probes close one after the other at the end), and not
# its thread's last entry left open (a sleep across the end)
hits = []
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 5 or f[3] not in ("k:do_nanosleep", "k:do_nanosleep%return"):
        continue
    stack = re.search(r"\[(.*)\]$", l.strip())
    hits.append((float(f[0]), f[1], f[3].endswith("%return"), l, stack.group(1).split(" < ") if stack else []))
hits.sort(key=lambda h: h[0])
last_ret = max([h[0] for h in hits if h[2]] or [0])
ent, entries, good, why = {}, 0, 0, []
for t, tid, ret, l, frames in hits:
    if not ret:
        if tid in ent and ent[tid][0] <= last_ret:
            entries += 1  # the one before never returned
            if len(why) < 2: why.append("no return after the entry at %.6f" % ent[tid][0])
        ip = re.search(r"ip=(0x[0-9a-f]+)", l)
        ent[tid] = (t, ip.group(1) if ip else None)
        continue
    e = ent.pop(tid, None)
    func = re.search(r"func=(0x[0-9a-f]+) ret_ip=0x", l)
    if not e:
        continue  # a return of a call entered before the session
    entries += 1
    if (func and func.group(1) == e[1] and frames and frames[0] != "do_nanosleep" and
            re.fullmatch(r"[A-Za-z_][\w.]*", frames[0]) and re.search("nanosleep|nsleep", frames[0])):
        good += 1
    elif len(why) < 2:
        why.append("entry %s, return %s" % (e[1:], l.strip()[:200]))
print(entries, good, " | ".join(why))
PY
)
	local ne ng
	read -r ne ng _ <<<"$rr"
	if [ "${ne:-0}" -gt 10 ] && [ $((ng * 100)) -ge $((ne * 99)) ]; then
		ok "boards-$arch-kretprobe # k:do_nanosleep%return: $ng of $ne entries returned with func = the entry's address, in a caller ($(grep -m1 -o 'k:do_nanosleep%return .*' "$rep" | grep -o '\[[a-z_]*' | head -1 | tr -d '['))"
	else
		nok "boards-$arch-kretprobe" "k:do_nanosleep%return: $rr (see $rep)"
	fi
	rows+=("| $arch | $kver | kretprobe (\`-e k:do_nanosleep%return\`) | $ng | – | – | – | – | $ng of $ne entry hits followed on their thread by a return naming do_nanosleep (func) whose stack begins in its caller (hrtimer_nanosleep) |")
}

# Stacks at slow calls made through libc (/naps, test/workloads/naps.c,
# built with frame pointers; the little-endian boards, which have
# Debian's glibc): `--syscalls clock_nanosleep --slower-than 1ms` in fp
# and dwarf mode.  Debian's libc has no usable frame chain (on armhf none
# at all), so the 20 slow calls name sleep_long < main only as unwound
# with CFI/EHABI from the registers and stack copy each event carries.
# The oracles are the cross nm and addr2line (no perf on the boards):
# each copy the agent sent holds a return address within sleep_long (nm),
# whose call addr2line places in sleep_long in naps.c, and call by call
# the report names sleep_long exactly where the copy holds it
# (event-stacks.py).  The
# short naps may be slow calls too on a board (the emulated CPU is shared
# with the starting agent): they must then name sleep_short.
naps_check() {
	local mode=$1
	local rec=$out/naps-$mode.plens log=$out/naps-$mode-record.log
	local triplet=${sysroot#/usr/}
	host_starts+=("$(date +%s.%N)")
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--command "/naps /tmp/naps-$mode.exp" --syscalls clock_nanosleep --slower-than 1ms \
		--callgraph "$mode" -o "$rec" >"$log" 2>&1; then
		nok "boards-$arch-naps-$mode" "perflens record failed: $(tail -n 2 "$log" | tr '\n' ' ')"
		return 0
	fi
	"$perflens" report --tracepoints --binary "$out/root/naps" --sysroot "$sysroot" "$rec" \
		>"$rec.tp" 2>&1
	"$dump" -w "$rec" >"$rec.dump" 2>&1
	local cap=2048 r
	[ "$mode" = dwarf ] && cap=8192
	r=$(python3 "$top/test/integration/event-stacks.py" "$rec.tp" "$rec.dump" - "$out/root/naps" \
		"$cap" "$triplet-nm" "$triplet-readelf")
	case $r in
	ok*) ok "boards-$arch-naps-$mode # ${r#ok }" ;;
	*) nok "boards-$arch-naps-$mode" "${r#bad } (see $rec.tp, $rec.dump)" ;;
	esac
	rows+=("| $arch | $kver | slow calls through libc ($mode, \`/naps\`) | – | – | – | – | – | ${r#* } |")
}

# Counter tracks (PL_BOARD_ROWS=tracks; issue 30), two records: /rss
# (test/workloads/rss.c) grows by 3 steps of 8 MiB, holding each 600 ms,
# and prints what its own /proc/self/statm reads with the board's
# CLOCK_MONOTONIC (the session clock) to the agent's output, the console
# (init.sh puts the guest's uptime in brackets before each line);
# every RSS value the agent polled (20 Hz) inside a hold must be within
# 256 KiB of the program's.  Then /burn with two threads on the board's one
# CPU: the CPU's busy track (report --counters, time-weighted mean) must
# be 90 % or more, as the workload makes it by construction.  (8 s: in a
# run of 3 s the session's start, compressing kallsyms on the emulated CPU
# the workload shares, outlasted the workload, and the session ended at
# the agent's first loop round with no poll in it.)
tracks_check() {
	local rec=$out/tracks-rss.plens log=$out/tracks-rss-record.log r
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--command "/rss 3 8 600" --tracks 20 -e cpu-clock -F 99 -o "$rec" >"$log" 2>&1; then
		nok "boards-$arch-tracks-rss" "perflens record failed: $(tail -n 2 "$log" | tr '\n' ' ')"
	else
		"$perflens" export --format counters-csv -o "$rec.csv" "$rec" >"$rec.err" 2>&1
		tr -d '\r' <"$console" | grep -aoE '\] (step|held) [0-9]+ [0-9]+ [0-9]+$' | cut -c3- | tail -n 6 >"$rec.log"
		r=$(python3 - "$rec.log" "$rec.csv" <<'PY'
import csv, sys
log = [l.split() for l in open(sys.argv[1])]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r['kind'] == 'rss']
bad, n = [], 0
if len(log) != 6 or not rows:
    print('bad %d statm lines on the console, %d RSS values' % (len(log), len(rows))); sys.exit()
for i in range(0, 6, 2):
    t0, t1, r0 = int(log[i][2]), int(log[i + 1][2]), int(log[i][3])
    inside = [float(r['value']) for r in rows if t0 < int(r['time_ns']) < t1]
    n += len(inside)
    if len(inside) < 2:
        bad.append('step %s: %d values in its hold' % (log[i][1], len(inside)))
    bad += ['step %s: agent %.0f, program %d' % (log[i][1], v, r0) for v in inside if abs(v - r0) > 262144]
print(('bad ' + '; '.join(bad[:3])) if bad else 'ok %d values in 3 holds, RSS %.1f to %.1f MiB as the program read' % (n, int(log[0][3]) / 1048576, int(log[4][3]) / 1048576))
PY
)
		case $r in
		ok*) ok "boards-$arch-tracks-rss # ${r#ok }" ;;
		*) nok "boards-$arch-tracks-rss" "${r#bad } (see $rec.log, $rec.csv)" ;;
		esac
		rows+=("| $arch | $kver | counter tracks: RSS (\`/rss\`, 20 Hz) | – | – | – | – | – | ${r#* } |")
	fi
	rec=$out/tracks-busy.plens log=$out/tracks-busy-record.log
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--command "$fpprog 8 2" --tracks 10 -e cpu-clock -F 99 -o "$rec" >"$log" 2>&1; then
		nok "boards-$arch-tracks-busy" "perflens record failed: $(tail -n 2 "$log" | tr '\n' ' ')"
		return 0
	fi
	"$perflens" report --counters "$rec" >"$rec.txt" 2>&1
	r=$(awk '$6 == "cpu0" && $7 == "busy" { print $3 }' "$rec.txt")
	if [ -n "$r" ] && awk -v m="$r" 'BEGIN { exit !(m >= 90) }'; then
		ok "boards-$arch-tracks-busy # cpu0 busy ${r} % (mean) under two burning threads"
	else
		nok "boards-$arch-tracks-busy" "cpu0 busy '${r}' % (want >= 90: two burning threads on one CPU; see $rec.txt)"
	fi
	rows+=("| $arch | $kver | counter tracks: CPU busy (\`$fpprog 8 2\`, 10 Hz) | – | – | – | – | – | cpu0 busy ${r:-?} % (mean), want ≥ 90 |")
}

# The periods row (PL_BOARD_ROWS=periods): /periods (test/boards/periods.sh)
# runs /periodic (test/workloads/periodic.c: 10 ms TIMER_ABSTIME grid, 2 ms
# of CPU time an activation, every 12th 4 ms late with 7 ms, so it misses)
# beside a busy shell loop on the board's one CPU, recorded with
# --switch at 250 Hz (999 Hz lost 920 of 7,500 samples on the emulated CPU;
# the activations come from the switch records, not the samples);
# the program's own log (CLOCK_MONOTONIC, the session clock, and its thread
# CPU clock) comes back on the console.  `perflens report --periods
# --period 10ms --top 0` (the period named: on an emulated CPU shared with a
# loaded host the intervals scatter beyond detection's ±10 %) is held against it by test/tools/periods-compare.py, the same comparison
# as viewer-periods' on the host: every activation found, its start,
# execution time and release jitter within 0.2 ms, the misses equal (an
# activation ending within 0.2 ms of its deadline may be judged either
# way, one started a whole period late has no jitter to compare: both
# counted in the figures).  STEAL is 0: the guest has no steal account.
# The board boots with `-icount shift=0` for this row (board(); unless
# PL_BOARD_QEMU_EXTRA says otherwise): without it the guest's clock runs at
# the host's pace while qemu's vCPU thread waits for a loaded host's CPUs,
# and the program's own log showed it (load 10-48 on 2 cores: starts read
# 3.6-160 ms after their release, 2 ms of work taking 2.1-24.8 ms of its
# thread's CPU clock, no 10 ms task left to find); with icount the clock
# advances by the instructions run, 1 ns each, whatever the host does.
periods_check() {
	local rec=$out/periods.plens log=$out/periods-record.log r
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--command "/periods 120" --switch -e cpu-clock -F 250 -o "$rec" >"$log" 2>&1; then
		nok "boards-$arch-periods" "perflens record failed: $(tail -n 2 "$log" | tr '\n' ' ')"
		return 0
	fi
	# the serial console drains after the record ends: wait for the last line
	local w
	for w in $(seq 3000); do grep -q 'PERIODIC-END' "$console" && break; sleep 0.1; done
	tr -d '\r' <"$console" | sed -n 's/^\[[0-9.]*\] PERIODIC //p' >"$rec.log"
	"$perflens" report --periods --period 10ms --top 0 "$rec" >"$rec.txt" 2>&1
	if [ ! -s "$rec.log" ] || ! grep -q 'PERIODIC-END 0 hog alive' "$console"; then
		r="BAD the program's log is not on the console, or the program failed, or the hog did not run: $(grep -a -m1 'PERIODIC-END' "$console" | tr -d '\r') (see $console)"
	else
		r=$(STEAL=0 TICK_NS=10000000 python3 "$top/test/tools/periods-compare.py" "$rec.log" "$rec.txt")
	fi
	local note
	case $r in
	OK*) ok "boards-$arch-periods # ${r#OK }"; note=${r#OK } ;;
	*) nok "boards-$arch-periods" "${r#BAD } (see $rec.log, $rec.txt)"; note="🔴 ${r#BAD }" ;;
	esac
	rows+=("| $arch | $kver | periodic task (\`/periods 120\`: /periodic beside a busy loop, --switch, 250 Hz, --period 10ms) | – | – | – | – | – | $note |")
}

# The interrupt row (PL_BOARD_ROWS=irq; by default on arm64 only): /irqload
# (test/workloads/irqload.c), started by /detach, waits 6 s while
# `record --all --irq` starts, reads /proc/interrupts and /proc/softirqs
# with the board's clock around each read, makes 4 s of loopback UDP
# (NET_RX) between 1 ms naps (timers) beside a spinning child, reads them
# again and prints both to the console.  test/tools/irq-compare.py holds
# `report --irq --from --to` of the windows between and around the reads
# to each vector's and each IRQ line's count delta: recorded inside <=
# delta <= recorded around + lost.
irq_check() {
	local rec=$out/irq.plens log=$out/irq-record.log r note
	# each connection's host time (clock_check counts the board's)
	host_starts+=("$(date +%s.%N)")
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--command "/detach /irqload 6 4" -e cpu-clock -F 10 --duration 5 \
		-o "$out/irq-start.plens" >"$out/irq-start-record.log" 2>&1; then
		nok "boards-$arch-irq" "starting /irqload: $(tail -n 2 "$out/irq-start-record.log" | tr '\n' ' ')"
		return 0
	fi
	host_starts+=("$(date +%s.%N)")
	if ! "$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
		--all --irq -e cpu-clock -F 99 --duration 16 -o "$rec" >"$log" 2>&1; then
		nok "boards-$arch-irq" "perflens record --all --irq failed: $(tail -n 2 "$log" | tr '\n' ' ')"
		return 0
	fi
	# the serial console drains after the record ends: wait for the last line
	local w
	for w in $(seq 300); do grep -aq 'IRQLOAD END' "$console" && break; sleep 0.1; done
	# riscv64's 6.1 kernel takes IPIs outside the IRQ layer: no
	# irq_handler_entry for them (a run here: /proc 83, recorded 0)
	local untraced=0
	[ "$arch" = riscv64 ] && untraced=1
	r=$(IPI_UNTRACED=$untraced python3 "$top/test/tools/irq-compare.py" "$perflens" "$dump" "$rec" "$console")
	case $r in
	ok*) ok "boards-$arch-irq # ${r#ok }"; note=${r#ok } ;;
	*) nok "boards-$arch-irq" "${r#bad } (see $rec, $console)"; note="🔴 ${r#bad }" ;;
	esac
	rows+=("| $arch | $kver | interrupts (\`/irqload 6 4\`: loopback UDP, 1 ms naps, a spinning child; --all --irq) against /proc | – | – | – | – | – | $note |")
}

# The boot row (PL_BOARD_ROWS=boot): the board boots a second time with the
# kernel handing over to the agent (rdinit=/perflens-agent, its arguments
# after `--` on the kernel command line: `--boot -e cpu-clock -F HZ
# --callgraph fp --stacks both --trigger proc:^perflens-agent$ --after 1
# --port 9998 --token T /init`): PID 1 mounts what recording needs, forks
# the recorder (the whole system, from the first instant) and execs the
# board's own /init, which keeps PID 1 and runs as on every boot; the
# recorder saves when that /init starts the board's agent (the stage the
# host waits for: the board serves), 1 s later, and keeps the file for a
# viewer on the guest's 9998, forwarded to a second host port
# (PL_BOARD_PORT2), where `perflens snapshot` fetches it.  Checked
# (boot-capture.py): the kernel's hand-over (its "Run /perflens-agent as
# init process" record, printk clock, put on the samples' CLOCK_MONOTONIC
# by a record /init writes to /dev/kmsg between two clock reads) comes
# before the first sample, and /init's exec after it (the real init
# recorded from its first instruction; the times are printed, not
# bounded: a loaded host stretches the board's boot tenfold); pid 1 is named init with the program it runs, and the
# processes it started (TASK fork records) with their comms and exec'd
# programs, among them BOOT_CHILDREN's; the trigger names the agent /init
# started; samples exist before it, in init's processes too; and `perflens
# report --to` that moment names kernel functions (the board's kallsyms,
# sent by the agent).  A row that fails is kept, marked red.
boot_row() {
	local arch=$1 icount='' agent_arch fetched out kver t_board=$SECONDS why="" children
	case "$arch" in
	arm64) agent_arch=aarch64 ;; armhf) agent_arch=armv7l ;; arm64be) agent_arch=aarch64_be ;;
	armeb) agent_arch=armeb ;; riscv64) agent_arch=riscv64 ;;
	esac
	# what /init runs: busybox's applets on the little-endian boards
	# (init.sh, board-up.sh), only the agent on the others (init.c)
	case "$arch" in
	arm64 | armhf) children=mount,ip,perflens-agent ;;
	*) children='perflens-agent' ;;
	esac
	if [ -n "${built_out[$arch]:-}" ]; then
		out=${built_out[$arch]} fetched=${built_fetched[$arch]}
	else
		out=$build/boards/$arch
		board_files || return
	fi
	local console=$out/boot-console.log rec=$out/boot.plens rep=$out/boot-report.txt
	local port port2 t0 label='boot (`rdinit=/perflens-agent -- --boot … /init`, --all, fp)'
	# --ring-pages 1024 (4 MiB): the kernel's ring holds what the boot
	# does while the recorder still reads kallsyms and /proc (on a loaded
	# host, seconds of emulated time: the default ring lost 4,112 records,
	# the first mounts among them)
	local args="--boot -e cpu-clock -F $hz --callgraph fp --stacks both --ring-pages 1024 --trigger proc:^perflens-agent\$ --after 1 --port 9998 --token $token /init"
	port=$(free_port) && port2=$(free_port) && [ "$port" != "$port2" ] ||
		{ nok "boards-$arch-boot-row" "no free port"; return; }
	: >"$console"
	rm -f "$rec"
	t0=$(date +%s.%N)
	PL_BOARD_INIT=/perflens-agent PL_BOARD_INIT_ARGS="$args" PL_BOARD_PORT2=$port2 \
		"$here/boot.sh" "$arch" "$fetched" "$out/initrd.gz" "$port" "$token" 300 >"$console" 2>&1 &
	qpid=$!
	# the recorder's line once the trigger's window is saved (the host's
	# bound as board()'s wait for its agent: a loaded host stalls the
	# emulated CPU for seconds)
	local waited=0 up_host="" saved_host=""
	until grep -aq 'flight recorder: proc:.* fired; saved' "$console" 2>/dev/null; do
		[ -z "$up_host" ] && grep -aq '\] perflens-agent: listening on' "$console" &&
			up_host=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		if ! kill -0 "$qpid" 2>/dev/null || [ $waited -ge 1200 ]; then
			why="no boot capture saved ($(grep -aE 'perflens-agent|PL-|panic' "$console" | tail -n 3 | tr '\n' ' '))"
			break
		fi
		sleep 0.1; waited=$((waited + 1))
	done
	[ -n "$why" ] || saved_host=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ -z "$why" ] && ! "$perflens" snapshot "127.0.0.1:$port2" --token "$token" -o "$rec" \
		--timeout 120 >"$out/boot-snapshot.log" 2>&1; then
		why="perflens snapshot: $(tail -n 2 "$out/boot-snapshot.log" | tr '\n' ' ')"
	fi
	stop_qemu
	kver=$(grep -am1 -o 'PL-BOOT .*' "$console" | kv kernel | tr -d '\r')
	if [ -n "$why" ]; then
		nok "boards-$arch-boot-row" "$why"
		rows+=("| $arch | ${kver:-?} | $label | – | – | – | – | – | 🔴 **failed**: $why |")
		return
	fi
	ok "boards-$arch-boot-row # qemu start → the board's agent listening ${up_host:-?} s, → the boot capture saved $saved_host s (host)"
	"$dump" "$rec" >"$out/boot-dump.txt" 2>"$out/boot-dump.err"
	"$perflens" report "$rec" --top 20 --sysroot "$out/root" >"$rep" 2>&1
	local rel
	rel=$(sed -n 's/.*trigger: .* fired at \([0-9.]*\) s .*/\1/p' "$rep" | head -n 1)
	"$perflens" report "$rec" --top 20 --sysroot "$out/root" --to "${rel:-0}" >"$out/boot-report-before.txt" 2>&1
	local res line bad="" note="" nsamples=0 lost=0
	res=$(python3 "$top/test/integration/boot-capture.py" "$console" "$out/boot-dump.txt" "$rep" \
		"$out/boot-report-before.txt" "$children" 3 2>"$out/boot-checks.err")
	grep -q '^figures ' <<<"$res" ||
		res="bad checks: boot-capture.py: $(tail -n 2 "$out/boot-checks.err" | tr '\n' ' ')"
	[ -s "$out/boot-dump.err" ] && res="bad decode: pl-dump: $(head -n 2 "$out/boot-dump.err" | tr '\n' ' ')
$res"
	# the board's own /init ran as on every boot (its lines: board())
	local gwhy; gwhy=$(grep -am1 -E 'PL-ERROR|PL-WATCHDOG|Kernel panic|Oops' "$console")
	[ -n "$gwhy" ] && res="$res
bad guest: $gwhy"
	while IFS= read -r line; do
		case "$line" in
		ok\ *) ok "boards-$arch-boot-${line#ok }" ;;
		bad\ *) line=${line#bad }; nok "boards-$arch-boot-${line%%:*}" "${line#*: }"; bad="$bad $line;" ;;
		note\ *) note=${line#note } ;;
		figures\ *) read -r nsamples lost <<<"${line#figures }" ;;
		esac
	done <<<"$res"
	local fbytes; fbytes=$(stat -c %s "$rec")
	rows+=("| $arch | ${kver:-?} | $label | $nsamples | – | $lost | – | $((fbytes / (nsamples > 0 ? nsamples : 1))) | ${bad:+🔴 **failed**:$bad }$hz Hz; qemu start → board's agent listening ${up_host:-?} s, boot capture saved ${saved_host} s (host), row $((SECONDS - t_board)) s; $note |")
}

# The fleet row (PL_BOARD_ROWS=fleet; opt-in): the board as one of a rack
# reporting to a collector (docs/fleet.md).  The host starts Debian's
# ClickHouse (ci/clickhouse/server.sh, loopback) and `perflens collect
# --keep-sessions` with the board's token in a file and a --boards file
# naming the board's root as its sysroot; the board boots with pl.server=
# (init.c): its agent dials 10.0.2.2 (the host's loopback through qemu's
# user-mode network, boot.sh PL_BOARD_HOST_NET) with `--server …
# --token-file /tmp/token --labels-file /tmp/labels --session-period 2 -F 499
# -g -- /burn-musl 3600 2`; /init stops the agent in order (SIGTERM: the
# session under way is sent) after 10 s and the board powers off.  Checked:
# every kept session's count of its main event in ClickHouse equals its
# `perflens report` (nothing lost, nothing doubled; at least 3 sessions);
# the labels read back are those the board's /init wrote; the byte order
# went right (times within qemu's run on the host's clock, pids and tids
# the board's); and
# `fleet report --where board=ARCH` heads with hot_leaf, a function of the
# board's /burn-musl by the cross nm, its total the kept reports' sum.
fleet_row() {
	local arch=$1 icount='' agent_arch fetched out t_board=$SECONDS why="" secs=10
	case "$arch" in
	arm64) agent_arch=aarch64 ;; armhf) agent_arch=armv7l ;; arm64be) agent_arch=aarch64_be ;;
	armeb) agent_arch=armeb ;; riscv64) agent_arch=riscv64 ;;
	esac
	case "$arch" in
	arm64be | armeb) ;;
	*) echo "skip boards-$arch-fleet: [by-design] the fleet row runs on the big-endian boards (their /init, init.c, takes pl.server=)"; return ;;
	esac
	if [ -n "${built_out[$arch]:-}" ]; then
		out=${built_out[$arch]} fetched=${built_fetched[$arch]}
	else
		out=$build/boards/$arch
		board_files || return
	fi
	local fl=$out/fleet ch url cred cpid cport="" port console q0=0 q1=0
	rm -rf "$fl"
	mkdir -p "$fl/keep"
	ch=$fl/ch console=$fl/console.log
	if ! "$top/ci/clickhouse/server.sh" start "$ch" 1 >"$fl/ch.log" 2>&1; then
		nok "boards-$arch-fleet" "ClickHouse did not start: $(tail -n 2 "$fl/ch.log" | tr '\n' ' ')"
		return
	fi
	url=$(. "$ch/env"; echo "$PL_CH_URLS") cred=$(. "$ch/env"; echo "$PL_CH_CREDENTIALS")
	printf '%s\n' "$token" >"$fl/token" && chmod 600 "$fl/token"
	printf '[%s]\nmatch = board=%s\nsysroot = %s\nhost-files = false\n' "$arch" "$arch" "$out/root" >"$fl/boards.ini"
	"$perflens" collect --listen 127.0.0.1:0 --clickhouse "$url" --clickhouse-credentials "$cred" \
		--token-file "$fl/token" --spool "$fl/spool" --keep-sessions "$fl/keep" \
		--boards "$fl/boards.ini" 2>"$fl/collect.log" &
	cpid=$!
	for _ in $(seq 100); do
		cport=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$fl/collect.log")
		[ -n "$cport" ] && break
		sleep 0.1
	done
	local device=qemu-$arch-$$ fw=2.3.1-$arch
	local labels="fw=$fw,board=$arch,device=$device"
	if [ -z "$cport" ]; then
		why="perflens collect did not listen: $(tail -n 2 "$fl/collect.log" | tr '\n' ' ')"
	elif ! port=$(free_port); then
		why="no free port"
	else
		# qemu ends when the agent does (stopped by /init after $secs s,
		# the last session sent) or at the guest's watchdog (300 s)
		q0=$(date +%s)
		PL_BOARD_HOST_NET=1 PL_BOARD_APPEND="pl.server=10.0.2.2:$cport pl.labels=$labels pl.run=$secs pl.now=$q0" \
			"$here/boot.sh" "$arch" "$fetched" "$out/initrd.gz" "$port" "$token" 300 >"$console" 2>&1 &
		qpid=$!
		wait "$qpid"
		qpid= q1=$(date +%s)
	fi
	kill -TERM "$cpid" 2>/dev/null
	local rc=0
	wait "$cpid" || rc=$?
	local exitline; exitline=$(grep -am1 -o 'PL-AGENT-EXIT status=[0-9]*' "$console")
	if [ -z "$why" ] && [ "$exitline" != "PL-AGENT-EXIT status=0" ]; then
		why="the board's agent: '${exitline:-no exit line}' ($(grep -a 'perflens-agent' "$console" | tail -n 3 | tr '\n' ' '))"
	fi
	[ -z "$why" ] && [ $rc -ne 0 ] && why="perflens collect exited $rc: $(tail -n 2 "$fl/collect.log" | tr '\n' ' ')"
	local gwhy; gwhy=$(grep -am1 -E 'PL-ERROR|PL-WATCHDOG|Kernel panic|Oops' "$console")
	[ -z "$why" ] && [ -n "$gwhy" ] && why="bad guest: $gwhy"
	fsql() { curl -sS --fail -u "$(cat "$cred")" --data-binary "$1" "$url/"; }
	local stored="" nfiles=0 nsess=0 total=0 f s want got
	if [ -z "$why" ]; then
		stored=$(fsql "SELECT name, event, c FROM (SELECT session, count() AS c FROM perflens_samples GROUP BY session) ANY LEFT JOIN (SELECT session, any(name) AS name, any(event) AS event FROM perflens_sessions GROUP BY session) USING session ORDER BY name FORMAT TabSeparated") ||
			why="ClickHouse did not answer"
	fi
	for f in "$fl"/keep/*.plens; do
		[ -z "$why" ] && [ -e "$f" ] || break
		nfiles=$((nfiles + 1))
		s=$(basename "$f" .plens)
		"$perflens" report --top 0 "$f" >"$f.report" 2>"$f.err" || { why="perflens report $f: $(head -c 200 "$f.err")"; break; }
		want=$(sed -n 's/^Top functions by self (\([^;]*\); % of \([0-9]*\) samples.*/\1 \2/p' "$f.report" | head -1)
		got=$(echo "$stored" | awk -F'\t' -v s="$s" '$1 == s { print $2 " " $3 }')
		# no sampled event's sample (the last session, cut as burn ended): no rows
		[ -z "$got" ] && { [ -z "$want" ] || [ "${want% *}" = "all events" ]; } && continue
		[ "$got" = "$want" ] || { why="session $s: ClickHouse has '$got', its report '$want'"; break; }
		nsess=$((nsess + 1)) total=$((total + ${want##* }))
	done
	[ -z "$why" ] && [ "$nsess" -lt 3 ] && why="only $nsess sessions with samples kept ($nfiles files) in ${secs} s of 2 s sessions"
	[ -z "$why" ] && [ "$(echo "$stored" | grep -c .)" -ne "$nsess" ] && why="$(echo "$stored" | grep -c .) sessions in ClickHouse, $nsess kept with samples"
	# the labels as stored, sorted, against what /init was given
	local lab want_lab
	if [ -z "$why" ]; then
		lab=$(fsql "SELECT DISTINCT arrayStringConcat(arraySort(arrayMap((k, v) -> concat(k, '=', v), labels.key, labels.value)), ',') FROM perflens_sessions FORMAT TabSeparated")
		want_lab=$(tr ',' '\n' <<<"$labels" | sort | paste -sd,)
		[ "$lab" = "$want_lab" ] || why="labels read back '$lab', the board was given '$want_lab'"
	fi
	# byte order: the pids and tids stored are the board's (below its
	# pid_max, 32768: a 32-bit field read in the wrong order is 2^24 times
	# off), at most one pid a session (the agent runs its command again
	# for each session); and the times stored (the board's 64-bit clocks,
	# CLOCK_REALTIME set from the host's at qemu's start, pl.now) lie
	# between qemu's start and its end on the host's clock: its own check
	# (boards-ARCH-fleet-times), the others go on without it
	local tmin="" tmax="" spid tids twhy=""
	if [ -z "$why" ]; then
		spid=$(fsql "SELECT arrayStringConcat(arraySort(groupUniqArray(toString(pid))), ',') FROM perflens_samples FORMAT TabSeparated")
		tids=$(fsql "SELECT arrayStringConcat(arraySort(groupUniqArray(toString(tid))), ',') FROM perflens_samples FORMAT TabSeparated")
		if [ -z "$spid" ] || [ "$(tr ',' '\n' <<<"$spid,$tids" | awk '!($1 ~ /^[0-9]+$/ && $1 > 0 && $1 < 32768)' | wc -l)" -ne 0 ] ||
			[ "$(tr ',' '\n' <<<"$spid" | wc -l)" -gt "$nsess" ]; then
			why="pids '$spid' and tids '$tids' stored: not the board's (0 < id < 32768, at most one pid a session)"
		fi
		read -r tmin tmax <<<"$(fsql "SELECT toUInt32(min(time)), toUInt32(max(time)) FROM perflens_samples FORMAT TabSeparated")"
		if [ -z "$tmin" ] || [ "$tmin" -lt "$q0" ] || [ "$tmax" -gt "$q1" ]; then
			twhy="samples stored at $((${tmin:-0} - q0))..$((${tmax:-0} - q0)) s after qemu's start, which ran $((q1 - q0)) s (host clock); per session (first..last sample, the collector's name): $(fsql "SELECT concat(toString(toUInt32(min(time)) - $q0), '..', toString(toUInt32(max(time)) - $q0), ' ', any(name)) FROM perflens_samples ANY LEFT JOIN (SELECT session, any(name) AS name FROM perflens_sessions GROUP BY session) USING session GROUP BY session ORDER BY min(time) FORMAT TabSeparated" | tr '\n' ';')"
		fi
	fi
	# fleet report: the hot function, a symbol of the board's binary
	local top1 total_f nmhit
	if [ -z "$why" ]; then
		"$perflens" fleet report --clickhouse "$url" --clickhouse-credentials "$cred" --where "board=$arch" \
			--since 1h --top 0 >"$fl/fleet-report.txt" 2>"$fl/fleet-report.err" ||
			why="fleet report: $(head -c 200 "$fl/fleet-report.err")"
	fi
	if [ -z "$why" ]; then
		total_f=$(sed -n 's/.*Fleet: \([0-9]*\) samples.*/\1/p' "$fl/fleet-report.txt" | head -1)
		top1=$(awk '/^Top functions by self/ { t = 1; getline; next } t && NF { print; exit }' "$fl/fleet-report.txt")
		# llvm-nm reads the big-endian ELF (binutils' cross nm here are
		# little-endian ARM's)
		local nm=llvm-nm
		nmhit=$("$nm" "$out/root/burn-musl" 2>/dev/null | awk '$3 == "hot_leaf" && $2 ~ /[tT]/ { print $1 }')
		if [ "$total_f" != "$total" ]; then
			why="fleet report --where board=$arch: ${total_f:-no} samples, the kept sessions' reports $total"
		elif ! grep -qw hot_leaf <<<"$top1"; then
			why="fleet report's top function is not hot_leaf: '$top1'"
		elif [ -z "$nmhit" ]; then
			why="$nm finds no hot_leaf in $out/root/burn-musl"
		fi
	fi
	"$top/ci/clickhouse/server.sh" stop "$ch" >/dev/null 2>&1
	if [ -n "$twhy" ]; then
		nok "boards-$arch-fleet-times" "$twhy"
	elif [ -z "$why" ]; then
		ok "boards-$arch-fleet-times # samples $((tmin - q0))..$((tmax - q0)) s after qemu's start, which ran $((q1 - q0)) s"
	fi
	local label="fleet (\`--server 10.0.2.2:PORT --token-file --labels-file --session-period 2 -F 499 -g -- /burn-musl 3600 2\`, stopped after $secs s, into \`perflens collect\` + ClickHouse)"
	if [ -n "$why" ]; then
		nok "boards-$arch-fleet" "$why (see $fl)"
		rows+=("| $arch | – | $label | – | – | – | – | – | 🔴 **failed**: $why |")
		return
	fi
	local tnote="sample times $((tmin - q0))..$((tmax - q0)) s after qemu's start (it ran $((q1 - q0)) s)"
	[ -n "$twhy" ] && tnote="🔴 **times failed**: $twhy"
	ok "boards-$arch-fleet # $nsess sessions, $total samples stored = the kept sessions' reports; labels $lab; pids $spid, tids $tids; fleet report --where board=$arch: $total_f, top: $(echo $top1); row $((SECONDS - t_board)) s"
	rows+=("| $arch | – | $label | $total | – | – | – | – | $nsess sessions stored = their kept files' reports (per session); labels read back \`$lab\`; $tnote; pids $spid, tids $tids; \`fleet report --where board=$arch\` $total_f samples, top \`$(echo $top1)\` (hot_leaf at 0x$nmhit by nm); row $((SECONDS - t_board)) s |")
}

# The board's files (board()'s and boot_row()'s locals: arch, icount,
# agent_arch, out): its kernel (fetch.sh, or kernel.sh for the kernels
# built here) into fetched, its initramfs (mkinitramfs.sh) into out.
# Returns 1 when there are none (said: a skip or a failure).
board_files() {
	if [ ! -x "$agents/perflens-agent-$agent_arch" ]; then
		nok "boards-$arch${icount:+-icount}-agent" "$agents/perflens-agent-$agent_arch not built (run ci/agents.sh $agent_arch)"; return 1
	fi
	case "$arch" in
	arm64 | armhf)
		if ! fetched=$("$here/fetch.sh" "$arch" 2>"$build/boards-fetch-$arch.log"); then
			echo "skip boards-$arch: cannot fetch Debian's $arch kernel and busybox: $(tail -n 1 "$build/boards-fetch-$arch.log")"
			return 1
		fi ;;
	*)
		# built from the source package ci/deps.sh installed (no
		# network): a kernel that does not build is a failure
		local tk=$SECONDS
		if ! fetched=$(PL_KERNEL_JOBS=${PL_KERNEL_JOBS:-$(nproc)} "$here/kernel.sh" "$arch" 2>"$build/boards-kernel-$arch.log"); then
			nok "boards-$arch${icount:+-icount}-kernel" "kernel.sh $arch failed: $(tail -n 3 "$build/boards-kernel-$arch.log" | tr '\n' ' ') (see $build/boards-kernel-$arch.log)"
			return 1
		fi
		[ $((SECONDS - tk)) -gt 5 ] && echo "# boards-$arch: kernel built in $((SECONDS - tk)) s ($fetched)"
		ok "boards-$arch${icount:+-icount}-kernel" ;;
	esac
	mkdir -p "$out"
	if ! "$mkinitramfs" "$arch" "$fetched" "$out" >"$out/mkinitramfs.log" 2>&1; then
		nok "boards-$arch${icount:+-icount}-initramfs" "$(tail -n 3 "$out/mkinitramfs.log" | tr '\n' ' ')"
		return 1
	fi
	ok "boards-$arch${icount:+-icount}-initramfs"
}

board() {
	local arch=$1 icount=${2:-} qemu sysroot agent_arch modes t_board=$SECONDS fpprog=/burn fpmode=fp kver
	local dwprog=/burn-nofp
	# The modes each board records, explicitly: the big-endian boards have
	# no glibc (Debian has no big-endian port), so no /burn, /burn-nofp,
	# /burn-lib there; their fp and dwarf rows are the static musl builds.
	case "$arch" in
	arm64) qemu=qemu-system-aarch64 sysroot=/usr/aarch64-linux-gnu agent_arch=aarch64 modes="fp dwarf lib musl" ;;
	armhf) qemu=qemu-system-arm sysroot=/usr/arm-linux-gnueabihf agent_arch=armv7l modes="fp dwarf lib musl" ;;
	arm64be) qemu=qemu-system-aarch64 sysroot= agent_arch=aarch64_be modes="musl musl-dwarf" ;;
	armeb) qemu=qemu-system-arm sysroot= agent_arch=armeb modes="musl musl-dwarf" ;;
	# Debian's cross glibc for the workloads, a kernel built here
	riscv64) qemu=qemu-system-riscv64 sysroot=/usr/riscv64-linux-gnu agent_arch=riscv64 modes="fp dwarf lib musl" ;;
	esac
	case "$arch" in arm64be | armeb) fpprog=/burn-musl fpmode=musl dwprog=/burn-musl-nofp ;; esac
	local fetched out=$build/boards/$arch${icount:+-icount}
	board_files || return
	[ -n "$icount" ] || { built_out[$arch]=$out built_fetched[$arch]=$fetched; }

	local port t0 console=$out/console.log
	port=$(free_port) || { nok "boards-$arch${icount:+-icount}-boot" "no free port"; return; }
	: >"$console"   # not the last run's: the wait below greps it
	t0=$(date +%s.%N)
	# The guest's watchdog (pl.timeout) only ends a board this test can no
	# longer stop (stop_qemu ends every other): generous, for a loaded
	# host stalls the emulated CPU for seconds at a time (a 2 s --all
	# session lasted 34 s of guest time at load 32), and the board's dozen
	# records then run past any budget near their usual 50-60 s.
	# The periods row's 0.2 ms needs a guest clock that stops while qemu's
	# thread waits for the host: with precise icount the clock follows the
	# instructions run (see periods_check)
	local extra=${PL_BOARD_QEMU_EXTRA:-}
	case ",${PL_BOARD_ROWS:-}," in *,periods,*) extra=${extra:--icount shift=0} ;; esac
	PL_BOARD_QEMU_EXTRA=${icount:-$extra} \
		"$here/boot.sh" "$arch" "$fetched" "$out/initrd.gz" "$port" "$token" 900 >"$console" 2>&1 &
	qpid=$!

	# `perflens ps` connects while the guest still boots: until the agent
	# listens, the forwarded port accepts and then closes (or stalls) the
	# connection, and the client must retry on that EOF (BOARDS.md).  Before
	# QEMU forwards the port, a connection is refused, which is final: wait
	# for the forward first.
	local fwd
	for fwd in $(seq 300); do
		(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
		sleep 0.1
	done
	"$perflens" ps "127.0.0.1:$port" --token "$token" --timeout 120 >"$out/ps-during-boot.log" 2>&1 &
	local pspid=$! waited=0
	until grep -q 'listening on' "$console" 2>/dev/null; do
		if ! kill -0 "$qpid" 2>/dev/null || [ $waited -ge 1200 ]; then
			nok "boards-$arch${icount:+-icount}-boot" "the agent did not start listening ($(tail -n 3 "$console" | tr '\n' ' '))"
			kill "$pspid" 2>/dev/null; wait "$pspid" 2>/dev/null
			stop_qemu
			return
		fi
		sleep 0.1; waited=$((waited + 1))
	done
	ok "boards-$arch${icount:+-icount}-boot"
	kver=$(grep -m1 -o 'PL-BOOT .*' "$console" | kv kernel | tr -d '\r')
	local host_boot_s; host_boot_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

	# The records wait for that connection: the agent serves one viewer.
	wait "$pspid"; local psrc=$?
	local mode boot_s="" first_ms="" host_starts=() probe_rec="" rec_conn=() rec_end=()
	local all_modes="$modes hw pid all"
	if [ -n "$icount" ]; then
		# qemu counts instructions only with precise icount: this boot
		# records the hardware-event row alone, the probe read from a
		# short first capture of the same boot
		all_modes=hw probe_rec=$out/probe.plens
		host_starts+=("$(date +%s.%N)")
		"$perflens" record "127.0.0.1:$port" --token "$token" --timeout 120 \
			--command "$fpprog 1 1" -e cpu-clock -F 10 --duration 1 -o "$probe_rec" \
			>"$out/probe-record.log" 2>&1 || nok "boards-$arch${icount:+-icount}-icount-probe" "$(tail -n 2 "$out/probe-record.log" | tr '\n' ' ')"
	fi
	[ -n "${PL_BOARD_ROWS:-}" ] && all_modes=
	for mode in $all_modes; do
		record_mode "$mode" || { kill -0 "$qpid" 2>/dev/null || break; }
	done
	if [ -z "$icount" ] && kill -0 "$qpid" 2>/dev/null; then
		case ",${PL_BOARD_ROWS:-kprobe}," in *,kprobe,*) kprobe_check ;; esac
	fi
	if [ -z "$icount" ] && [ -n "$sysroot" ] && kill -0 "$qpid" 2>/dev/null; then
		case ",${PL_BOARD_ROWS:-naps}," in
		*,naps,*) naps_check fp; naps_check dwarf ;;
		esac
		case ",${PL_BOARD_ROWS:-}," in
		*,tracks,*) tracks_check ;;
		esac
		case ",${PL_BOARD_ROWS:-}," in
		*,periods,*) periods_check ;;
		esac
		# the irq row: by default on arm64 alone (about 20 s a board)
		case ",${PL_BOARD_ROWS:-default}," in
		*,irq,*) irq_check ;;
		,default,) [ "$arch" = arm64 ] && irq_check ;;
		esac
	fi
	if [ "$psrc" -eq 0 ] && grep -q perflens-agent "$out/ps-during-boot.log"; then
		ok "boards-$arch${icount:+-icount}-connect-during-boot"
	else
		nok "boards-$arch${icount:+-icount}-connect-during-boot" "perflens ps started with the guest did not list the agent: $(tail -n 2 "$out/ps-during-boot.log" | tr '\n' ' ')"
	fi
	stop_qemu
	# The guest's clock must keep the host's pace: a kernel without a
	# working clock event (an allnoconfig ARM kernel without the
	# architected timer) ended a 2 s workload after 0.13 s.  The agent
	# stamps each connection with the guest's uptime (/init's line); a
	# record's connection happens between the host's start of that
	# `perflens record` and its end, so on a clock that keeps pace one
	# offset puts every record's guest stamp inside its host interval
	# (clock_check).  The allowance is the records' own host intervals,
	# never a share: a loaded host widens them (slower connections,
	# longer sessions) and so widens what it accepts, while a guest clock
	# off by a quarter over the boot's 40-odd seconds of records leaves
	# the first and the last record's intervals (5-10 s) by far.
	# (with -icount the guest's clock follows the instruction count, by design)
	local guest_conn=(); [ -z "$icount" ] && mapfile -t guest_conn < <(grep 'controller .* connected' "$console" | sed -n 's/^\[\([0-9.]*\)\].*/\1/p')
	if [ ${#rec_conn[@]} -ge 2 ] && [ ${#guest_conn[@]} -eq $((${#host_starts[@]} + 1)) ]; then
		local clock_msg
		if clock_msg=$(clock_check); then
			ok "boards-$arch${icount:+-icount}-guest-clock # $clock_msg"
		else
			nok "boards-$arch${icount:+-icount}-guest-clock" "$clock_msg"
		fi
	elif [ -z "$icount" ] && [ -z "${PL_BOARD_ROWS:-}" ]; then
		nok "boards-$arch${icount:+-icount}-guest-clock" "cannot compare clocks: ${#host_starts[@]} connections (${#rec_conn[@]} records), ${#guest_conn[@]} on the console (want one more: perflens ps)"
	fi
	local why; why=$(grep -m1 -E 'PL-ERROR|PL-WATCHDOG|Kernel panic' "$console")
	[ -n "$why" ] && nok "boards-$arch${icount:+-icount}-guest" "$why"
	local paranoid; paranoid=$(grep -m1 -o 'PL-PARANOID [0-9-]*' "$console" | cut -d' ' -f2)
	bootinfo+=("| $arch${icount:+ ($icount)} | $(sed -n 's/^kernel \(.*\)/\1/p' "$fetched/versions") ($kver) | $qemu | ${host_boot_s:-?} s | ${boot_s:-?} s | ${first_ms:-?} ms | ${paranoid:-?} | $((SECONDS - t_board)) s |")
}

# x86_64: this host, the same workload (test/workloads/burn.c, the host
# build) and modes, the x86_64 agent on loopback: the fifth row of the
# results table (not in the default list: make check runs the boards).
host_board() {
	local arch=x86_64 out=$build/boards/x86_64 console=/dev/null sysroot= fpprog=$build/workloads/burn fpmode=fp icount= dwprog=
	local kver t_board=$SECONDS port apid psrc=0 boot_s="" first_ms="" host_starts=() probe_rec="" mode rec_conn=() rec_end=()
	kver=$(uname -r)
	local -A host_prog=([fp]=$build/workloads/burn [dwarf]=$build/workloads/burn-nofp [hw]=$build/workloads/burn [pid]=$build/workloads/burn-nofp [all]=$build/workloads/burn)
	if [ ! -x "$agents/perflens-agent-x86_64" ] || [ ! -x "$build/workloads/burn-nofp" ]; then
		nok "boards-x86_64-agent" "$agents/perflens-agent-x86_64 or $build/workloads/burn-nofp not built (ci/agents.sh x86_64; make)"
		return
	fi
	mkdir -p "$out"
	port=$(free_port) || { nok "boards-x86_64-agent" "no free port"; return; }
	"$agents/perflens-agent-x86_64" --listen --bind 127.0.0.1 --port "$port" --token "$token" >"$out/agent.log" 2>&1 &
	apid=$!
	local waited=0
	until grep -q 'listening on' "$out/agent.log" 2>/dev/null; do
		if ! kill -0 "$apid" 2>/dev/null || [ $waited -ge 100 ]; then
			nok "boards-x86_64-agent" "the agent did not start listening: $(tail -n 2 "$out/agent.log" | tr '\n' ' ')"
			kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null
			return
		fi
		sleep 0.1; waited=$((waited + 1))
	done
	ok "boards-x86_64-agent"
	for mode in fp dwarf hw pid all; do
		record_mode "$mode" || { kill -0 "$apid" 2>/dev/null || break; }
	done
	kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null
	bootinfo+=("| x86_64 | $kver (this host) | none | – | – | – | $(cat /proc/sys/kernel/perf_event_paranoid) | $((SECONDS - t_board)) s |")
}

bootinfo=()
declare -A built_out=() built_fetched=() # board(): a board's initramfs, for boot_row
t_all=$SECONDS
IFS=, read -r -a boards <<<"${PL_BOARDS:-arm64,armhf,arm64be,armeb,riscv64}"
for b in "${boards[@]}"; do
	case "$b" in
	arm64 | armhf | arm64be | armeb | riscv64)
		# PL_BOARD_ROWS of boot and fleet alone: only their own boots
		case ",${PL_BOARD_ROWS:-}," in
		,boot, | ,fleet, | ,boot,fleet, | ,fleet,boot,) ;;
		*) board "$b" ;;
		esac
		case ",${PL_BOARD_ROWS:-}," in *,boot,*) boot_row "$b" ;; esac
		case ",${PL_BOARD_ROWS:-}," in *,fleet,*) fleet_row "$b" ;; esac
		# the hardware-event row again with qemu's precise icount, where
		# the emulated CPU has a PMU: only then does it count instructions
		[ -n "${PL_BOARD_ROWS:-}" ] && continue
		case ",${PL_BOARDS_ICOUNT-arm64,arm64be}," in
		*,"$b",*) board "$b" "-icount shift=0" ;;
		esac ;;
	x86_64) host_board ;;
	*) nok "boards-$b" "unknown board (arm64, armhf, arm64be, armeb, riscv64 or x86_64)" ;;
	esac
done

# One table, rewritten by each run (of the boards run: refresh the doc with
# all six, see the header).
if [ ${#rows[@]} -gt 0 ]; then
	mkdir -p "$(dirname "$results")"
	{
		echo "# Emulated board results"
		echo
		echo "Written by test/integration/boards.sh; \`make check\` writes build/boards/results.md, and"
		echo "\`PL_BOARDS=arm64,armhf,arm64be,armeb,riscv64,x86_64 PL_BOARDS_RESULTS=docs/boards-results.md"
		echo "PL_BUILD=\$PWD/build bash test/integration/boards.sh\` refreshes this file."
		printf '\n## %s, host %s, boards %s, %d s for the whole test\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -r)" "${PL_BOARDS:-arm64,armhf,arm64be,armeb,riscv64}" $((SECONDS - t_all))
		echo "Workload: test/workloads/burn.c \`burn SECS 2\` (2 burn threads + main + sleeper; -DBURN_LFIND on the boards),"
		echo "recorded with \`perflens record --command ... -e EVENT -F HZ --duration SECS\` (user and kernel stacks: the"
		echo "CLI always asks for both) through qemu's forwarded port, 1 vCPU; x86_64 is this host, the agent on loopback."
		echo "\`--all\`: the whole board for SECS while \`burn-musl 3600 2\` runs, started by /detach (host: \`sh -c 'burn 3600 2 &'\`), killed after the record."
		echo "Rooted: stacks that reach main or a thread start, of the samples after the loader's start-up."
		echo "\`--pid\`: \`PROG-nofp 3600 2\` started by /detach (host: \`sh -c\`), its pid from \`perflens ps\`, attached for 3 s, then killed (\`/detach --kill\`; host: kill)."
		echo "Kernel stacks on the big-endian and riscv64 boards: also reported with \`--vmlinux\` (kernel.sh's, DWARF), do_nanosleep's lines checked"
		echo "against the cross \`addr2line -f -i\` on the same callchain addresses."
		echo "\`qemu -icount shift=0\`: a second boot of the boards whose CPU model has a PMU, for the hardware-event row alone: qemu's"
		echo "ARM PMU counts instructions only with precise icount (\`-icount shift=auto\` is adaptive: none), and its cycle counter"
		echo "is the virtual clock at 1 GHz, which icount advances 2^shift ns per instruction: IPC 1.00 there is qemu's arithmetic,"
		echo "not the code's.  Samples: both events' (-e cycles -e instructions); rooted: the cycles samples'."
		echo "Boot: the board booted again with \`rdinit=/perflens-agent\` and, after \`--\` on the kernel command line,"
		echo "\`--boot -e cpu-clock -F HZ --callgraph fp --stacks both --ring-pages 1024 --trigger proc:^perflens-agent\$ --after 1 --port 9998 --token T /init\`"
		echo "(the board's /init keeps PID 1; the capture saved when /init starts the board's agent, fetched with \`perflens snapshot\`);"
		echo "hand-over: the kernel's \"Run /perflens-agent as init process\" record (printk clock), put on the samples' CLOCK_MONOTONIC"
		echo "by a record /init writes to /dev/kmsg between two clock reads; the first sample must follow it and precede /init's"
		echo "exec (init recorded from its first instruction).  A row marked 🔴 failed a check (named there); it is kept."
		echo "Host load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (emulation speed depends on it)."
		echo
		echo "| board | kernel | emulator | qemu start → agent listening (host) | agent start (guest uptime) | viewer connects → first sample | perf_event_paranoid | board in all (host) |"
		echo "|---|---|---|---|---|---|---|---|"
		printf '%s\n' "${bootinfo[@]}"
		echo
		echo "| board | kernel | mode | samples | rooted | lost | wire bytes/sample | file bytes/sample | notes |"
		echo "|---|---|---|---|---|---|---|---|---|"
		printf '%s\n' "${rows[@]}"
	} >"$results.tmp" && mv "$results.tmp" "$results"
fi
exit $failed
