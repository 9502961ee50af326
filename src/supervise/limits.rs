//! Per-file resource limits (`--max-memory`, `--max-cpu-time`, `--max-open-files`,
//! `--max-processes`, `--max-output`): the rlimits a child gets before it starts, and how a
//! stopped file's evidence is turned into the limit it broke.
//!
//! Kernel limits are rlimits set in the child between fork and exec, so they hold for the test
//! and everything it starts (each process has its own budget: rlimits are per process, except
//! the process count, which is per user). No cgroups: those belong to the machine's supervisor.
//! `--max-output` is counted by tapline itself on the pipes (see `supervise`).
//!
//! Memory is `RLIMIT_DATA`, not `RLIMIT_AS`: since Linux 4.7 it counts the heap and every
//! private writable mapping, i.e. what a program actually allocates, while address space that
//! runtimes only reserve (V8's code range and pointer cage, Go's arenas, the JVM's heap
//! reservation) does not count. Under `RLIMIT_AS` of 256 MiB `node` cannot even start.
use rustix::process::{Resource, Rlimit};
use std::fmt;
use std::time::Duration;

/// The limits a run puts on each test file; `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of data (heap and private writable mappings) per process.
    pub memory: Option<u64>,
    /// CPU time per process.
    pub cpu_time: Option<Duration>,
    /// Open file descriptors per process.
    pub open_files: Option<u64>,
    /// Processes (threads included) of the user, as the kernel counts `RLIMIT_NPROC`.
    pub processes: Option<u64>,
    /// Bytes written to stdout and stderr together, counted by tapline.
    pub output: Option<u64>,
}

/// One rlimit to set in the child, computed before the fork so that setting it allocates
/// nothing.
#[derive(Debug, Clone, Copy)]
pub struct RlimitSetting {
    pub resource: Resource,
    pub limit: Rlimit,
}

/// Time between the soft CPU limit (SIGXCPU, which a program may catch to report) and the
/// hard one (SIGKILL).
const CPU_HARD_EXTRA: u64 = 1;

impl Limits {
    pub fn is_empty(&self) -> bool {
        *self == Limits::default()
    }

    /// The rlimits to set in the child. A limit above the current hard limit is lowered to it,
    /// since an unprivileged process may not raise its hard limit.
    pub fn rlimits(&self) -> Vec<RlimitSetting> {
        let mut out = Vec::new();
        let mut add = |resource: Resource, soft: u64, hard: u64| {
            let current_hard = rustix::process::getrlimit(resource).maximum;
            let cap = |v: u64| current_hard.map_or(v, |max| v.min(max));
            out.push(RlimitSetting {
                resource,
                limit: Rlimit {
                    current: Some(cap(soft)),
                    maximum: Some(cap(hard)),
                },
            });
        };
        if let Some(bytes) = self.memory {
            add(Resource::Data, bytes, bytes);
        }
        if let Some(cpu) = self.cpu_time {
            // Whole seconds is the kernel's unit; round up so `1.5s` never becomes 1s.
            let secs = cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0);
            let secs = secs.max(1);
            add(Resource::Cpu, secs, secs + CPU_HARD_EXTRA);
        }
        if let Some(n) = self.open_files {
            add(Resource::Nofile, n, n);
        }
        if let Some(n) = self.processes {
            add(Resource::Nproc, n, n);
        }
        out
    }
}

/// Sets `settings` in the calling process. Called between fork and exec, so it only makes
/// system calls: no allocation, no locks.
pub fn apply(settings: &[RlimitSetting]) -> std::io::Result<()> {
    for s in settings {
        rustix::process::setrlimit(s.resource, s.limit)?;
    }
    Ok(())
}

/// A size with its binary unit: `256M`, `2G`, `512k`, `1MiB`, `1048576B`. The unit is
/// required: `--max-memory 256` would otherwise be 256 bytes, under which a runtime dies of
/// SIGSEGV before it can say why, with no limit named.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let err = || SizeError(text.to_owned());
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(err()),
    };
    let value: f64 = number.parse().map_err(|_| err())?;
    let bytes = (value * factor as f64).round();
    if bytes >= 1.0 && bytes < u64::MAX as f64 {
        Ok(bytes as u64)
    } else {
        Err(err())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("failed to parse size `{0}`: expected a positive number with its unit K, M, G or T (powers of 1024) or B (bytes), like `256M` or `2G`")]
pub struct SizeError(String);

/// A count of bytes as people read it: `256 MiB`, `1.5 GiB`, `800 bytes`.
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 4] = [
            ("TiB", 1 << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        for (name, size) in UNITS {
            if self.0 >= size {
                let value = self.0 as f64 / size as f64;
                return if self.0.is_multiple_of(size) {
                    write!(f, "{} {name}", self.0 / size)
                } else {
                    write!(f, "{value:.1} {name}")
                };
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// What a runtime prints when an allocation fails, one line per runtime's wording: an
/// interpreter's `MemoryError`, C/glibc's `perror` (which many interpreters print through),
/// V8's heap and array buffers, Go's runtime, the JVM.
pub const ALLOCATION_FAILURES: &[&str] = &[
    "MemoryError",
    "Cannot allocate memory",
    "Out of memory!",
    "out of memory",
    "JavaScript heap out of memory",
    "Array buffer allocation failed",
    "OutOfMemoryError",
    "std::bad_alloc",
    "memory allocation of",
];

/// Watches a child's output for an allocation failure, across chunk boundaries.
#[derive(Debug, Default)]
pub struct AllocationWatch {
    /// The first marker seen.
    pub found: Option<&'static str>,
    /// The end of the previous chunk, so a marker split between chunks is still seen.
    carry: Vec<u8>,
}

impl AllocationWatch {
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.found.is_some() {
            return;
        }
        let longest = ALLOCATION_FAILURES
            .iter()
            .map(|m| m.len())
            .max()
            .unwrap_or(0);
        self.carry.extend_from_slice(bytes);
        self.found = ALLOCATION_FAILURES
            .iter()
            .copied()
            .find(|m| memchr::memmem::find(&self.carry, m.as_bytes()).is_some());
        let keep = self.carry.len().saturating_sub(longest);
        self.carry.drain(..keep);
    }
}

/// What is known about how a limited child ended.
#[derive(Debug, Clone, Copy)]
pub struct Evidence {
    /// The signal that ended the child, directly or as reported through a shell or bubblewrap
    /// (exit code 128 + N).
    pub signal: Option<i32>,
    /// The child exited unsuccessfully (by code or signal).
    pub failed: bool,
    /// CPU time used by the child and its reaped descendants.
    pub cpu_time: Option<Duration>,
    /// tapline stopped the child for writing more than `--max-output`.
    pub output_exceeded: bool,
    /// An allocation failure the runtime printed.
    pub allocation_failure: Option<&'static str>,
}

/// The limits `evidence` shows the child broke, as a file's reasons (`exceeded memory limit
/// 256 MiB`). Empty when nothing points at a limit; a limit is named only when it was set.
pub fn broken(limits: &Limits, evidence: &Evidence) -> Vec<String> {
    let mut reasons = Vec::new();
    if let (true, Some(max)) = (evidence.output_exceeded, limits.output) {
        reasons.push(format!(
            "exceeded output limit {} (stopped; the log keeps what it wrote)",
            Bytes(max)
        ));
    }
    if let Some(cpu) = limits.cpu_time {
        let by_signal = evidence.signal == Some(rustix::process::Signal::XCPU.as_raw());
        // Past the hard limit the kernel sends SIGKILL: the time used tells it apart.
        let by_time = evidence.signal == Some(rustix::process::Signal::KILL.as_raw())
            && evidence.cpu_time.is_some_and(|used| used >= cpu);
        if by_signal || by_time {
            reasons.push(format!("exceeded CPU time {}", humane(cpu)));
        }
    }
    if let (Some(max), Some(marker), true) =
        (limits.memory, evidence.allocation_failure, evidence.failed)
    {
        reasons.push(format!(
            "exceeded memory limit {} (it printed `{marker}`)",
            Bytes(max)
        ));
    }
    if evidence.signal == Some(rustix::process::Signal::XFSZ.as_raw()) {
        reasons.push("exceeded the file size limit (SIGXFSZ)".to_owned());
    }
    reasons
}

/// CPU time (user + system) of process `pid` and of its reaped descendants, from
/// `/proc/PID/stat`. Read while the child is an unreaped zombie, whose accounting is final.
pub fn cpu_time_of(pid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its last `)`.
    let after = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14-17 (utime, stime, cutime, cstime); `after` starts at field 3.
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    let hz = rustix::param::clock_ticks_per_second().max(1);
    Some(Duration::from_millis(ticks.saturating_mul(1000) / hz))
}

/// A limit's duration as people write it: `5s`, `1.5s`, `250ms`, `2m` (in reasons such as
/// `timed out after 5s`).
pub(crate) fn humane(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256M").ok(), Some(256 << 20));
        assert_eq!(parse_size("2G").ok(), Some(2 << 30));
        assert_eq!(parse_size("1.5k").ok(), Some(1536));
        assert_eq!(parse_size("1MiB").ok(), Some(1 << 20));
        assert_eq!(parse_size("100B").ok(), Some(100));
        for bad in ["", "M", "-1M", "0", "0B", "2X", "1..2M", "256", "1048576"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        let message = parse_size("lots").err().map(|e| e.to_string());
        assert!(message.is_some_and(|m| m.starts_with("failed to parse size `lots`")));
    }

    #[test]
    fn bytes_read_as_people_read_them() {
        assert_eq!(Bytes(256 << 20).to_string(), "256 MiB");
        assert_eq!(Bytes(1536 << 20).to_string(), "1.5 GiB");
        assert_eq!(Bytes(800).to_string(), "800 bytes");
        assert_eq!(Bytes(1 << 20).to_string(), "1 MiB");
    }

    #[test]
    fn allocation_failure_split_across_chunks() {
        let mut w = AllocationWatch::default();
        w.feed(b"Traceback...\nMemor");
        assert_eq!(w.found, None);
        w.feed(b"yError\n");
        assert_eq!(w.found, Some("MemoryError"));
    }

    fn evidence() -> Evidence {
        Evidence {
            signal: None,
            failed: true,
            cpu_time: None,
            output_exceeded: false,
            allocation_failure: None,
        }
    }

    #[test]
    fn limits_are_named_only_with_evidence() {
        let limits = Limits {
            memory: Some(256 << 20),
            cpu_time: Some(Duration::from_secs(2)),
            output: Some(1 << 20),
            ..Limits::default()
        };
        assert!(broken(&limits, &evidence()).is_empty());
        let xcpu = Evidence {
            signal: Some(rustix::process::Signal::XCPU.as_raw()),
            ..evidence()
        };
        assert_eq!(broken(&limits, &xcpu), ["exceeded CPU time 2s"]);
        let killed_early = Evidence {
            signal: Some(9),
            cpu_time: Some(Duration::from_millis(300)),
            ..evidence()
        };
        assert!(broken(&limits, &killed_early).is_empty());
        let killed_at_hard = Evidence {
            cpu_time: Some(Duration::from_millis(3010)),
            ..killed_early
        };
        assert_eq!(broken(&limits, &killed_at_hard), ["exceeded CPU time 2s"]);
        let oom = Evidence {
            allocation_failure: Some("MemoryError"),
            ..evidence()
        };
        assert_eq!(
            broken(&limits, &oom),
            ["exceeded memory limit 256 MiB (it printed `MemoryError`)"]
        );
        // A passing process that merely printed the words broke nothing.
        let passed = Evidence {
            failed: false,
            ..oom
        };
        assert!(broken(&limits, &passed).is_empty());
        // Without the limit set, the same evidence names no limit.
        assert!(broken(&Limits::default(), &oom).is_empty());
        let chatty = Evidence {
            output_exceeded: true,
            signal: Some(9),
            ..evidence()
        };
        assert_eq!(
            broken(&limits, &chatty),
            ["exceeded output limit 1 MiB (stopped; the log keeps what it wrote)"]
        );
    }

    #[test]
    fn cpu_time_of_self_is_readable() {
        let pid = rustix::process::getpid().as_raw_nonzero().get();
        assert!(cpu_time_of(pid).is_some());
    }
}
