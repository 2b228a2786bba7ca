# Builds the audio of the Moonshine-vs-Whisper look: held-out festival voices saying commands, clean and under a
# crowd of other voices (espeak-ng and the other festival voice) at 10 and 5 dB.
import subprocess, os, random, wave, json
import numpy as np
D = "/tmp/msexp"
commands = ["where am I", "what's around me", "what's ahead", "mark this place", "list markers", "nearby markers",
  "start preview", "repeat", "say the one before", "stop", "callouts off", "callouts on", "GPS accuracy",
  "nearest pharmacy", "speak faster", "speak slower", "speak louder", "speak quieter", "beacon louder",
  "beacon quieter", "mute beacon", "unmute beacon", "places on", "places off", "mobility on", "mobility off",
  "use metric", "use imperial", "undo", "redo", "sleep", "help", "set beacon on Kiasma", "take me to Stockmann"]
everyday = ["I think the bus is late again today", "Did you see the game last night", "We should get coffee after work",
  "My sister is moving to Tampere next month", "The weather was much better yesterday", "Can you hold the door for me",
  "I left my umbrella at the office", "They are building a new library downtown", "Let's meet at the corner at six",
  "This shop has the best bread in town", "How long have you been waiting here", "The children are on holiday this week"]
def read(path):
    with wave.open(path) as w:
        a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
    return a
def festival(text, voice, out):
    subprocess.run(["text2wave", "-F", "16000", "-eval", f"({voice})", "-o", out], input=text.encode(), check=True)
    return read(out)
def espeak(text, voice, out):
    subprocess.run(["espeak-ng", "-v", voice, "-w", out + ".raw.wav", text], check=True)
    subprocess.run(["sox", "-D", out + ".raw.wav", "-r", "16000", "-c", "1", "-b", "16", out], check=True)
    os.remove(out + ".raw.wav")
    return read(out)
def write(path, a):
    a = np.clip(a, -1, 1)
    with wave.open(path, "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
        w.writeframes((a * 32767).astype(np.int16).tobytes())
def mix(speech, talk, voice, snr, rng):
    """The command (with 0.3 s of silence either side) and 2-4 sentences of other voices looped beneath at `snr` dB."""
    out = speech.copy()
    if snr is None: return out
    others = [a for (who, a) in talk if who != voice]
    crowd = np.zeros_like(out)
    for _ in range(2 + rng.randrange(3)):
        t = others[rng.randrange(len(others))]
        gap = 3200; L = len(t) + gap; start = rng.randrange(L)
        for i in range(len(out)):
            j = (start + i) % L
            if j < len(t): crowd[i] += t[j]
    rs = np.sqrt(np.mean(speech[4800:-4800] ** 2)); rn = np.sqrt(np.mean(crowd ** 2))
    out = speech + crowd * (rs / rn) / (10 ** (snr / 20))
    peak = np.max(np.abs(out))
    return out * 0.99 / peak if peak > 0.99 else out
os.makedirs(f"{D}/src", exist_ok=True); os.makedirs(f"{D}/wav", exist_ok=True)
voices = {"ked": "voice_ked_diphone", "slt": "voice_cmu_us_slt_arctic_hts"}
talk = []
for i, s in enumerate(everyday):
    for v in ["en-us", "en+f3", "en+m3", "en-gb"]:
        talk.append((f"espeak-{v}", espeak(s, v, f"{D}/src/e{i}-{v}.wav")))
    for name, fv in voices.items():
        talk.append((f"festival-{name}", festival(s, fv, f"{D}/src/f{i}-{name}.wav")))
rng = random.Random(7)
index = []
for name, fv in voices.items():
    for k, c in enumerate(commands):
        speech = festival(c, fv, f"{D}/src/c{k}-{name}.wav")
        pad = np.zeros(4800, dtype=np.float32)
        speech = np.concatenate([pad, speech, pad])
        for snr in [None, 10, 5]:
            out = mix(speech, talk, f"festival-{name}", snr, rng)
            label = "clean" if snr is None else f"{snr}dB"
            path = f"{D}/wav/{name}-{k:02d}-{label}.wav"
            write(path, out)
            index.append({"path": path, "voice": name, "condition": label, "text": c})
json.dump(index, open(f"{D}/index.json", "w"), indent=0)
print(len(index), "files")
