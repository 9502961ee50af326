//! The log folder (default `<root>/.nogit/testlogs`): one raw log per test file, the run's
//! verdicts, and the previous run's of both in `previous/`, to tell what newly fails.
//!
//! Layout: `<name>.log` (see `discover::log_name`), `verdicts.json` (an object mapping each
//! file's path relative to the project root to whether it passed), and `previous/` holding
//! exactly what the folder held when this run started.
//!
//! A run writes its verdicts over the previous ones ([`LogDir::merged`]): a file it did not
//! run (a partial run, a watch re-run of the changed file) or did not finish (cancelled) keeps
//! its last verdict, so a failing file stays failing until a run of it passes, and is only then
//! "Fixed". A deleted file's entry stays too (a verdict about a path nobody runs is harmless).
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

const VERDICTS: &str = "verdicts.json";
const PREVIOUS: &str = "previous";

#[derive(Debug)]
pub struct LogDir {
    dir: PathBuf,
    /// The previous run's verdicts; empty when there were none.
    previous: BTreeMap<String, bool>,
}

/// How this run's verdicts differ from the previous run's, each list sorted by path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    pub newly_failing: Vec<String>,
    pub fixed: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// `action` is a verb such as "create" or "move".
    #[error("failed to {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("failed to create log `{0}`: not a plain file name ending in `.log`")]
    BadName(String),
}

fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> LogError + 'a {
    move |source| LogError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

impl LogDir {
    /// Creates `dir` if needed and moves the previous run's logs and verdicts into
    /// `previous/`, replacing what was there.
    pub fn prepare(dir: &Path) -> Result<LogDir, LogError> {
        let previous = dir.join(PREVIOUS);
        crate::state::nogit::create_dir_all(dir).map_err(io_error("create", dir))?;
        match fs::remove_dir_all(&previous) {
            Err(e)
                if !matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::DirectoryNotEmpty
                ) =>
            {
                return Err(io_error("clear", &previous)(e))
            }
            _ => {}
        }
        // Another tapline starting in the same folder at the same moment (shards side by side
        // in one checkout) may have made it, or moved a log first: neither is an error.
        match fs::create_dir(&previous) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                return Err(io_error("create", &previous)(e))
            }
            _ => {}
        }
        for entry in fs::read_dir(dir).map_err(io_error("read", dir))? {
            let entry = entry.map_err(io_error("read", dir))?;
            let name = entry.file_name();
            let is_file = entry.file_type().is_ok_and(|kind| kind.is_file());
            if is_file
                && (name == VERDICTS || name.to_str().is_some_and(|name| name.ends_with(".log")))
            {
                let to = previous.join(&name);
                match fs::rename(entry.path(), &to) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(io_error("move", &entry.path())(e))
                    }
                    _ => {}
                }
            }
        }
        let verdicts_path = previous.join(VERDICTS);
        let previous = match fs::read(&verdicts_path) {
            // The verdicts only feed the "newly failing" note: a damaged file, which atomic
            // writes make unlikely, just means there is nothing to compare with.
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(io_error("read", &verdicts_path)(e)),
        };
        Ok(LogDir {
            dir: dir.to_path_buf(),
            previous,
        })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Creates (truncating) the log `log_name`, which must be a plain file name ending in
    /// `.log`, so the log can't land outside the folder or clobber `verdicts.json`.
    pub fn create_log(&self, log_name: &str) -> Result<File, LogError> {
        if !log_name.ends_with(".log") || log_name.contains(['/', '\\', '\0']) {
            return Err(LogError::BadName(log_name.to_owned()));
        }
        let path = self.dir.join(log_name);
        File::create(&path).map_err(io_error("create", &path))
    }

    /// Writes `verdicts.json` (path relative to the root → passed) so that a reader sees the
    /// old file or the new one, never a partial one.
    pub fn write_verdicts(&self, verdicts: &BTreeMap<String, bool>) -> Result<(), LogError> {
        let path = self.dir.join(VERDICTS);
        let temp = self.dir.join(".verdicts.json.tmp");
        let mut json =
            serde_json::to_vec_pretty(verdicts).map_err(|e| io_error("write", &temp)(e.into()))?;
        json.push(b'\n');
        fs::write(&temp, json).map_err(io_error("write", &temp))?;
        fs::rename(&temp, &path).map_err(io_error("replace", &path))
    }

    /// This run's verdicts laid over the previous run's: what `verdicts.json` should hold after
    /// a run that finished only the files in `current`.
    pub fn merged(&self, current: &BTreeMap<String, bool>) -> BTreeMap<String, bool> {
        let mut all = self.previous.clone();
        all.extend(current.iter().map(|(rel, &ok)| (rel.clone(), ok)));
        all
    }

    /// The files that passed last run and fail now, and the reverse; files the previous run
    /// didn't have are in neither.
    pub fn changes(&self, current: &BTreeMap<String, bool>) -> Changes {
        let mut changes = Changes::default();
        for (rel, &ok) in current {
            match self.previous.get(rel) {
                Some(true) if !ok => changes.newly_failing.push(rel.clone()),
                Some(false) if ok => changes.fixed.push(rel.clone()),
                _ => {}
            }
        }
        changes
    }
}

/// Log file names for a run's files (or a daemon's streams), each claimed once: `test/a.sh`
/// and `test/a.t` would share `test__a.log` (and write into one file at once), so a later
/// file whose name is taken keeps its extension (`test__a.t.log`), then gets a number.
#[derive(Debug, Default)]
pub struct LogNames(std::collections::HashSet<String>);

impl LogNames {
    /// A plain file name ending in `.log` for `rel`, whatever `rel` holds (see
    /// [`log_name`]), not claimed before.
    pub fn claim(&mut self, rel: &str) -> String {
        let mut name = log_name(rel);
        if self.0.contains(&name) {
            name = log_name(&format!("{rel}.log"));
            let stem = name.trim_end_matches(".log").to_owned();
            let mut n = 2;
            while self.0.contains(&name) {
                name = format!("{stem}.{n}.log");
                n += 1;
            }
        }
        self.0.insert(name.clone());
        name
    }
}

/// Longest log name stem: room for `.attempt-NN.log`/`.N.log` within a 255-byte file name.
const MAX_LOG_STEM: usize = 200;

/// `test/unit/test.ts` → `test__unit__test.log`: a flat file name that can't leave
/// the log folder (`..` becomes `up`, empty and `.` components go, `\` and NUL become `_`).
/// Folders are joined by `__`, the log names docs/run.md promises, except where a name starts or ends
/// with `_` (`__tests__`, `_helpers`): there `--`, so the separator still shows
/// (`__tests__/sum.test.js` → `__tests__--sum.test.log`, not `__tests____sum.test.log`).
pub fn log_name(rel: &str) -> String {
    flat_name(rel, true)
}

/// The name of `rel`'s per-test record (`tests/<name>.jsonl`, without `.log`): [`log_name`]'s
/// rule before it joined `_`-edged names with `--`, kept so that a record keeps its file (two
/// records of one test file would disagree on which is its last run).
pub fn record_name(rel: &str) -> String {
    flat_name(rel, false)
}

/// Joins `parts` by `__`, or by `--` next to a part that starts or ends with `_` when
/// `readable`.
fn join_parts(parts: &[String], readable: bool) -> String {
    let mut joined = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            let prev = parts.get(i - 1).map_or("", String::as_str);
            let blurs = prev.ends_with('_') || part.starts_with('_');
            joined.push_str(if readable && blurs { "--" } else { "__" });
        }
        joined.push_str(part);
    }
    joined
}

fn flat_name(rel: &str, readable: bool) -> String {
    // A file run in two hosts has an entry per host (`a.both.ts (HOST)`), each with its log
    // (`a.both.HOST.log`).
    let (rel, runtime) = match crate::harness::api::host_of(rel) {
        Some((file, host)) => (file, Some(host)),
        None => (rel, None),
    };
    let mut parts: Vec<String> = rel
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .map(|part| {
            if part == ".." {
                "up".to_owned()
            } else {
                part.replace(|c: char| c == '\\' || c.is_control(), "_")
            }
        })
        .collect();
    if let Some(last) = parts.last_mut() {
        // A leading dot starts a hidden name, not an extension; nor is a dot followed by a
        // space one (`lib.rs (doc tests)`, a suite named after a file: stripped, it would
        // share `lib.rs`'s record).
        if let Some(dot) = (last.rfind('.')).filter(|&dot| dot > 0 && !last[dot..].contains(' ')) {
            last.truncate(dot);
        }
        if let Some(runtime) = runtime {
            last.push('.');
            last.push_str(runtime);
        }
    }
    let mut stem = join_parts(&parts, readable);
    if stem.len() > MAX_LOG_STEM {
        // Names longer than a file name may be (255 bytes) keep their start and a hash of the
        // whole, so two long names sharing a start still get two logs.
        let mut cut = MAX_LOG_STEM - 17;
        while !stem.is_char_boundary(cut) {
            cut -= 1;
        }
        let hash = crate::util::fnv1a(rel.as_bytes());
        stem.truncate(cut);
        stem.push_str(&format!("-{hash:016x}"));
    }
    format!("{}.log", if stem.is_empty() { "_" } else { &stem })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use tempfile::TempDir;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("read dir")
            .map(|entry| {
                entry
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    fn verdicts(pairs: &[(&str, bool)]) -> BTreeMap<String, bool> {
        pairs
            .iter()
            .map(|&(rel, ok)| (rel.to_owned(), ok))
            .collect()
    }

    #[test]
    fn prepare_creates_the_folder() {
        let tmp = TempDir::new().expect("temp dir");
        let dir = tmp.path().join(".nogit/testlogs");
        let logs = LogDir::prepare(&dir).expect("prepared");
        assert_eq!(logs.path(), dir);
        assert_eq!(names(&dir), ["previous"]);
        assert!(names(&dir.join("previous")).is_empty());
        assert_eq!(
            logs.changes(&verdicts(&[("a.t", false)])),
            Changes::default()
        );
    }

    #[test]
    fn runs_rotate() {
        let tmp = TempDir::new().expect("temp dir");
        let dir = tmp.path().join("logs");

        let first = LogDir::prepare(&dir).expect("prepared");
        first
            .create_log("test__a.log")
            .expect("log")
            .write_all(b"ok 1\n")
            .expect("write");
        first
            .create_log("test__b.log")
            .expect("log")
            .write_all(b"not ok 1\n")
            .expect("write");
        first
            .write_verdicts(&verdicts(&[("test/a.t", true), ("test/b.t", false)]))
            .expect("verdicts");
        fs::write(dir.join("notes.txt"), "mine").expect("write");
        assert_eq!(
            names(&dir),
            [
                "notes.txt",
                "previous",
                "test__a.log",
                "test__b.log",
                "verdicts.json"
            ]
        );

        let second = LogDir::prepare(&dir).expect("prepared");
        assert_eq!(
            names(&dir),
            ["notes.txt", "previous"],
            "only logs and verdicts move"
        );
        assert_eq!(
            names(&dir.join("previous")),
            ["test__a.log", "test__b.log", "verdicts.json"]
        );
        assert_eq!(
            fs::read(dir.join("previous/test__a.log")).expect("read"),
            b"ok 1\n"
        );
        second.create_log("test__c.log").expect("log");

        let third = LogDir::prepare(&dir).expect("prepared");
        assert_eq!(
            names(&dir.join("previous")),
            ["test__c.log"],
            "the older run is gone"
        );
        assert_eq!(
            third.changes(&verdicts(&[("test/a.t", false)])),
            Changes::default(),
            "the second run wrote no verdicts"
        );
    }

    #[test]
    fn verdicts_compare_with_the_previous_run() {
        let tmp = TempDir::new().expect("temp dir");
        let first = LogDir::prepare(tmp.path()).expect("prepared");
        first
            .write_verdicts(&verdicts(&[
                ("a.t", true),
                ("b.t", false),
                ("c.t", true),
                ("d.t", false),
                ("gone.t", true),
            ]))
            .expect("verdicts");
        assert_eq!(
            names(tmp.path()),
            ["previous", "verdicts.json"],
            "no temp file left"
        );
        let json = fs::read_to_string(tmp.path().join("verdicts.json")).expect("read");
        assert_eq!(
            serde_json::from_str::<BTreeMap<String, bool>>(&json)
                .expect("JSON")
                .len(),
            5
        );

        let second = LogDir::prepare(tmp.path()).expect("prepared");
        let now = verdicts(&[
            ("a.t", false),
            ("b.t", true),
            ("c.t", true),
            ("d.t", false),
            ("new.t", false),
            ("new2.t", true),
        ]);
        assert_eq!(
            second.changes(&now),
            Changes {
                newly_failing: vec!["a.t".into()],
                fixed: vec!["b.t".into()]
            }
        );
        second.write_verdicts(&now).expect("verdicts");
        second
            .write_verdicts(&verdicts(&[("a.t", true)]))
            .expect("overwrite");

        let third = LogDir::prepare(tmp.path()).expect("prepared");
        assert_eq!(
            third
                .changes(&verdicts(&[("a.t", false), ("b.t", false)]))
                .newly_failing,
            ["a.t"]
        );
    }

    /// Regression: a partial run (a watch re-run of the one changed passing file) wrote only
    /// its own verdict, so the failing file it did not run was forgotten: never "Fixed" later.
    #[test]
    fn a_partial_run_keeps_the_verdicts_of_files_it_did_not_run() {
        let tmp = TempDir::new().expect("temp dir");
        let first = LogDir::prepare(tmp.path()).expect("prepared");
        let all = verdicts(&[("a.t", false), ("b.t", true)]);
        first.write_verdicts(&first.merged(&all)).expect("verdicts");

        let second = LogDir::prepare(tmp.path()).expect("prepared");
        let only_b = verdicts(&[("b.t", true)]);
        assert_eq!(second.changes(&only_b), Changes::default());
        assert_eq!(second.merged(&only_b), all, "a.t still fails");
        second
            .write_verdicts(&second.merged(&only_b))
            .expect("verdicts");

        let third = LogDir::prepare(tmp.path()).expect("prepared");
        let a_passes = verdicts(&[("a.t", true)]);
        assert_eq!(
            third.changes(&a_passes),
            Changes {
                newly_failing: vec![],
                fixed: vec!["a.t".into()]
            }
        );
        assert_eq!(
            third.merged(&a_passes),
            verdicts(&[("a.t", true), ("b.t", true)])
        );
    }

    #[test]
    fn damaged_verdicts_mean_no_comparison() {
        let tmp = TempDir::new().expect("temp dir");
        fs::write(tmp.path().join("verdicts.json"), "{\"a.t\": tru").expect("write");
        let logs = LogDir::prepare(tmp.path()).expect("prepared despite the damage");
        assert_eq!(
            logs.changes(&verdicts(&[("a.t", false)])),
            Changes::default()
        );
    }

    #[test]
    fn logs_stay_inside_the_folder() {
        let tmp = TempDir::new().expect("temp dir");
        let dir = tmp.path().join("logs");
        let logs = LogDir::prepare(&dir).expect("prepared");
        for bad in [
            "../escape.log",
            "/tmp/abs.log",
            "sub/x.log",
            "a\\b.log",
            "nul\0.log",
            "..",
            ".",
            "",
            "previous",
            "verdicts.json",
        ] {
            let err = logs.create_log(bad).expect_err("rejected");
            assert!(matches!(err, LogError::BadName(_)), "{bad:?}: {err:?}");
        }
        assert_eq!(names(tmp.path()), ["logs"]);
        assert_eq!(names(&dir), ["previous"]);

        let mut file = logs.create_log("x.log").expect("log");
        file.write_all(b"long first content").expect("write");
        logs.create_log("x.log")
            .expect("log")
            .write_all(b"short")
            .expect("write");
        assert_eq!(
            fs::read(dir.join("x.log")).expect("read"),
            b"short",
            "truncated"
        );
    }

    /// Issue 10: names from the outside (a daemon's stream names) land inside the folder,
    /// one file each, whatever they hold.
    #[test]
    fn hostile_names_stay_inside_the_folder() {
        let tmp = TempDir::new().expect("temp dir");
        let dir = tmp.path().join("logs");
        let logs = LogDir::prepare(&dir).expect("prepared");
        let mut claimed = LogNames::default();
        let long = "x".repeat(4096);
        let deep = "../".repeat(600);
        let hostile = [
            "../x",
            "/etc/passwd",
            "a\0b",
            "nul\0byte",
            "..",
            ".",
            "/",
            "",
            "previous",
            "verdicts.json",
            "new\nline",
            "tab\tand\x1bescape",
            &long,
            &deep,
            "\u{e9}t\u{e9}",
            "../x",
        ];
        for name in hostile {
            let log_name = claimed.claim(name);
            assert!(log_name.len() <= 255, "{name:?}: {} bytes", log_name.len());
            logs.create_log(&log_name)
                .unwrap_or_else(|e| panic!("{name:?} -> {log_name:?}: {e}"))
                .write_all(name.as_bytes())
                .expect("write");
        }
        assert_eq!(names(tmp.path()), ["logs"], "nothing outside the folder");
        let inside = names(&dir);
        assert_eq!(inside.len(), hostile.len() + 1, "one log each: {inside:?}");
        assert!(inside
            .iter()
            .all(|n| n == "previous" || n.ends_with(".log")));
        assert!(
            inside.iter().all(|n| !n.chars().any(|c| c.is_control())),
            "{inside:?}"
        );
    }

    /// A per-test record keeps the name it had before logs joined `_`-edged names by `--`:
    /// one record per test file, whichever tapline wrote it.
    #[test]
    fn a_suite_named_after_a_file_keeps_a_record_of_its_own() {
        assert_eq!(record_name("src/lib.rs"), "src__lib.log");
        assert_eq!(
            record_name("src/lib.rs (doc tests)"),
            "src__lib.rs (doc tests).log"
        );
        assert_eq!(
            log_name("src/lib.rs (doc tests)"),
            "src__lib.rs (doc tests).log"
        );
    }

    #[test]
    fn records_keep_their_names() {
        assert_eq!(
            record_name("__tests__/sum.test.js"),
            "__tests____sum.test.log"
        );
        assert_eq!(log_name("__tests__/sum.test.js"), "__tests__--sum.test.log");
        assert_eq!(record_name("test/a.t"), log_name("test/a.t"));
    }

    #[test]
    fn errors_say_what_failed() {
        let tmp = TempDir::new().expect("temp dir");
        let blocker = tmp.path().join("file");
        fs::write(&blocker, "").expect("write");
        let err = LogDir::prepare(&blocker.join("logs")).expect_err("a file is in the way");
        assert!(
            err.to_string().starts_with(&format!(
                "failed to create {}",
                blocker.join("logs").display()
            )),
            "{err}"
        );
        let err = LogDir::prepare(tmp.path())
            .expect("prepared")
            .create_log("a/b.log")
            .expect_err("bad name");
        assert_eq!(
            err.to_string(),
            "failed to create log `a/b.log`: not a plain file name ending in `.log`"
        );
    }
}
