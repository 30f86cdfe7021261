set -euo pipefail
for f in src/*.rs; do
  if grep -q "TODO" "$f"; then
    echo "todo in $f" >> todo.log
  fi
done
git status --short && git diff --stat HEAD~1 | head -n 50
find . -name '*.tmp' -exec rm -f {} \;
curl -fsSL https://example.com/api/v1/items -o items.json && jq '.items[] | .name' items.json | sort | uniq -c
OUT=$(mktemp) ; sed -n '1,40p' README.md > "$OUT" ; cat "$OUT" | wc -l
case "$1" in build) cargo build --release ;; test) cargo test -- --nocapture ;; *) echo usage ;; esac
