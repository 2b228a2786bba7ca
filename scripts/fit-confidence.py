#!/usr/bin/env python3
"""Fits the voice-command rejection model (Sources/Speech/Recognition/Confidence.swift, ConfidenceModel.tuned).

  SOUNDSCAPE_ASR_DUMP=/tmp/asr.jsonl soundscape bench --only speech
  scripts/fit-confidence.py /tmp/asr.jsonl worstWord,meanWord,speechInFillers,utterance,phoneErrorRate,phoneCountRatio,framesPerPhone,everydayMargin,logMargin 2

Fits a logistic regression on the TUNING split only (VoiceCorpus.isTuning: in-grammar voices 0, 2, 4; even
out-of-grammar sentences), positives = commands recognized word for word (every condition), negatives = out-of-grammar
sentences the grammar turned into a command. The threshold rejects at most the given percentage (last
argument) of the tuning split's clean commands, misheard ones included. Prints the figures on the tuning split, the held-out split
and both, and the coefficients for Swift (add -z-threshold to the bias to keep the threshold at 0.5).
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
names={'everydayMargin':'everydayMarginWeight','worstWord':'worstWordWeight','meanWord':'meanWordWeight','utterance':'utteranceWeight','speechInFillers':'speechInFillersWeight','phoneErrorRate':'phoneErrorRateWeight','phoneCountRatio':'phoneCountRatioWeight','framesPerPhone':'framesPerPhoneWeight','logMargin':'nbestMarginWeight(log1p)'}
print('swift: bias: %.6g, '%bias + ', '.join('%s: %.6g'%(names.get(f,f),w) for f,w in zip(FEATS,wts)) + ', z-threshold %.6g'%thr)
