//! Every test the last run of each file reported, by its stable ID: `<log dir>/tests.json`,
//! saved by [`super::keep`] after each run. What `tapline list` shows as `history` (so every
//! test a run reported is listed under the ID the run gave it) and what `--only-failed`
//! runs again.
//!
//! A file's entry is replaced only by a run that finished it (not a cancelled or cached one);
//! files this run did not run keep theirs.
use crate::event::run::{FileResult, RunEvent};
use crate::event::sink::RunSink;
use crate::event::Event;
use crate::explain::names::{test_id, PointNames};
use crate::util::time::rfc3339;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The file's name inside the log folder.
pub const FILE_NAME: &str = "tests.json";

/// One test point as a run reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeenTest {
    pub id: String,
    /// Its names, outermost first.
    pub name: Vec<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Passed,
    Failed,
    Skipped,
    Todo,
}

/// What the last run of one file reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileTests {
    /// When that run ended (RFC 3339, UTC).
    pub when: String,
    /// The file's verdict.
    pub ok: bool,
    pub tests: Vec<SeenTest>,
}

impl FileTests {
    /// The IDs of its failing tests.
    pub fn failed(&self) -> impl Iterator<Item = &SeenTest> {
        self.tests.iter().filter(|t| t.status == Status::Failed)
    }
}

/// The saved file: by file path.
pub type Saved = BTreeMap<String, FileTests>;

/// The saved tests of the log folder `dir` (none when there is no file yet).
///
/// # Errors
///
/// The file exists but cannot be read or is not what tapline wrote.
pub fn load(dir: &Path) -> Result<Saved, String> {
    let path = dir.join(FILE_NAME);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| format!("failed to read {}: {e}", path.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Saved::new()),
        Err(e) => Err(format!("failed to read {}: {e}", path.display())),
    }
}

/// A file running now: its path, the namer of its points, what it reported so far.
struct Running {
    rel: String,
    names: PointNames,
    tests: Vec<SeenTest>,
}

/// Gathers each finished file's tests as the run's events pass.
#[derive(Default)]
pub struct TestsSeen {
    running: HashMap<usize, Running>,
    finished: Saved,
}

impl TestsSeen {
    /// Lays this run's files over the saved ones in `dir`; the warning when it could not.
    pub fn save(self, dir: &Path) -> Option<String> {
        if self.finished.is_empty() {
            return None;
        }
        let mut saved = load(dir).unwrap_or_default();
        saved.extend(self.finished);
        let path = dir.join(FILE_NAME);
        let temp: PathBuf = dir.join(".tests.json.tmp");
        let written = serde_json::to_vec(&saved)
            .map_err(io::Error::from)
            .and_then(|json| fs::write(&temp, json))
            .and_then(|()| fs::rename(&temp, &path));
        written
            .err()
            .map(|e| format!("failed to save {}: {e}", path.display()))
    }

    /// The files finished so far, by path.
    pub fn finished(&self) -> &Saved {
        &self.finished
    }

    fn point(&mut self, file: usize, event: &Event<'_>) {
        let Some(r) = self.running.get_mut(&file) else {
            return;
        };
        let Some(name) = r.names.event(event) else {
            return;
        };
        let Event::Assert(a) = event else {
            return;
        };
        let status = match (a.skip.is_some(), a.todo.is_some(), a.is_failure()) {
            (true, _, _) => Status::Skipped,
            (_, true, _) => Status::Todo,
            (_, _, true) => Status::Failed,
            _ => Status::Passed,
        };
        r.tests.push(SeenTest {
            id: test_id(&r.rel, &name, a.id),
            name,
            status,
            duration_ms: a.duration_ms,
        });
    }

    fn finish(&mut self, file: usize, result: &FileResult) {
        let Some(r) = self.running.remove(&file) else {
            return;
        };
        if result.cancelled || result.cached {
            return;
        }
        let entry = FileTests {
            when: rfc3339(now_ms()),
            ok: result.ok,
            tests: r.tests,
        };
        self.finished.insert(r.rel, entry);
    }
}

impl RunSink for TestsSeen {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        match ev {
            RunEvent::FileStarted { file, .. } => {
                let running = Running {
                    rel: file.rel.clone(),
                    names: PointNames::default(),
                    tests: Vec::new(),
                };
                self.running.insert(file.index, running);
            }
            RunEvent::Tap { file, event, .. } => self.point(*file, event),
            RunEvent::FileFinished { file, result, .. } => self.finish(*file, result),
            _ => {}
        }
        Ok(())
    }
}

/// Now, in milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
