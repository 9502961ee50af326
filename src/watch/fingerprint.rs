//! Content fingerprints, so a save that leaves a file unchanged starts nothing.
use super::*;

/// Files larger than this are never fingerprinted: a write to one always counts.
pub(super) const FINGERPRINT_MAX_FILE: u64 = 1 << 20;
/// Bytes read to fingerprint the files already there when watching starts; files met later
/// are fingerprinted when they change.
pub(super) const FINGERPRINT_BUDGET: u64 = 64 << 20;

/// Length and hash of files' contents. A write leaving a file as it was (an editor saving an
/// unchanged buffer, a formatter with nothing to do, `touch -m`, which inotify reports as a
/// write) changes nothing and starts nothing. A file with no fingerprint yet counts as changed.
pub(super) struct Fingerprints {
    pub(super) map: HashMap<PathBuf, (u64, u64)>,
    /// Bytes left for fingerprinting files nobody changed yet.
    pub(super) budget: u64,
}

impl Fingerprints {
    pub(super) fn new() -> Fingerprints {
        Fingerprints {
            map: HashMap::new(),
            budget: FINGERPRINT_BUDGET,
        }
    }

    pub(super) fn print(path: &Path) -> Option<(u64, u64)> {
        use std::hash::Hasher;
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > FINGERPRINT_MAX_FILE {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        hasher.write(&bytes);
        Some((bytes.len() as u64, hasher.finish()))
    }

    /// Fingerprints a file found while walking, within the budget.
    pub(super) fn record(&mut self, path: PathBuf) {
        if let Some(print) = Fingerprints::print(&path) {
            self.budget = self.budget.saturating_sub(print.0.max(1));
            self.map.insert(path, print);
        }
    }

    /// Whether `path` holds what it held when last seen; remembers what it holds now.
    pub(super) fn unchanged(&mut self, path: &Path) -> bool {
        match Fingerprints::print(path) {
            Some(print) => self.map.insert(path.to_path_buf(), print) == Some(print),
            None => {
                self.map.remove(path);
                false
            }
        }
    }
}

/// The regular files stdout and stderr write to, as (device, inode).
pub(super) fn own_output() -> Vec<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let stdout = io::stdout();
    let stderr = io::stderr();
    [stdout.as_fd(), stderr.as_fd()]
        .into_iter()
        .filter_map(|fd| fd.try_clone_to_owned().ok())
        .filter_map(|fd| std::fs::File::from(fd).metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| (m.dev(), m.ino()))
        .collect()
}
