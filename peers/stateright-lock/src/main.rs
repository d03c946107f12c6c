//! lock(n, m) as weft generates it (`weft gen lock --threads N --sections M`):
//! n identical threads, each passing m critical sections in sequence, each
//! guarded by one lock `lck`; per section i a thread goes l1_i -(acquire
//! when lck = 0)-> l2_i -> l3_i -(release)-> l1_{i+1}, the last to `done`.
//! The property: never two threads in a critical location (l2_i, l3_i).
//!
//! Usage: stateright-lock N M bfs|dfs THREADS [sym]
//! Prints: states (generated), unique states, seconds, unique states per
//! second.

use stateright::{Checker, Model, Property, Representative};
use std::time::Instant;

/// A thread's position: 3 per section (l1, l2, l3), then `done` = 3m.
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
struct State {
    lck: bool,
    pcs: Vec<u16>,
}

struct Lock {
    n: usize,
    m: u16,
}

impl Model for Lock {
    type State = State;
    type Action = usize;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            lck: false,
            pcs: vec![0; self.n],
        }]
    }

    fn actions(&self, s: &State, out: &mut Vec<usize>) {
        for (t, &pc) in s.pcs.iter().enumerate() {
            if pc == 3 * self.m {
                continue;
            }
            // l1_i needs the lock free.
            if pc % 3 == 0 && s.lck {
                continue;
            }
            out.push(t);
        }
    }

    fn next_state(&self, s: &State, t: usize) -> Option<State> {
        let mut n = s.clone();
        match s.pcs[t] % 3 {
            0 => n.lck = true,
            2 => n.lck = false,
            _ => {}
        }
        n.pcs[t] += 1;
        Some(n)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("mutex", |model: &Lock, s: &State| {
            s.pcs
                .iter()
                .filter(|&&pc| pc < 3 * model.m && pc % 3 != 0)
                .count()
                < 2
        })]
    }
}

/// Threads are interchangeable: sorting the positions is stateright's
/// representative for its symmetry reduction.
impl Representative for State {
    fn representative(&self) -> Self {
        let mut pcs = self.pcs.clone();
        pcs.sort_unstable();
        State { lck: self.lck, pcs }
    }
}

/// The same model with the positions packed 4 bits per thread into one
/// word (n <= 16, m <= 5): no allocation per state, stateright's best case
/// and the one measured for throughput.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Packed {
    lck: bool,
    pcs: u64,
}

struct LockPacked {
    n: usize,
    m: u64,
}

fn pc(s: &Packed, t: usize) -> u64 {
    (s.pcs >> (4 * t)) & 15
}

impl Model for LockPacked {
    type State = Packed;
    type Action = usize;

    fn init_states(&self) -> Vec<Packed> {
        vec![Packed { lck: false, pcs: 0 }]
    }

    fn actions(&self, s: &Packed, out: &mut Vec<usize>) {
        for t in 0..self.n {
            let p = pc(s, t);
            if p == 3 * self.m || (p % 3 == 0 && s.lck) {
                continue;
            }
            out.push(t);
        }
    }

    fn next_state(&self, s: &Packed, t: usize) -> Option<Packed> {
        let mut n = s.clone();
        match pc(s, t) % 3 {
            0 => n.lck = true,
            2 => n.lck = false,
            _ => {}
        }
        n.pcs += 1 << (4 * t);
        Some(n)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always(
            "mutex",
            |model: &LockPacked, s: &Packed| {
                (0..model.n)
                    .filter(|&t| pc(s, t) < 3 * model.m && pc(s, t) % 3 != 0)
                    .count()
                    < 2
            },
        )]
    }
}

fn report<M: Model>(checker: impl Checker<M>, start: Instant)
where
    M::State: Clone + PartialEq,
    M::Action: Clone + PartialEq,
{
    let secs = start.elapsed().as_secs_f64();
    let unique = checker.unique_state_count();
    println!(
        "states {} unique {} seconds {:.3} per_second {:.0} mutex_holds {}",
        checker.state_count(),
        unique,
        secs,
        unique as f64 / secs,
        checker.discovery("mutex").is_none()
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: stateright-lock N M bfs|dfs THREADS [sym]");
        std::process::exit(2);
    }
    let n: usize = a[1].parse().expect("N");
    let m: u16 = a[2].parse().expect("M");
    let threads: usize = a[4].parse().expect("THREADS");
    let sym = a.get(5).is_some_and(|s| s == "sym");
    let start = Instant::now();
    if !sym && n <= 16 && m <= 5 {
        let builder = LockPacked { n, m: m as u64 }.checker().threads(threads);
        match a[3].as_str() {
            "bfs" => report(builder.spawn_bfs().join(), start),
            _ => report(builder.spawn_dfs().join(), start),
        }
        return;
    }
    let builder = Lock { n, m }.checker().threads(threads);
    match (a[3].as_str(), sym) {
        ("bfs", false) => report(builder.spawn_bfs().join(), start),
        ("dfs", false) => report(builder.spawn_dfs().join(), start),
        ("dfs", true) => report(builder.symmetry().spawn_dfs().join(), start),
        _ => {
            eprintln!("bfs or dfs; symmetry with dfs only");
            std::process::exit(2);
        }
    }
}
