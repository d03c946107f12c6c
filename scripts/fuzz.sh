#!/usr/bin/env bash
# Fuzzes weft's front ends with libFuzzer (cargo-fuzz): docs/fuzzing.md.
#
#   scripts/fuzz.sh [TARGET|all] SECONDS
#
# TARGET is json_model (a weft/1 document), expr (one expression in a fixed
# small model, loaded in full) or dve (a DVE model, with an --error
# expression after a NUL byte); `all` runs the three one after the other,
# SECONDS each. One fuzzing process at a time (fork mode with one worker):
# a crash, an out-of-memory (more than 2048 MB) or a timeout (more than 10 s
# for one input) is saved in fuzz/artifacts/TARGET/ and the run goes on.
# At the end the working corpus is minimised into fuzz/corpus/TARGET (the
# committed corpus, replayed by tests/fuzz_regressions.rs on stable Rust).
#
# Needs the nightly toolchain (`rustup toolchain install nightly`) and
# cargo-fuzz (`cargo install cargo-fuzz`). Environment: FUZZ_ARGS adds
# libFuzzer options; FUZZ_NO_CMIN=1 skips the minimisation.
#
# Each finding becomes a regression test: fix it, then copy the input to
# tests/data/fuzz/TARGET/ (tests/fuzz_regressions.rs replays that folder).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

[ $# -eq 2 ] || usage
what=$1
seconds=$2
case $seconds in '' | *[!0-9]*) usage ;; esac
case $what in
    all) targets="json_model expr dve" ;;
    json_model | expr | dve) targets=$what ;;
    *) echo "fuzz.sh: unknown target '$what' (json_model, expr, dve or all)" >&2; exit 2 ;;
esac

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz.sh: the nightly toolchain is missing: rustup toolchain install nightly" >&2
    exit 3
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: cargo-fuzz is missing: cargo install cargo-fuzz" >&2
    exit 3
fi

# Seeds: the shipped models, the test data and the expressions in them.
python3 scripts/fuzz-seeds.py

for t in $targets; do
    case $t in
        dve) dict=fuzz/dict/dve.dict ;;
        *) dict=fuzz/dict/weft.dict ;;
    esac
    work=fuzz/work/$t
    mkdir -p "$work" "fuzz/corpus/$t" "fuzz/artifacts/$t" "tests/data/fuzz/$t"
    log=fuzz/artifacts/$t.log
    echo "== fuzzing $t for ${seconds}s (log: $log)"
    # -fork=1: one child process at a time, restarted after a finding
    # (-ignore_*), so one run collects every finding instead of stopping.
    (cd fuzz && cargo +nightly fuzz run "$t" \
        "work/$t" "corpus/$t" "seeds/$t" "../tests/data/fuzz/$t" -- \
        -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -max_total_time="$seconds" -dict="../$dict" \
        -artifact_prefix="artifacts/$t/" ${FUZZ_ARGS:-}) 2>&1 | tee "$log" |
        grep --line-buffered -v NEW_FUNC |
        grep --line-buffered -E '^#[0-9]+:|INFO: (fuzzed|exiting)|==ERROR|panicked|overflowed|Deadly|CRASH|Test unit written' || true
    last=$(grep -E '^#[0-9]+:' "$log" | tail -1 || true)
    echo "-- $t: last status: ${last:-none}"
    if [ "${FUZZ_NO_CMIN:-}" != 1 ]; then
        # The committed corpus: the working one minimised (coverage kept).
        tmp=fuzz/work/$t.min
        rm -rf "$tmp" && mkdir -p "$tmp"
        (cd fuzz && cargo +nightly fuzz run "$t" "work/$t.min" "work/$t" "corpus/$t" -- \
            -merge=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
            -artifact_prefix="artifacts/$t/") >"fuzz/artifacts/$t.cmin.log" 2>&1 || true
        if [ -n "$(ls -A "$tmp")" ]; then
            rm -rf "fuzz/corpus/$t" && mv "$tmp" "fuzz/corpus/$t"
        fi
        # Kept small in git: inputs over 8 KiB (mostly the seed models and
        # their mutants; the seeds come back from models/ and tests/data/
        # on every run) stay in the working corpus only.
        find "fuzz/corpus/$t" -type f -size +8k -delete
        echo "-- $t: corpus $(ls "fuzz/corpus/$t" | wc -l) inputs, $(du -sh "fuzz/corpus/$t" | cut -f1)"
    fi
    found=$(ls "fuzz/artifacts/$t" 2>/dev/null | grep -cE '^(crash|oom|timeout|leak)-' || true)
    echo "-- $t: findings in fuzz/artifacts/$t: $found"
done
