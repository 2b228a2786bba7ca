# How many of the 34 commands at least one of the four recognizers heard (nearest command by the Moonshine look's
# proxy): Moonshine tiny, Whisper tiny.en and base (their transcripts), and PocketSphinx (its words exactly).
import collections, os
here = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(here, "../moonshine-crowd/score.py")).read().split("rows = collections")[0])
base = read_listen("/tmp/msexp/listen-base.tsv")
counts = collections.defaultdict(collections.Counter)
for e in moon:
    c = counts[(e["voice"], e["condition"])]
    want = e["text"]
    tiny, big = listen.get(e["path"], {}), base.get(e["path"], {})
    heard = [snap(e["moonshine"])[0] == want, snap(tiny.get("transcript", ""))[0] == want,
             snap(big.get("transcript", ""))[0] == want, norm(tiny.get("pocketsphinx", {}).get("text", "")) == norm(want)]
    c["n"] += 1
    c["any"] += any(heard)
for key in sorted(counts):
    print(f"{key[0]} {key[1]}: at least one of the four right {counts[key]['any']}/{counts[key]['n']}")
