//! The watch session's clock: the time the kernel stamps files with, read off a file of its
//! own, so that a run's start and end compare with the ctimes of the changes it caused.
use super::feedback::Moment;
use crate::report::sink::RunSink;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Takes the clock's time as the run's `RunFinished` passes, before any other sink hears of
/// the end.
pub(super) struct EndStamp {
    /// The [`FileClock`]'s file.
    pub(super) clock: PathBuf,
    pub(super) at: Option<Moment>,
}

impl RunSink for EndStamp {
    fn on(&mut self, ev: &crate::event::run::RunEvent) -> io::Result<()> {
        if matches!(ev, crate::event::run::RunEvent::RunFinished { .. }) {
            self.at = Some(clock_now(&self.clock));
        }
        Ok(())
    }
}

/// Tells the time files are stamped with: the kernel's coarse clock, not the system clock
/// (which runs up to a tick ahead), by writing a file of its own (in the temp folder, which is
/// outside the project, or else ignored) and reading its ctime.
pub(super) struct FileClock {
    pub(super) path: PathBuf,
}

impl FileClock {
    pub(super) fn new() -> FileClock {
        FileClock {
            path: std::env::temp_dir().join(format!(".tapline-watch-{}.clock", std::process::id())),
        }
    }

    pub(super) fn now(&self) -> Moment {
        clock_now(&self.path)
    }
}

/// Now, on both clocks, the file clock read off `path`. Without the file (a read-only temp
/// folder), the system clock's.
fn clock_now(path: &Path) -> Moment {
    // Asked for its ctime, the file gets a fine-grained stamp on its next write (Linux 6.13
    // on), which later writes anywhere are never stamped before.
    let _ = std::fs::symlink_metadata(path);
    let file = std::fs::write(path, b"x").ok().and_then(|()| ctime(path));
    let at = SystemTime::now();
    Moment {
        file: file.unwrap_or(at),
        at,
    }
}

impl Drop for FileClock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// When `path` last changed: its ctime, stamped by the kernel as the write (or rename) happened
/// and never set back by a tool (`cp -p` and `mv` keep an old mtime). `None` when it is gone.
pub(super) fn ctime(path: &Path) -> Option<SystemTime> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    let secs = u64::try_from(m.ctime()).ok()?;
    let nanos = u32::try_from(m.ctime_nsec()).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
}
