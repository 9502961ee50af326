//! Every test the last run of each file reported, by its stable ID: `<log dir>/tests/`, one
//! JSON file per test file (named as its log), saved by [`super::keep`] after each run. A
//! save writes only the files the run finished, and the ID is not stored but derived from the
//! file and the names when read: what keeps the cost per test point small. What `tapline list` shows as `history` (so every
//! test a run reported is listed under the ID the run gave it) and what `--only-failed`
//! runs again.
//!
//! A file's entry is replaced only by a run that finished it (not a cancelled or cached one);
//! files this run did not run keep theirs.
use super::logs::log_name;
use crate::event::run::{FileResult, RunEvent};
use crate::event::sink::RunSink;
use crate::event::Event;
use crate::explain::names::{test_id, PointNames};
use crate::util::time::rfc3339;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The folder's name inside the log folder.
pub const DIR_NAME: &str = "tests";

/// One test point as a run reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeenTest {
    /// Derived when read ([`test_id`]), not stored.
    #[serde(skip)]
    pub id: String,
    /// Its TAP number, for a point without a name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
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
    /// The file's path (or suite's name).
    pub file: String,
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

/// The saved tests of the log folder `dir` (none when there are none yet).
///
/// # Errors
///
/// The folder exists but cannot be read, or holds a file that is not what tapline wrote.
pub fn load(dir: &Path) -> Result<Saved, String> {
    let folder = dir.join(DIR_NAME);
    let entries = match fs::read_dir(&folder) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Saved::new()),
        Err(e) => return Err(format!("failed to read {}: {e}", folder.display())),
    };
    let mut saved = Saved::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let read = fs::read(&path).map_err(|e| e.to_string());
        let mut file: FileTests = read
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
            .map_err(|e| format!("failed to read {}: {e}", path.display()))?;
        for t in &mut file.tests {
            t.id = test_id(&file.file, &t.name, t.number);
        }
        saved.insert(file.file.clone(), file);
    }
    Ok(saved)
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
    /// Saves each file this run finished in `dir` (over its last run's); the warning when
    /// one could not be.
    pub fn save(self, dir: &Path) -> Option<String> {
        if self.finished.is_empty() {
            return None;
        }
        let folder = dir.join(DIR_NAME);
        let mut failed = None;
        for (rel, tests) in &self.finished {
            let name = log_name(rel);
            let path = folder.join(format!("{}.json", name.trim_end_matches(".log")));
            let temp = folder.join(format!(".{}.json.tmp", name.trim_end_matches(".log")));
            let written = fs::create_dir_all(&folder)
                .and_then(|()| fs::File::create(&temp))
                .and_then(|f| {
                    let mut out = io::BufWriter::new(f);
                    serde_json::to_writer(&mut out, tests)?;
                    io::Write::flush(&mut out)
                })
                .and_then(|()| fs::rename(&temp, &path));
            if let Err(e) = written {
                failed.get_or_insert(format!("failed to save {}: {e}", path.display()));
            }
        }
        failed
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
            id: String::new(),
            number: a.id.filter(|_| name.last().is_none_or(String::is_empty)),
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
            file: r.rel.clone(),
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
