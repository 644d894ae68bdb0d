# Medians of an A/B sitting folder: pods/s or events/s, and CPU ms per run, per scenario; A (before) against B (after).
import glob, os, re, statistics, sys

folder = sys.argv[1] if len(sys.argv) > 1 else '.'


def collect(side, bench, pattern):
    values = {}
    for line in open(os.path.join(folder, f'{bench}-{side}.txt')):
        m = re.match(pattern, line)
        if m:
            values.setdefault(m.group(1), []).append(float(m.group(2)))
    return values


patterns = [
    ('scheduling', 'pods/s', r'^(\S+): (\d+) \('),
    ('scheduling', 'cpu ms', r'^cpu (\S+): (\d+) ms'),
    ('replay', 'k events/s', r'^(\S+)\s+\d+ events.*replay (\d+)k events/s'),
    ('replay', 'cpu ms', r'^cpu (\S+): (\d+) ms'),
]
for bench, unit, pattern in patterns:
    a_all, b_all = collect('A', bench, pattern), collect('B', bench, pattern)
    for name, a in a_all.items():
        b = b_all.get(name, [])
        ma, mb = statistics.median(a), statistics.median(b)
        print(f'{bench:10} {unit:10} {name:26} A n={len(a):2} median {ma:8.0f}  B n={len(b):2} median {mb:8.0f}  B/A {mb / ma:.3f}')
