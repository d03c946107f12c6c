//! Benchmark support: generators for the papers' scaled model families.

pub mod generate;
