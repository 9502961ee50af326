//! Every test of every attempt, by its stable ID: `<log dir>/tests/`, one JSON-lines file per
//! test file (named as its log), one line per attempt of that file: the run, the attempt,
//! when it ended, the file's verdict, and each test point's names, status, duration and (for
//! a failure) the hash of its first error line. Saved by [`super::keep`] after each run.
//!
//! The last line of each file is what `tapline list` shows as `history` (so every test a run
//! reported is listed under the ID the run gave it) and what `--only-failed` runs again; all
//! of them are the per-test history `tapline history --tests` reads (flakiness, p50/p95).
//!
//! Cheap on purpose (a 200,000-point run pays it): the points are named once, by the
//! dispatcher's collector (the run's [`TestOutcome`]s, which `--runs N` and the history store
//! read too), and written here by hand with the escaping of `--format jsonl`; the ID is not
//! stored but derived from the file and the names when read. A file keeps its last
//! [`KEEP_ATTEMPTS`] attempts: once it holds half as many again, it is rewritten without the
//! oldest (under `tests/.lock`, as two tapline processes may save at once).
//!
//! A cancelled or cached file adds no line: its last line stays its last run's.
use super::logs::{log_name, record_name};
use crate::event::run::{RunEvent, TestOutcome};
use crate::event::sink::RunSink;
use crate::explain::names::{test_id, SEPARATOR};
use crate::util::time::rfc3339;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tapline_protocol::json::{push_int, push_str, push_str_array};

pub use crate::event::run::TestStatus as Status;

/// The folder's name inside the log folder.
pub const DIR_NAME: &str = "tests";
/// Attempts of each file kept: the window of per-test flakiness and durations.
pub const KEEP_ATTEMPTS: usize = 20;

/// One test point as an attempt reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenTest {
    /// Derived when read ([`test_id`]), not stored.
    pub id: String,
    /// Its TAP number, for a point without a name.
    pub number: Option<u64>,
    /// Its names, outermost first.
    pub name: Vec<String>,
    pub status: Status,
    pub duration_ms: Option<f64>,
    /// A failure's first error line, hashed (16 hex digits).
    pub error: Option<String>,
}

/// What one attempt of one file reported.
#[derive(Debug, Clone, PartialEq)]
pub struct FileTests {
    /// The file's path (or suite's name).
    pub file: String,
    /// The run's id (as in the history store), and the attempt in it.
    pub run: String,
    pub attempt: u32,
    /// When that attempt ended (RFC 3339, UTC).
    pub when: String,
    /// The attempt's verdict.
    pub ok: bool,
    /// How many points it had, when more than a record keeps
    /// ([`crate::event::run::KEPT_POINTS`]): `tests` are then its failing and slowest, and a
    /// test of the file not among them did not fail.
    pub capped: Option<u64>,
    pub tests: Vec<SeenTest>,
}

impl FileTests {
    /// Its failing tests.
    pub fn failed(&self) -> impl Iterator<Item = &SeenTest> {
        self.tests.iter().filter(|t| t.status == Status::Failed)
    }
}

/// The last attempt of each file, by file path.
pub type Saved = BTreeMap<String, FileTests>;

/// One line as stored.
#[derive(Deserialize)]
struct Line {
    file: String,
    #[serde(default)]
    run: String,
    #[serde(default)]
    attempt: u32,
    when: String,
    ok: bool,
    #[serde(default)]
    capped: Option<u64>,
    tests: Vec<Row>,
}

/// One test as stored: `name` its names joined by ` > ` (`names` only where that does not
/// split back into them).
#[derive(Deserialize)]
struct Row {
    name: String,
    #[serde(default)]
    names: Option<Vec<String>>,
    #[serde(default)]
    number: Option<u64>,
    status: Status,
    #[serde(default)]
    ms: Option<f64>,
    #[serde(default)]
    error: Option<String>,
}

impl Line {
    fn parse(bytes: &[u8]) -> Result<FileTests, String> {
        let line: Line = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let tests = line.tests.into_iter().map(|r| {
            let name = r
                .names
                .unwrap_or_else(|| r.name.split(SEPARATOR).map(str::to_owned).collect());
            SeenTest {
                id: test_id(&line.file, &name, r.number),
                number: r.number,
                name,
                status: r.status,
                duration_ms: r.ms,
                error: r.error,
            }
        });
        Ok(FileTests {
            tests: tests.collect(),
            file: line.file,
            run: line.run,
            attempt: line.attempt,
            when: line.when,
            ok: line.ok,
            capped: line.capped,
        })
    }
}

/// Each test file's record in `dir`'s `tests/` (none when there are none yet).
fn records(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let folder = dir.join(DIR_NAME);
    let entries = match fs::read_dir(&folder) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("failed to read {}: {e}", folder.display())),
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// The last attempt of each file saved in the log folder `dir`.
///
/// # Errors
///
/// The folder exists but cannot be read, or holds a file that is not what tapline wrote.
pub fn load(dir: &Path) -> Result<Saved, String> {
    let mut saved = Saved::new();
    for path in records(dir)? {
        let failed = |e: String| format!("failed to read {}: {e}", path.display());
        let Some(last) = last_line(&path).map_err(|e| failed(e.to_string()))? else {
            continue;
        };
        let file = Line::parse(&last).map_err(failed)?;
        saved.insert(file.file.clone(), file);
    }
    Ok(saved)
}

/// Fills in, for each of `rels` without a record in `saved`, what its last run reported as
/// its raw log in the log folder `dir` says: a run with `--no-history` (or a shard) keeps
/// no record but still writes its logs, and `tapline list` should name what that run named
/// (an assertion inside a subtest, which no static scan finds). A log that reads
/// as no test at all (another format, a crash) adds nothing.
pub fn fill_from_logs<'a>(saved: &mut Saved, dir: &Path, rels: impl Iterator<Item = &'a str>) {
    for rel in rels {
        if saved.contains_key(rel) {
            continue;
        }
        if let Some(file) = from_log(&dir.join(log_name(rel)), rel) {
            saved.insert(rel.to_owned(), file);
        }
    }
}

/// The tests the log at `path` (the raw output of `rel`'s last run) reports, as a record.
fn from_log(path: &Path, rel: &str) -> Option<FileTests> {
    struct Names(crate::event::run::TestNames);
    impl tapline_protocol::event::Sink for Names {
        fn event(&mut self, event: &crate::event::Event<'_>) {
            self.0.event(event);
        }
    }
    let bytes = fs::read(path).ok()?;
    let modified = fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let names = Names(crate::event::run::TestNames::keeping_all());
    let mut parser = tapline_protocol::AnyParser::new(names, None);
    parser.feed(&bytes);
    parser.settle();
    let tests = parser.finish().0.take();
    if tests.is_empty() {
        return None;
    }
    let ok = tests.iter().all(|t| t.ok);
    let mut line = Vec::new();
    let stamp = Stamp {
        run: "log".to_owned(),
    };
    write_line(&mut line, rel, &stamp, 1, ok, &tests, tests.capped());
    let mut file = Line::parse(line.strip_suffix(b"\n").unwrap_or(&line)).ok()?;
    let ms = modified
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    file.when = rfc3339(ms);
    Some(file)
}

/// Every kept attempt of every file in `dir`, oldest first per file, by file path; a line
/// that does not parse is skipped with a warning.
pub fn load_all(dir: &Path) -> Result<(BTreeMap<String, Vec<FileTests>>, Vec<String>), String> {
    let mut all: BTreeMap<String, Vec<FileTests>> = BTreeMap::new();
    let mut warnings = Vec::new();
    for path in records(dir)? {
        let bytes =
            fs::read(&path).map_err(|e| format!("failed to read {}: {e}", path.display()))?;
        for (n, line) in complete_lines(&bytes).enumerate() {
            match Line::parse(line) {
                Ok(f) => all.entry(f.file.clone()).or_default().push(f),
                Err(e) => warnings.push(format!("{}:{}: {e}", path.display(), n + 1)),
            }
        }
    }
    Ok((all, warnings))
}

/// The lines of `bytes` that end in a newline (the last one without is an append under way).
fn complete_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let end = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    bytes[..end]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
}

/// The file's last complete line, read from its end.
fn last_line(path: &Path) -> io::Result<Option<Vec<u8>>> {
    const CHUNK: u64 = 64 * 1024;
    let mut file = fs::File::open(path)?;
    let size = file.metadata()?.len();
    let mut tail: Vec<u8> = Vec::new();
    let mut pos = size;
    while pos > 0 {
        let step = CHUNK.min(pos);
        pos -= step;
        file.seek(SeekFrom::Start(pos))?;
        let mut chunk = vec![0; step as usize];
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        // The complete lines: up to the last newline; the last of them starts after the one
        // before it.
        let Some(end) = memchr::memrchr(b'\n', &tail) else {
            continue;
        };
        if let Some(start) = memchr::memrchr(b'\n', &tail[..end]) {
            return Ok(Some(tail[start + 1..end].to_vec()));
        }
        if pos == 0 {
            return Ok(Some(tail[..end].to_vec()));
        }
    }
    Ok(None)
}

/// One attempt's line, written by hand (`--format jsonl`'s escaping): what keeps a
/// 200,000-point run's records cheap.
fn write_line(
    out: &mut Vec<u8>,
    file: &str,
    stamp: &Stamp,
    attempt: u32,
    ok: bool,
    tests: &[TestOutcome],
    capped: Option<u64>,
) {
    out.extend_from_slice(b"{\"file\":");
    push_str(out, file);
    out.extend_from_slice(b",\"run\":");
    push_str(out, &stamp.run);
    out.extend_from_slice(b",\"attempt\":");
    push_int(out, attempt);
    out.extend_from_slice(b",\"when\":");
    push_str(out, &rfc3339(now_ms()));
    out.extend_from_slice(if ok {
        b",\"ok\":true"
    } else {
        b",\"ok\":false"
    });
    if let Some(n) = capped {
        out.extend_from_slice(b",\"capped\":");
        push_int(out, n);
    }
    out.extend_from_slice(b",\"tests\":[");
    for (i, t) in tests.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        push_str(out, &t.name);
        if let Some(parts) = &t.parts {
            out.extend_from_slice(b",\"names\":");
            push_str_array(out, parts.iter());
            if let Some(n) = t.number {
                out.extend_from_slice(b",\"number\":");
                push_int(out, n);
            }
        }
        out.extend_from_slice(b",\"status\":\"");
        out.extend_from_slice(t.status.as_str().as_bytes());
        out.push(b'"');
        if let Some(ms) = t.duration_ms.filter(|ms| ms.is_finite()) {
            let _ = write!(out, ",\"ms\":{ms}");
        }
        if let Some(e) = t.error {
            let _ = write!(out, ",\"error\":\"{e:016x}\"");
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}\n");
}

/// The run every line of this save belongs to.
struct Stamp {
    run: String,
}

/// Each started file's path, by index, and each attempt's line as it ends.
pub struct TestsSeen {
    stamp: Stamp,
    attempts: crate::state::Attempts,
    /// Lines to append, by file path, in the order their attempts ended.
    lines: BTreeMap<String, Vec<u8>>,
    /// The files whose last attempt had more points than a record keeps, and how many.
    capped: BTreeMap<String, u64>,
}

impl TestsSeen {
    /// Gathers run `run`'s attempts (its id as the history store gives it).
    pub fn new(run: String) -> Self {
        TestsSeen {
            stamp: Stamp { run },
            attempts: Default::default(),
            lines: BTreeMap::new(),
            capped: BTreeMap::new(),
        }
    }

    /// Appends each attempt's line to its file's record in `dir`; the warning when one could
    /// not be, and for each file that has just gone over the bound of a record
    /// ([`crate::event::run::KEPT_POINTS`]), a note saying so (once: not while it stays over).
    pub fn save(self, dir: &Path) -> Vec<String> {
        if self.lines.is_empty() {
            return Vec::new();
        }
        let folder = dir.join(DIR_NAME);
        if let Err(e) = fs::create_dir_all(&folder) {
            return vec![format!("failed to save {}: {e}", folder.display())];
        }
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(folder.join(".lock"))
            .and_then(|f| f.lock().map(|()| f));
        if let Err(e) = lock {
            return vec![format!("failed to lock {}: {e}", folder.display())];
        }
        let mut notes = Vec::new();
        let mut failed = None;
        for (rel, text) in &self.lines {
            let name = record_name(rel);
            let path = folder.join(format!("{}.jsonl", name.trim_end_matches(".log")));
            if let Some(n) = self.capped.get(rel) {
                if !was_capped(&path) {
                    notes.push(capped_note(rel, *n));
                }
            }
            if let Err(e) = append(&path, text) {
                failed.get_or_insert(format!("failed to save {}: {e}", path.display()));
            }
        }
        notes.extend(failed);
        notes
    }
}

/// Whether the record at `path` ends with an attempt that had more points than it keeps.
fn was_capped(path: &Path) -> bool {
    // Its members before the tests: no need to parse a whole attempt.
    let last = last_line(path).ok().flatten().unwrap_or_default();
    let head = memchr::memmem::find(&last, b"\"tests\":[").map_or(&last[..], |at| &last[..at]);
    memchr::memmem::find(head, b"\"capped\":").is_some()
}

/// The note for a file that has gone over the bound of its record.
fn capped_note(rel: &str, points: u64) -> String {
    format!(
        "{rel} reported {points} test points, more than the {} a test history keeps of a file: \
         its failing and slowest tests are kept (docs/history.md, Bounds)",
        crate::event::run::KEPT_POINTS
    )
}

/// Appends `text` (whole lines) to `path`, then keeps its last [`KEEP_ATTEMPTS`] lines once
/// it holds half as many again (judged by size: `text`'s lines as the typical ones).
fn append(path: &Path, text: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(text)?;
    let size = file.metadata()?.len();
    drop(file);
    let lines = memchr::memchr_iter(b'\n', text).count().max(1);
    let typical = text.len() as u64 / lines as u64;
    if size <= typical * (KEEP_ATTEMPTS as u64 * 3 / 2) {
        return Ok(());
    }
    let bytes = fs::read(path)?;
    let all: Vec<&[u8]> = complete_lines(&bytes).collect();
    if all.len() <= KEEP_ATTEMPTS {
        return Ok(());
    }
    let mut kept = Vec::with_capacity(bytes.len());
    for line in &all[all.len() - KEEP_ATTEMPTS..] {
        kept.extend_from_slice(line);
        kept.push(b'\n');
    }
    let temp = path.with_extension("jsonl.tmp");
    fs::write(&temp, kept)?;
    fs::rename(&temp, path)
}

impl RunSink for TestsSeen {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        if let Some((rel, attempt, result)) = self.attempts.ended(ev) {
            let out = self.lines.entry(rel.to_owned()).or_default();
            // A flaky file's last attempt passed, even when `--flaky-fails` failed the file.
            let ok = result.ok || result.flaky;
            let capped = result.tests.capped();
            write_line(out, rel, &self.stamp, attempt, ok, &result.tests, capped);
            match capped {
                Some(n) => self.capped.insert(rel.to_owned(), n),
                None => self.capped.remove(rel),
            };
        }
        Ok(())
    }
}

/// Now, in milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::test_events::{finished, started};
    use crate::event::run::{FileResult, TestOutcome};
    use std::time::Duration;

    fn result(ok: bool, tests: Vec<TestOutcome>) -> FileResult {
        let mut r = FileResult::failed(Vec::new(), Duration::ZERO);
        (r.ok, r.tests) = (ok, tests.into());
        r
    }

    fn point(name: &str, status: Status) -> TestOutcome {
        let mut t = TestOutcome::named(name, status != Status::Failed);
        t.status = status;
        t.error = (status == Status::Failed).then_some(0xabc);
        t
    }

    /// Every attempt is a line; the last is what `list` and `--only-failed` read back, with
    /// the IDs the run gave; a name holding the separator and an unnamed point survive.
    #[test]
    fn every_attempt_is_kept_and_the_last_read_back_by_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        for run in 0..(KEEP_ATTEMPTS + 15) {
            let mut seen = TestsSeen::new(format!("run-{run}"));
            let mut odd = TestOutcome::named("a > b", true);
            odd.parts = Some(vec!["a > b".to_owned()].into_boxed_slice());
            let mut unnamed = TestOutcome::named("group > #7", true);
            unnamed.parts = Some(vec!["group".to_owned(), String::new()].into_boxed_slice());
            unnamed.number = Some(7);
            let flip = if run % 2 == 0 {
                Status::Passed
            } else {
                Status::Failed
            };
            let tests = vec![
                point("math > adds", flip),
                odd,
                unnamed,
                point("\"q\"", Status::Skipped),
            ];
            seen.on(&started(0, "t/a.t")).expect("on");
            if run % 2 == 1 {
                let failed = RunEvent::AttemptFailed {
                    run: 1,
                    file: 0,
                    attempt: 1,
                    of: 2,
                    result: Box::new(result(false, tests.clone())),
                };
                seen.on(&failed).expect("on");
            }
            let mut last = result(run % 2 == 0, tests);
            last.attempts = 1 + (run % 2) as u32;
            seen.on(&finished(0, last)).expect("on");
            assert_eq!(seen.save(dir.path()), Vec::<String>::new());
        }
        let saved = load(dir.path()).expect("load");
        let a = &saved["t/a.t"];
        assert_eq!((a.run.as_str(), a.attempt), ("run-34", 1));
        let ids: Vec<&str> = a.tests.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "t/a.t > math > adds",
                "t/a.t > a > b",
                "t/a.t > group > #7",
                "t/a.t > \"q\""
            ]
        );
        assert_eq!(a.tests[1].name, ["a > b"]);
        assert_eq!(
            (a.tests[2].name.clone(), a.tests[2].number),
            (vec!["group".to_owned(), String::new()], Some(7))
        );
        assert_eq!(a.tests[3].status, Status::Skipped);
        let (all, warnings) = load_all(dir.path()).expect("load all");
        assert!(warnings.is_empty(), "{warnings:?}");
        let kept = &all["t/a.t"];
        // Compaction keeps the last attempts, never fewer than KEEP_ATTEMPTS.
        assert!(
            kept.len() >= KEEP_ATTEMPTS && kept.len() <= KEEP_ATTEMPTS * 3 / 2 + 2,
            "{}",
            kept.len()
        );
        assert_eq!(kept.last().map(|f| f.run.as_str()), Some("run-34"));
        let failed_attempt = kept.iter().find(|f| !f.ok).expect("a failed attempt");
        assert_eq!(
            failed_attempt.tests[0].error.as_deref(),
            Some("0000000000000abc")
        );
    }

    #[test]
    fn a_cut_last_line_is_an_append_under_way_and_an_empty_folder_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(load(dir.path()).expect("load").is_empty());
        let folder = dir.path().join(DIR_NAME);
        fs::create_dir_all(&folder).expect("mkdir");
        let line = r#"{"file":"x.t","run":"r","attempt":1,"when":"w","ok":true,"tests":[{"name":"a","status":"passed","ms":2.5}]}"#;
        fs::write(
            folder.join("x.jsonl"),
            format!("{line}\n{{\"file\":\"x.t\",\"ru"),
        )
        .expect("write");
        let saved = load(dir.path()).expect("load");
        assert_eq!(saved["x.t"].tests[0].duration_ms, Some(2.5));
    }
}
