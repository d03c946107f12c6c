#!/usr/bin/env bash
# The table of docs/refine.md: every shipped model and every BEEM
# mutual-exclusion instance of tests/data (property: two processes in CS),
# decided by `standard` and by `refine`, with refine's refinements, precise
# global stores, exception products and time.
#   scripts/refine-table.sh [TIMEOUT_SECONDS]   (default 120)
# Needs python3 (to read the JSON Lines). Run from anywhere.
set -uo pipefail
cd "$(dirname "$0")/.."
timeout_s=${1:-120}
cargo build --release -q
weft=target/release/weft
row() { # label, args...
  local label=$1; shift
  local std ref
  std=$("$weft" check "$@" --mode standard --format json --timeout "$timeout_s" 2>/dev/null | python3 -c '
import json, sys
ls = [json.loads(l) for l in sys.stdin if l.strip()]
order = ["safe", "unknown", "unsafe"]
v = max((l["verdict"] for l in ls), key=order.index) if ls else "error"
print(v, ls[0]["stats"]["states"] if ls else "-", ls[0]["stats"]["time_s"] if ls else "-")')
  ref=$("$weft" check "$@" --mode refine --format json --timeout "$timeout_s" 2>/dev/null | python3 -c '
import json, sys
ls = [json.loads(l) for l in sys.stdin if l.strip()]
order = ["safe", "unknown", "unsafe"]
v = max((l["verdict"] for l in ls), key=order.index) if ls else "error"
s = ls[0]["stats"] if ls else {}
print(v, s.get("refinements", "-"), s.get("precise_globals", "-"), s.get("exception_products", "-"), s.get("time_s", "-"))')
  read -r sv sn st <<<"$std"
  read -r rv rr rp re rt <<<"$ref"
  echo "| $label | $sv | $sn | $st | $rv | $rr | $rp | $re | $rt |"
}
echo "| model | standard | states | time (s) | refine | refinements | precise stores | exception products | time (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in models/*.json; do row "$(basename "$m")" "$m"; done
for d in $(tail -n +2 tests/data/beem/counts.csv | cut -d, -f1 | sed "s|^|tests/data/beem/|"); do  # the curated instances, not the suite's
  grep -q '\bCS\b' "$d" || continue
  row "$(basename "$d")" "$d" --error 'count(*: @CS) >= 2'
done
for nm in "20 3" "100 9" "200 9"; do
  set -- $nm
  f=$(mktemp --suffix=.json)
  "$weft" gen lock --threads "$1" --sections "$2" |
    python3 -c 'import json,sys; m=json.load(sys.stdin); m.pop("exceptions", None); print(json.dumps(m))' >"$f"
  row "lock($1,$2), no exception set" "$f"
  rm -f "$f"
done
