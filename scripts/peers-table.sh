#!/usr/bin/env bash
# weft beside its peers in one run on this machine (docs/performance.md,
# "Every engine beside its peers"): weft `standard` with 1 and 2 jobs,
# stateright 0.31 (peers/stateright-lock: the same lock(n, m), its DFS with
# 1 and 2 threads) and SPIN (pan -O2 -DSAFETY -DNOREDUCE, from `weft convert
# --to promela`) on lock(10, 3); `--symmetry` beside stateright's symmetry
# on lock(100, 3) and lock(3200, 1), weft alone on lock(100000, 1); and the
# abstract engines, which have no peer: cartesian-exc on lock(n, 9) up to
# n = 10000, thread-modular on Simple(n) up to n = 2000. Each cell: the median of ROUNDS runs (wall
# seconds of the whole process), states/s, peak RSS and RSS per state.
#
# Usage: scripts/peers-table.sh   (ROUNDS=3, TIMEOUT=300 per run)
# Needs: cargo, spin, gcc, /usr/bin/time; builds weft and the peer first.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
TIMEOUT=${TIMEOUT:-300}
for tool in spin gcc /usr/bin/time cargo; do
  command -v "$tool" >/dev/null || { echo "error: $tool is needed" >&2; exit 2; }
done
cargo build --release -q
(cd peers/stateright-lock && cargo build --release -q)
WEFT=$PWD/target/release/weft
SR=$PWD/peers/stateright-lock/target/release/stateright-lock
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# run NAME CMD...: ROUNDS runs; prints "median_seconds median_rss_kib", or
# "timeout" when a run passes TIMEOUT.
run() {
  local name=$1; shift
  : > "$WORK/$name.t"; : > "$WORK/$name.m"
  for _ in $(seq "$ROUNDS"); do
    if ! timeout "$TIMEOUT" /usr/bin/time -f "%e %M" -o "$WORK/$name.time" "$@" > "$WORK/$name.out" 2>&1; then
      if [ "$(tail -1 "$WORK/$name.time" | awk '{print $1}')" = "" ] || grep -q "Command terminated by signal" "$WORK/$name.time"; then
        echo "timeout"; return
      fi
    fi
    tail -1 "$WORK/$name.time" | awk '{print $1}' >> "$WORK/$name.t"
    tail -1 "$WORK/$name.time" | awk '{print $2}' >> "$WORK/$name.m"
  done
  echo "$(median < "$WORK/$name.t") $(median < "$WORK/$name.m")"
}
# cell STATES "SECONDS RSS_KIB": time, states/s, RSS, bytes per state.
cell() {
  local states=$1 r=$2
  if [ "$r" = timeout ]; then echo "timeout (${TIMEOUT} s) | | |"; return; fi
  # /usr/bin/time has 10 ms resolution: below it, no rate.
  awk -v n="$states" -v t="${r% *}" -v m="${r#* }" 'BEGIN {
    if (t < 0.01) printf "< 0.01 s | — | %.0f MiB | %.1f\n", m / 1024, m * 1024 / n
    else printf "%.2f s | %.2f M | %.0f MiB | %.1f\n", t, n / t / 1e6, m / 1024, m * 1024 / n }'
}
wstat() { grep -o "\"$2\":[0-9.]*" "$WORK/$1.out" | tail -1 | cut -d: -f2; }

echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(date -u +%Y-%m-%d); weft $(git rev-parse --short HEAD), stateright 0.31.0, $(spin -V | head -1); load before: $(cut -d' ' -f1-3 /proc/loadavg); medians of $ROUNDS runs, wall time of the whole process."
echo
echo "| what | tool | states | time | states/s | peak RSS | RSS/state (B) | store B/state |"
echo "|---|---|---|---|---|---|---|---|"

# Exact search on lock(10, 3).
"$WEFT" gen lock --threads 10 --sections 3 > "$WORK/l10.json"
S=16777216
for j in 1 2; do
  r=$(run "w$j" "$WEFT" check "$WORK/l10.json" --jobs $j --format json)
  echo "| lock(10, 3) | weft standard, $j job(s) | $S | $(cell $S "$r") | $(wstat w$j bytes_per_state) |"
done
for j in 1 2; do
  r=$(run "sr$j" "$SR" 10 3 dfs $j)
  echo "| lock(10, 3) | stateright DFS, $j thread(s) | $S | $(cell $S "$r") | fingerprints |"
done
"$WEFT" convert "$WORK/l10.json" --to promela > "$WORK/l10.pml"
(cd "$WORK" && spin -a l10.pml >/dev/null && gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16000 -o pan pan.c)
r=$(cd "$WORK" && run spin ./pan -m100000 -w25)
echo "| lock(10, 3) | SPIN (pan, -DNOREDUCE), 1 core | $S | $(cell $S "$r") | hash table |"

# Symmetry.
for nm in "100 3" "3200 1"; do
  set -- $nm
  "$WEFT" gen lock --threads "$1" --sections "$2" > "$WORK/s.json"
  r=$(run ws "$WEFT" check "$WORK/s.json" --symmetry --format json)
  n=$(wstat ws states); n=${n:-1}
  echo "| lock($1, $2) --symmetry | weft, 2 jobs | $n | $(cell "$n" "$r") | $(wstat ws bytes_per_state) |"
  r=$(run srs "$SR" "$1" "$2" dfs 2 sym)
  echo "| lock($1, $2) symmetry | stateright DFS, 2 threads | $n | $(cell "$n" "$r") | fingerprints |"
done
"$WEFT" gen lock --threads 100000 --sections 1 > "$WORK/s.json"
r=$(run ws "$WEFT" check "$WORK/s.json" --symmetry --format json)
n=$(wstat ws states); n=${n:-1}
echo "| lock(100000, 1) --symmetry | weft, 2 jobs | $n | $(cell "$n" "$r") | $(wstat ws bytes_per_state) |"

# The abstract engines (no peer decides these models in polynomial time).
for n in 250 1000 2000 10000; do
  "$WEFT" gen lock --threads "$n" --sections 9 > "$WORK/c.json"
  r=$(run wc "$WEFT" check "$WORK/c.json" --mode cartesian-exc --format json)
  p=$(wstat wc states); p=${p:-1}
  echo "| lock($n, 9) cartesian-exc | weft | $p | $(cell "$p" "$r") | |"
done
for n in 250 1000 2000; do
  "$WEFT" gen simple --threads "$n" > "$WORK/t.json"
  r=$(run wt "$WEFT" check "$WORK/t.json" --mode thread-modular --format json)
  f=$(wstat wt states); f=${f:-1}
  echo "| Simple($n) thread-modular | weft | $f | $(cell "$f" "$r") | |"
done
