#!/usr/bin/env python3
"""Renders sentences with a Piper voice for `soundscape-bench --only asr`.

Reads JSON lines {"text": ..., "out": path.wav, "length_scale": 1.0} on stdin and writes each sentence as a WAV
file (the voice's own rate); the model is loaded once. Prints one line "ok PATH" per file written.
Usage: bench-piper.py MODEL.onnx
"""
import json
import sys
import wave

from piper import PiperVoice, SynthesisConfig


def main() -> None:
    voice = PiperVoice.load(sys.argv[1])
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        config = SynthesisConfig(length_scale=float(job.get("length_scale", 1.0)), noise_scale=0.667, noise_w_scale=0.8)
        tmp = job["out"] + ".part"
        with wave.open(tmp, "wb") as wav:
            voice.synthesize_wav(job["text"], wav, syn_config=config)
        import os
        os.replace(tmp, job["out"])
        print("ok", job["out"], flush=True)


if __name__ == "__main__":
    main()
