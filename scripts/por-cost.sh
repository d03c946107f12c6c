#!/bin/bash
# usage: scripts/por-cost.sh OLD_WEFT NEW_WEFT (from the repository root):
# --por against no reduction on the BEEM instances and generated models of
# docs/performance.md ("What --por costs"), two rounds, binaries alternating.
D=tests/data/beem/dve
T=$(mktemp -d)
"$2" gen lock --threads 7 --sections 2 > $T/lock72.json
"$2" gen lock --threads 8 --sections 2 > $T/lock82.json
"$2" gen token-ring --threads 10 > $T/tr10.json
for round in 1 2; do
for f in peterson.3 peterson.4 szymanski.3 at.3 mcs.3 phils.4 lamport.5 fischer.4 lamport_nonatomic.4; do
  for b in "$@"; do
    for p in "" "--por"; do
      /usr/bin/time -f "$f $b [$p] %e s %M KB" $b check $D/$f.dve --property deadlock $p --format json >$T/ps.out 2>$T/ps.t
      echo "$(tail -1 $T/ps.t) $(grep -o '"states":[0-9]*' $T/ps.out | head -1)"
    done
  done
done
done
for round in 1 2; do
for m in $T/lock72.json $T/lock82.json $T/tr10.json; do
  for b in "$@"; do
    for p in "" "--por"; do
      /usr/bin/time -f "$(basename $m) $b [$p] %e s %M KB" $b check $m $p --format json >$T/ps.out 2>$T/ps.t
      echo "$(tail -1 $T/ps.t) $(grep -o '"states":[0-9]*' $T/ps.out | head -1)"
    done
  done
done
done
