# The tables of docs/measurements.md, "Moonshine tiny in a crowd": each recognizer's words snapped to the nearest of the
# 34 commands said (character edit distance over the length of the command), whole and line by line.
import json, re, sys, collections
moon = json.load(open("/tmp/msexp/moon.json"))
def read_listen(path):
    """`soundscape listen --json` for each file: path → its JSON ({} when it printed none)."""
    out = {}
    for line in open(path):
        p, j = line.rstrip("\n").split("\t", 1)
        try: out[p] = json.loads(j)
        except Exception: out[p] = {}
    return out
listen = read_listen("/tmp/msexp/listen.tsv")
commands = sorted({e["text"] for e in moon})
def norm(s):
    s = s.lower().replace("gps", "g p s").replace("-", " ")
    s = re.sub(r"[^a-z' ]", " ", s)
    return " ".join(s.split())
def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]
def snap(text):
    t = norm(text)
    best = min(commands, key=lambda c: lev(t, norm(c)) / max(len(norm(c)), 1))
    return best, lev(t, norm(best)) / max(len(norm(best)), 1)
def lines_of(text):
    return [x for x in re.split(r"(?<=[.?!])\s+", text) if x.strip()]
rows = collections.defaultdict(lambda: collections.Counter())
for e in moon:
    L = listen.get(e["path"], {})
    key = (e["voice"], e["condition"])
    c = rows[key]; c["n"] += 1
    want = e["text"]
    # exact words
    c["moon words"] += norm(e["moonshine"]) == norm(want)
    c["whisper words"] += norm(L.get("transcript", "")) == norm(want)
    # nearest of the 34 commands, whole transcript
    c["moon snap whole"] += snap(e["moonshine"])[0] == want
    c["whisper snap whole"] += snap(L.get("transcript", ""))[0] == want
    # nearest over each line separately (the line nearest to a command wins)
    best = min((snap(x) for x in e["lines"] or [""]), key=lambda s: s[1])
    c["moon snap best line"] += best[0] == want
    wl = min((snap(x) for x in lines_of(L.get("transcript", "")) or [""]), key=lambda s: s[1])
    c["whisper snap best line"] += wl[0] == want
    c["pocketsphinx alone"] += norm(L.get("pocketsphinx", {}).get("text", "")) == norm(want)
    intent_ok = L.get("intent") is not None and not L.get("rejected") and L.get("text") and norm(L.get("text")) == norm(want)
    c["program decision (words)"] += bool(intent_ok)
cols = ["moon words", "whisper words", "moon snap whole", "whisper snap whole", "moon snap best line", "whisper snap best line", "pocketsphinx alone", "program decision (words)"]
print("voice/cond\t" + "\t".join(cols))
for key in sorted(rows):
    c = rows[key]
    print(f"{key[0]} {key[1]}\t" + "\t".join(f"{c[k]}/{c['n']}" for k in cols))

# Whisper and PocketSphinx on the segments Moonshine's voice-activity detection found (the same cuts).
import os
if os.path.exists("/tmp/msexp/listenseg.tsv"):
    segs = json.load(open("/tmp/msexp/segs.json"))
    seglisten = read_listen("/tmp/msexp/listenseg.tsv")
    by_file = collections.defaultdict(list)
    for s in segs:
        if s["path"] in seglisten: by_file[s["file"]].append(seglisten[s["path"]])
    rows2 = collections.defaultdict(lambda: collections.Counter())
    for n, e in enumerate(moon):
        if n not in by_file: continue
        c = rows2[(e["voice"], e["condition"])]; c["n"] += 1
        want = e["text"]
        wl = min((snap(L.get("transcript", "")) for L in by_file[n]), key=lambda s: s[1])
        c["whisper on segments, best"] += wl[0] == want
        pl = min((snap(L.get("pocketsphinx", {}).get("text", "")) for L in by_file[n]), key=lambda s: s[1])
        c["pocketsphinx on segments, best"] += pl[0] == want
        taken = [L for L in by_file[n] if L.get("intent") and not L.get("rejected")]
        c["program on a segment: right taken"] += any(norm(L.get("text", "")) == norm(want) for L in taken)
        c["program on a segment: wrong taken"] += any(norm(L.get("text", "")) != norm(want) for L in taken)
    cols2 = ["whisper on segments, best", "pocketsphinx on segments, best", "program on a segment: right taken", "program on a segment: wrong taken"]
    print("\nvoice/cond\t" + "\t".join(cols2))
    for key in sorted(rows2):
        c = rows2[key]
        print(f"{key[0]} {key[1]}\t" + "\t".join(f"{c[k]}/{c['n']}" for k in cols2))
