#!/usr/bin/env python3
"""boot-capture.py — the checks of a board's boot recording (boards.sh's
boot row: the kernel handed over to `perflens-agent --boot ... /init`).

  boot-capture.py CONSOLE DUMP REPORT REPORT_BEFORE CHILDREN BOUND

CONSOLE: the board's serial console (its /init printed PL-HANDOVER, the
kernel's "Run X as init process" record with its printk time, and
PL-KCLOCK, a record /init wrote to /dev/kmsg between two reads of
CLOCK_MONOTONIC or /proc/uptime: how the printk clock stands to the
samples' clock); DUMP: `pl-dump` of the capture; REPORT: `perflens
report` of it; REPORT_BEFORE: the same with `--to` the trigger (the
samples before the board's agent started); CHILDREN: the comms init's
children must have (comma-separated); BOUND: seconds the first sample may
come after the hand-over: PID 1 waits that long at most for the recorder
before it execs the real init (said when passed).  The hand-over check
asks that the first sample follow the hand-over and precede /init's
exec (the time stated: the real init is recorded from its first
instruction), never a duration: a loaded host stretches the emulated
board's boot tenfold.

Prints one line per check, "ok NAME # figures" or "bad NAME: why", then
"note TEXT" (the results row's notes) and "figures SAMPLES LOST".
"""
import collections, re, sys

console, dump, report, report_before, children, bound = sys.argv[1:7]
bound = float(bound)
want_children = [c for c in children.split(',') if c]
con = open(console, errors='replace').read().replace('\r', '')
out, notes = [], []


def check(name, good, text):
    out.append(('ok %s # %s' if good else 'bad %s: %s') % (name, text))


# ─── the capture ────────────────────────────────────────────────────────
samples, comms, forks, forks_order, mmaps = [], [], {}, {}, collections.defaultdict(list)
for l in open(dump, errors='replace'):
    f = dict(w.split('=', 1) for w in l.split()[1:] if '=' in w)
    kind = l.split(' ', 1)[0]
    if kind == 'SAMPLE':
        samples.append((int(f['time']), int(f['pid'])))
    elif kind == 'COMM':
        comms.append((int(f['pid']), int(f['tid']), int(f.get('time', 0)), f['exec'] == '1',
                      f['snapshot'] == '1', l.split('comm=', 1)[1].rstrip('\n')))
    elif kind == 'TASK' and l.split()[1] == 'fork' and f['pid'] == f['tid']:
        forks[int(f['pid'])] = int(f['ppid'])  # a new process, not a thread
        forks_order[int(f['pid'])] = len(forks_order)
    elif kind == 'MMAP' and f['snapshot'] == '0':
        mmaps[int(f['pid'])].append(l.split(' file=', 1)[1].rstrip('\n'))
samples.sort()
rep = open(report, errors='replace').read()
trig = re.search(r'trigger: (\S+) fired at ([0-9.]+) s \(clock ([0-9.]+) s\): (.*?); window', rep)

# ─── the hand-over, on the samples' clock ───────────────────────────────
ho = re.search(r'PL-HANDOVER printk=([0-9.]+) init=(\S+)', con)
kc = re.search(r'PL-KCLOCK printk=([0-9.]+) (uptime|monotonic)=([0-9.]+)\.\.([0-9.]+)', con)
first = samples[0][0] / 1e9 if samples else None
init_exec = [c[2] for c in comms if c[0] == 1 and c[3] and not c[4]]
if not ho or not kc or first is None:
    check('handover', False, 'no %s' % ', '.join(
        w for w, v in (('PL-HANDOVER line', ho), ('PL-KCLOCK line', kc), ('sample', first)) if not v))
else:
    h, k, a, b = float(ho.group(1)), float(kc.group(1)), float(kc.group(3)), float(kc.group(4))
    b += 0.01 if kc.group(2) == 'uptime' else 1e-6  # /proc/uptime: 2 decimals, truncated
    # the record's printk time k was taken between the reads a and b: the
    # hand-over at h on the printk clock is in [h - k + a, h - k + b]
    # on the samples' (CLOCK_MONOTONIC; /proc/uptime is CLOCK_BOOTTIME,
    # the same on a board that never suspends)
    lo, hi = h - k + a, h - k + b
    lat_lo, lat_hi = first - hi, first - lo
    txt = ('the kernel ran %s at %.6f s (printk clock; %.6f s on the samples\' clock by '
           'PL-KCLOCK, ±%.1f ms); first sample %.1f ms after it' %
           (ho.group(2), h, (lo + hi) / 2, (hi - lo) / 2 * 1e3, (first - (lo + hi) / 2) * 1e3))
    if init_exec and init_exec[0]:
        txt += ', the real /init exec\'d %.1f ms after it' % ((init_exec[0] / 1e9 - (lo + hi) / 2) * 1e3)
    good = ho.group(2) == '/perflens-agent' and lat_hi >= 0
    if ho.group(2) != '/perflens-agent':
        txt += '; the kernel did not hand over to /perflens-agent'
    if lat_hi < 0:
        txt += '; a sample before the hand-over: the clocks disagree'
    if init_exec and init_exec[0] and init_exec[0] / 1e9 < first:
        good = False
        txt += '; /init was exec\'d before the first sample: it ran unrecorded'
    elif lat_lo > bound:
        txt += ' (more than the %.1f s PID 1 waits for the recorder: PID 1 waited its ' \
               'whole time, the recorder still started sampling before /init ran)' % bound
    if not init_exec:
        good = False
        txt += '; no exec of /init (pid 1) in the capture'
    check('handover', good, txt)
    notes.append('hand-over (printk) %.3f s, first sample +%.0f ms%s' % (
        h, (first - (lo + hi) / 2) * 1e3,
        ', /init exec\'d +%.0f ms' % ((init_exec[0] / 1e9 - (lo + hi) / 2) * 1e3)
        if init_exec and init_exec[0] else ''))

# ─── init and its children ──────────────────────────────────────────────
def ancestry_has_1(pid):
    for _ in range(64):
        if pid == 1:
            return True
        if pid not in forks:
            return False
        pid = forks[pid]
    return False


tree = [p for p in forks if ancestry_has_1(p)]
# a process's name: its last comm (busybox's applets are exec'd as
# /proc/self/exe, which the kernel names "exe", then name themselves with
# prctl; or forked and run without an exec); its program: the file its
# exec mapped, else its parent's (a fork runs the same program)
name, execd_pids = {}, set()
for pid, tid, t, ex, snap, comm in comms:
    if pid == tid:
        name[pid] = comm
        if ex and not snap:
            execd_pids.add(pid)


def program(pid):
    for _ in range(64):
        for f in mmaps.get(pid, []) if pid in execd_pids or pid == 1 else []:
            if f.startswith('/') and '.so' not in f:
                return f
        if pid not in forks:
            return None
        pid = forks[pid]
    return None


groups = collections.OrderedDict()
for pid in sorted(tree, key=lambda p: forks_order.get(p, 0)):
    if name.get(pid) and (pid in execd_pids or name.get(pid) != name.get(forks[pid])):
        groups.setdefault((name[pid], program(pid) or '?', pid in execd_pids), []).append(pid)
missing = [c for c in want_children if not any(k[0] == c for k in groups)]
init_name, init_prog = name.get(1), program(1)
listing = ', '.join('%s%s (%s%s)' % (c, ' x%d' % len(p) if len(p) > 1 else '', prog,
                                     '' if ex else ', forked')
                    for (c, prog, ex), p in groups.items())
good = init_name == 'init' and init_prog and not missing and all(
    prog != '?' for (c, prog, ex) in groups)
check('init-children', good, 'pid 1 %s (%s), %d processes under it, named: %s%s' % (
    init_name, init_prog, len(tree), listing,
    '; missing: ' + ', '.join(missing) if missing else ''))
notes.append('pid 1 `%s` (%s), %d processes under it: %s' % (init_name, init_prog, len(tree),
                                                             listing))

# ─── the trigger: the board's agent is up ───────────────────────────────
up = None
if not trig:
    check('trigger', False, 'no trigger line in the report')
else:
    up = float(trig.group(3))
    m = re.match(r'perflens-agent \(pid (\d+)\) started', trig.group(4))
    # one: the file the recorder saved at boot, not a snapshot the
    # viewer's request made (that one would say "viewer" too)
    ntrig = len(re.findall(r'^  trigger: ', rep, re.M))
    good = trig.group(1) == 'proc:^perflens-agent$' and m and int(m.group(1)) in tree
    check('trigger', good and ntrig == 1, '%s fired: %s (%.3f s after the first record)%s%s' % (
        trig.group(1), trig.group(4), float(trig.group(2)),
        '' if good else ': not the agent init started',
        '' if ntrig == 1 else '; %d triggers in the file, not the boot\'s alone' % ntrig))

# ─── samples before the agent is up, and their names ────────────────────
if up is not None and samples:
    before = [s for s in samples if s[0] / 1e9 < up]
    mine = [s for s in before if s[1] == 1 or s[1] in tree]
    check('samples-before-up', len(before) > 0 and len(mine) > 0,
          '%d of %d samples before the board\'s agent started (%.3f s of boot recorded), %d of '
          'them in init or its children' % (len(before), len(samples),
                                              up - samples[0][0] / 1e9, len(mine)))
    notes.append('%d samples before it, %d in init\'s processes' % (len(before), len(mine)))
rows = []
t = False
for l in open(report_before, errors='replace'):
    if l.startswith('Top functions'):
        t = True
        continue
    if t and not l.strip():
        break
    m = re.match(r'\s+([0-9.]+)%\s+([0-9.]+)%\s+(\d+)\s+(.*?)\s+(\S+)$', l.rstrip('\n'))
    if t and m:
        rows.append((float(m.group(1)), m.group(4).strip(), m.group(5)))
def is_named(fn):
    return not re.match(r'(0x[0-9a-f]+|\?|\[.*\])$', fn)


kern = [r for r in rows if r[2] == '[kernel]' and is_named(r[1])]
named = [r for r in rows if is_named(r[1])]
check('functions-named', len(kern) > 0,
      '%d of the top %d functions before the agent started named (%.1f%% of the samples), '
      'kernel ones from kallsyms: %s' % (len(named), len(rows), sum(r[0] for r in named),
                                         ', '.join(r[1] for r in kern[:4]) or 'none'))
notes.append('top functions before it: %s' % ', '.join('%s %.1f%%' % (r[1], r[0]) for r in rows[:4]))
lost = re.search(r'LOST (\d+)', rep)
print('\n'.join(out))
print('note ' + '; '.join(notes))
print('figures %d %s' % (len(samples), lost.group(1) if lost else 0))
