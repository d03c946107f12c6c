//! What the user chooses (the mode) and what a run answers (the verdict).

use std::fmt;

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The engines a check can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Exact breadth-first search over all interleavings; `unsafe` comes
    /// with a shortest trace.
    Standard,
    /// Flanagan and Qadeer's thread-modular model checking (polynomial).
    ThreadModular,
    /// Malkis, Podelski and Rybalchenko's Cartesian abstraction with
    /// exception sets (polynomial).
    CartesianExc,
    /// Cartesian abstraction refined automatically: precise global stores
    /// are added until the property is proved or a real error is found.
    Refine,
}

impl Mode {
    /// Every mode, in the order the documentation lists them.
    pub const ALL: [Mode; 4] = [
        Mode::Standard,
        Mode::ThreadModular,
        Mode::CartesianExc,
        Mode::Refine,
    ];

    /// The mode's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::ThreadModular => "thread-modular",
            Mode::CartesianExc => "cartesian-exc",
            Mode::Refine => "refine",
        }
    }
    /// The mode named `s`.
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// A check's answer, ordered from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// No error state is reachable (proved).
    Safe,
    /// Not decided: an abstract mode's alarm, or a budget ran out.
    Unknown,
    /// An error state is reachable.
    Unsafe,
}

impl Verdict {
    /// The verdict as the output writes it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Unsafe => "unsafe",
            Verdict::Unknown => "unknown",
        }
    }
    /// The verdict named `s`.
    pub fn parse(s: &str) -> Option<Verdict> {
        [Verdict::Safe, Verdict::Unsafe, Verdict::Unknown]
            .into_iter()
            .find(|v| v.name() == s)
    }
    /// Exit codes of the model format spec.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Safe => 0,
            Verdict::Unsafe => 1,
            Verdict::Unknown => 3,
        }
    }
}
