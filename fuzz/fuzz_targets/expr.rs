//! libFuzzer target `expr`: see fuzz/entries.rs (the entry point, shared
//! with the stable replay in tests/fuzz_regressions.rs) and docs/fuzzing.md.
#![no_main]

#[path = "../entries.rs"]
mod entries;

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::expr(data));
