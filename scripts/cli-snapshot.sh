#!/usr/bin/env bash
# Records what `weft` prints on the shipped models, with times and memory
# masked, so a refactor can be checked byte for byte:
#   scripts/cli-snapshot.sh target/release/weft /tmp/before
#   (change the code, rebuild)
#   scripts/cli-snapshot.sh target/release/weft /tmp/after && diff -r /tmp/before /tmp/after
set -uo pipefail
weft=${1:?usage: cli-snapshot.sh WEFT_BINARY OUT_DIR}
out=${2:?usage: cli-snapshot.sh WEFT_BINARY OUT_DIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
mask() {
  sed -E -e 's/"time_s":[0-9.e-]+/"time_s":T/g' -e 's/"peak_memory_bytes":[0-9]+/"peak_memory_bytes":M/g' \
         -e 's/time [0-9.e-]+ s/time T s/g' -e 's/peak memory [0-9.]+ MiB/peak memory M MiB/g' \
         -e "s/in [0-9.]+ s\\b/in T s/g" -e "s/\(([0-9.]+) s\)/(T s)/g"
}
run() { # name, args...
  local name=$1; shift
  { "$weft" "$@" 2>&1; echo "exit $?"; } | mask >"$out/$name"
}
for m in models/*.json; do
  b=$(basename "$m" .json)
  for mode in standard thread-modular cartesian-exc; do
    run "$b.$mode.txt" check "$m" --mode "$mode" --jobs 1
    run "$b.$mode.json" check "$m" --mode "$mode" --format json --jobs 1
    run "$b.$mode.inv.txt" check "$m" --mode "$mode" --show invariant --jobs 1
    run "$b.$mode.inv.json" check "$m" --mode "$mode" --show invariant --format json --jobs 1
  done
  run "$b.symmetry.txt" check "$m" --symmetry --jobs 1
  run "$b.promela.pml" convert "$m" --to promela
done
for d in $(tail -n +2 tests/data/beem/counts.csv | cut -d, -f1 | sed "s|^|tests/data/beem/|"); do  # the curated instances, not the suite's
  b=$(basename "$d" .dve)
  run "$b.dve.txt" check "$d" --jobs 1 --max-states 200000
  run "$b.dve.mutex.txt" check "$d" --error 'count(*: @CS) >= 2' --mode cartesian-exc
  run "$b.dve.json" convert "$d"
done
run "bakery.exc.txt" check models/bakery.json --mode cartesian-exc --show invariant
run "gen.lock.json" gen lock --threads 3 --sections 2
run "test.models.txt" test models/
run "bad.param.txt" check models/lock.json --param nosuch=3
run "bad.file.txt" check /nonexistent.json
echo "wrote $(ls "$out" | wc -l) files to $out"
