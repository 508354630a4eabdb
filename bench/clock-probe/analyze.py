# The two devices' clock estimates after opening, from the stamps the temporary probe
# (bench/clock-probe/probe.patch, applied to a scratch checkout: `git apply`) dumps at the
# studio's exit, /tmp/hs-probe-PID-N.txt (one per device: frames played, stamp ns, the filter's
# and the grid's time of the next frame). Every 0.25 s: each device's stamp and grid residual
# against the nominal 48 kHz line (ms, relative to its last 3 s), then every 0.5 s the two
# devices' difference: the skew a start placed then would have, up to a constant.
#   python3 bench/clock-probe/analyze.py /tmp/hs-probe-PID-0.txt /tmp/hs-probe-PID-1.txt
import sys, statistics as st
NPF = 1e9/48000
def load(p):
    rows=[]
    for line in open(p):
        a=line.split()
        rows.append((int(a[0]),int(a[1]),float(a[2]),float(a[3]),float(a[4]),int(a[5]),int(a[6])))
    return rows
files=sys.argv[1:]
data=[load(p) for p in files]
t0=min(r[1] for d in data for r in d if r[0]>=0)
def series(d):
    out=[]
    for fr,ns,fs,g,fn,nf,fl in d:
        if fr<0: out.append((None,'RESYNC')); continue
        out.append(((ns-t0)/1e9, (ns-fr*NPF)/1e6, (g-nf*NPF)/1e6, (fn-nf*NPF)/1e6, fl))
    return out
S=[series(d) for d in data]
# reference: median of the last 3 s
refs=[]
for s in S:
    pts=[x for x in s if x[0] is not None]
    end=pts[-1][0]
    tail=[x for x in pts if x[0]>end-3]
    refs.append((st.median(x[1] for x in tail), st.median(x[2] for x in tail)))
print("files:", files, "resyncs:", [sum(1 for x in s if x[0] is None) for s in S])
step=0.25
end=max(x[0] for s in S for x in s if x[0] is not None)
t=0
while t<end:
    line=f"{t:6.2f}"
    for s,(rs,rg) in zip(S,refs):
        w=[x for x in s if x[0] is not None and t<=x[0]<t+step]
        if w:
            line+=f" | stamp {st.median(x[1] for x in w)-rs:+7.3f} [{min(x[1] for x in w)-rs:+7.3f},{max(x[1] for x in w)-rs:+7.3f}] grid {st.median(x[2] for x in w)-rg:+7.3f} fl{w[-1][4]}"
        else: line+=" | "+" "*50
    print(line); t+=step
print("diff (dev0 - dev1): t stampdiff griddiff")
t=0
while t<end:
    w=[[x for x in s if x[0] is not None and t<=x[0]<t+step] for s in S]
    if all(w):
        print(f"{t:6.2f} {st.median(x[1] for x in w[0])-st.median(x[1] for x in w[1]):+7.3f} {st.median(x[2] for x in w[0])-st.median(x[2] for x in w[1]):+7.3f}")
    t+=0.5
