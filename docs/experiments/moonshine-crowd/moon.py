# Moonshine tiny-en on each file of /tmp/msexp/index.json, each in a stream of its own (fresh.py): its lines (one per
# stretch of speech its voice-activity detection found), their spans and the time each transcription took.
import json, os, sys, time, wave
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh import lines
index = json.load(open("/tmp/msexp/index.json"))
out = []
for e in index:
    with wave.open(e["path"]) as w:
        a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
    t0 = time.perf_counter()
    found = lines(a.tolist())
    ms = (time.perf_counter() - t0) * 1000
    out.append(dict(e, moonshine=" ".join(l[0] for l in found), lines=[l[0] for l in found], spans=[(l[1], l[2]) for l in found],
                    moonshine_ms=ms, seconds=len(a) / 16000))
json.dump(out, open("/tmp/msexp/moon.json", "w"), indent=0)
print(np.percentile([o["moonshine_ms"] for o in out], [50, 95]))
