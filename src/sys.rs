//! What weft reads about the machine and its processes, all in one place:
//! Linux's `/proc` (and /etc/os-release). Elsewhere every reader answers `None`, and the callers
//! (memory budgets, peak-memory statistics, the bench's machine line) do
//! without.

/// The first number of the line `key` (e.g. `VmRSS:`) of a `/proc` file
/// whose lines read `Key:   1234 kB`.
fn kib_field(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Peak resident memory of this process (VmHWM), in KiB.
pub(crate) fn peak_memory_kib() -> Option<u64> {
    kib_field(&read("/proc/self/status")?, "VmHWM:")
}

/// Current resident memory of this process (VmRSS), in KiB.
pub(crate) fn current_memory_kib() -> Option<u64> {
    kib_field(&read("/proc/self/status")?, "VmRSS:")
}

/// (current, peak) resident memory of process `pid`, in KiB.
pub(crate) fn process_memory_kib(pid: u32) -> Option<(u64, u64)> {
    let s = read(&format!("/proc/{pid}/status"))?;
    Some((kib_field(&s, "VmRSS:")?, kib_field(&s, "VmHWM:")?))
}

/// Physical memory of the machine, in KiB.
pub(crate) fn physical_memory_kib() -> Option<u64> {
    kib_field(&read("/proc/meminfo")?, "MemTotal:")
}

/// The CPU's model name.
pub(crate) fn cpu_model() -> Option<String> {
    read("/proc/cpuinfo")?
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The kernel (`Linux 6.1.0`), or the OS family where `/proc` is absent.
pub(crate) fn kernel() -> String {
    let field = |p: &str| read(p).map(|s| s.trim().to_string());
    match (
        field("/proc/sys/kernel/ostype"),
        field("/proc/sys/kernel/osrelease"),
    ) {
        (Some(t), Some(r)) => format!("{t} {r}"),
        _ => std::env::consts::OS.to_string(),
    }
}

/// The distribution's name (`PRETTY_NAME` of /etc/os-release).
pub(crate) fn distro() -> Option<String> {
    read("/etc/os-release")?
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
}

/// The machine's load average over the last minute (/proc/loadavg): how
/// many processes were running or waiting for a core, on average.
pub(crate) fn load_average() -> Option<f64> {
    read("/proc/loadavg")?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_are_read_from_proc_style_text() {
        let status = "Name:\tweft\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(super::kib_field(status, "VmRSS:"), Some(1024));
        assert_eq!(super::kib_field(status, "VmHWM:"), Some(2048));
        assert_eq!(super::kib_field(status, "VmSwap:"), None);
    }
}
