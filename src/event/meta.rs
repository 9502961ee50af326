//! Where, when and how a run was made (host, working directory, command line, start time):
//! what its `run_started` event records and a report's header says.
use std::time::{SystemTime, UNIX_EPOCH};

/// Where and how the run was made, for the page's header.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    pub host: Option<String>,
    pub cwd: Option<String>,
    pub command: Option<String>,
}

impl Meta {
    /// This process's host name, working directory and command line.
    pub fn current() -> Self {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .ok()
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty());
        let cwd = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
        let args: Vec<String> = std::env::args().collect();
        let command = (!args.is_empty()).then(|| {
            let mut words = args;
            if let Some(first) = words.first_mut() {
                // The program as typed is noise (`target/release/tapline`); its name is not.
                if let Some(name) = std::path::Path::new(first.as_str()).file_name() {
                    *first = name.to_string_lossy().into_owned();
                }
            }
            words.join(" ")
        });
        Meta { host, cwd, command }
    }
}

/// Milliseconds since the Unix epoch (`None` before it).
pub fn unix_ms(time: SystemTime) -> Option<u64> {
    let ms = time.duration_since(UNIX_EPOCH).ok()?.as_millis();
    u64::try_from(ms).ok()
}
