"""irq_report.py: the handler and vector rows of `perflens report --irq`
(viewer/cli/report-irq.c: NUMBER COUNT TOTAL_MS AVG_US MAX_US SHARE%
PER_CPU NAME), for the tests that hold them to other counts."""


def rows(text):
    """(kind, number, name, count) of each row; kind 'hardirq' or 'softirq'."""
    kind = None
    for line in text.split('\n'):
        if line.startswith('Hardirqs'):
            kind = 'hardirq'
        elif line.startswith('Softirqs'):
            kind = 'softirq'
        elif line.startswith('Per CPU'):
            kind = None
        f = line.split()
        if kind and len(f) >= 8 and f[0].isdigit() and f[1].isdigit():
            yield kind, int(f[0]), f[-1], int(f[1])


def counts(path):
    """{(kind, number): count} over a report file, summed over a shared
    line's handlers, the rows counting nothing left out."""
    n = {}
    for kind, number, _, count in rows(open(path).read()):
        n[(kind, number)] = n.get((kind, number), 0) + count
    return {k: v for k, v in n.items() if v}


def proc_rows(text):
    """{(kind, key): (recorded, proc, missing)} of the "Recorded against
    /proc" section (the agent's reads at the session's start and end);
    key the IRQ number as text or the vector's name."""
    rows, kind, inside = {}, None, False
    for line in text.split('\n'):
        if line.startswith('Recorded against /proc'):
            inside = True
            continue
        if not inside:
            continue
        f = line.split()
        if line.startswith('  missing: ') or not f:
            break
        if f[0] in ('IRQ', 'Vector'):
            kind = 'hardirq' if f[0] == 'IRQ' else 'softirq'
            continue
        if kind and len(f) >= 5:
            rows[(kind, f[0])] = (int(f[1]), int(f[2]), int(f[3]))
    return rows
