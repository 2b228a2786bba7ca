import json, wave, os
import numpy as np
moon = json.load(open("/tmp/msexp/moon.json"))
os.makedirs("/tmp/msexp/seg", exist_ok=True)
segs = []
for n, e in enumerate(moon):
    with wave.open(e["path"]) as w:
        a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
    for k, (start, dur) in enumerate(e["spans"]):
        # the segment with 0.1 s either side
        s = max(0, int((start - 0.1) * 16000)); t = min(len(a), int((start + dur + 0.1) * 16000))
        p = f"/tmp/msexp/seg/{n:03d}-{k}.wav"
        with wave.open(p, "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(a[s:t].tobytes())
        segs.append({"file": n, "k": k, "path": p, "start": start, "dur": dur})
json.dump(segs, open("/tmp/msexp/segs.json", "w"))
print(len(segs), "segments")
