# Medians of an A/B sitting folder: scheduling pods/s and replay events/s per scenario, A (before) against B (after).
import re,glob,statistics,sys
def collect(files, pat):
    vals={}
    for f in files:
        for line in open(f):
            m=re.match(pat,line)
            if m: vals.setdefault(m.group(1),[]).append(float(m.group(2)))
    return vals
for side in 'AB':
    s=collect([f'scheduling-{side}.txt',f'scheduling-more-{side}.txt'], r'^(\S+): (\d+) \(')
    r=collect([f'replay-{side}.txt',f'replay-small-{side}.txt'], r'^(\S+)\s+\d+ events.*replay (\d+)k events/s')
    globals()[side]=(s,r)
for kind,i in (('scheduling pods/s',0),('replay k events/s',1)):
    for k in A[i]:
        a=A[i][k]; b=B[i].get(k,[])
        ma=statistics.median(a); mb=statistics.median(b)
        print(f"{kind:18} {k:28} A n={len(a)} median {ma:.0f}  B n={len(b)} median {mb:.0f}  B/A {mb/ma:.3f}   A={a} B={b}")
