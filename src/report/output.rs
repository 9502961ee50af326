//! `-o PATH` reports: the format chosen by the extension, each a sink on the run's event stream
//! that writes its file atomically (a temporary file beside it, then a rename) when a run ends:
//! after every run in watch mode, after the whole series with `--runs N`, and after Ctrl-C too
//! (the run then ends as interrupted, and so do its reports).
//!
//! | extension | content |
//! |---|---|
//! | `.jsonl` | the run's events, exactly what `--format jsonl` prints |
//! | `.json` | the summary document, exactly what `--format summary` prints |
//! | `.xml` | JUnit XML ([`super::junit`]) |
//! | `.md` | Markdown ([`super::markdown`]) |
//! | `.html` | one self-contained page ([`super::html`]) |
//! | `.lcov`, `.info` | line coverage of `run --coverage` as lcov ([`crate::coverage::lcov`]) |
//! | `.cobertura.xml` | the same as Cobertura XML ([`crate::coverage::cobertura`]) |
//!
//! The same sink also writes GitHub Actions annotations ([`super::github`]) and appends the
//! Markdown report to `GITHUB_STEP_SUMMARY`, so all of them read one [`Collector`].
use super::record::{Collector, Meta, Pieces, RunView};
use super::sink::{JsonlRun, RunSink, SummaryRun};
use super::{github, html, junit, markdown};
use crate::event::run::RunEvent;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A report file's format, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Jsonl,
    Json,
    Junit,
    Markdown,
    Html,
    /// `run --coverage`'s lines as lcov.
    Lcov,
    /// `run --coverage`'s lines as Cobertura XML.
    Cobertura,
}

impl ReportFormat {
    /// The format `path`'s extension names.
    ///
    /// # Errors
    ///
    /// A one-line message for any other extension.
    pub fn of(path: &Path) -> Result<Self, String> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase());
        if name.is_some_and(|n| n.ends_with(".cobertura.xml")) {
            return Ok(Self::Cobertura);
        }
        match ext.as_deref() {
            Some("lcov" | "info") => Ok(Self::Lcov),
            Some("jsonl") => Ok(Self::Jsonl),
            Some("json") => Ok(Self::Json),
            Some("xml") => Ok(Self::Junit),
            Some("md") => Ok(Self::Markdown),
            Some("html" | "htm") => Ok(Self::Html),
            _ => Err(format!(
                "cannot tell the report format of `{}`: use .jsonl, .json, .xml (JUnit), .md, .html, .lcov or .cobertura.xml",
                path.display()
            )),
        }
    }

    fn needs_record(self) -> bool {
        matches!(self, Self::Junit | Self::Markdown | Self::Html)
    }
}

/// One `-o` report to write.
#[derive(Debug, Clone)]
pub struct Target {
    pub path: PathBuf,
    pub format: ReportFormat,
}

/// The `-o` paths as targets, checked before anything runs: every extension known first, then
/// each report's folder created when missing (`-o reports/junit.xml` in a fresh CI checkout),
/// so a path that cannot be written is refused before any test starts.
///
/// # Errors
///
/// A one-line usage message naming the first bad path.
pub fn targets(paths: &[PathBuf]) -> Result<Vec<Target>, String> {
    let targets = paths
        .iter()
        .map(|path| {
            Ok(Target {
                path: path.clone(),
                format: ReportFormat::of(path)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    for t in &targets {
        let dir = parent_dir(&t.path);
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Err(format!(
                "cannot write the report `{}`: failed to create folder `{}`: {e}",
                t.path.display(),
                dir.display()
            ));
        }
    }
    Ok(targets)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A report file written whole or not at all: into a temporary file in the same folder, then
/// renamed over `path` by [`AtomicFile::commit`], so a reader (a CI step, a browser reloading)
/// never sees half a report. Dropped uncommitted, the temporary file is removed.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// # Errors
    ///
    /// The temporary file cannot be created.
    pub fn create(path: &Path) -> io::Result<Self> {
        let tmp = temp_path(path);
        let out = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        Ok(AtomicFile {
            path: path.to_owned(),
            tmp,
            out: Some(out),
        })
    }

    /// Flushes and renames the file into place.
    ///
    /// # Errors
    ///
    /// Flushing or renaming failed (the temporary file is then removed).
    pub fn commit(mut self) -> io::Result<()> {
        let Some(mut out) = self.out.take() else {
            return Ok(());
        };
        let done = out.flush().and_then(|()| {
            drop(out);
            put_in_place(&self.tmp, &self.path)
        });
        if done.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        done
    }
}

/// Moves the finished report `tmp` to `path`. Over an existing report the two names are
/// exchanged (then the old report, now at `tmp`, removed) rather than renamed over: just as
/// atomic for readers, `path` always holds a whole report, but renaming over a file makes ext4
/// (`auto_da_alloc`) start writing the new one to disk before `rename` returns, 25 ms for a
/// 50 MB report, which the run's end then waits for. Anything but a regular file at `path`,
/// or a file system without the exchange, gets a plain rename.
fn put_in_place(tmp: &Path, path: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    let replaces_a_file = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    if replaces_a_file && renameat_with(CWD, tmp, CWD, path, RenameFlags::EXCHANGE).is_ok() {
        // The new report is in place; what is left at `tmp` is the old one.
        let _ = std::fs::remove_file(tmp);
        return Ok(());
    }
    std::fs::rename(tmp, path)
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.out {
            Some(out) => out.write(buf),
            None => Err(io::Error::other("report already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.out {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The `.json` reports as one writer: the summary document goes straight into each one's
/// temporary file (a big run's document is not copied whole into memory first), and
/// [`JsonFiles::commit`] puts them in place. A report that fails to be written is dropped and
/// its error kept, while the others go on.
struct JsonFiles {
    paths: Vec<PathBuf>,
    /// The document being written: one file per path still going.
    open: Vec<(usize, AtomicFile)>,
    started: bool,
    errors: Vec<String>,
}

impl JsonFiles {
    fn new(paths: Vec<PathBuf>) -> Self {
        JsonFiles {
            paths,
            open: Vec::new(),
            started: false,
            errors: Vec::new(),
        }
    }

    fn failed(&mut self, i: usize, e: &io::Error) {
        let path = self.paths.get(i).map(|p| p.display().to_string());
        self.errors
            .push(format!("failed to write {}: {e}", path.unwrap_or_default()));
    }

    /// Puts the document written since the last commit in place; the write failures, one
    /// line each.
    fn commit(&mut self) -> Vec<String> {
        for (i, file) in std::mem::take(&mut self.open) {
            if let Err(e) = file.commit() {
                self.failed(i, &e);
            }
        }
        self.started = false;
        std::mem::take(&mut self.errors)
    }
}

impl Write for JsonFiles {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.started {
            self.started = true;
            for i in 0..self.paths.len() {
                match AtomicFile::create(&self.paths[i]) {
                    Ok(f) => self.open.push((i, f)),
                    Err(e) => self.failed(i, &e),
                }
            }
        }
        let mut k = 0;
        while k < self.open.len() {
            match self.open[k].1.write_all(buf) {
                Ok(()) => k += 1,
                Err(e) => {
                    let (i, _dropped) = self.open.remove(k);
                    self.failed(i, &e);
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `path` atomically (see [`AtomicFile`]).
///
/// # Errors
///
/// Creating, writing or renaming failed; the temporary file is removed.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    write(&mut file)?;
    file.commit()
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    parent_dir(path).join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Where GitHub annotations go, when they are on.
pub struct Annotations {
    pub out: Box<dyn Write + Send>,
    /// `GITHUB_STEP_SUMMARY`: the Markdown report is appended there.
    pub step_summary: Option<PathBuf>,
}

/// The `-o` reports and CI annotations of a run (or of a watch session's runs).
pub struct Reports {
    targets: Vec<Target>,
    collector: Option<Collector>,
    /// JUnit's suites, rendered as their files end (when a `.xml` is asked for).
    junit: Option<junit::Suites>,
    summary: Option<SummaryRun<JsonFiles>>,
    /// The `.jsonl` being written (to its temporary path) during a run.
    jsonl: Option<JsonlRun<AtomicFile>>,
    annotations: Option<Annotations>,
    /// Inside a `--runs N` series: files are written when it ends.
    series: bool,
    /// With an `.html` target: each file's section of the page, rendered as the file ends
    /// (on the reports thread, while the run goes on).
    html: Option<Pieces<html::FileTests>>,
    /// Write failures, reported once the run is over.
    errors: Vec<String>,
    /// The run's coverage, with a `.lcov` or `.cobertura.xml` target.
    coverage: Option<crate::coverage::RunCoverage>,
    /// When the run started (Unix ms), for Cobertura's timestamp.
    started_ms: Option<u64>,
}

impl Reports {
    pub fn new(targets: Vec<Target>, annotations: Option<Annotations>, meta: Meta) -> Self {
        let needs_record = annotations.is_some() || targets.iter().any(|t| t.format.needs_record());
        let json_paths: Vec<PathBuf> = (targets.iter())
            .filter(|t| t.format == ReportFormat::Json)
            .map(|t| t.path.clone())
            .collect();
        let needs_summary = !json_paths.is_empty();
        let needs_junit = targets.iter().any(|t| t.format == ReportFormat::Junit);
        let needs_html = targets.iter().any(|t| t.format == ReportFormat::Html);
        let needs_coverage = (targets.iter())
            .any(|t| matches!(t.format, ReportFormat::Lcov | ReportFormat::Cobertura));
        Reports {
            targets,
            // JUnit's plain cases go to a spool as they arrive (a file of a million points).
            collector: needs_record.then(|| match needs_junit {
                true => Collector::new(meta).with_spool(),
                false => Collector::new(meta),
            }),
            junit: needs_junit.then(junit::Suites::default),
            summary: needs_summary.then(|| SummaryRun::new(JsonFiles::new(json_paths))),
            jsonl: None,
            annotations,
            series: false,
            html: needs_html.then(Pieces::default),
            errors: Vec::new(),
            coverage: needs_coverage.then(crate::coverage::RunCoverage::default),
            started_ms: None,
        }
    }

    /// Nothing to write: the sink can be left out.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty() && self.annotations.is_none()
    }

    /// Where the annotations are written, when they are on (the reports thread swaps in a
    /// buffer of its own).
    pub(crate) fn annotation_out_mut(&mut self) -> Option<&mut Box<dyn Write + Send>> {
        self.annotations.as_mut().map(|a| &mut a.out)
    }

    /// What failed to be written since the last call, one line each (`failed to write r.xml: …`).
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    fn jsonl_target(&self) -> Option<&Target> {
        self.targets
            .iter()
            .find(|t| t.format == ReportFormat::Jsonl)
    }

    fn open_jsonl(&mut self) {
        if self.jsonl.is_some() {
            return;
        }
        let Some(path) = self.jsonl_target().map(|t| t.path.clone()) else {
            return;
        };
        match AtomicFile::create(&path) {
            Ok(f) => self.jsonl = Some(JsonlRun::new(f)),
            Err(e) => self
                .errors
                .push(format!("failed to write {}: {e}", path.display())),
        }
    }

    fn finish_jsonl(&mut self) {
        let Some(jsonl) = self.jsonl.take() else {
            return;
        };
        if let Err(e) = jsonl.into_inner().commit() {
            let path = self.jsonl_target().map(|t| t.path.display().to_string());
            self.errors
                .push(format!("failed to write {}: {e}", path.unwrap_or_default()));
        }
    }

    /// The coverage reports of the run just ended (none without a `.lcov` or `.cobertura.xml`).
    fn write_coverage(&mut self) {
        let Some(cov) = self.coverage.take() else {
            return;
        };
        let root = cov.root.clone().unwrap_or_else(|| ".".to_owned());
        let seconds = self.started_ms.unwrap_or(0) / 1000;
        for t in &self.targets {
            let written = match t.format {
                ReportFormat::Lcov => {
                    write_atomic(&t.path, |w| crate::coverage::lcov::write(w, &cov))
                }
                ReportFormat::Cobertura => write_atomic(&t.path, |w| {
                    crate::coverage::cobertura::write(w, &cov, &root, seconds)
                }),
                _ => Ok(()),
            };
            if let Err(e) = written {
                self.errors
                    .push(format!("failed to write {}: {e}", t.path.display()));
            }
        }
        self.coverage = Some(crate::coverage::RunCoverage::default());
    }

    /// Writes every file report but `.jsonl`, and the annotations, for the run just ended.
    fn write_reports(&mut self) {
        self.write_coverage();
        let Some(collector) = &self.collector else {
            return;
        };
        let view = collector.view();
        for t in &self.targets {
            let written = match t.format {
                ReportFormat::Junit => {
                    let suites = self.junit.get_or_insert_with(junit::Suites::default);
                    write_atomic(&t.path, |w| suites.write(w, collector))
                }
                ReportFormat::Markdown => write_atomic(&t.path, |w| {
                    markdown::write(w, view, &markdown::Options::default())
                }),
                ReportFormat::Html => {
                    let pieces = self.html.get_or_insert_with(Pieces::default);
                    let sections = html_sections(pieces, collector);
                    write_atomic(&t.path, |w| html::write_page_with(w, view, &sections))
                }
                ReportFormat::Jsonl
                | ReportFormat::Json
                | ReportFormat::Lcov
                | ReportFormat::Cobertura => Ok(()),
            };
            if let Err(e) = written {
                self.errors
                    .push(format!("failed to write {}: {e}", t.path.display()));
            }
        }
        if let Some(a) = &mut self.annotations {
            let full = self
                .targets
                .iter()
                .map(|t| t.path.display().to_string())
                .find(|p| p.ends_with(".html") || p.ends_with(".xml"));
            if let Err(e) = github::write(&mut a.out, view).and_then(|()| a.out.flush()) {
                self.errors
                    .push(format!("failed to write annotations: {e}"));
            }
            if let Some(path) = &a.step_summary {
                if let Err(e) = append_step_summary(path, view, full) {
                    self.errors
                        .push(format!("failed to append to {}: {e}", path.display()));
                }
            }
        }
    }
}

/// The HTML sections rendered as their files ended, by place in the record's view. A section
/// names its file by index (`id="file-N"`), so it serves only where place and index agree.
fn html_sections(
    pieces: &mut Pieces<html::FileTests>,
    record: &Collector,
) -> Vec<Option<html::FileTests>> {
    (record.file_indices().iter().enumerate())
        .map(|(place, &index)| (place == index).then(|| pieces.take(index)).flatten())
        .collect()
}

/// GitHub's step summary takes up to 1 MiB per step; the Markdown report stays far below.
fn append_step_summary(path: &Path, view: &RunView, full: Option<String>) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut text = Vec::new();
    let opts = markdown::Options {
        full_report: full,
        ..markdown::Options::default()
    };
    markdown::write(&mut text, view, &opts)?;
    f.write_all(&text)
}

impl RunSink for Reports {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        if matches!(
            ev,
            RunEvent::RunStarted { .. } | RunEvent::SeriesStarted { .. } | RunEvent::Shard(_)
        ) {
            self.open_jsonl();
        }
        if let Some(j) = &mut self.jsonl {
            if let Err(e) = j.on(ev) {
                self.jsonl = None;
                self.errors
                    .push(format!("failed to write the .jsonl report: {e}"));
            }
        }
        let ends = match ev {
            RunEvent::SeriesStarted { .. } => {
                self.series = true;
                false
            }
            RunEvent::RunFinished { .. } => !self.series,
            RunEvent::SeriesFinished { .. } => {
                self.series = false;
                true
            }
            _ => false,
        };
        if ends {
            return self.end(ev);
        }
        if let Some(s) = &mut self.summary {
            s.on(ev)?;
        }
        self.record(ev);
        Ok(())
    }
}

impl Reports {
    /// The run record and the reports rendered from it follow `ev`.
    fn record(&mut self, ev: &RunEvent) {
        if let Some(cov) = &mut self.coverage {
            match ev {
                RunEvent::RunStarted { started_ms, .. } => {
                    *cov = crate::coverage::RunCoverage::default();
                    self.started_ms = *started_ms;
                }
                RunEvent::Coverage { coverage, .. } => cov.add(coverage),
                _ => {}
            }
        }
        if let Some(c) = &mut self.collector {
            c.on(ev);
            if let Some(j) = &mut self.junit {
                j.on(ev, c);
            }
            if let Some(index) = self.html.as_mut().and_then(|h| h.on(ev)) {
                if let (Some(h), Some(file)) = (&mut self.html, c.file(index)) {
                    h.keep(index, html::FileTests::render(index, file));
                }
            }
        }
    }

    /// The reports are written at the run's (or series') end `ev`. The `.json` document (tens
    /// of megabytes on a big run) is written on a thread of its own meanwhile: the run's
    /// files are done and the dispatcher waits for the reports, so a core is free.
    fn end(&mut self, ev: &RunEvent) -> io::Result<()> {
        let mut summary = self.summary.take();
        let mut json_written = None;
        std::thread::scope(|scope| {
            let json = summary.as_mut().and_then(|s| {
                std::thread::Builder::new()
                    .name("tapline-json".into())
                    .spawn_scoped(scope, move || write_json(s, ev))
                    .ok()
            });
            self.record(ev);
            self.finish_jsonl();
            self.write_reports();
            json_written = json.map(|thread| thread.join());
        });
        let result = match json_written {
            Some(Ok((result, errors))) => {
                self.errors.extend(errors);
                result
            }
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread could be started: written here, after the others.
            None => match summary.as_mut().map(|s| write_json(s, ev)) {
                Some((result, errors)) => {
                    self.errors.extend(errors);
                    result
                }
                None => Ok(()),
            },
        };
        self.summary = summary;
        result
    }
}

/// The `.json` reports' document for the run ended by `ev`, put in place: the sink's own
/// error, and the reports' write failures.
fn write_json(summary: &mut SummaryRun<JsonFiles>, ev: &RunEvent) -> (io::Result<()>, Vec<String>) {
    let result = summary.on(ev);
    (result, summary.out_mut().commit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        let f = |p: &str| ReportFormat::of(Path::new(p));
        assert_eq!(f("r.jsonl"), Ok(ReportFormat::Jsonl));
        assert_eq!(f("out/r.json"), Ok(ReportFormat::Json));
        assert_eq!(f("junit.XML"), Ok(ReportFormat::Junit));
        assert_eq!(f("r.md"), Ok(ReportFormat::Markdown));
        assert_eq!(f("r.html"), Ok(ReportFormat::Html));
        let err = f("r.txt").unwrap_err();
        assert!(err.contains("`r.txt`") && err.contains(".xml"), "{err}");
        assert!(f("noext").is_err());
    }

    #[test]
    fn a_missing_folder_is_created_and_an_impossible_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("reports/ci/r.xml");
        let t = targets(std::slice::from_ref(&nested)).unwrap();
        assert_eq!(t[0].format, ReportFormat::Junit);
        assert!(dir.path().join("reports/ci").is_dir());
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let err = targets(&[file.join("r.xml")]).unwrap_err();
        assert!(err.contains("failed to create folder"), "{err}");
        // An unknown extension is refused before any folder is made.
        let err = targets(&[dir.path().join("new/r.xml"), PathBuf::from("r.txt")]).unwrap_err();
        assert!(err.contains("r.txt"), "{err}");
        assert!(!dir.path().join("new").exists());
    }

    #[test]
    fn atomic_writes_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.md");
        write_atomic(&path, |w| w.write_all(b"one")).unwrap();
        write_atomic(&path, |w| w.write_all(b"two")).unwrap();
        let failed = write_atomic(&path, |_| Err(io::Error::other("no")));
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("r.md")]);
    }

    #[test]
    fn a_json_report_that_cannot_be_written_leaves_the_others_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("r.json");
        let blocked = dir.path().join("r.md/r.json");
        std::fs::write(dir.path().join("r.md"), "a file, not a folder").unwrap();
        let mut files = JsonFiles::new(vec![blocked, good.clone()]);
        files.write_all(b"{}").unwrap();
        files.write_all(b"\n").unwrap();
        let errors = files.commit();
        assert_eq!(std::fs::read_to_string(&good).unwrap(), "{}\n");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("failed to write "), "{errors:?}");
        assert!(errors[0].contains("r.md/r.json"), "{errors:?}");
        // The next document starts new files.
        files.write_all(b"[]").unwrap();
        assert_eq!(files.commit().len(), 1);
        assert_eq!(std::fs::read_to_string(&good).unwrap(), "[]");
    }

    #[test]
    fn a_report_replaces_a_file_or_link_as_rename_does_and_never_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        // Over a symbolic link: the link is replaced, the file it named is left alone.
        let elsewhere = dir.path().join("elsewhere.md");
        std::fs::write(&elsewhere, "kept").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        write_atomic(&link, |w| w.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "kept");
        // A folder in the way is an error, and stays where it is.
        let folder = dir.path().join("r.html");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("inside"), "x").unwrap();
        assert!(write_atomic(&folder, |w| w.write_all(b"page")).is_err());
        assert!(folder.join("inside").is_file());
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["elsewhere.md", "link.md", "r.html"]);
    }
}
