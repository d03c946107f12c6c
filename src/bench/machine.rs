//! A description of the machine a bench ran on (Linux /proc; fields are
//! `None` where unavailable).

use serde_json::{Value, json};

#[derive(Clone, Debug)]
pub struct Machine {
    /// CPU model name, from /proc/cpuinfo.
    pub cpu: Option<String>,
    /// Logical cores available to this process.
    pub cores: usize,
    /// Total memory in bytes, from /proc/meminfo.
    pub memory_bytes: Option<u64>,
    /// Kernel and distribution, e.g. `Linux 6.8.0 (Ubuntu 24.04.1 LTS)`.
    pub os: String,
    pub weft_version: &'static str,
}

impl Machine {
    pub fn detect() -> Machine {
        Machine {
            cpu: cpu_model(),
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes: total_memory(),
            os: os_description(),
            weft_version: env!("CARGO_PKG_VERSION"),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "cpu": self.cpu,
            "cores": self.cores,
            "memory_bytes": self.memory_bytes,
            "os": self.os,
            "weft_version": self.weft_version,
        })
    }

    /// One line for people.
    pub fn summary(&self) -> String {
        let mem = match self.memory_bytes {
            Some(b) => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
            None => "unknown memory".into(),
        };
        format!(
            "{}, {} cores, {mem}, {}, weft {}",
            self.cpu.as_deref().unwrap_or("unknown CPU"),
            self.cores,
            self.os,
            self.weft_version
        )
    }
}

fn cpu_model() -> Option<String> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn total_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn os_description() -> String {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    let kernel = match (
        read("/proc/sys/kernel/ostype"),
        read("/proc/sys/kernel/osrelease"),
    ) {
        (Some(t), Some(r)) => format!("{t} {r}"),
        _ => std::env::consts::OS.to_string(),
    };
    let distro = read("/etc/os-release").and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim_matches('"').to_string())
    });
    match distro {
        Some(d) => format!("{kernel} ({d})"),
        None => kernel,
    }
}
