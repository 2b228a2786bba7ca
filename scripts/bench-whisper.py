#!/usr/bin/env python3
"""Measure the second recognizer (libsoundscape-whisper.so, built by scripts/setup) on espeak-ng commands:
per-command transcription time (p50, p95, wall and CPU), how many come out with the right words, and the
resident memory the library and model add. Prints numbers; asserts nothing.

    bench-whisper.py [--data DIR] [--model FILE ...] [--threads 1,2] [--margin 50] [--repeat 2]

DIR defaults to $SOUNDSCAPE_DATA or .data; models default to every *.bin in DIR/whisper/. Each command is run with
no prompt and with a prompt of 100 Helsinki place names (© OpenStreetMap contributors).
"""
import argparse
import ctypes
import glob
import os
import re
import subprocess
import tempfile
import time
import wave

import numpy as np

COMMANDS = [
    ("en-us", "where am i"), ("en-gb", "what's ahead"), ("en-us", "around me"), ("en-gb-scotland", "callouts off"),
    ("en-us", "callouts on"), ("en-gb", "mute beacon"), ("en-us", "unmute beacon"),
    ("en-us", "set beacon on Kauppatori"), ("en-gb", "take me to Stockmann"), ("en-us", "louder"),
    ("en-gb-scotland", "speak faster"), ("en-us", "go to sleep"), ("en-gb", "wake up"), ("en-us", "what's around me"),
    ("en-gb", "set beacon on Ateneum"), ("en-us", "save this place as my dentist"),
    ("en-gb-scotland", "where is the beacon"), ("en-us", "take me to Lasipalatsi"), ("en-gb", "repeat that"),
    ("en-us", "what's my heading"),
]
PLACES = ("Kauppatori, Stockmann, Ateneum, Lasipalatsi, Mannerheimintie, Pohjoisesplanadi, Elielinaukio, "
          "Kaupungintalo, Lönnrotinkatu, Tähtitorninmäki, Kansalliskirjasto, Asema-aukio, Kaivotalo, Yliopistonkatu, "
          "Siltavuorenranta, Säästöpankinranta, Hallituskatu, Vilhonkatu, Mummotunneli, Rautatientori, "
          "Snellmaninkatu, Ylioppilastalo, Fabianinkatu, Arkadiankatu, Unioninkatu, Forum, Pitkäsilta, Kluuvi, "
          "Torni, Hansatunneli, Heikinkatu, Seurahuone, Bulevardi, Porthania, Esplanadinpuisto, Kaivopiha, Sokos, "
          "Fazer Café, Aleksanterinkatu, Keskuskatu, Kaisaniemi, Kaisaniemenkatu, Vuorikatu, Kaivokatu, "
          "Postitalo, Kiasma, Musiikkitalo, Finlandia-talo, Eduskuntatalo, Kansallismuseo, Sanomatalo, Tuomiokirkko, "
          "Senaatintori, Kruununhaka, Kluuvikatu, Mikonkatu, Yrjönkatu, Kamppi, Narinkka, Tennispalatsi, Simonkatu, "
          "Annankatu, Erottaja, Korkeavuorenkatu, Kasarmitori, Vanha kirkkopuisto, Diana, Kolmen sepän aukio, "
          "Ruoholahti, Hietalahdentori, Punavuori, Iso Roobertinkatu, Uudenmaankatu, Eira, Kaartinkaupunki, "
          "Katajanokka, Uspenskin katedraali, Vanha kauppahalli, Havis Amanda, Marimekko, Akateeminen kirjakauppa, "
          "Kämp, Svenska Teatern, Kappeli, Espa, Wanha Satama, Lyypekinlaituri, Kanavaranta, Meritullintori, "
          "Liisankatu, Maneesikatu, Kirkkokatu, Rauhankatu, Hakaniemi, Siltasaari, Pitkänsillanranta, "
          "Kaisaniemenpuisto, Kasvitieteellinen puutarha, Rautatieasema, Citykäytävä")


def words(text):
    return re.sub(r"[^a-z0-9' ]", " ", text.lower().replace("-", " ")).split()


def collapse(text):
    """The rule of WhisperTranscriber.collapsingRepeats: a phrase repeated at least twice is kept once."""
    items = text.split()
    keys = [re.sub(r"[^\w]", "", w.lower()) for w in items]
    for period in range(1, len(items) // 2 + 1):
        if all(keys[i] == keys[i + period] for i in range(len(items) - period)):
            return " ".join(items[:period])
    return " ".join(items)


def load_library(path):
    lib = ctypes.CDLL(path)
    lib.ssw_open.restype = ctypes.c_void_p
    lib.ssw_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    lib.ssw_describe.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.ssw_close.argtypes = [ctypes.c_void_p]
    lib.ssw_transcribe.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_char_p,
                                   ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                                   ctypes.POINTER(ctypes.c_double), ctypes.c_char_p, ctypes.c_size_t]
    return lib


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def speak(voice, text, directory):
    raw, out = os.path.join(directory, "raw.wav"), os.path.join(directory, "out.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", "165", "-w", raw, text], check=True)
    subprocess.run(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", out, "gain", "-1",
                    "pad", "0.3", "0.3"], check=True)
    with wave.open(out) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.environ.get("SOUNDSCAPE_DATA", ".data"))
    parser.add_argument("--model", action="append")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--margin", type=int, default=50, help="audio context frames beyond the utterance")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--prompts", default="none,places", help="none, places (100 names), or both")
    args = parser.parse_args()
    lib_path = os.path.join(args.data, "whisper", "libsoundscape-whisper.so")
    models = args.model or sorted(glob.glob(os.path.join(args.data, "whisper", "*.bin")))
    with open("/proc/loadavg") as f:
        print(f"load average: {f.read().split()[0]} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        audio = [(text, speak(voice, text, tmp)) for voice, text in COMMANDS]
    lengths = [len(a) / 16000 for _, a in audio]
    print(f"{len(audio)} commands, {min(lengths):.2f}-{max(lengths):.2f} s")
    before = rss_kb()
    lib = load_library(lib_path)
    after_library = rss_kb()
    print(f"resident memory: library {(after_library - before) / 1024:.1f} MB")
    error = ctypes.create_string_buffer(1024)
    text = ctypes.create_string_buffer(4096)
    for model_path in models:
        for threads in [int(t) for t in args.threads.split(",")]:
            start = rss_kb()
            model = lib.ssw_open(model_path.encode(), threads, error, len(error))
            if not model:
                print(f"{model_path}: {error.value.decode()}")
                continue
            description = ctypes.create_string_buffer(200)
            lib.ssw_describe(model, description, len(description))
            loaded = rss_kb()
            for prompt in [{"none": "", "places": PLACES}[p] for p in args.prompts.split(",")]:
                walls, cpus, right = [], [], 0
                for repeat in range(args.repeat):
                    for expected, samples in audio:
                        context = min(1500, int(len(samples) / 16000 * 50) + args.margin)
                        tokens = 8 + int(len(samples) / 16000 * 4)
                        logp = ctypes.c_double()
                        wall, cpu = time.perf_counter(), time.process_time()
                        rc = lib.ssw_transcribe(model, samples.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                                len(samples), prompt.encode(), context, tokens, 5000, text, len(text),
                                                ctypes.byref(logp), error, len(error))
                        walls.append((time.perf_counter() - wall) * 1000)
                        cpus.append((time.process_time() - cpu) * 1000)
                        heard = collapse(text.value.decode()) if rc == 0 else f"[{error.value.decode()}]"
                        if repeat == 0:
                            right += words(heard) == words(expected)
                            if words(heard) != words(expected) and os.environ.get("VERBOSE"):
                                print(f"    {expected!r} -> {heard!r}")
                print(f"{os.path.basename(model_path)} ({description.value.decode()}), {threads} thread(s), "
                      f"{'prompt of 100 places' if prompt else 'no prompt'}: wall p50 {percentile(walls, 50):.0f} ms "
                      f"p95 {percentile(walls, 95):.0f} ms; CPU p50 {percentile(cpus, 50):.0f} ms p95 {percentile(cpus, 95):.0f} ms; "
                      f"words right {right}/{len(audio)}")
            print(f"  resident memory after loading and running: +{(rss_kb() - start) / 1024:.1f} MB "
                  f"(+{(loaded - start) / 1024:.1f} MB at load)")
            lib.ssw_close(model)


if __name__ == "__main__":
    main()
