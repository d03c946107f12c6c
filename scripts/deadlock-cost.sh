#!/usr/bin/env bash
# The cost of the deadlock check in `standard`: every BEEM instance given
# here explored in full twice, without `--error` (the state space and its
# deadlocks, DVE's default) and with `--error false` (the state space only),
# three runs each, alternating; prints the median engine times, the states
# and the deadlocks. Usage: scripts/deadlock-cost.sh [INSTANCE.dve ...]
# (default: the larger instances in tests/data/beem/dve).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
weft=target/release/weft
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(tests/data/beem/dve/{peterson.3,at.2,bakery.3,lamport.3,msmie.2,leader_filters.1,anderson.4}.dve)
fi
# weft exits 1 when a deadlock is found: that is not a failure here.
run() { "$weft" check "$@" --format json --jobs 1 2>/dev/null || true; }
time_of() { run "$@" | tail -1 | sed 's/.*"time_s":\([0-9.]*\).*/\1/'; }
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
echo "| instance | states | deadlocks | time, state space only | time, with deadlocks |"
echo "|---|---|---|---|---|"
for f in "${files[@]}"; do
  with=(); without=()
  for _ in 1 2 3; do
    without+=("$(time_of "$f" --error false)")
    with+=("$(time_of "$f")")
  done
  summary=$(run "$f" | tail -1)
  states=$(sed 's/.*"states":\([0-9]*\).*/\1/' <<<"$summary")
  deadlocks=$(sed 's/.*"deadlocks":\([0-9]*\).*/\1/' <<<"$summary")
  echo "| $(basename "$f" .dve) | $states | $deadlocks | $(median "${without[@]}") s | $(median "${with[@]}") s |"
done
