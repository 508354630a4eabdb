# Timestamp filters replayed on the stamps the probe recorded (analyze.py says how): the
# engine's (FrameTimeFilter: 4 Hz decaying to 0.1 Hz over 5 s) and others, each run on both
# devices' stamps; printed per run: the spread and the p95 deviation (ms) of the two estimates'
# difference from FROM seconds after opening (default 2.5; on the rig's null sink the truth is
# a constant).
#   python3 bench/clock-probe/sim.py [FROM]   (every /tmp/hs-probe-*-0.txt with its -1.txt)
import sys, math, statistics as st, glob
NPF=1e9/48000
def load(p):
    out=[]
    for line in open(p):
        a=line.split()
        if int(a[0])<0: continue
        out.append((int(a[0]),int(a[1])))
    return out
class DLL:
    def __init__(s,bw=0.1,acq=4,acqs=5):
        s.bw,s.acq,s.acqs=bw,acq,acqs; s.locked=False; s.npf=NPF; s.ls=0
    def update(s,f,t):
        if not s.locked: s.af,s.an,s.locked=f,float(t),True; return
        n=f-s.af
        if n<=0: return
        pred=s.an+n*s.npf; e=t-pred
        dt=n*s.npf/1e9; s.ls+=dt
        mix=min(s.ls/s.acqs,1); bw=s.acq+(s.bw-s.acq)*mix
        om=min(2*math.pi*bw*dt,0.7); b=math.sqrt(2)*om; c=om*om
        s.af=f; s.an=pred+b*e; s.npf+=c*e/n
    def at(s,f): return s.an+(f-s.af)*s.npf
class LS:
    """least squares of nanos on frames over the last `win` seconds"""
    def __init__(s,win=1e9,fixed=False): s.pts=[]; s.win=win; s.fixed=fixed
    def update(s,f,t):
        s.pts.append((f,t))
        while s.pts and (t-s.pts[0][1])/1e9>s.win: s.pts.pop(0)
        fs=[p[0] for p in s.pts]; ts=[p[1] for p in s.pts]
        mf=sum(fs)/len(fs); mt=sum(ts)/len(ts)
        if s.fixed or len(fs)<10: s.slope=NPF
        else:
            var=sum((x-mf)**2 for x in fs); cov=sum((x-mf)*(y-mt) for x,y in zip(fs,ts))
            s.slope=cov/var if var>0 else NPF
            s.slope=min(max(s.slope,NPF*0.995),NPF*1.005)
        s.mf,s.mt=mf,mt
    def at(s,f): return s.mt+(f-s.mf)*s.slope
def run(est, stamps, t0, grid):
    # residual of the estimate (ns - f*NPF) sampled at times of grid
    out={}; i=0
    for f,t in stamps:
        est.update(f,t)
        k=round((t-t0)/1e8)
        out[k]=(est.at(f)-f*NPF)/1e6
    return out
FROM = float(sys.argv[1]) if len(sys.argv) > 1 else 2.5  # seconds after the first stamp
def evaluate(pair, mk):
    a,b=load(pair[0]),load(pair[1])
    t0=min(a[0][1],b[0][1])
    ra,rb=run(mk(),a,t0,None),run(mk(),b,t0,None)
    ks=sorted(k for k in ra if k in rb and k>=FROM*10)
    d=[ra[k]-rb[k] for k in ks]
    m=st.median(d)
    return max(d)-min(d), sorted(abs(x-m) for x in d)[int(len(d)*.95)]
pairs=[(p, p[:-6]+'-1.txt') for p in sorted(glob.glob('/tmp/hs-probe-*-0.txt'))]
print("runs:", " ".join(p[0].split('-')[2] for p in pairs))
cands={'dll 4->0.1/5s':lambda:DLL(),'dll 4->0.02/5s':lambda:DLL(0.02),'dll 1->0.02/10s':lambda:DLL(0.02,1,10),
       'ls 1s':lambda:LS(1),'ls 3s':lambda:LS(3),'ls 10s':lambda:LS(10),'ls fixed 3s':lambda:LS(3,True),'ls fixed all':lambda:LS(1e9,True)}
for name,mk in cands.items():
    res=[evaluate(p,mk) for p in pairs]
    print(f"{name:18s} spread " + " ".join(f"{r[0]:.2f}" for r in res) + " | p95dev " + " ".join(f"{r[1]:.2f}" for r in res))
