# Moonshine tiny-en on one utterance at a time, each in a stream of its own. moonshine-voice 0.0.4's
# `transcribe_without_streaming` keeps what earlier calls on the same transcriber left (their lines come back again,
# and its voice-activity detection goes on from where it stopped), so a loop over files with it mixes them up: the
# stop-45 figures were measured that way and were wrong (docs/measurements.md, "Moonshine tiny in a crowd").
import ctypes, os
from moonshine_voice import get_assets_path
from moonshine_voice.moonshine_api import _MoonshineLib, TranscriptC
_lib = _MoonshineLib().lib
_handle = _lib.moonshine_load_transcriber_from_files(os.path.join(get_assets_path(), "tiny-en").encode(), 0, None, 0, 20000)
assert _handle >= 0, "Moonshine's model did not load"

def lines(samples):
    """The lines (text, start s, duration s) of 16 kHz float samples, with 0.5 s of silence after them."""
    samples = list(samples) + [0.0] * 8000
    stream = _lib.moonshine_create_stream(_handle, 0)
    _lib.moonshine_start_stream(_handle, stream)
    try:
        audio = (ctypes.c_float * len(samples))(*samples)
        if _lib.moonshine_transcribe_add_audio_to_stream(_handle, stream, audio, len(samples), 16000, 0) < 0:
            raise RuntimeError("adding audio failed")
        out = ctypes.POINTER(TranscriptC)()
        if _lib.moonshine_transcribe_stream(_handle, stream, 0, ctypes.byref(out)) < 0:
            raise RuntimeError("transcription failed")
        t = out.contents
        return [(ctypes.string_at(t.lines[i].text).decode("utf-8", "replace"), t.lines[i].start_time, t.lines[i].duration)
                for i in range(t.line_count) if t.lines[i].text]
    finally:
        _lib.moonshine_stop_stream(_handle, stream)
        _lib.moonshine_free_stream(_handle, stream)
