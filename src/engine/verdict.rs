//! What the user chooses (the mode) and what a run answers (the verdict).

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    Standard,
    ThreadModular,
    CartesianExc,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Standard, Mode::ThreadModular, Mode::CartesianExc];
    pub fn name(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::ThreadModular => "thread-modular",
            Mode::CartesianExc => "cartesian-exc",
        }
    }
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Safe,
    Unknown,
    Unsafe,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Unsafe => "unsafe",
            Verdict::Unknown => "unknown",
        }
    }
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
