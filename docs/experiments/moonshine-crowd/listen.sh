# Run from anywhere; REPO is this checkout (its release build of soundscape is used).
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
python3 -c "import json; [print(e['path']) for e in json.load(open('/tmp/msexp/index.json'))]" | while read f; do
  j=$(cd "$REPO" && .build/release/soundscape listen --file "$f" --json 2>/dev/null | tail -1)
  printf '%s\t%s\n' "$f" "$j"
done > /tmp/msexp/listen.tsv
