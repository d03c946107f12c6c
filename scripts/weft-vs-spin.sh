#!/usr/bin/env bash
# weft's `standard` engine and SPIN side by side on lock(n, 1), as in
# docs/performance.md ("weft vs SPIN"): for each n, the model is generated,
# exported with `weft convert --to promela`, compiled into pan with
# -O2 -DSAFETY -DNOREDUCE, and then ROUNDS rounds of pan, weft --jobs 1 and
# weft --jobs 2 run interleaved. Prints one markdown row per n with medians
# (and ranges) of the searches' own times and the peak memory.
#
# Usage: scripts/weft-vs-spin.sh [N ...]      (default: 16 18 20; ROUNDS=3)
# Needs: spin, gcc, /usr/bin/time; builds weft in release mode first.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(16 18 20)
for tool in spin gcc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "error: $tool is needed (Debian: apt-get install spin gcc time)" >&2; exit 2; }
done
cargo build --release -q
WEFT=$PWD/target/release/weft
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A number from weft's JSON stats (first property line).
stat() { grep -o "\"$1\":[0-9.e+-]*" | head -1 | cut -d: -f2; }
# median, then (min–max), of numbers on stdin.
spread() { sort -g | awk '{v[NR]=$1} END {printf "%s (%s–%s)", v[int((NR+1)/2)], v[1], v[NR]}'; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "| lock(n, 1) | weft states | SPIN stored | SPIN time | weft, 1 job | weft, 2 jobs | SPIN memory | weft memory (1 job) |"
echo "|---|---|---|---|---|---|---|---|"
for n in "${NS[@]}"; do
  dir=$WORK/n$n
  mkdir -p "$dir"
  "$WEFT" gen lock --threads "$n" --sections 1 > "$dir/l.json"
  "$WEFT" convert "$dir/l.json" --to promela > "$dir/l.pml"
  (cd "$dir" && spin -a l.pml >/dev/null && gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c)
  # pan's default hash table has 2^24 slots; beyond that, the next power of
  # two at least as large as the state count ((m+1)^n + 2nm(m+1)^(n-1), m = 1).
  states=$(( (1 << n) + 2 * n * (1 << (n - 1)) ))
  w=24
  while (( (1 << w) < states )); do w=$((w + 1)); done
  : > "$dir/spin.t"; : > "$dir/spin.m"; : > "$dir/w1.t"; : > "$dir/w2.t"; : > "$dir/w1.m"
  for _ in $(seq "$ROUNDS"); do
    (cd "$dir" && /usr/bin/time -f %M -o pan.rss ./pan -m100000 -w$w > pan.out)
    grep -o "elapsed time [0-9.e+-]*" "$dir/pan.out" | awk '{print $3}' >> "$dir/spin.t"
    echo $(( $(cat "$dir/pan.rss") / 1024 )) >> "$dir/spin.m"
    stored=$(grep -o "[0-9e+.]* states, stored" "$dir/pan.out" | awk '{print $1}')
    for j in 1 2; do
      out=$("$WEFT" check "$dir/l.json" --format json --jobs "$j" | head -1)
      echo "$out" | stat time_s >> "$dir/w$j.t"
      if [ "$j" = 1 ]; then
        weft_states=$(echo "$out" | stat states)
        echo $(( $(echo "$out" | stat peak_memory_bytes) / 1048576 )) >> "$dir/w1.m"
      fi
    done
  done
  echo "| n = $n | $weft_states | $stored | $(spread < "$dir/spin.t") s | $(spread < "$dir/w1.t") s | $(spread < "$dir/w2.t") s | $(median < "$dir/spin.m") MiB | $(median < "$dir/w1.m") MiB |"
done
