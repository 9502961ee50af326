//! Per-file dependency traces: what each test file loaded, recorded on every run, so that
//! watch mode and `--affected-by`/`--changed` run only the files a change can affect.
//!
//! Each language's hook (a [`crate::harness::trace::TraceHook`] of the registry's
//! [`crate::harness::registry::TRACE_HOOKS`]) lives in tapline's own folder in the temp
//! folder, reached through the variables every child inherits, so a subprocess of the test is
//! traced too. Each file's processes append the paths they loaded to the file
//! `TAPLINE_TRACE_OUT` names, one a line, and the test's first process ends them with
//! `#done <language>` ([`read`]): without that line (the hook could not write, the process was
//! killed or `exec`ed away) the file has no trace, which means "may depend on anything". A
//! language may instead ask a tool once the file has run
//! ([`crate::harness::trace::TraceHook::by_command`]). Only files under the project root are
//! kept; the traces are stored per test file beside the history ([`store`]) and replaced by
//! each run. Nothing here can fail a test or add to its output: every error just leaves no
//! trace. docs/traces.md names each language's hook.
//!
//! Another source of traces (a bundler's list of inputs) only has to call
//! [`store::Store::save`] with the test file and the project files it read.
pub mod select;
pub mod store;

use crate::harness::api::Id;
use crate::harness::registry::{traced_by, TRACE_HOOKS};
use crate::harness::trace::EnvEdit;
pub(crate) use crate::harness::trace::Roots;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The variable naming the file a test's processes append their loaded files to.
pub const OUT_VAR: &str = "TAPLINE_TRACE_OUT";
/// Set by the test's first traced process for the ones it starts (they write no `#done`).
pub const NESTED_VAR: &str = "TAPLINE_TRACE_NESTED";

/// How a test file is traced, from the command that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A file (or `[[suite]]`) the named language's hook traces.
    Language(Id),
    /// A file run as a page ([`crate::harness::api::Host::Page`]): what its bundle holds, as
    /// the page host recorded it ([`crate::harness::registry::PageInputs`]); no hook runs in
    /// the page.
    Page,
}

impl Kind {
    /// The kind of trace `argv` (a file's command, before the sandbox wraps it) can leave.
    pub fn of(argv: &[OsString], suite: bool) -> Option<Kind> {
        traced_by(argv, suite).map(|hook| Kind::Language(hook.id()))
    }
}

/// The run's hooks and where its traces go; `None` of it with `--no-trace`.
#[derive(Debug)]
pub struct Tracer {
    /// The hooks and where the test processes append, one file per planned file; `None` for
    /// a run of browser files only, whose traces need no hook.
    hooks: Option<Hooks>,
    root: PathBuf,
    store: store::Store,
    /// The files this run left without a trace, and why: told once, after the run.
    missing: std::sync::Mutex<Vec<(String, Missing)>>,
}

impl Tracer {
    /// Writes the hooks into a folder of its own; traces are stored in `<history_dir>/traces`.
    pub fn new(root: &Path, history_dir: &Path) -> std::io::Result<Arc<Tracer>> {
        let dir = hooks_dir()?.join(format!("{:016x}", hooks_version()));
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        for (name, text) in all_hooks() {
            write_hook(&dir, name, text)?;
        }
        let scratch = ScratchDir::create(&dir)?;
        Ok(Arc::new(Tracer {
            hooks: Some(Hooks { dir, scratch }),
            root: root.to_path_buf(),
            store: store::Store::in_dir(history_dir),
            missing: Default::default(),
        }))
    }

    /// A tracer for browser files only: their traces come from the run's record of what each
    /// page loaded, so no hook is written and nothing goes to the temp folder.
    pub fn without_hooks(root: &Path, history_dir: &Path) -> Arc<Tracer> {
        Arc::new(Tracer {
            hooks: None,
            root: root.to_path_buf(),
            store: store::Store::in_dir(history_dir),
            missing: Default::default(),
        })
    }

    /// The variables every child gets so that its hooks load, set over `vars` (the child's
    /// environment as configured; `inherited` reads tapline's own). A variable an
    /// interpreter ignores in some mode is put on its command line by
    /// [`super::child_env::ChildEnv::adapt`].
    pub fn add_env(
        &self,
        vars: &mut Vec<(OsString, OsString)>,
        inherited: impl Fn(&str) -> Option<OsString>,
    ) {
        let Some(Hooks { dir, .. }) = &self.hooks else {
            return;
        };
        // Each value is worked out from what the child would get before any is set.
        let edits: Vec<(&str, OsString)> = TRACE_HOOKS
            .iter()
            .filter_map(|hook| hook.env(dir))
            .map(|(key, edit)| {
                let before = super::child_env::seen_by_child(vars, key, &inherited);
                (key, edited(before, edit))
            })
            .collect();
        for (key, value) in edits {
            set(vars, key, value);
        }
    }

    /// Saves `rel`'s trace, or its lack, remembering why it has none.
    fn save(&self, rel: &str, files: Result<Vec<String>, Missing>) {
        let files = match files {
            Ok(files) => Some(files),
            Err(why) => {
                if let Ok(mut missing) = self.missing.lock() {
                    missing.push((rel.to_owned(), why));
                }
                None
            }
        };
        let _ = self.store.save(rel, files.as_deref());
    }

    /// The files that could have left a trace and did not, grouped by why, in one line; `None`
    /// when every one did. Taken once: the run tells it after its end.
    pub fn take_missing_note(&self) -> Option<String> {
        let missing = std::mem::take(&mut *self.missing.lock().ok()?);
        missing_note(missing)
    }

    /// The trace of one planned file, if its command can leave one (a file that can no
    /// longer be traced loses the trace it had). `cwd` is the run's.
    pub fn for_planned(self: &Arc<Tracer>, p: &super::Planned, cwd: &Path) -> Option<FileTrace> {
        let argv = p.command.as_ref().ok()?;
        if p.input.skip.is_some() {
            return None;
        }
        let kind = match p.input.host {
            crate::run::discover::Host::Page => Some(Kind::Page),
            _ => Kind::of(argv, p.input.suite),
        };
        let Some(kind) = kind else {
            let _ = self.store.save(&p.info.rel, None);
            return None;
        };
        let cwd = p.input.cwd.clone().unwrap_or_else(|| cwd.to_path_buf());
        Some(FileTrace {
            tracer: Arc::clone(self),
            kind,
            rel: p.info.rel.clone(),
            out: match (&self.hooks, kind) {
                (Some(hooks), _) => hooks.scratch.0.join(format!("{}.trace", p.info.index)),
                (None, Kind::Page) => PathBuf::new(),
                // A file whose trace needs a hook, in a tracer without: no trace.
                (None, _) => return None,
            },
            argv: argv.clone(),
            cwd,
            init: p
                .input
                .init
                .as_deref()
                .and_then(|i| project_rel(i, &self.root)),
        })
    }
}

/// The hooks' folder and the run's scratch folder in it.
#[derive(Debug)]
struct Hooks {
    dir: PathBuf,
    scratch: ScratchDir,
}

use crate::harness::hooks::version_of;
pub(crate) use crate::harness::hooks::{hooks_dir, versioned_hooks, write_hook};

fn all_hooks() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    TRACE_HOOKS.iter().flat_map(|hook| hook.hooks().iter())
}

/// The hooks' own folder is named by this hash of their texts (FNV-1a), so that two taplines
/// of different versions running at once never rewrite each other's hooks under their tests.
fn hooks_version() -> u64 {
    version_of(all_hooks().copied())
}

/// The run's own folder for the scratch traces, removed when the run's tracer goes.
#[derive(Debug)]
pub(crate) struct ScratchDir(pub(crate) PathBuf);

impl ScratchDir {
    pub(crate) fn create(hooks: &Path) -> std::io::Result<ScratchDir> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = hooks.join(format!("run-{}-{n}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(ScratchDir(dir)),
                // Left by an earlier tapline of the same pid: take the next name.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One file's trace in the making.
#[derive(Debug)]
pub struct FileTrace {
    tracer: Arc<Tracer>,
    kind: Kind,
    rel: String,
    out: PathBuf,
    argv: Vec<OsString>,
    cwd: PathBuf,
    /// The folder's `00init` module (relative to the root), which the file depends on
    /// whether its hook saw it load or not (its harness runs it first, outside the file's
    /// own process; [`crate::util`] finds it).
    init: Option<String>,
}

impl FileTrace {
    /// What the file's child gets beyond the run's variables.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        if self.kind == Kind::Page {
            return Vec::new();
        }
        vec![(OsString::from(OUT_VAR), self.out.clone().into_os_string())]
    }

    /// Reads what the file's processes wrote (or asks go), keeps the project's files and
    /// stores them as the file's trace; a trace that is not whole removes the stored one.
    /// Called once the file's processes have ended; never fails the file. `record: false`
    /// (a cancelled file) keeps the stored trace as it was.
    pub async fn finish(self, record: bool) {
        if self.kind == Kind::Page {
            // Its bundle's inputs come from the run's record (`finish_loaded`), not a hook.
            return;
        }
        if !record {
            let _ = std::fs::remove_file(&self.out);
            return;
        }
        let tracer = Arc::clone(&self.tracer);
        let _ = tokio::task::spawn_blocking(move || {
            let asked = match self.kind {
                Kind::Language(id) => TRACE_HOOKS
                    .iter()
                    .find(|hook| hook.id() == id)
                    .and_then(|hook| hook.by_command(&self.argv, &self.cwd, &tracer.root)),
                Kind::Page => None,
            };
            let files = match asked {
                Some(files) => files.map_err(Missing::Asked),
                None => read(&self.out, &self.cwd, &tracer.root),
            };
            let files = files.map(|files| with_init(files, self.init));
            let _ = std::fs::remove_file(&self.out);
            tracer.save(&self.rel, files);
        })
        .await;
    }

    /// [`FileTrace::finish`], in a task of its own when `later` is given: the file's task then
    /// hands its result (and a warm worker) back without waiting for its trace to be read and
    /// stored.
    pub(crate) async fn finish_or_later(self, record: bool, later: Option<&Later>) {
        match later {
            Some(later) => later.start(self, record),
            None => self.finish(record).await,
        }
    }

    /// A browser file's trace: the project files its bundle loaded (`None`: not known, which
    /// removes the stored one). `record: false` (a cancelled file) keeps the stored trace.
    pub fn finish_loaded(self, record: bool, loaded: Option<Vec<String>>) {
        if record {
            self.tracer
                .save(&self.rel, loaded.ok_or(Missing::NotPrepared));
        }
    }
}

/// The traces being stored after their files' tasks ended; the run waits for them before it
/// ends. Only for a run without retries: a file's next attempt writes the same scratch trace.
#[derive(Clone, Default)]
pub(crate) struct Later(Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>);

impl Later {
    fn start(&self, trace: FileTrace, record: bool) {
        let task = tokio::spawn(trace.finish(record));
        match self.0.lock() {
            Ok(mut tasks) => tasks.push(task),
            // Not waited for, but not lost either: the task runs on.
            Err(_) => drop(task),
        }
    }

    /// Waits for every trace started so far.
    pub(crate) async fn wait(&self) {
        let tasks = match self.0.lock() {
            Ok(mut tasks) => std::mem::take(&mut *tasks),
            Err(_) => return,
        };
        for task in tasks {
            let _ = task.await;
        }
    }
}

/// `files` (sorted, unique) with the folder's init module among them.
fn with_init(mut files: Vec<String>, init: Option<String>) -> Vec<String> {
    if let Some(init) = init {
        if let Err(at) = files.binary_search(&init) {
            files.insert(at, init);
        }
    }
    files
}

/// Why a file that could be traced has no trace this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// Its processes wrote nothing: the hook did not load (an interpreter option that skips
    /// the variable loading it; each room's `trace.rs` names them) or could not write.
    NoOutput,
    /// The test's first process never said it was done.
    NotEnded,
    /// A hook said it could not list all its process loaded, in its own words.
    Partial(String),
    /// A path relative to a folder the test had left.
    Unplaced(String),
    /// The tool a language asks instead of a hook could not say, in the language's words.
    Asked(&'static str),
    /// A browser file whose page was never prepared.
    NotPrepared,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::NoOutput => write!(
                f,
                "nothing was written (the hook did not load or could not write, or the test was \
                 killed, exec'ed away or ended by _exit)"
            ),
            Missing::NotEnded => write!(
                f,
                "its first process did not reach its end (killed, exec'ed away or ended by _exit)"
            ),
            Missing::Partial(why) => write!(f, "{why}"),
            Missing::Unplaced(path) => {
                write!(f, "it loaded {path} relative to a folder it then left")
            }
            Missing::Asked(why) => write!(f, "{why}"),
            Missing::NotPrepared => write!(f, "its page was never built"),
        }
    }
}

/// One line naming the files without a trace, grouped by why (a few names each).
fn missing_note(mut missing: Vec<(String, Missing)>) -> Option<String> {
    const SHOWN: usize = 5;
    if missing.is_empty() {
        return None;
    }
    let count = missing.len();
    missing.sort_by(|a, b| a.1.to_string().cmp(&b.1.to_string()).then(a.0.cmp(&b.0)));
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (rel, why) in missing {
        let why = why.to_string();
        match groups.last_mut() {
            Some((last, rels)) if *last == why => rels.push(rel),
            _ => groups.push((why, vec![rel])),
        }
    }
    let groups: Vec<String> = groups
        .into_iter()
        .map(|(why, rels)| {
            let mut names = rels[..rels.len().min(SHOWN)].join(", ");
            if rels.len() > SHOWN {
                names.push_str(&format!(" and {} more", rels.len() - SHOWN));
            }
            format!("{names}: {why}")
        })
        .collect();
    Some(format!(
        "{count} test file{} left no dependency trace (they run on any change): {}",
        if count == 1 { "" } else { "s" },
        groups.join("; ")
    ))
}

/// The project files a hook's output names, relative to `root` with `/` separators, sorted
/// and unique; why it is not a whole trace otherwise: no output at all, no `#done` line from
/// the test's first process, a `#partial` line (a hook that could not list all its process
/// loaded), or a relative path that names no file (it was relative to a folder the test had
/// moved away from).
pub fn read(out: &Path, cwd: &Path, root: &Path) -> Result<Vec<String>, Missing> {
    let text = std::fs::read(out).map_err(|_| Missing::NoOutput)?;
    if text.is_empty() {
        return Err(Missing::NoOutput);
    }
    let text = String::from_utf8_lossy(&text);
    let mut done = false;
    let roots = Roots::of(root);
    let mut files = std::collections::BTreeSet::new();
    for line in text.lines() {
        if let Some(why) = line.strip_prefix("#partial") {
            let why = why.trim_start_matches([' ', ':']).trim();
            return Err(Missing::Partial(if why.is_empty() {
                "a process could not list what it loaded".into()
            } else {
                why.to_owned()
            }));
        }
        if line.starts_with("#done") {
            done = true;
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let path = Path::new(line);
        let full = if path.is_absolute() {
            path.to_path_buf()
        } else {
            let full = cwd.join(path);
            if !full.exists() {
                return Err(Missing::Unplaced(line.to_owned()));
            }
            full
        };
        if let Some(rel) = roots.rel(&full) {
            files.insert(rel);
        }
    }
    if !done {
        return Err(Missing::NotEnded);
    }
    Ok(files.into_iter().collect())
}

/// `path` relative to `root` with `/` separators, if it lies under it (`..` and `.` resolved
/// by name; a root reached through a symlink matches its real path too).
pub fn project_rel(path: &Path, root: &Path) -> Option<String> {
    Roots::of(root).rel(path)
}

pub(crate) fn set(vars: &mut Vec<(OsString, OsString)>, key: &str, value: OsString) {
    match vars.iter_mut().find(|(k, _)| k == key) {
        Some((_, old)) => *old = value,
        None => vars.push((key.into(), value)),
    }
}

/// What a variable holds once `edit` is made to what it held.
pub(crate) fn edited(before: Option<OsString>, edit: EnvEdit) -> OsString {
    match edit {
        EnvEdit::AppendWords(words) => append_words(before, &words),
        EnvEdit::PrependPath(entry) => prepend_path(before, &entry),
        EnvEdit::Set(value) => value,
    }
}

/// `words` after what the variable held (space-separated options).
pub(crate) fn append_words(before: Option<OsString>, words: &str) -> OsString {
    match before.filter(|b| !b.is_empty()) {
        Some(mut before) => {
            before.push(" ");
            before.push(words);
            before
        }
        None => words.into(),
    }
}

/// `entry` first in a `:` list.
pub(crate) fn prepend_path(before: Option<OsString>, entry: &Path) -> OsString {
    let mut value = entry.as_os_str().to_owned();
    if let Some(before) = before.filter(|b| !b.is_empty()) {
        value.push(":");
        value.push(before);
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_is_whole_only_with_its_done_line() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("lib")).expect("mkdir");
        std::fs::write(root.join("lib/A.pm"), "1;").expect("write");
        let out = dir.path().join("out");
        let lines = |text: &str| {
            std::fs::write(&out, text).expect("write");
            read(&out, &root, &root)
        };
        let a = root.join("lib/A.pm");
        let whole = format!(
            "/usr/share/lang/Base.pm\n{}\nlib/A.pm\n#done lang\n",
            a.display()
        );
        assert_eq!(lines(&whole), Ok(vec!["lib/A.pm".to_owned()]));
        // A subprocess's lines alone: the test's own process never said it was done.
        assert_eq!(lines(&format!("{}\n", a.display())), Err(Missing::NotEnded));
        assert_eq!(
            lines(&format!("{whole}#partial lang: no inspector\n")),
            Err(Missing::Partial("lang: no inspector".into()))
        );
        // Relative to a folder the test left: it cannot be placed.
        assert_eq!(
            lines("lib/Gone.pm\n#done lang\n"),
            Err(Missing::Unplaced("lib/Gone.pm".into()))
        );
        assert_eq!(lines("#done lang\n"), Ok(vec![]));
        assert_eq!(lines(""), Err(Missing::NoOutput));
        std::fs::remove_file(&out).expect("rm");
        assert_eq!(read(&out, &root, &root), Err(Missing::NoOutput));
        assert_eq!(
            project_rel(&root.join("t/../lib/./A.pm"), &root),
            Some("lib/A.pm".to_owned())
        );
        assert_eq!(project_rel(Path::new("/elsewhere/A.pm"), &root), None);
    }

    #[test]
    fn files_without_a_trace_are_told_once_grouped_by_why() {
        assert_eq!(missing_note(vec![]), None);
        let killed = || Missing::NotEnded;
        let mut missing: Vec<(String, Missing)> =
            (1..=7).map(|i| (format!("t/{i}.t"), killed())).collect();
        missing.insert(
            2,
            (
                "t/b.js".into(),
                Missing::Partial("lang: no inspector".into()),
            ),
        );
        let note = missing_note(missing).expect("a note");
        assert_eq!(
            note,
            "8 test files left no dependency trace (they run on any change): \
             t/1.t, t/2.t, t/3.t, t/4.t, t/5.t and 2 more: its first process did not reach its \
             end (killed, exec'ed away or ended by _exit); t/b.js: lang: no inspector"
        );
        let dir = tempfile::TempDir::new().expect("temp dir");
        let tracer = Tracer::without_hooks(dir.path(), dir.path());
        tracer.save("t/a.t", Err(Missing::NoOutput));
        tracer.save("t/b.t", Ok(vec![]));
        let once = tracer.take_missing_note().expect("a note");
        assert!(
            once.starts_with("1 test file left no dependency trace"),
            "{once}"
        );
        assert_eq!(tracer.take_missing_note(), None);
    }

    /// Every language's hook variable, as the registry lists them, edited after what the
    /// child would get: a value set here, else the inherited one (each room's `trace.rs`
    /// tests its own edit).
    #[test]
    fn hooks_are_added_after_what_the_child_would_get() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let tracer = Tracer::new(dir.path(), dir.path()).expect("tracer");
        let hooks = &tracer.hooks.as_ref().expect("hooks").dir;
        let edits: Vec<(&str, EnvEdit)> = (TRACE_HOOKS.iter())
            .filter_map(|hook| hook.env(hooks))
            .collect();
        assert!(!edits.is_empty(), "the registry has trace hooks");
        let appended = |edit: &EnvEdit| matches!(edit, EnvEdit::AppendWords(_));
        // What a child gets otherwise: a value set here for the variables a hook appends to,
        // an inherited one for the others.
        let mut vars: Vec<(OsString, OsString)> = (edits.iter())
            .filter(|(_, edit)| appended(edit))
            .map(|(key, _)| ((*key).into(), OsString::from("-Mine")))
            .collect();
        tracer.add_env(&mut vars, |key| {
            (edits.iter())
                .any(|(k, edit)| *k == key && !appended(edit))
                .then(|| OsString::from("/inherited"))
        });
        let get = |key: &str| {
            vars.iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        for (key, edit) in &edits {
            let expected = match edit {
                EnvEdit::AppendWords(words) => format!("-Mine {words}"),
                EnvEdit::PrependPath(first) => format!("{}:/inherited", first.display()),
                EnvEdit::Set(value) => value.to_string_lossy().into_owned(),
            };
            assert_eq!(get(key), expected, "{key}");
        }
    }
}
