#!/usr/bin/env python3
"""irq-compare.py PERFLENS DUMP REC CONSOLE: the boards' interrupt row
(boards.sh irq_check).  /irqload (test/workloads/irqload.c) printed two
snapshots of /proc/interrupts and /proc/softirqs to the console, each
with the board's CLOCK_MONOTONIC read before and after it; REC is a
`record --all --irq` of the same time.  Per softirq vector and per IRQ
line, `perflens report --irq --from A --to B` must hold
    runs in the inner window (first snapshot's end to second's start)
        <= the kernel's count delta (x handlers on a shared line)
    delta <= runs in the outer window (first's start to second's end)
        + the samples the recording lost there (on a one-CPU board, the
          LOST records between samples around the window; else all)
(arm64's IPIs, IRQs named IPI there, against the sum of /proc's IPIn
lines) with windows moved 10 us further in and out (the listing that gives the
recording's first time rounds to the microsecond); and per vector and IRQ
line, the product's /proc delta between the agent's own reads at the
session's start and end (report --irq's "Recorded against /proc" rows) is at
least the console snapshots' delta (the agent's reads bracket them).  Prints "ok SUMMARY"
or "bad WHY"."""
import os
import re
import subprocess
import sys

import irq_report

perflens, dump, rec, console = sys.argv[1:5]
# IPI_UNTRACED=1: the kernel's IPIs are not IRQs (riscv64's 6.1 takes them
# outside the IRQ layer, with no irq_handler_entry): /proc's IPIn lines are
# left out and their count said
ipi_untraced = os.environ.get('IPI_UNTRACED') == '1'
MARGIN = 10e-6


def bad(why):
    print('bad ' + why)
    sys.exit(0)


# ─── the program's snapshots ───────────────────────────────────────────
times, text, sent = {}, {'0': [], '1': []}, None
for raw in open(console, 'rb').read().decode('utf-8', 'replace').split('\n'):
    line = raw.rstrip('\r')
    i = line.find('IRQLOAD ')
    if i < 0:
        continue
    f = line[i + 8:]
    if f.startswith('T '):
        t = f.split()
        times[t[1]] = (int(t[2]), int(t[3]))
    elif f.startswith('END '):
        sent = int(f.split()[1])
    elif f[:2] in ('0 ', '1 '):
        text[f[0]].append(f[2:])
if sent is None or set(times) != {'0', '1'}:
    bad('/irqload printed no complete snapshots on the console (%s)' % console)


def parse(lines):
    """(hard, soft): {irq: (total over CPUs, handlers)}, {vector name: total}"""
    hard, soft, ncpu = {}, {}, None
    for l in lines:
        f = l.split()
        if not f:
            continue
        if f[0].startswith('CPU'):
            ncpu = len(f)
            continue
        if ncpu is None:
            continue
        m = re.match(r'(\d+):$', f[0])
        if re.match(r'IPI\d+:$', f[0]) and all(x.isdigit() for x in f[1:ncpu + 1]):
            c, _ = hard.get('IPI', (0, 1))
            hard['IPI'] = (c + sum(int(x) for x in f[1:ncpu + 1]), 1)
            continue
        if m and len(f) > ncpu and all(x.isdigit() for x in f[1:ncpu + 1]):
            tail = ' '.join(f[ncpu + 1:])
            handlers = max(1, len(tail.split(',')))
            hard[int(m.group(1))] = (sum(int(x) for x in f[1:ncpu + 1]), handlers)
        elif f[0].endswith(':') and f[0][:-1].isupper() and all(x.isdigit() for x in f[1:]):
            soft[f[0][:-1]] = soft.get(f[0][:-1], 0) + sum(int(x) for x in f[1:])
    return hard, soft


h0, s0 = parse(text['0'])
h1, s1 = parse(text['1'])
if not s0 or not h0:
    bad('the snapshots hold no softirq or no IRQ counts')

# ─── the recording's first time, from its first irq entry ─────────────
d = subprocess.run([dump, rec], capture_output=True, text=True).stdout.split('\n')
names = {}
for l in d:
    if l.startswith('EVENT_DESC'):
        kv = dict(x.split('=', 1) for x in l.split()[1:] if '=' in x)
        names[kv.get('index')] = kv.get('name')
entry_ev = {k for k, v in names.items() if v in ('irq:softirq_entry', 'irq:irq_handler_entry')}
abs_entries = sorted(int(kv['time']) for kv in
                     (dict(x.split('=', 1) for x in l.split()[1:] if '=' in x)
                      for l in d if l.startswith('SAMPLE '))
                     if kv.get('ev') in entry_ev)
tp = subprocess.run([perflens, 'report', '--tracepoints', rec], capture_output=True,
                    text=True).stdout.split('\n')
rel = None
for l in tp:
    f = l.split()
    if any(x in ('irq:softirq_entry', 'irq:irq_handler_entry') for x in f[2:]):
        try:
            rel = float(f[0])
            break
        except ValueError:
            pass
if not abs_entries or rel is None:
    bad('the recording holds no irq entries (report --tracepoints, pl-dump)')
first = abs_entries[0] - rel * 1e9
rec_end = (abs_entries[-1] - first) / 1e9


def window(a, b):
    return (a - first) / 1e9, (b - first) / 1e9


inner = window(times['0'][1], times['1'][0])
outer = window(times['0'][0], times['1'][1])
inner = (inner[0] + MARGIN, inner[1] - MARGIN)
outer = (max(0.0, outer[0] - MARGIN), outer[1] + MARGIN)
if outer[0] <= 0 or outer[1] >= rec_end:
    bad('the recording (0 to %.3f s) does not cover /irqload\'s snapshots (%.3f to %.3f s): '
        'it started late or ended early' % (rec_end, outer[0], outer[1]))


def report(w):
    out = subprocess.run([perflens, 'report', '--irq', '--from', '%.6f' % w[0], '--to',
                          '%.6f' % w[1], rec], capture_output=True, text=True).stdout
    hard, soft = {}, {}
    m = re.search(r'the recording lost (\d+) samples', out)
    lost = int(m.group(1)) if m else 0
    for kind, number, name, count in irq_report.rows(out):
        # arm64's IPIs are IRQs named IPI, counted on /proc's IPIn lines
        d, key = (soft, name) if kind == 'softirq' else (hard, 'IPI' if name == 'IPI' else number)
        d[key] = d.get(key, 0) + count
    return hard, soft, lost


hi, si, _ = report(inner)
ho, so, lost_all = report(outer)
# The events a LOST record counts were dropped between the samples before
# and after it in the ring; on one CPU the stream is in time order, so a
# loss whose interval misses the outer window (the session's start, where
# the agent is busiest) says nothing of the counts in it.
ncpu = max((len([x for x in l.split() if x.startswith('CPU')]) for l in text['0'] if 'CPU0' in l),
           default=0)
lost = lost_all
if ncpu == 1:
    lo_abs, hi_abs = first + outer[0] * 1e9, first + outer[1] * 1e9
    lost, prev, pending = 0, 0, []
    for l in d + ['SAMPLE time=%d' % (1 << 62)]:
        if l.startswith('LOST '):
            pending.append(int(dict(x.split('=', 1) for x in l.split()[1:] if '=' in x)['count']))
        elif l.startswith('SAMPLE '):
            t = int(dict(x.split('=', 1) for x in l.split()[1:] if '=' in x)['time'])
            if pending and t >= lo_abs and prev <= hi_abs:
                lost += sum(pending)
            if pending:
                pending = []
            prev = t
problems, n_hard, n_soft = [], 0, 0
for name in sorted(set(s1) | set(so)):
    delta = s1.get(name, 0) - s0.get(name, 0)
    lo, hi_ = si.get(name, 0), so.get(name, 0)
    if delta or hi_:
        n_soft += 1
    if not lo <= delta <= hi_ + lost:
        problems.append('softirq %s: /proc %d, recorded %d inside .. %d around' % (name, delta, lo, hi_))
ipis = 0
if ipi_untraced:
    ipis = h1.pop('IPI', (0, 1))[0] - h0.pop('IPI', (0, 1))[0]
    if ho.get('IPI') or hi.get('IPI'):
        problems.append('IPI_UNTRACED, but the recording holds IRQs named IPI')
for irq in sorted(set(h1) | set(ho), key=str):
    c0, handlers = h0.get(irq, (0, 1))
    c1, _ = h1.get(irq, (c0, handlers))
    delta = c1 - c0
    lo, hi_ = hi.get(irq, 0), ho.get(irq, 0)
    if delta or hi_:
        n_hard += 1
    if irq not in h1:
        problems.append('IRQ %s: recorded but not in /proc/interrupts' % irq)
    elif not (lo <= delta * handlers and delta <= hi_ + lost):
        problems.append('IRQ %s: /proc %d (x%d handlers), recorded %d inside .. %d around'
                        % (irq, delta, handlers, lo, hi_))
# The agent's own reads of /proc (report --irq over the whole session) are
# taken before /irqload's first snapshot and after its second: per softirq
# vector and IRQ line, their delta is at least the console's.
whole = subprocess.run([perflens, 'report', '--irq', rec], capture_output=True, text=True).stdout
agent_proc = irq_report.proc_rows(whole)
n_agent = 0
if not agent_proc:
    problems.append('report --irq has no "Recorded against /proc" rows (the agent\'s reads)')
for name in sorted(s1):
    delta = s1[name] - s0.get(name, 0)
    got = agent_proc.get(('softirq', name), (0, 0, 0))[1]
    n_agent += 1
    if delta > got:
        problems.append('softirq %s: the agent\'s /proc delta %d < the console\'s %d' % (name, got, delta))
for irq in sorted(i for i in h1 if isinstance(i, int)):
    delta = h1[irq][0] - h0.get(irq, (h1[irq][0], 1))[0]
    got = agent_proc.get(('hardirq', str(irq)), (0, 0, 0))[1]
    n_agent += 1
    if delta > got:
        problems.append('IRQ %d: the agent\'s /proc delta %d < the console\'s %d' % (irq, got, delta))
net_rx = s1.get('NET_RX', 0) - s0.get('NET_RX', 0)
if net_rx * 2 < sent:
    problems.append('NET_RX rose by %d for %d datagrams: no network load' % (net_rx, sent))
if not n_hard:
    problems.append('no IRQ line counted anything')
if problems:
    bad('; '.join(problems[:4]))
timer = max(((h1[i][0] - h0.get(i, (0, 1))[0], str(i)) for i in h1), default=(0, '-'))
print('ok %d softirq vectors and %d IRQ lines within [recorded inside, recorded around + %d lost '
      'there (%d in all)] of /proc over %.2f s; NET_RX %d for %d datagrams, busiest IRQ %s: %d%s'
      % (n_soft, n_hard, lost, lost_all, (times['1'][0] - times['0'][1]) / 1e9, net_rx, sent, timer[1],
         timer[0], '; %d IPIs not IRQs on this kernel, left out' % ipis if ipi_untraced else '')
      + '; the agent\'s /proc reads around hold the console\'s delta on %d lines and vectors' % n_agent)
