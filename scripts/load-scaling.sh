#!/usr/bin/env bash
# Loading time and peak memory as a model grows (issue 19: "loading is linear
# in the model's size"). For each shape, a model of size n and of 10 n is
# generated and checked with `--max-states 10` (the search stops at once, so
# the time is the load's); a linear loader takes about 10 times as long for
# 10 n. Each shape stresses one step: a global array's initial store, many
# transitions (location lookups), many properties (duplicate checks), many
# globals, and a DVE process of many guarded states (the deadlock predicate).
#
# usage: scripts/load-scaling.sh [WEFT...]   (default: target/release/weft)
# Several binaries are measured side by side, e.g. an older build.
set -euo pipefail
cd "$(dirname "$0")/.."
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=(target/release/weft)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

gen() { # shape n -> path
  python3 - "$1" "$2" "$dir" <<'PY'
import json, sys
shape, n, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if shape == "dve-states":
    st = ", ".join(f"s{i}" for i in range(n))
    tr = ", ".join(f"s{i} -> s{i+1} {{ guard x == 0; }}" for i in range(n - 1))
    path = f"{d}/{shape}-{n}.dve"
    open(path, "w").write(f"byte x = 0;\nprocess P {{ state {st}; init s0; trans {tr}; }}\nsystem async;\n")
    print(path); sys.exit()
g = {"x": {"type": "int", "min": 0, "max": 3, "init": 0}}
th = [{"name": "t", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "x := 1"}]}]
props = [{"name": "p", "invariant": "x <= 3"}]
if shape == "array":
    g["a"] = {"type": "array", "len": n, "of": {"type": "int", "min": 0, "max": 1}, "init": 0}
elif shape == "transitions":
    th[0]["transitions"] = [{"from": f"l{i}", "to": f"l{i+1}", "do": "x := 1"} for i in range(n)]
    th[0]["start"] = "l0"
elif shape == "properties":
    props = [{"name": f"p{i}", "invariant": "x <= 3"} for i in range(n)]
elif shape == "globals":
    for i in range(n):
        g[f"v{i}"] = {"type": "int", "min": 0, "max": 1, "init": 0}
path = f"{d}/{shape}-{n}.json"
json.dump({"format": "weft/1", "name": shape, "globals": g, "threads": th, "properties": props}, open(path, "w"))
print(path)
PY
}

printf '| shape | n | %s |\n' "$(printf '%s (s, MiB) | ' "${bins[@]}" | sed 's/ | $//')"
printf '|---|---|%s\n' "$(printf -- '---|%.0s' "${bins[@]}")"
for spec in "array 100000" "array 1000000" "transitions 6000" "transitions 60000" \
            "properties 6000" "properties 60000" "globals 6000" "globals 60000" \
            "dve-states 4000" "dve-states 40000"; do
  set -- $spec
  path=$(gen "$1" "$2")
  row="| $1 | $2 |"
  for b in "${bins[@]}"; do
    # 120 s and 8 GiB at most per run (an outer limit, so a quadratic build
    # is cut short rather than left to run on).
    code=0
    /usr/bin/time -o "$dir/time" -f '%e %M' timeout 120 "$b" check "$path" --max-states 10 \
      --max-memory 8192 >/dev/null 2>&1 || code=$?
    set -- $(grep -v '^Command' "$dir/time" | tail -1)
    case $code in
      0|1|3) row="$row $1, $(( $2 / 1024 )) |" ;;
      124) row="$row over 120 s |" ;;
      *) row="$row exit $code after $1 s, $(( $2 / 1024 )) MiB |" ;;
    esac
  done
  echo "$row"
done
