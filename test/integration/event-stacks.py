#!/usr/bin/env python3
"""event-stacks.py — the check of stacks at slow calls made through libc
(test/workloads/naps.c), for syscalls.sh and the boards.

  event-stacks.py REPORT_TP DUMP PID PROG CAP NM READELF [PERF_SCRIPT]

REPORT_TP: `perflens report --tracepoints` of the capture; DUMP: `pl-dump
-w` of it; PID: the program's (one thread); PROG: its ELF file here; CAP:
the most bytes a stack copy may hold; NM, READELF: the tools for PROG's
architecture; PERF_SCRIPT (optional, may be empty): `perf script -F
tid,ip,sym` of `perf record --call-graph dwarf` of the entry tracepoint on
the same run.  Prints "ok ..." or "bad ...: why", one line.

The 20 slow calls must name sleep_long < main; each copy the agent sent
must hold a return address within sleep_long (nm -S, and the load bias
from the program's mapping: the oracle that does not depend on the
viewer's unwinder), which addr2line (the tool beside NM) places in
sleep_long in naps.c; call by call (the report's calls and the capture's
samples in time order, their spacing equal), the report names
sleep_long exactly where the copy holds its return address; where perf
decoded its records, perf's stacks of the same run must go through
sleep_long 20 times.
"""
import re, subprocess, sys
tp, dump, pid, prog, cap, nm_tool, readelf = sys.argv[1:8]
perf_txt = sys.argv[8] if len(sys.argv) > 8 else ''
cap = int(cap)
if pid == '-':  # the program's pid from its name in the capture
    for l in open(dump):
        m = re.match(r'COMM pid=(\d+) .*comm=%s$' % re.escape(prog.split('/')[-1][:15]), l.strip())
        if m:
            pid = m.group(1)
            break
# ours: the slow calls of the program, their stacks as the report names them
ours, ours_t = [], []
for l in open(tp):
    f = l.split()
    if len(f) > 3 and f[3] == 'slow-syscalls' and f[1] == pid:
        st = re.search(r'\[(.*)\]$', l.strip())
        ours.append(st.group(1).split(' < ') if st else [])
        ours_t.append(float(f[0]))
long_ours = [s for s in ours if 'sleep_long' in s]
bad = [s for s in ours if 'sleep_long' not in s and 'sleep_short' not in s]
order = [s for s in long_ours if s.index('sleep_long') + 1 < len(s) and s[s.index('sleep_long') + 1] == 'main']
# nm: sleep_long's range; the load bias from the program's mapping
nm = {}
for l in subprocess.run([nm_tool, '-S', prog], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 4 and f[3] in ('sleep_long', 'sleep_short'):
        nm[f[3]] = (int(f[0], 16), int(f[1], 16))
segs = []
for l in subprocess.run([readelf, '-lW', prog], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if f[:1] == ['LOAD']:
        segs.append((int(f[1], 16), int(f[2], 16)))  # offset, vaddr
ev = None
maps, samples = [], []
note, lost = '', 0  # the agent's counts, to say why calls are missing
for l in open(dump):
    if l.startswith('LOG ') and 'Slow system calls:' in l:
        note = l.split('Slow system calls:', 1)[1].strip().rstrip('.')
    elif l.startswith('LOST '):
        lost += int(re.search(r'count=(\d+)', l).group(1))
    elif l.startswith('EVENT_DESC') and 'name=slow-syscalls' in l:
        ev = re.search(r'index=(\d+)', l).group(1)
    elif l.startswith('MMAP') and l.rstrip().endswith(prog.split('/')[-1]):
        m = dict(re.findall(r'(\w+)=(0x[0-9a-f]+|\d+)', l))
        maps.append((int(m['start'], 16), int(m['len'], 16), int(m['pgoff'], 16)))
    elif l.startswith('SAMPLE') and ev is not None and ' ev=%s ' % ev in l and ' pid=%s ' % pid in l:
        samples.append(l)
def in_fn(addr, name):
    """addr's address in prog when it is a return address within name, else None"""
    if name not in nm: return None
    for start, ln, pgoff in maps:
        if not start <= addr < start + ln: continue
        for off, va in segs:
            v = addr - start + pgoff - off + va
            if nm[name][0] < v <= nm[name][0] + nm[name][1]:  # a return address: after the call
                return v
    return None
samples.sort(key=lambda l: int(re.search(r' time=(\d+)', l).group(1)))
sizes, long_copies, long_at, holds = [], 0, [], []
for l in samples:
    st = re.search(r'stack=(\d+)/(\d+)', l)
    sizes.append(int(st.group(1)))
    w = re.search(r'words=(\S+)', l)
    at = [v for v in (in_fn(int(x, 16), 'sleep_long') for x in w.group(1).split(',')) if v] if w else []
    holds.append(bool(at))
    if at:
        long_copies += 1
        long_at.append(at[0])
# addr2line: the call before each return address found is in sleep_long, naps.c
a2l_long = 0
if long_at:
    a2l_tool = re.sub(r'nm$', 'addr2line', nm_tool)
    out = subprocess.run([a2l_tool, '-f', '-e', prog] + ['%#x' % (v - 1) for v in long_at],
                         capture_output=True, text=True).stdout.splitlines()
    for fn, where in zip(out[0::2], out[1::2]):
        a2l_long += fn == 'sleep_long' and where.split(':')[0].endswith('naps.c')
# call by call: the report's calls and the capture's samples, both in time
# order, spaced alike (within the report's microsecond), named alike
per_call = 'report %d calls, capture %d samples' % (len(ours), len(samples))
if ours and len(ours) == len(samples):
    t0 = int(re.search(r' time=(\d+)', samples[0]).group(1))
    spaced = all(abs((int(re.search(r' time=(\d+)', l).group(1)) - t0) / 1e9 - (t - ours_t[0])) < 2e-6
                 for t, l in zip(ours_t, samples))
    differ = sum(('sleep_long' in s) != h for s, h in zip(ours, holds))
    per_call = None if spaced and not differ else ('calls spaced unlike the samples' if not spaced else
                                                   '%d calls named otherwise than their copies (nm)' % differ)
big = [n for n in sizes if n > cap or n == 0]
mean = sum(sizes) / len(sizes) if sizes else 0
# perf, where it decodes: its entries of the program's main thread whose stack holds sleep_long
perf_long = None
if perf_txt:
    perf_long, cur, tid = 0, [], None
    for l in open(perf_txt).read().split('\n') + ['']:
        if not l.strip():
            if tid == pid and any('sleep_long' in x for x in cur): perf_long += 1
            cur, tid = [], None
        elif tid is None:
            tid = l.split()[0]
        else:
            cur.append(l)
why = []
if len(long_ours) != 20: why.append('%d slow calls name sleep_long (want 20)' % len(long_ours))
if len(order) != len(long_ours): why.append('%d of them not sleep_long < main' % (len(long_ours) - len(order)))
if bad: why.append('%d slow calls in neither sleep function: %s' % (len(bad), ' < '.join(bad[0][:8])))
if not nm or not maps: why.append('no nm range (%s) or mapping (%d) for %s' % (nm, len(maps), prog))
if long_copies != 20: why.append('%d copies hold a return address in sleep_long (nm; want 20)' % long_copies)
if a2l_long != long_copies: why.append('addr2line puts %d of %d of those calls in sleep_long, naps.c' % (a2l_long, long_copies))
if per_call: why.append('call by call: %s' % per_call)
if big: why.append('%d copies empty or over %d bytes' % (len(big), cap))
if perf_long is not None and perf_long != 20: why.append('perf: %d entries in sleep_long (want 20)' % perf_long)
oracle = ('perf --call-graph dwarf: %d entries through sleep_long, and ' % perf_long) if perf_long is not None else 'perf cannot decode this kernel\'s tracepoint records: '
print(('ok' if not why else 'bad') + ' %d slow calls, %d through sleep_long < main; oracle: %snm: %d copies hold a return address in sleep_long, addr2line: %d in sleep_long (naps.c), the same calls the report names; copies %d..%d bytes, mean %d (at most %d); agent: %s, %d records lost%s' % (
    len(ours), len(order), oracle, long_copies, a2l_long, min(sizes or [0]), max(sizes or [0]), mean, cap,
    note or 'no slow-call counts', lost, ('; ' + '; '.join(why)) if why else ''))
