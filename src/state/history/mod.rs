//! The history store, `<log dir>/history.jsonl`: one JSON line per file attempt of every run,
//! read back for ordering, watch mode's failed-first and `tapline history`.
//!
//! Safe with two tapline processes at once: writers take an exclusive lock on
//! `history.jsonl.lock` and append a whole run in one `O_APPEND` write; compaction (keeping the
//! last [`MAX_RUNS`] runs of each file) rewrites the file into a temporary one and renames it,
//! under the same lock. Readers take no lock: an unterminated last line is an append in
//! progress and is left alone; any other line that does not parse is skipped with a warning.
//!
//! Cost per run stays flat however long the history: a run reads only the store's tail (each
//! selected file's last [`RECENT_RUNS`] runs, [`Store::recent`]), and compaction runs when the
//! file has grown by a quarter since the last one (its size then is kept in
//! `history.jsonl.compacted`), at least [`COMPACT_MIN_BYTES`]: a whole rewrite amortised over
//! many runs, rather than a whole read at every run.
pub mod import;
pub mod recording;
pub mod report;

use crate::event::run::FileResult;
use crate::util::time::rfc3339;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The store's file name inside the log folder.
pub const FILE_NAME: &str = "history.jsonl";
/// Runs of each file kept by compaction.
pub const MAX_RUNS: usize = 200;
/// The store's size below which it is never compacted.
pub const COMPACT_MIN_BYTES: u64 = 1 << 20;
/// Failing test names kept per record (a file failing thousands of tests needs no more).
const MAX_FAILING: usize = 100;

/// One attempt of one file in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The run's id (`<start ms>-<pid>-<run number>`), shared by all its records.
    pub run: String,
    /// When the run started, RFC 3339 UTC.
    pub start: String,
    /// `HEAD`'s commit when the project is a git checkout.
    #[serde(default)]
    pub commit: Option<String>,
    pub path: String,
    #[serde(default = "one")]
    pub attempt: u32,
    /// `passed` or `failed`: this attempt's own verdict.
    pub verdict: Verdict,
    #[serde(default)]
    pub reasons: Vec<String>,
    pub duration_ms: u64,
    /// Full names of the failing test points (at most 100).
    #[serde(default)]
    pub failing: Vec<String>,
    /// Test points judged (all depths).
    #[serde(default)]
    pub tests: u64,
    /// This passing attempt followed a failed one of the same run.
    #[serde(default)]
    pub flaky: bool,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
}

/// Identifies the records of one run: one id for all its attempts.
#[derive(Debug, Clone)]
pub struct RunStamp {
    pub id: String,
    pub start: String,
    pub commit: Option<String>,
}

impl RunStamp {
    /// A fresh stamp for run `number` of this process, read from the clock and `root`'s git.
    pub fn new(root: &Path, number: u64) -> RunStamp {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        RunStamp {
            id: format!("{}-{}-{number}", now.as_millis(), std::process::id()),
            start: rfc3339(now.as_millis() as i64),
            commit: git_head(root),
        }
    }

    /// The record of one finished attempt, `r` being that attempt's own result.
    pub fn record(&self, rel: &str, attempt: u32, r: &FileResult) -> Record {
        Record {
            run: self.id.clone(),
            start: self.start.clone(),
            commit: self.commit.clone(),
            path: rel.to_owned(),
            attempt,
            // A flaky file's last attempt passed, even when `--flaky-fails` failed the file.
            verdict: if r.ok || r.flaky {
                Verdict::Passed
            } else {
                Verdict::Failed
            },
            reasons: r.reasons.iter().map(ToString::to_string).collect(),
            duration_ms: r.duration.as_millis() as u64,
            failing: r
                .failing_tests()
                .take(MAX_FAILING)
                .map(str::to_owned)
                .collect(),
            // A suite point (the dialect that announces every test) is no test.
            tests: r.tests.judged(),
            flaky: r.flaky,
        }
    }
}

/// What a run needs to record itself: the store and the project root (for the commit).
#[derive(Debug, Clone)]
pub struct Recorder {
    pub store: Store,
    pub root: PathBuf,
}

/// The history file of a log folder.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
    /// [`COMPACT_MIN_BYTES`] but in tests.
    compact_min: u64,
}

/// What a load found: the records in file order, and one warning per corrupt line.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<Record>,
    pub warnings: Vec<String>,
}

impl Store {
    pub fn in_dir(log_dir: &Path) -> Store {
        Store {
            path: log_dir.join(FILE_NAME),
            compact_min: COMPACT_MIN_BYTES,
        }
    }

    /// Compacts from `bytes` on instead of [`COMPACT_MIN_BYTES`].
    pub fn compact_from(mut self, bytes: u64) -> Store {
        self.compact_min = bytes;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every record; a missing file is an empty history.
    pub fn load(&self) -> io::Result<Loaded> {
        match fs::read(&self.path) {
            Ok(bytes) => Ok(parse(&bytes, &self.path)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Loaded::default()),
            Err(e) => Err(e),
        }
    }

    /// The records (with only what [`Index`] reads: run, path, verdict, duration, flaky) of
    /// `wanted` files from the store's tail: read backwards until each
    /// has [`RECENT_RUNS`] runs, or as many records as that would take for all of them (a file
    /// not run lately is then unknown), or the start of the file.
    pub fn recent(&self, wanted: &[&str]) -> io::Result<Loaded> {
        use std::io::{Read, Seek, SeekFrom};
        const CHUNK: u64 = 256 * 1024;
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loaded::default()),
            Err(e) => return Err(e),
        };
        let size = file.metadata()?.len();
        let budget = RECENT_RUNS * wanted.len().max(1) * 2;
        let mut tail = Tail {
            wanted: wanted.iter().map(|w| (*w, ())).collect(),
            runs: HashMap::new(),
            satisfied: 0,
            newest_first: Vec::new(),
            warnings: Vec::new(),
        };
        let mut pos = size;
        // Bytes before `tail_start` not yet split into lines (a line cut by the chunk edge).
        let mut carry: Vec<u8> = Vec::new();
        let keys = Keys::new();
        let mut first_chunk = true;
        'chunks: while pos > 0 {
            let start = pos.saturating_sub(CHUNK);
            let mut chunk = vec![0; (pos - start) as usize];
            file.seek(SeekFrom::Start(start))?;
            file.read_exact(&mut chunk)?;
            chunk.extend_from_slice(&carry);
            pos = start;
            let mut end = chunk.len();
            if first_chunk {
                // An unterminated last line is an append in progress.
                end = memchr::memrchr(b'\n', &chunk).map_or(0, |i| i + 1);
                first_chunk = false;
            }
            let mut lines_end = end;
            loop {
                if tail.enough(budget) {
                    break 'chunks;
                }
                let line_start = match memchr::memrchr(b'\n', &chunk[..lines_end.saturating_sub(1)])
                {
                    Some(i) => i + 1,
                    None if pos == 0 => 0,
                    None => break,
                };
                let line = &chunk[line_start..lines_end];
                lines_end = line_start;
                if !line.iter().all(u8::is_ascii_whitespace) {
                    let at = pos + line_start as u64;
                    tail.line(line, &keys, || {
                        format!("{} at byte {at}", self.path.display())
                    });
                }
                if line_start == 0 {
                    break;
                }
            }
            carry = chunk[..lines_end].to_vec();
        }
        tail.newest_first.reverse();
        Ok(Loaded {
            records: tail.newest_first,
            warnings: tail.warnings,
        })
    }

    /// Appends `records` in one write under the lock, then compacts when the file has grown
    /// by a quarter since the last compaction.
    pub fn append(&self, records: &[Record]) -> io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        if let Some(dir) = self.path.parent() {
            crate::state::nogit::create_dir_all(dir)?;
        }
        let mut text = Vec::with_capacity(records.len() * 200);
        for r in records {
            serde_json::to_writer(&mut text, r)?;
            text.push(b'\n');
        }
        let _lock = self.lock()?;
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        file.write_all(&text)?;
        let size = file.metadata()?.len();
        drop(file);
        let last = fs::read_to_string(self.marker())
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if size >= self.compact_min.max(last + last / 4) {
            self.compact_locked()?;
        }
        Ok(())
    }

    /// Holds the store's size after the last compaction.
    fn marker(&self) -> PathBuf {
        self.path.with_extension("jsonl.compacted")
    }

    /// Keeps the last [`MAX_RUNS`] runs of each file (all their attempts), dropping corrupt
    /// lines; returns how many records were dropped.
    pub fn compact(&self) -> io::Result<usize> {
        let _lock = self.lock()?;
        self.compact_locked()
    }

    fn compact_locked(&self) -> io::Result<usize> {
        let loaded = self.load()?;
        let total = loaded.records.len();
        let kept = keep_last_runs(loaded.records, MAX_RUNS);
        let dropped = total - kept.len();
        let temp = self.path.with_extension("jsonl.tmp");
        let mut text = Vec::new();
        for r in &kept {
            serde_json::to_writer(&mut text, r)?;
            text.push(b'\n');
        }
        let size = text.len();
        fs::write(&temp, text)?;
        fs::rename(&temp, &self.path)?;
        fs::write(self.marker(), format!("{size}\n"))?;
        Ok(dropped)
    }

    fn lock(&self) -> io::Result<File> {
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.path.with_extension("jsonl.lock"))?;
        lock.lock()?;
        Ok(lock)
    }
}

/// The keys [`Light::scan`] looks for, their searchers built once per read.
struct Keys {
    run: memchr::memmem::Finder<'static>,
    path: memchr::memmem::Finder<'static>,
    verdict: memchr::memmem::Finder<'static>,
    duration_ms: memchr::memmem::Finder<'static>,
    flaky: memchr::memmem::Finder<'static>,
}

impl Keys {
    fn new() -> Keys {
        let finder = memchr::memmem::Finder::new;
        Keys {
            run: finder("run"),
            path: finder("path"),
            verdict: finder("verdict"),
            duration_ms: finder("duration_ms"),
            flaky: finder("flaky"),
        }
    }
}

/// What [`Index`] reads of a record, borrowed where the JSON allows: the tail is read at the
/// start of every run.
#[derive(Deserialize)]
struct Light<'a> {
    #[serde(borrow)]
    run: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    path: std::borrow::Cow<'a, str>,
    verdict: Verdict,
    duration_ms: u64,
    #[serde(default)]
    flaky: bool,
}

impl<'a> Light<'a> {
    /// The fields read straight from a line as tapline writes it (no escapes in `run` and
    /// `path`); `None` sends the line to the JSON parser. A key is matched only after `{` or
    /// `,`: inside a JSON string every `"` is escaped, so `,"path":` cannot occur there.
    fn scan(line: &'a [u8], keys: &Keys) -> Option<Light<'a>> {
        fn value<'l>(line: &'l [u8], key: &memchr::memmem::Finder<'_>) -> Option<&'l [u8]> {
            let len = key.needle().len();
            let at = key
                .find_iter(line)
                .find(|&i| i > 1 && matches!(line[i - 2], b'{' | b',') && line[i - 1] == b'"')?;
            line[at + len..].strip_prefix(b"\":")
        }
        fn string<'l>(line: &'l [u8], key: &memchr::memmem::Finder<'_>) -> Option<&'l str> {
            let rest = value(line, key)?.strip_prefix(b"\"")?;
            let end = memchr::memchr2(b'"', b'\\', rest)?;
            (rest[end] == b'"')
                .then(|| std::str::from_utf8(&rest[..end]).ok())
                .flatten()
        }
        let verdict = match string(line, &keys.verdict)? {
            "passed" => Verdict::Passed,
            "failed" => Verdict::Failed,
            _ => return None,
        };
        let digits = value(line, &keys.duration_ms)?;
        let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
        let duration_ms = std::str::from_utf8(&digits[..len]).ok()?.parse().ok()?;
        let flaky = match value(line, &keys.flaky) {
            None => false,
            Some(v) if v.starts_with(b"true") => true,
            Some(v) if v.starts_with(b"false") => false,
            Some(_) => return None,
        };
        Some(Light {
            run: std::borrow::Cow::Borrowed(string(line, &keys.run)?),
            path: std::borrow::Cow::Borrowed(string(line, &keys.path)?),
            verdict,
            duration_ms,
            flaky,
        })
    }

    fn into_record(self) -> Record {
        Record {
            run: self.run.into_owned(),
            start: String::new(),
            commit: None,
            path: self.path.into_owned(),
            attempt: 1,
            verdict: self.verdict,
            reasons: Vec::new(),
            duration_ms: self.duration_ms,
            failing: Vec::new(),
            tests: 0,
            flaky: self.flaky,
        }
    }
}

fn parse(bytes: &[u8], path: &Path) -> Loaded {
    let mut loaded = Loaded::default();
    let complete = match memchr::memrchr(b'\n', bytes) {
        Some(last) => &bytes[..last + 1],
        None => &[][..],
    };
    for (n, line) in complete.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(r) => loaded.records.push(r),
            Err(e) => {
                loaded
                    .warnings
                    .push(format!("skipped line {} of {}: {e}", n + 1, path.display()))
            }
        }
    }
    loaded
}

/// The records of each file's last `max` runs, in their original order.
fn keep_last_runs(records: Vec<Record>, max: usize) -> Vec<Record> {
    let mut runs_seen: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in &records {
        let runs = runs_seen.entry(&r.path).or_default();
        if runs.last() != Some(&r.run.as_str()) {
            runs.push(&r.run);
        }
    }
    let keep: HashMap<(String, String), ()> = runs_seen
        .into_iter()
        .flat_map(|(path, runs)| {
            let from = runs.len().saturating_sub(max);
            runs[from..]
                .iter()
                .map(|run| ((path.to_owned(), (*run).to_owned()), ()))
                .collect::<Vec<_>>()
        })
        .collect();
    records
        .into_iter()
        .filter(|r| keep.contains_key(&(r.path.clone(), r.run.clone())))
        .collect()
}

/// One file's run in history: the final attempt's verdict, flaky or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    Passed,
    Failed,
    Flaky,
}

/// Each file's runs, oldest first: (outcome, final attempt's duration in ms, failing names).
pub fn runs_by_file(records: &[Record]) -> BTreeMap<&str, Vec<FileRun<'_>>> {
    let mut by_file: BTreeMap<&str, Vec<FileRun<'_>>> = BTreeMap::new();
    for r in records {
        let runs = by_file.entry(&r.path).or_default();
        let outcome = match (r.verdict, r.flaky) {
            (Verdict::Passed, true) => RunOutcome::Flaky,
            (Verdict::Passed, false) => RunOutcome::Passed,
            (Verdict::Failed, _) => RunOutcome::Failed,
        };
        let run = FileRun {
            run: &r.run,
            outcome,
            duration_ms: r.duration_ms,
            record: r,
        };
        match runs.last_mut() {
            // A later attempt of the same run replaces the earlier one.
            Some(last) if last.run == r.run => *last = run,
            _ => runs.push(run),
        }
    }
    by_file
}

/// A file's verdict in one run, from its last attempt.
#[derive(Debug, Clone, Copy)]
pub struct FileRun<'a> {
    pub run: &'a str,
    pub outcome: RunOutcome,
    pub duration_ms: u64,
    pub record: &'a Record,
}

/// What ordering and watch mode need of each file: its typical duration and its last verdict.
#[derive(Debug, Default, Clone)]
pub struct Index {
    pub files: HashMap<String, FileFacts>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileFacts {
    /// Median duration of its last [`RECENT_RUNS`] runs, in ms.
    pub p50_ms: f64,
    pub last_failed: bool,
    /// Runs in the store.
    pub runs: usize,
}

/// Runs whose durations predict the next (older ones may describe different code).
pub const RECENT_RUNS: usize = 10;

impl Index {
    pub fn of(records: &[Record]) -> Index {
        let files = runs_by_file(records)
            .into_iter()
            .map(|(path, runs)| {
                let from = runs.len().saturating_sub(RECENT_RUNS);
                let mut recent: Vec<f64> =
                    runs[from..].iter().map(|r| r.duration_ms as f64).collect();
                recent.sort_by(f64::total_cmp);
                let facts = FileFacts {
                    p50_ms: crate::event::stability::percentile(&recent, 50.0),
                    last_failed: runs.last().is_some_and(|r| r.outcome == RunOutcome::Failed),
                    runs: runs.len(),
                };
                (path.to_owned(), facts)
            })
            .collect();
        Index { files }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// `HEAD`'s commit, read from the `.git` folder (or a worktree's `.git` file) without running
/// git; `None` outside a checkout or on anything unexpected.
pub fn git_head(root: &Path) -> Option<String> {
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_file() {
        let text = fs::read_to_string(&dot_git).ok()?;
        let dir = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
        if dir.is_absolute() {
            dir
        } else {
            root.join(dir)
        }
    } else {
        dot_git
    };
    let head = fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(reference) = head.strip_prefix("ref:").map(str::trim) else {
        return is_hash(head).then(|| head.to_owned());
    };
    // A worktree keeps branch refs in the common folder.
    let common = fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|| git_dir.clone());
    for dir in [&git_dir, &common] {
        if let Ok(hash) = fs::read_to_string(dir.join(reference)) {
            let hash = hash.trim();
            if is_hash(hash) {
                return Some(hash.to_owned());
            }
        }
    }
    let packed = fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (hash, name) = line.split_once(' ')?;
        (name == reference && is_hash(hash)).then(|| hash.to_owned())
    })
}

fn is_hash(s: &str) -> bool {
    s.len() >= 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The store's tail as [`Store::recent`] reads it, newest line first.
struct Tail<'w> {
    wanted: HashMap<&'w str, ()>,
    /// Each path's runs read so far, and the last run's id.
    runs: HashMap<String, (usize, String)>,
    /// Wanted files with [`RECENT_RUNS`] runs read.
    satisfied: usize,
    newest_first: Vec<Record>,
    warnings: Vec<String>,
}

impl Tail<'_> {
    /// Every wanted file has its runs, or `budget` records were read.
    fn enough(&self, budget: usize) -> bool {
        self.satisfied >= self.wanted.len() || self.newest_first.len() >= budget
    }

    /// One line (`at` says where, for a warning when it does not parse).
    fn line(&mut self, line: &[u8], keys: &Keys, at: impl FnOnce() -> String) {
        let light =
            Light::scan(line, keys).map_or_else(|| serde_json::from_slice::<Light<'_>>(line), Ok);
        match light {
            Ok(light) => {
                let r = light.into_record();
                let entry = self.runs.entry(r.path.clone()).or_default();
                if entry.1 != r.run {
                    entry.0 += 1;
                    entry.1 = r.run.clone();
                    if entry.0 == RECENT_RUNS && self.wanted.contains_key(r.path.as_str()) {
                        self.satisfied += 1;
                    }
                }
                self.newest_first.push(r);
            }
            Err(e) => self
                .warnings
                .push(format!("skipped a line of {}: {e}", at())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(run: &str, path: &str, attempt: u32, verdict: Verdict, ms: u64) -> Record {
        Record {
            run: run.into(),
            start: "2026-01-01T00:00:00.000Z".into(),
            commit: None,
            path: path.into(),
            attempt,
            verdict,
            reasons: Vec::new(),
            duration_ms: ms,
            failing: Vec::new(),
            tests: 1,
            flaky: false,
        }
    }

    #[test]
    fn the_quick_scan_reads_what_serde_reads_or_leaves_the_line_to_it() {
        let mut r = record("r\"1", "t/a \\ b.t", 2, Verdict::Failed, 1234);
        r.reasons = vec![",\"path\":\"evil".into()];
        r.failing = vec!["x\",\"flaky\":true".into()];
        let escaped = serde_json::to_vec(&r).unwrap();
        assert!(
            Light::scan(&escaped, &Keys::new()).is_none(),
            "escapes go to serde"
        );
        let parsed = serde_json::from_slice::<Light<'_>>(&escaped)
            .unwrap()
            .into_record();
        assert_eq!(
            (parsed.run.as_str(), parsed.path.as_str()),
            ("r\"1", "t/a \\ b.t")
        );
        let mut plain = record("r1", "t/a.t", 2, Verdict::Failed, 1234);
        plain.reasons = vec![",\"path\":\"evil".into()];
        plain.failing = vec!["x\",\"flaky\":true,\"duration_ms\":9".into()];
        plain.flaky = false;
        let line = serde_json::to_vec(&plain).unwrap();
        let light = Light::scan(&line, &Keys::new())
            .expect("plain line")
            .into_record();
        assert_eq!(
            (
                light.run.as_str(),
                light.path.as_str(),
                light.verdict,
                light.duration_ms,
                light.flaky
            ),
            ("r1", "t/a.t", Verdict::Failed, 1234, false)
        );
        plain.flaky = true;
        plain.verdict = Verdict::Passed;
        let line = serde_json::to_vec(&plain).unwrap();
        let light = Light::scan(&line, &Keys::new())
            .expect("plain line")
            .into_record();
        assert_eq!((light.verdict, light.flaky), (Verdict::Passed, true));
        assert!(Light::scan(b"{not json", &Keys::new()).is_none());
    }

    #[test]
    fn corrupt_lines_are_skipped_with_a_warning_and_a_partial_last_line_silently() {
        let good = serde_json::to_string(&record("r1", "a.t", 1, Verdict::Passed, 5)).unwrap();
        let text = format!("{good}\n{{not json\n\n{good}\n{{\"run\":\"r2\"");
        let loaded = parse(text.as_bytes(), Path::new("h.jsonl"));
        assert_eq!(loaded.records.len(), 2);
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert!(loaded.warnings[0].starts_with("skipped line 2 of h.jsonl:"));
    }

    #[test]
    fn compaction_keeps_each_files_last_runs_with_all_their_attempts() {
        let mut records = Vec::new();
        for n in 0..5 {
            let run = format!("r{n}");
            records.push(record(&run, "a.t", 1, Verdict::Failed, 1));
            records.push(record(&run, "a.t", 2, Verdict::Passed, 1));
            if n % 2 == 0 {
                records.push(record(&run, "b.t", 1, Verdict::Passed, 1));
            }
        }
        let kept = keep_last_runs(records, 2);
        let shown: Vec<String> = kept
            .iter()
            .map(|r| format!("{}:{}:{}", r.run, r.path, r.attempt))
            .collect();
        assert_eq!(
            shown,
            ["r2:b.t:1", "r3:a.t:1", "r3:a.t:2", "r4:a.t:1", "r4:a.t:2", "r4:b.t:1"]
        );
    }

    #[test]
    fn two_writers_at_once_lose_nothing_and_compaction_bounds_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        // About 130 runs of both writers' records: compaction happens several times.
        let store = Store::in_dir(dir.path()).compact_from(60_000);
        std::thread::scope(|s| {
            for w in 0..2 {
                let store = store.clone();
                s.spawn(move || {
                    for n in 0..400 {
                        let run = format!("w{w}-{n}");
                        let batch = vec![record(&run, &format!("w{w}.t"), 1, Verdict::Passed, 1)];
                        store.recent(&["w0.t", "w1.t"]).expect("tail");
                        store.append(&batch).expect("append");
                    }
                });
            }
        });
        let loaded = store.load().expect("load");
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let index = Index::of(&loaded.records);
        for w in ["w0.t", "w1.t"] {
            let runs = index.files[w].runs;
            assert!((MAX_RUNS..400).contains(&runs), "{w}: {runs}");
        }
        // The newest runs survived, in order.
        for w in 0..2 {
            let mine: Vec<&str> = loaded
                .records
                .iter()
                .filter(|r| r.path == format!("w{w}.t"))
                .map(|r| r.run.as_str())
                .collect();
            assert_eq!(mine.last().copied(), Some(format!("w{w}-399").as_str()));
            let numbers: Vec<u32> = mine
                .iter()
                .map(|r| r.rsplit('-').next().unwrap().parse().unwrap())
                .collect();
            assert!(numbers.windows(2).all(|p| p[1] == p[0] + 1), "{numbers:?}");
        }
    }

    #[test]
    fn the_tail_gives_each_wanted_file_its_recent_runs() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::in_dir(dir.path());
        assert!(store.recent(&["a.t"]).expect("empty").records.is_empty());
        for n in 0..3000 {
            let run = format!("r{n}");
            let mut batch = vec![record(&run, "a.t", 1, Verdict::Passed, n)];
            if n % 30 == 0 {
                batch.push(record(&run, "rare.t", 1, Verdict::Failed, 7));
            }
            store.append(&batch).expect("append");
        }
        let mut text = fs::read(store.path()).expect("read");
        text.extend_from_slice(b"{\"run\":\"partial");
        fs::write(store.path(), text).expect("write");
        let tail = store.recent(&["a.t"]).expect("tail");
        assert!(tail.warnings.is_empty(), "{:?}", tail.warnings);
        let index = Index::of(&tail.records);
        assert_eq!(index.files["a.t"].runs, RECENT_RUNS);
        assert_eq!(index.files["a.t"].p50_ms, 2994.0);
        // A file run now and then is found within the budget; the whole store is not read.
        let both = Index::of(&store.recent(&["a.t", "rare.t"]).expect("tail").records);
        assert!(both.files.contains_key("rare.t"));
        assert!(tail.records.len() < 100);
        // A small store is read whole, first line included.
        let small = tempfile::tempdir().expect("temp dir");
        let store = Store::in_dir(small.path());
        store
            .append(&[
                record("r1", "b.t", 1, Verdict::Failed, 5),
                record("r1", "c.t", 1, Verdict::Passed, 5),
            ])
            .expect("append");
        fs::write(
            store.path(),
            format!("garbage\n{}", fs::read_to_string(store.path()).unwrap()),
        )
        .unwrap();
        let tail = store.recent(&["b.t", "c.t", "d.t"]).expect("tail");
        assert_eq!(tail.records.len(), 2);
        assert_eq!(tail.warnings.len(), 1, "{:?}", tail.warnings);
        assert!(Index::of(&tail.records).files["b.t"].last_failed);
    }

    #[test]
    fn index_takes_the_median_of_recent_runs_and_the_last_verdict() {
        let records = vec![
            record("r1", "a.t", 1, Verdict::Passed, 100),
            record("r2", "a.t", 1, Verdict::Failed, 300),
            record("r2", "a.t", 2, Verdict::Passed, 200),
            record("r3", "a.t", 1, Verdict::Failed, 400),
        ];
        let index = Index::of(&records);
        let a = index.files["a.t"];
        assert_eq!((a.p50_ms, a.last_failed, a.runs), (200.0, true, 3));
    }

    #[test]
    fn git_head_reads_refs_and_packed_refs() {
        let dir = tempfile::tempdir().expect("temp dir");
        let git = dir.path().join(".git");
        fs::create_dir_all(git.join("refs/heads")).unwrap();
        assert_eq!(git_head(dir.path()), None);
        let hash = "0123456789abcdef0123456789abcdef01234567";
        fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(
            git.join("packed-refs"),
            format!("# pack\n{hash} refs/heads/main\n"),
        )
        .unwrap();
        assert_eq!(git_head(dir.path()).as_deref(), Some(hash));
        let newer = "fedcba9876543210fedcba9876543210fedcba98";
        fs::write(git.join("refs/heads/main"), format!("{newer}\n")).unwrap();
        assert_eq!(git_head(dir.path()).as_deref(), Some(newer));
    }
}
