# soundscape listen --json on each file that $1 (a JSON list of objects with "path") names; one line each in $2:
# the path, a tab, the JSON. Uses this checkout's release build.
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
python3 -c "import json, sys; [print(e['path']) for e in json.load(open(sys.argv[1]))]" "$1" | while read f; do
  j=$(cd "$REPO" && .build/release/soundscape listen --file "$f" --json 2>/dev/null | tail -1)
  printf '%s\t%s\n' "$f" "$j"
done > "$2"
