# Moonshine tiny against the program's recognizers in a crowd of voices (docs/measurements.md, "Moonshine tiny in
# a crowd", stop 45, corrected in stop 46: each file is now transcribed in a stream of its own, fresh.py). Needs
# `make release` (for `soundscape listen`), festival with festvox-kdlpc16k and festvox-us-slt-hts, espeak-ng and sox
# (all installed by scripts/setup), and network access to PyPI.
# Everything it makes goes to /tmp/msexp; nothing here is part of the build or the tests.
set -e
here=$(cd "$(dirname "$0")" && pwd)
python3 -m venv /tmp/mvenv
/tmp/mvenv/bin/pip -q install onnxruntime numpy requests platformdirs tqdm
/tmp/mvenv/bin/pip -q download --no-deps moonshine-voice==0.0.4 -d /tmp/mwheel
/tmp/mvenv/bin/pip -q install --no-deps /tmp/mwheel/moonshine_voice-0.0.4-py3-none-manylinux_2_35_x86_64.whl
mkdir -p /tmp/msexp && cd /tmp/msexp
/tmp/mvenv/bin/python "$here/make.py"      # 204 files: 34 commands x 2 festival voices x clean, 10 dB, 5 dB crowd
/tmp/mvenv/bin/python "$here/moon.py"      # Moonshine tiny-en on each file; prints its p50 and p95 in ms
bash "$here/listen.sh" /tmp/msexp/index.json /tmp/msexp/listen.tsv    # soundscape listen --json on each file
/tmp/mvenv/bin/python "$here/cut.py"       # the stretches Moonshine's voice-activity detection found
bash "$here/listen.sh" /tmp/msexp/segs.json /tmp/msexp/listenseg.tsv    # the same on each segment
/tmp/mvenv/bin/python "$here/score.py"     # the tables
/tmp/mvenv/bin/python "$here/reject.py"    # ordinary speech and near misses: the sweep of the nearest line's distance
