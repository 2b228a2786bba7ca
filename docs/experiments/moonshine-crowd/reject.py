# Ordinary speech and near misses, said by the held-out festival voices, clean and in a 10 dB crowd: how near does
# Moonshine's nearest line come to a command, against the commands it got right?
import json, os, random, wave, sys
import numpy as np
sys.argv = ["x"]
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "make.py")).read().split("os.makedirs(f\"{D}/src\"")[0]
exec(src)
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "score.py")).read().split("rows = collections")[0])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh import lines as fresh_lines
ordinary = ["I would like a cup of tea please", "The train to Espoo leaves in ten minutes", "Have you seen my keys anywhere",
  "It is colder than I expected", "We could walk along the shore instead", "Please call me when you get home",
  "The museum opens at ten tomorrow", "I need to buy some milk and eggs", "Turn left after the bakery",
  "Is this seat taken", "My phone battery is almost empty", "That was a really long meeting",
  "turn on the lights", "call us off", "speak to me later", "mute the television", "where is the station",
  "what is ahead of us today", "places to eat nearby", "use the other door"]
talk = []
for i, s in enumerate(everyday):
    for v in ["en-us", "en+f3", "en+m3", "en-gb"]:
        talk.append((f"espeak-{v}", read(f"{D}/src/e{i}-{v}.wav")))
    for name in ["ked", "slt"]:
        talk.append((f"festival-{name}", read(f"{D}/src/f{i}-{name}.wav")))
rng = random.Random(11)
voices = {"ked": "voice_ked_diphone", "slt": "voice_cmu_us_slt_arctic_hts"}
res = []
for name, fv in voices.items():
    for k, c in enumerate(ordinary):
        speech = festival(c, fv, f"{D}/src/o{k}-{name}.wav")
        pad = np.zeros(4800, dtype=np.float32); speech = np.concatenate([pad, speech, pad])
        for snr in [None, 10]:
            out = mix(speech, talk, f"festival-{name}", snr, rng)
            try:
                lines = [l[0] for l in fresh_lines(out.tolist())]
            except Exception as error:
                print("moonshine failed:", name, snr, c, error); lines = []
            best = min((snap(x) for x in lines or [""]), key=lambda s: s[1])
            res.append((name, "clean" if snr is None else "10dB", c, lines, best[0], best[1]))
# the commands' distances (right ones) from the earlier run
cmd = []
for e in moon:
    best = min((snap(x) for x in e["lines"] or [""]), key=lambda s: s[1])
    cmd.append((e["voice"], e["condition"], best[0] == e["text"], best[1]))
for thr in [0.1, 0.2, 0.3, 0.4, 0.5]:
    for v in ["ked", "slt"]:
        right = [c for c in cmd if c[0] == v and c[2]]
        kept = sum(1 for c in right if c[3] <= thr)
        acc = {cond: sum(1 for c in cmd if c[0] == v and c[1] == cond and c[2] and c[3] <= thr) for cond in ["clean", "10dB", "5dB"]}
        rej = sum(1 for r in res if r[0] == v and r[5] > thr)
        n = sum(1 for r in res if r[0] == v)
        print(f"threshold {thr}: {v}: commands right and kept clean/10/5 dB {acc['clean']}/{acc['10dB']}/{acc['5dB']} of 34; ordinary rejected {rej}/{n}")
for r in res:
    if r[5] <= 0.3: print("taken:", r[0], r[1], r[2], r[3], "->", r[4], round(r[5], 2))
