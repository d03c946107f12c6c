#!/bin/bash
# usage: scripts/memo-share.sh OLD_WEFT NEW_WEFT (from the repository root):
# the successor memo's share of --max-memory (docs/performance.md, "The
# memo within the memory budget"): BEEM instances where nearly every state
# has a global store of its own (plc.4) and where the memo is read again
# and again (fischer.3, at.3, szymanski.4), with no budget and with one
# near what the search needs; deadlock checks, 2 jobs, binaries
# alternating. Prints: instance, budget, binary, verdict, states, search
# time, peak memory in bytes (weft's), wall time and peak RSS (time's).
D=tests/data/beem/dve
T=$(mktemp -d)
for run in "plc.4 -" "plc.4 400" "plc.4 500" "fischer.3 -" "fischer.3 160" "fischer.3 240" \
           "at.3 -" "at.3 100" "szymanski.4 -" "szymanski.4 100"; do
  set -- $run "$@"
  f=$1; m=$2; shift 2
  budget=(); [ "$m" != - ] && budget=(--max-memory "$m")
  for b in "$@"; do
    /usr/bin/time -f "%e s %M KB" "$b" check $D/$f.dve --property deadlock --jobs 2 "${budget[@]}" \
      --format json > $T/out 2> $T/time
    verdict=$(grep -o '"verdict":"[a-z]*"' $T/out | head -1)
    states=$(grep -o '"states":[0-9]*' $T/out | head -1)
    secs=$(grep -o '"time_s":[0-9.]*' $T/out | head -1)
    peak=$(grep -o '"peak_memory_bytes":[0-9]*' $T/out | head -1)
    echo "$f $m $b $verdict $states $secs $peak $(tail -1 $T/time)"
  done
done
rm -r $T
