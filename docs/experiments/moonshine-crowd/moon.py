# Moonshine tiny-en on each file of /tmp/msexp/index.json: its lines (one per stretch of speech its voice-activity
# detection found), their spans and the time each transcription took.
import json, time, os, wave
import numpy as np
from moonshine_voice import Transcriber, ModelArch, get_assets_path
t = Transcriber(os.path.join(get_assets_path(), "tiny-en"), ModelArch.TINY)
index = json.load(open("/tmp/msexp/index.json"))
out = []
for e in index:
    with wave.open(e["path"]) as w:
        a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
    t0 = time.perf_counter()
    tr = t.transcribe_without_streaming(a.tolist(), 16000)
    ms = (time.perf_counter() - t0) * 1000
    out.append(dict(e, moonshine=" ".join(l.text for l in tr.lines), lines=[l.text for l in tr.lines], spans=[(l.start_time, l.duration) for l in tr.lines], moonshine_ms=ms, seconds=len(a) / 16000))
json.dump(out, open("/tmp/msexp/moon.json", "w"), indent=0)
print(np.percentile([o["moonshine_ms"] for o in out], [50, 95]))
