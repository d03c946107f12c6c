#!/usr/bin/env bash
# Before and after on the instances where standard's coordinating thread
# was the limit (docs/performance.md, "The coordinator's work moved to the
# workers"): each binary in turn, best of two, wall time and peak RSS of
# the whole process (/usr/bin/time).
#
#   scripts/coordinator-table.sh OLD_WEFT NEW_WEFT BEEM_CHECKOUT
set -euo pipefail
old=$1 new=$2 beem=$3
lock=$(mktemp --suffix .json)
"$new" gen lock --threads 10 --sections 3 > "$lock"
best() { # prints "seconds MiB" of the faster of two runs of "$@"
  local out=999 mem=0 t k
  for _ in 1 2; do
    read -r t k < <( { /usr/bin/time -f "%e %M" "$@" >/dev/null; } 2>&1 | tail -1)
    if (( $(echo "$t < $out" | bc) )); then out=$t mem=$k; fi
  done
  echo "$out s | $((mem / 1024))"
}
echo "| instance | before | after | peak MiB before, after |"
echo "|---|---|---|---|"
for m in leader_election.5 lup.3 plc.4 schedule_world.2 pgm_protocol.8 pgm_protocol.6 \
         production_cell.5 cambridge.6 krebs.4 exit.1 cyclic_scheduler.3 lock; do
  if [ "$m" = lock ]; then args=("$lock"); name="lock(10, 3)"
  else
    for f in "$beem"/original-benchmark/*/generated_files/"$m".dve; do break; done
    args=("$f" --property state-space --divine-errors --format json); name=$m
  fi
  a=$(best "$old" check "${args[@]}"); b=$(best "$new" check "${args[@]}")
  echo "| $name | ${a% |*} | ${b% |*} | ${a#*| }, ${b#*| } |"
done
rm -f "$lock"
