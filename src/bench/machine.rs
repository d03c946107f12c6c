//! A description of the machine a bench ran on (Linux /proc; fields are
//! `None` where unavailable).

use serde_json::{Value, json};

#[derive(Clone, Debug)]
pub(crate) struct Machine {
    /// CPU model name, from /proc/cpuinfo.
    pub(crate) cpu: Option<String>,
    /// Logical cores available to this process.
    pub(crate) cores: usize,
    /// Total memory in bytes, from /proc/meminfo.
    pub(crate) memory_bytes: Option<u64>,
    /// Kernel and distribution, e.g. `Linux 6.8.0 (Ubuntu 24.04.1 LTS)`.
    pub(crate) os: String,
    pub(crate) weft_version: &'static str,
    /// The one-minute load average when the bench started (other work on
    /// the machine slows the runs down).
    pub(crate) load_at_start: Option<f64>,
}

impl Machine {
    pub(crate) fn detect() -> Machine {
        Machine {
            cpu: cpu_model(),
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes: total_memory(),
            os: os_description(),
            weft_version: env!("CARGO_PKG_VERSION"),
            load_at_start: None,
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        json!({
            "cpu": self.cpu,
            "cores": self.cores,
            "memory_bytes": self.memory_bytes,
            "os": self.os,
            "weft_version": self.weft_version,
            "load_average_at_start": self.load_at_start,
        })
    }

    /// One line for people.
    pub(crate) fn summary(&self) -> String {
        let mem = match self.memory_bytes {
            Some(b) => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
            None => "unknown memory".into(),
        };
        let load = match self.load_at_start {
            Some(l) => format!("; load average {l:.1} when the bench started"),
            None => String::new(),
        };
        format!(
            "{}, {} cores, {mem}, {}, weft {}{load}",
            self.cpu.as_deref().unwrap_or("unknown CPU"),
            self.cores,
            self.os,
            self.weft_version
        )
    }
}

fn cpu_model() -> Option<String> {
    crate::sys::cpu_model()
}

fn total_memory() -> Option<u64> {
    crate::sys::physical_memory_kib().map(|kib| kib * 1024)
}

fn os_description() -> String {
    let kernel = crate::sys::kernel();
    let distro = crate::sys::distro();
    match distro {
        Some(d) => format!("{kernel} ({d})"),
        None => kernel,
    }
}
