#!/usr/bin/env python3
"""Fits the voice-command rejection model (Sources/Speech/Recognition/Confidence.swift, ConfidenceModel.tuned).

  SOUNDSCAPE_ASR_DUMP=/tmp/asr.jsonl soundscape bench --only speech
  scripts/fit-confidence.py /tmp/asr.jsonl worstWord,meanWord,speechInFillers,utterance,phoneErrorRate,phoneCountRatio,framesPerPhone,everydayEvidence,logMargin 2

Fits a logistic regression on the TUNING split only (VoiceCorpus.isTuning: in-grammar voices 0, 2, 4; even
out-of-grammar sentences), positives = commands recognized word for word (every condition), negatives = out-of-grammar
sentences the grammar turned into a command. The threshold rejects at most the given percentage (last
argument) of the tuning split's clean commands, misheard ones included. Prints the figures on the tuning split, the held-out split
and both, and the coefficients for Swift (add -z-threshold to the bias to keep the threshold at 0.5).

  BUDGET=35 scripts/fit-confidence.py /tmp/asr.jsonl FEATURES,logMargin 2

With BUDGET (milliseconds, VoiceRecognizer.marginBudget) the features must end with logMargin: it fits the model
with the N-best margin and the fallback without it (ConfidenceModel.tunedWithoutMargin), and chooses their two
thresholds together, as the recognizer uses them: an utterance whose margin could change the decision and whose
dumped latency (margin always measured) is over the budget is decided by the fallback. The threshold with the margin
is the one of the pair that rejects the most tuning out-of-grammar sentences while rejecting at most TARGET % of the
tuning clean commands; the fallback's is then the one at which it agrees most often with the model with the margin
on the tuning utterances that overrun (it stands in for that model).
"""
import json, sys, numpy as np
rows=[json.loads(l) for l in open(sys.argv[1])]
FEATS=sys.argv[2].split(',') if len(sys.argv)>2 else ['worstWord','meanWord','speechInFillers','utterance','phoneErrorRate']
def feat(r):
    v=[]
    for f in FEATS:
        if f=='rate': v.append(r['wordCount']/max(r['speechFrames'],1)*100)
        elif f=='sframes': v.append(r['speechFrames']/100.0)
        elif f=='logMargin': v.append(np.log1p(max(r['nbestMargin'],0)))
        else: v.append(float(r[f]))
    return v
def tuning(r):
    return (r['variant']%2==0) if r['kind']=='in' else (r['sentence']%2==0)
def fit(X,y,w,l2=1e-3,iters=3000):
    mu=X.mean(0); sd=X.std(0)+1e-9; Z=(X-mu)/sd
    Z=np.hstack([Z,np.ones((len(Z),1))]); b=np.zeros(Z.shape[1])
    for it in range(iters):
        p=1/(1+np.exp(-Z@b)); g=Z.T@((p-y)*w)/w.sum()+l2*np.r_[b[:-1],0]
        H=(Z*(p*(1-p)*w)[:,None]).T@Z/w.sum()+l2*np.eye(len(b))
        b-=np.linalg.solve(H,g)
        if np.abs(g).max()<1e-10: break
    wts=b[:-1]/sd; bias=b[-1]-(b[:-1]*mu/sd).sum()
    return wts,bias
tr=[r for r in rows if tuning(r) and r['parsed']]
pos=[r for r in tr if r['kind']=='in' and r['correct']]
neg=[r for r in tr if r['kind']=='oog']
X=np.array([feat(r) for r in pos+neg]); y=np.r_[np.ones(len(pos)),np.zeros(len(neg))]
w=np.r_[np.ones(len(pos))/len(pos),np.ones(len(neg))/len(neg)]*len(y)
import os
wts,bias=fit(X,y,w,l2=float(os.environ.get("L2","1e-3")))
def z(r): return bias+np.dot(wts,feat(r))
# threshold: the largest z (in steps of 0.01) at which at most TARGET % of the tuning split's clean commands are
# rejected, counting those the grammar misheard or matched to nothing.
target=float(sys.argv[3]) if len(sys.argv)>3 else 2
clean_t=[r for r in rows if r['kind']=='in' and r['condition']=='clean' and tuning(r)]
thr=-5.0
for t in np.arange(-5,2,0.01):
    if sum(1 for r in clean_t if not r['parsed'] or z(r)<t)<=target/100*len(clean_t): thr=t
def report(split):
    sel=[r for r in rows if split(r)]
    out={}
    for c in ['clean','20 dB','10 dB','5 dB']:
        s=[r for r in sel if r['kind']=='in' and r['condition']==c]
        if not s: continue
        acc=sum(1 for r in s if r['parsed'] and r['correct'] and z(r)>=thr)/len(s)
        rej=sum(1 for r in s if not r['parsed'] or z(r)<thr)/len(s)
        out[c]=(round(100*acc,1),round(100*rej,2))
    o=[r for r in sel if r['kind']=='oog']
    out['oogrej']=round(100*sum(1 for r in o if not r['parsed'] or z(r)<thr)/max(len(o),1),1)
    return out
print('feats',FEATS); print('weights',dict(zip(FEATS,np.round(wts,4))),'bias',round(bias,4),'z-threshold',round(thr,4))
print('tuning  ',report(tuning)); print('heldout ',report(lambda r: not tuning(r))); print('all     ',report(lambda r: True))
names={'everydayMargin':'everydayMarginWeight','everydayEvidence':'everydayEvidenceWeight','worstWord':'worstWordWeight','meanWord':'meanWordWeight','utterance':'utteranceWeight','speechInFillers':'speechInFillersWeight','phoneErrorRate':'phoneErrorRateWeight','phoneCountRatio':'phoneCountRatioWeight','framesPerPhone':'framesPerPhoneWeight','logMargin':'nbestMarginWeight(log1p)'}
print('swift: bias: %.6g, '%bias + ', '.join('%s: %.6g'%(names.get(f,f),w) for f,w in zip(FEATS,wts)) + ', z-threshold %.6g'%thr)

if os.environ.get("BUDGET"):
    assert FEATS[-1]=='logMargin', 'with BUDGET the last feature must be logMargin'
    budget=float(os.environ["BUDGET"]); CAP=60.0
    def featc(r, F):
        return [np.log1p(min(max(r['nbestMargin'],0),CAP)) if f=='logMargin' else (r[f] if f in r else feat(r)[FEATS.index(f)]) for f in F]
    base=FEATS[:-1]
    def fitF(F):
        X=np.array([featc(r,F) for r in pos+neg]); return fit(X,y,w,l2=float(os.environ.get("L2","1e-3")))
    A=fitF(FEATS); B=fitF(base)
    span=abs(A[0][-1])*np.log1p(CAP)
    for r in rows:
        r['_zA']=A[1]+np.dot(A[0],featc(r,FEATS)); r['_z0']=r['_zA']-A[0][-1]*featc(r,FEATS)[-1]
        r['_zB']=B[1]+np.dot(B[0],featc(r,base))
    def overruns(r,tA):
        canChange = r['_z0']<tA<=r['_z0']+span if A[0][-1]>0 else r['_z0']-span<tA<=r['_z0']
        return canChange and r['latencyMs']>budget
    def accepted(r,tA,tB):
        if not r['parsed']: return False
        if overruns(r,tA): return r['_zB']>=tB
        return r['_zA']>=tA
    oog_t=[r for r in rows if r['kind']=='oog' and tuning(r)]
    # Many pairs tie on the few tuning sentences: take the middle of the tied ones (in rank order) rather than an edge.
    grid=np.arange(-5,3,0.05); found=[]
    for tA in grid:
        for tB in grid:
            if sum(1 for r in clean_t if not accepted(r,tA,tB))>target/100*len(clean_t): continue
            found.append((sum(1 for r in oog_t if not accepted(r,tA,tB)),tA,tB))
    top=max(f[0] for f in found); tied=[f for f in found if f[0]==top]
    _,tA,tB=tied[len(tied)//2]
    print('%d threshold pairs tie; tA %.2f…%.2f, tB %.2f…%.2f'%(len(tied),min(f[1] for f in tied),max(f[1] for f in tied),min(f[2] for f in tied),max(f[2] for f in tied)))
    # The fallback stands in for the model with the margin: its threshold is then the one at which it decides as
    # that model would have on the tuning utterances whose search overruns (the middle of the best ones).
    over=[r for r in rows if tuning(r) and r['kind'] in ('in','oog') and r['parsed'] and overruns(r,tA)]
    agree=[(sum(1 for r in over if (r['_zB']>=t)==(r['_zA']>=tA)),t) for t in grid]
    best=max(a for a,_ in agree); ties=[t for a,t in agree if a==best]
    print('fallback: agrees with the margin model on %d of %d overrunning tuning utterances at tB %.2f…%.2f (joint choice %.2f: %d)'
          %(best,len(over),ties[0],ties[-1],tB,sum(1 for r in over if (r['_zB']>=tB)==(r['_zA']>=tA))))
    tB=ties[len(ties)//2]
    def report2(split):
        sel=[r for r in rows if split(r)]; out={}
        for c in ['clean','20 dB','10 dB','5 dB']:
            s=[r for r in sel if r['kind']=='in' and r['condition']==c]
            if s: out[c]=(round(100*sum(1 for r in s if r['correct'] and accepted(r,tA,tB))/len(s),1),round(100*sum(1 for r in s if not accepted(r,tA,tB))/len(s),2))
        o=[r for r in sel if r['kind']=='oog']; out['oogrej']=round(100*sum(1 for r in o if not accepted(r,tA,tB))/max(len(o),1),1)
        return out
    print('joint, budget %g ms: thresholds with margin %.2f, without %.2f'%(budget,tA,tB))
    print('tuning  ',report2(tuning)); print('heldout ',report2(lambda r: not tuning(r))); print('all     ',report2(lambda r: True))
    for name,(wts2,bias2),F,t in [('tuned',A,FEATS,tA),('tunedWithoutMargin',B,base,tB)]:
        print('swift %s: bias: %.6g, '%(name,bias2-t) + ', '.join('%s: %.6g'%(names.get(f,f),x) for f,x in zip(F,wts2)))
