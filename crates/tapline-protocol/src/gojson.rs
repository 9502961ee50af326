//! `go test -json` (test2json) streams as TAP events, read line by line as they arrive.
//!
//! A package is a subtest at depth 0; its tests are points inside it, and a test with `t.Run`
//! subtests is a subtest of its own. A test is emitted when it ends (its `pass`/`fail`/`skip`
//! record), with its output before it; a test with subtests waits for its last one, so
//! parallel tests that interleave still come out as whole trees. One package streams at a
//! time: records of another package (`go test ./...` may interleave them) wait until the
//! current one ends. The mapping is written in protocol-spec/other-formats.md.
use super::build::{yaml_map, Builder, Point};
use super::frame::Framer;
use crate::event::{ProblemKind, Sink};
use serde::Deserialize;
use std::collections::HashMap;

/// Where the packages of a module are, so that a failure's location, which go prints relative
/// to its package's folder (`util_test.go:18`), reads relative to the project root
/// (`go/cmp/cmpopts/util_test.go:18`). The caller reads it from the module's `go.mod`: this
/// reader reads no file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackageDirs {
    /// The module path, as go.mod's `module` line gives it.
    module: String,
    /// The module's folder relative to the project root, `/`-separated; empty at the root.
    dir: String,
}

impl PackageDirs {
    pub fn new(module: &str, dir: &str) -> Self {
        PackageDirs {
            module: module.to_owned(),
            dir: dir.trim_end_matches('/').to_owned(),
        }
    }

    /// The folder of package `import_path` relative to the project root; `None` for a package
    /// of another module.
    pub fn dir_of(&self, import_path: &str) -> Option<String> {
        let rest = match import_path.strip_prefix(self.module.as_str())? {
            "" => "",
            rest => rest.strip_prefix('/')?,
        };
        let parts = [self.dir.as_str(), rest];
        Some(
            parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }
}

/// One test2json record; unknown fields are ignored.
#[derive(Debug, Clone, Deserialize)]
struct Record {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Package", default)]
    package: String,
    #[serde(rename = "Test", default)]
    test: String,
    #[serde(rename = "Elapsed")]
    elapsed: Option<f64>,
    #[serde(rename = "Output", default)]
    output: String,
    /// go 1.24+: `build-output` / `build-fail` records name the package being built.
    #[serde(rename = "ImportPath", default)]
    import_path: String,
}

#[derive(Default)]
struct Test {
    output: Vec<String>,
    /// `pass`, `fail`, `skip` once it ended; for a test the binary ended first, what
    /// [`Package::settle`] made of it.
    result: Option<String>,
    elapsed: Option<f64>,
    line: u64,
    children: Vec<String>,
    /// Paused by `t.Parallel` (a `pause` record, no `cont` since): it was not running.
    paused: bool,
    /// The line of its last `run` or `cont`: when it last started running.
    started: u64,
    /// Why a test the binary ended first failed or was skipped: its message's first line, or
    /// its skip reason.
    note: Option<String>,
}

#[derive(Default)]
struct Package {
    tests: HashMap<String, Test>,
    /// Records that arrived while another package was streaming.
    waiting: Vec<(u64, Record)>,
    /// Package-level output that is not go's own summary line: the package's, which goes out
    /// just before its point (a line TestMain prints after the tests is no test's).
    output: Vec<String>,
    /// One of its tests failed: then its failure is said by them, not by its output.
    tests_failed: bool,
    done: bool,
    /// The test go attributed the latest output to (test2json names the test that printed
    /// last; a crash dump has no header, so it is the crashing test's).
    last_output: Option<String>,
    /// `panic: test timed out after 1s`: the limit, once the binary said it.
    timed_out: Option<String>,
    /// The tests go ≥ 1.20 lists under `running tests:` after a timeout.
    running_listed: Vec<String>,
    /// The previous output line was `running tests:` or one of its list.
    in_running_list: bool,
    /// A record named a test of it: a package that passes without is one with no tests.
    has_tests: bool,
}

impl Package {
    /// Notes `panic: test timed out after 1s` and the `running tests:` list go ≥ 1.20 prints
    /// after it, wherever go attributed them.
    fn watch_for_timeout(&mut self, text: &str) {
        if let Some(limit) = text.strip_prefix("panic: test timed out after ") {
            self.timed_out = Some(limit.trim().to_owned());
            return;
        }
        if self.timed_out.is_none() {
            return;
        }
        if text == "running tests:" {
            self.in_running_list = true;
            return;
        }
        let listed = text
            .strip_prefix('\t')
            .filter(|_| self.in_running_list)
            .map(|rest| rest.rsplit_once(" (").map_or(rest, |(name, _)| name));
        match listed {
            Some(name) => self.running_listed.push(name.to_owned()),
            None => self.in_running_list = false,
        }
    }

    /// Gives each test the binary ended before it reported (a crash, `os.Exit`, a panic in a
    /// goroutine, a timeout) the result go's own records imply: the test that was running
    /// fails and is named (on a timeout, every test that was running; after a crash, the one
    /// go attributed the last output to, whose output is the dump); a test paused by
    /// `t.Parallel` did not run and is skipped; a parent fails with a failed subtest; another
    /// test that was running when the binary crashed did not finish and is skipped.
    /// `stream_ended`: the package never reported (the stream ended first: the run was
    /// stopped), so nothing says the binary crashed.
    fn settle(&mut self, stream_ended: bool) {
        let mut open: Vec<String> = self
            .tests
            .iter()
            .filter(|(_, t)| t.result.is_none())
            .map(|(n, _)| n.clone())
            .collect();
        if open.is_empty() {
            return;
        }
        // Subtests first (a subtest's name is longer than its parent's), so that a parent
        // sees its subtests' results; ties by name, for the same output every time.
        open.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        let culprits = self.culprits(&open);
        let why = match &self.timed_out {
            None if stream_ended => {
                "no result: it was still running when the stream ended".to_owned()
            }
            Some(limit) => format!(
                "timed out: it was still running when go test's -timeout {limit} ended the test binary"
            ),
            None => "the test binary ended while this test ran (a crash, os.Exit or a panic \
                     in a goroutine: its output says which)"
                .to_owned(),
        };
        for name in open {
            let subtest_failed = self.tests.get(&name).is_some_and(|t| {
                t.children.iter().any(|c| {
                    self.tests
                        .get(c)
                        .is_some_and(|c| c.result.as_deref() == Some("fail"))
                })
            });
            let Some(t) = self.tests.get_mut(&name) else {
                continue;
            };
            let (result, note) = if culprits.contains(&name) {
                ("fail", Some(why.clone()))
            } else if subtest_failed {
                ("fail", None)
            } else if t.paused {
                let note = "did not run: paused by t.Parallel when its package ended";
                ("skip", Some(note.to_owned()))
            } else {
                let note = "did not finish: its package ended while it ran";
                ("skip", Some(note.to_owned()))
            };
            self.tests_failed |= result == "fail";
            t.result = Some(result.to_owned());
            t.note = note;
        }
    }

    /// The unfinished tests to blame: on a timeout, those go lists as running (go ≥ 1.20), or
    /// every one not paused; after a crash, the one go attributed the last output to, or else
    /// the one that started running last. None when every unfinished test was paused (the
    /// binary ended outside any test: the package's own output says why).
    fn culprits(&self, open: &[String]) -> Vec<String> {
        let running = |n: &&String| self.tests.get(*n).is_some_and(|t| !t.paused);
        if self.timed_out.is_some() {
            let listed: Vec<String> = open
                .iter()
                .filter(|n| self.running_listed.contains(n))
                .cloned()
                .collect();
            if !listed.is_empty() {
                return listed;
            }
            return open.iter().filter(running).cloned().collect();
        }
        let last = self
            .last_output
            .as_ref()
            .filter(|n| open.contains(n))
            .filter(running);
        // The deepest of those that started on the same line; `open` is in a fixed order.
        let latest = || {
            open.iter()
                .filter(running)
                .rev()
                .max_by_key(|n| (self.tests.get(*n).map_or(0, |t| t.started), n.len()))
        };
        last.or_else(latest).into_iter().cloned().collect()
    }
}

/// Incremental `go test -json` reader feeding a [`Sink`].
pub struct GoJsonParser<S: Sink> {
    framer: Framer,
    sink: S,
    builder: Builder,
    line_no: u64,
    records: u64,
    packages: HashMap<String, Package>,
    /// Packages in the order they first appeared.
    order: Vec<String>,
    current: Option<String>,
    /// Build output, by import path (go 1.24+ `build-output` records; before, the go tool's
    /// own lines on a merged stderr).
    build_output: HashMap<String, Vec<String>>,
    /// Lines that were not records since the last record (the go tool's messages).
    loose: Vec<String>,
    /// Where the packages are, when known.
    dirs: Option<PackageDirs>,
}

impl<S: Sink> GoJsonParser<S> {
    pub fn new(sink: S) -> Self {
        GoJsonParser {
            framer: Framer::new(super::DEFAULT_MAX_LINE),
            sink,
            builder: Builder::new(),
            line_no: 0,
            records: 0,
            packages: HashMap::new(),
            order: Vec::new(),
            current: None,
            build_output: HashMap::new(),
            loose: Vec::new(),
            dirs: None,
        }
    }

    /// Locations relative to the project root, for the packages of the module `dirs` names.
    pub fn with_package_dirs(mut self, dirs: PackageDirs) -> Self {
        self.dirs = Some(dirs);
        self
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        Framer::frame_through(self, |p| &mut p.framer, Some(bytes), Self::line);
    }

    pub fn finish(mut self) -> S {
        Framer::frame_through(&mut self, |p| &mut p.framer, None, Self::line);
        let line = self.line_no;
        while let Some(name) = self.next_package() {
            // The streaming package is open already: opening it again would nest it in itself.
            if self.current.as_deref() != Some(name.as_str()) {
                self.open(&name);
            }
            // The stream ended before the package reported: what it ran did not finish.
            self.end_package(line, &name, None);
        }
        if self.records == 0 {
            self.builder.problem(
                &mut self.sink,
                line,
                ProblemKind::NoPlan,
                "no go test -json records in the stream".to_owned(),
                true,
            );
        }
        self.builder.finish(&mut self.sink, line);
        self.sink
    }

    pub fn sink(&self) -> &S {
        &self.sink
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    fn line(&mut self, text: &str) {
        self.line_no += 1;
        let line = self.line_no;
        let trimmed = text.trim_start();
        if !trimmed.starts_with('{') {
            // Not a record: the go tool's own messages (a build failure on a merged stderr),
            // or before go 1.24 the only word of a package that did not build.
            if let Some(package) = failed_build(text) {
                self.build_failed(line, package);
            } else if !text.trim().is_empty() {
                self.builder.output(&mut self.sink, line, text);
                self.loose.push(text.to_owned());
            }
            return;
        }
        match serde_json::from_str::<Record>(trimmed) {
            Ok(r) => {
                self.loose.clear();
                self.records += 1;
                self.record(line, r);
            }
            Err(e) => self.builder.problem(
                &mut self.sink,
                line,
                ProblemKind::InvalidJson,
                format!("line {line} is not a go test -json record: {e}"),
                true,
            ),
        }
    }

    fn record(&mut self, line: u64, r: Record) {
        if r.action.starts_with("build-") {
            return self.build_record(line, r);
        }
        if !self.packages.contains_key(&r.package) {
            self.packages.insert(r.package.clone(), Package::default());
            self.order.push(r.package.clone());
        }
        match &self.current {
            None => {
                self.open(&r.package.clone());
                self.apply(line, r);
            }
            Some(cur) if *cur == r.package => self.apply(line, r),
            Some(_) => {
                if let Some(p) = self.packages.get_mut(&r.package) {
                    p.waiting.push((line, r));
                }
            }
        }
    }

    /// `FAIL\tpkg [build failed]` (go before 1.24 writes no record for such a package): the
    /// package fails, with the compiler's messages for it if stderr was merged in.
    fn build_failed(&mut self, line: u64, package: &str) {
        let header = format!("# {package}");
        if let Some(start) = self
            .loose
            .iter()
            .rposition(|l| l == &header || l.starts_with(&format!("{header} ")))
        {
            let lines: Vec<String> = self.loose.drain(start..).collect();
            self.build_output
                .entry(package.to_owned())
                .or_default()
                .extend(lines);
        }
        self.build_output
            .entry(package.to_owned())
            .or_default()
            .push(format!("FAIL\t{package} [build failed]"));
        self.records += 1;
        self.record(
            line,
            Record {
                action: "fail".to_owned(),
                package: package.to_owned(),
                test: String::new(),
                elapsed: None,
                output: String::new(),
                import_path: String::new(),
            },
        );
    }

    fn build_record(&mut self, line: u64, r: Record) {
        // `example.com/x [example.com/x.test]` is built for package `example.com/x`.
        let path = r
            .import_path
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_owned();
        if r.action == "build-output" {
            let text = r.output.trim_end_matches('\n');
            self.builder.output(&mut self.sink, line, text);
            self.build_output
                .entry(path)
                .or_default()
                .push(text.to_owned());
        }
    }

    /// Makes `name` the streaming package and replays what it had waiting.
    fn open(&mut self, name: &str) {
        self.current = Some(name.to_owned());
        let display = if name.is_empty() {
            "(no package)"
        } else {
            name
        };
        self.builder
            .start_subtest(&mut self.sink, self.line_no, display);
        let waiting = self
            .packages
            .get_mut(name)
            .map(|p| std::mem::take(&mut p.waiting))
            .unwrap_or_default();
        for (line, r) in waiting {
            if self.current.as_deref() != Some(name) {
                // The package ended within what it had waiting; the rest is stray.
                if let Some(p) = self.packages.get_mut(name) {
                    p.waiting.push((line, r));
                }
                continue;
            }
            self.apply(line, r);
        }
    }

    fn next_package(&mut self) -> Option<String> {
        self.current.clone().or_else(|| {
            self.order
                .iter()
                .find(|n| self.packages.get(*n).is_some_and(|p| !p.done))
                .cloned()
        })
    }

    /// A record of the streaming package.
    fn apply(&mut self, line: u64, r: Record) {
        let Some(pkg) = self.packages.get_mut(&r.package) else {
            return;
        };
        if r.action == "output" {
            pkg.watch_for_timeout(r.output.trim_end_matches('\n'));
        }
        if r.test.is_empty() {
            match r.action.as_str() {
                "output" => {
                    let text = r.output.trim_end_matches('\n');
                    if !is_go_summary(text) {
                        pkg.output.push(text.to_owned());
                    }
                }
                "pass" | "fail" | "skip" => {
                    let result = (r.action, r.elapsed);
                    self.end_package(line, &r.package, Some(result));
                }
                _ => {}
            }
            return;
        }
        pkg.has_tests = true;
        let known = pkg.tests.contains_key(&r.test);
        if !known {
            let parent = parent_of(&pkg.tests, &r.test);
            if let Some(p) = parent.and_then(|p| pkg.tests.get_mut(&p)) {
                p.children.push(r.test.clone());
            }
            pkg.tests.insert(
                r.test.clone(),
                Test {
                    line,
                    ..Test::default()
                },
            );
        }
        let Some(t) = pkg.tests.get_mut(&r.test) else {
            return;
        };
        match r.action.as_str() {
            "output" => {
                let text = r.output.trim_end_matches('\n');
                if !is_framing(text) {
                    t.output.push(text.to_owned());
                }
                pkg.last_output = Some(r.test.clone());
            }
            "run" | "cont" => {
                t.paused = false;
                t.started = line;
            }
            "pause" => t.paused = true,
            "pass" | "fail" | "skip" => {
                pkg.tests_failed |= r.action == "fail";
                t.result = Some(r.action);
                t.elapsed = r.elapsed;
                t.line = line;
                if parent_of(&pkg.tests, &r.test).is_none() {
                    self.emit_tree(line, &r.package, &r.test, "");
                }
            }
            _ => {}
        }
    }

    /// Emits a test, its subtests first; a test still running counts as failed.
    fn emit_tree(&mut self, line: u64, package: &str, name: &str, parent: &str) {
        let Some(t) = self
            .packages
            .get_mut(package)
            .and_then(|p| p.tests.remove(name))
        else {
            return;
        };
        let short = name
            .strip_prefix(parent)
            .and_then(|s| s.strip_prefix('/'))
            .unwrap_or(name);
        let dir = self.dirs.as_ref().and_then(|d| d.dir_of(package));
        let children_failed = self.packages.get(package).is_some_and(|p| {
            (t.children.iter())
                .any(|c| p.tests.get(c).and_then(|c| c.result.as_deref()) == Some("fail"))
        });
        let (point, rest) = test_point(short, &t, dir.as_deref(), children_failed);
        if t.children.is_empty() {
            // Said before its output: a failure just before it keeps none of it.
            self.builder
                .begin_point(&mut self.sink, t.line.max(line), &point);
            self.emit_output(line, &t, point.ok && point.skip.is_none());
            // A failure's lines that are not its message: its output.
            for text in &rest {
                self.builder.output(&mut self.sink, line, text);
            }
            self.builder.point(&mut self.sink, t.line.max(line), point);
            return;
        }
        self.builder.start_subtest(&mut self.sink, line, short);
        for child in &t.children {
            self.emit_tree(line, package, child, name);
        }
        // Its own lines come after its subtests' end, at its level: no subtest's failure
        // keeps them (a passing test's output, a failure's lines other than its message).
        let mut own = match point.ok && point.skip.is_none() {
            true => t.output.clone(),
            false => Vec::new(),
        };
        own.extend(rest);
        self.builder
            .end_subtest_with_output(&mut self.sink, t.line.max(line), point, &own);
    }

    /// A passing test's output goes out as output; a failing or skipped one's is its
    /// diagnostics or reason instead.
    fn emit_output(&mut self, line: u64, t: &Test, passed: bool) {
        if passed {
            for text in &t.output {
                self.builder.output(&mut self.sink, line, text);
            }
        }
    }

    /// Ends package `name`; `result` is its own record, `None` when the stream ended first.
    fn end_package(&mut self, line: u64, name: &str, result: Option<(String, Option<f64>)>) {
        let Some(pkg) = self.packages.get_mut(name) else {
            return;
        };
        pkg.done = true;
        pkg.settle(result.is_none());
        let mut open: Vec<String> = pkg
            .tests
            .keys()
            .filter(|t| parent_of(&pkg.tests, t).is_none())
            .cloned()
            .collect();
        open.sort_by_key(|t| pkg.tests.get(t).map_or(0, |t| t.line));
        let package_output = std::mem::take(&mut pkg.output);
        let tests_failed = pkg.tests_failed;
        let has_tests = pkg.has_tests;
        for t in open {
            // Tests still running when the package ended (a panic, a timeout) did not pass.
            self.emit_tree(line, name, &t, "");
        }
        let display = if name.is_empty() {
            "(no package)"
        } else {
            name
        };
        let (action, elapsed) = result.unwrap_or_else(|| ("unfinished".to_owned(), None));
        let mut point = Point {
            name: display.to_owned(),
            ok: action != "fail" && action != "unfinished",
            duration_ms: elapsed.map(|s| s * 1000.0),
            ..Point::default()
        };
        if action == "skip" {
            point.skip = Some("no test files".to_owned());
        } else if action == "pass" && !has_tests {
            // `ok pkg [no tests to run]`: test files without a test, as go says it.
            point.skip = Some("no tests to run".to_owned());
        }
        let build = self.build_output.remove(name).unwrap_or_default();
        if !point.ok {
            let message = if action == "unfinished" {
                format!("the stream ended before package {display} reported")
            } else if tests_failed {
                // Its failing tests say why; what it printed is its output.
                String::new()
            } else {
                [build, package_output.clone()].concat().join("\n")
            };
            point.diagnostics = yaml_map(&[("message", message.trim())]);
        }
        self.current = None;
        self.builder
            .end_subtest_with_output(&mut self.sink, line, point, &package_output);
        if let Some(next) = self.next_package() {
            self.open(&next);
        }
    }
}

/// The package of a `FAIL\tpkg [build failed]` (or `[setup failed]`) line.
pub(crate) fn failed_build(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("FAIL\t")?;
    let (package, why) = rest.split_once(' ')?;
    matches!(why.trim_end(), "[build failed]" | "[setup failed]").then_some(package)
}

/// The nearest test `name` is a subtest of (`TestA/b/c` → `TestA/b`, or `TestA` when `b/c`
/// is one subtest's name).
fn parent_of(tests: &HashMap<String, Test>, name: &str) -> Option<String> {
    let mut end = name.len();
    while let Some(i) = name[..end].rfind('/') {
        if tests.contains_key(&name[..i]) {
            return Some(name[..i].to_owned());
        }
        end = i;
    }
    None
}

/// go's own progress lines, which the events already say.
fn is_framing(text: &str) -> bool {
    let t = text.trim_start();
    [
        "=== RUN",
        "=== PAUSE",
        "=== CONT",
        "=== NAME",
        "--- PASS:",
        "--- FAIL:",
        "--- SKIP:",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A package's closing lines: `PASS`, `FAIL`, `ok  \tpkg\t0.1s`, `FAIL\tpkg\t0.1s`, `?  \tpkg\t[no test files]`.
fn is_go_summary(text: &str) -> bool {
    text == "PASS"
        || text == "FAIL"
        || text.starts_with("ok  \t")
        || text.starts_with("FAIL\t")
        || text.starts_with("?   \t")
        || text.starts_with("testing: warning: no tests to run")
}

/// A finished test as a point, and the lines of a failure's output that are not its message:
/// a skip's output is its reason, a failure's its message ([`failure`]). `dir`: its package's
/// folder relative to the project root, when known. A test whose subtests failed failed
/// through them: its own entries are its output ([`failure`]).
fn test_point(
    name: &str,
    t: &Test,
    dir: Option<&str>,
    children_failed: bool,
) -> (Point, Vec<String>) {
    let result = t.result.as_deref().unwrap_or("unfinished");
    let mut p = Point {
        name: name.to_owned(),
        ok: result == "pass" || result == "skip",
        duration_ms: t.elapsed.map(|s| s * 1000.0),
        ..Point::default()
    };
    let lines: Vec<&str> = t.output.iter().map(String::as_str).collect();
    let text = dedent(&lines);
    let mut rest = Vec::new();
    match result {
        "skip" if t.note.is_some() => p.skip = t.note.clone(),
        "skip" => {
            let reason = text
                .lines()
                .map(|l| strip_location(l).1)
                .find(|l| !l.trim().is_empty())
                .unwrap_or("skipped");
            p.skip = Some(reason.trim().to_owned());
        }
        "fail" | "unfinished" => {
            let read = match children_failed {
                true => by_children(&text, name),
                false => failure(&text, name),
            };
            rest = read.rest;
            let at = read.at.map(|at| located(&at, dir));
            let message = match (&t.note, read.message.is_empty()) {
                (Some(note), true) => note.clone(),
                (Some(note), false) => format!("{note}\n{}", read.message),
                (None, true) if result == "unfinished" => {
                    "no result: it was still running when its package ended".to_owned()
                }
                (None, _) => read.message,
            };
            let at = at.unwrap_or_default();
            p.diagnostics = yaml_map(&[("message", &message), ("at", &at)]);
        }
        _ => {}
    }
    (p, rest)
}

/// A failed test's output read as go's own report means it.
#[derive(Debug, Default, PartialEq)]
struct Failed {
    message: String,
    at: Option<String>,
    /// Its other lines, in order: the test's logs, earlier `t.Error`s, a panic's goroutines.
    rest: Vec<String>,
}

/// A failed test's output (dedented): go prints each `t.Log`/`t.Error` call as an entry
/// `x_test.go:31: text` (later lines of a multi-line text indented under it). A panic's
/// `panic: …` lines (and a runtime `fatal error: …`, `[signal SIGSEGV: …]`) are the message,
/// located at the goroutine stack's first frame in a `_test.go` file or, without one, the
/// first outside the go installation; else the last entry is the failure (`t.Fatal` ends the
/// test, and a test logs before it asserts), its text the message and its place the location.
/// Output with neither is the message whole.
fn failure(text: &str, test: &str) -> Failed {
    let lines: Vec<&str> = text.lines().collect();
    if let Some(read) = panicked(&lines, test) {
        return read;
    }
    // The entries: (first line's index, end) of each located line and the lines under it.
    // Entries are the located lines least indented (a crash dump at the margin leaves the
    // test's entries indented as go printed them).
    let indent = |l: &str| l.len() - l.trim_start().len();
    let located: Vec<usize> = (0..lines.len())
        .filter(|&i| strip_location(lines[i]).0.is_some())
        .collect();
    let margin = located.iter().map(|&i| indent(lines[i])).min().unwrap_or(0);
    let starts: Vec<usize> = (located.into_iter())
        .filter(|&i| indent(lines[i]) == margin)
        .collect();
    let Some(&last) = starts.last() else {
        return Failed {
            message: text.to_owned(),
            ..Failed::default()
        };
    };
    let (at, first) = strip_location(lines[last]);
    let first = first.trim_start();
    // Its later lines are indented under it; what follows at the margin is no part of it.
    let end = (last + 1..lines.len())
        .find(|&i| !lines[i].trim().is_empty() && indent(lines[i]) <= margin)
        .unwrap_or(lines.len());
    let mut message = vec![first.to_owned()];
    message.extend(dedent(&lines[last + 1..end]).lines().map(str::to_owned));
    while message.last().is_some_and(|l| l.trim().is_empty()) {
        message.pop();
    }
    // `x_test.go:358: ` with the text on the lines under it (`t.Errorf("\n…")`).
    while message.len() > 1 && message[0].trim().is_empty() {
        message.remove(0);
    }
    let rest = lines[..last].iter().chain(&lines[end..]);
    Failed {
        message: message.join("\n"),
        at: at.map(str::to_owned),
        rest: rest.map(|l| l.to_string()).collect(),
    }
}

/// A failed test whose subtests failed: go prints `t.Log` and `t.Error` entries alike, and a
/// parent's own entries, printed under `--- FAIL: TestX` after its subtests', are most often
/// the logs of a table test's loop (`valid: passed 218; failed 0`), so they are its output
/// and its subtests' failures explain it; a panic is still its own failure.
fn by_children(text: &str, test: &str) -> Failed {
    let lines: Vec<&str> = text.lines().collect();
    panicked(&lines, test).unwrap_or_else(|| Failed {
        rest: lines.iter().map(|l| l.to_string()).collect(),
        ..Failed::default()
    })
}

/// A panic's (or the runtime's fatal error's) lines as the failure, its frame in the tests as
/// the place; `None` without a `panic: ` line. The frame is the one in the function of `test`
/// (go's name, `TestX/sub`: `pkg.TestX` or its closures `pkg.TestX.func1`) when the dump has
/// one: a dump lists every goroutine, in an order that varies from run to run, and a paused
/// parallel test's `t.Parallel()` line is no place of this test's.
fn panicked(lines: &[&str], test: &str) -> Option<Failed> {
    let fatal = |l: &str| {
        let t = l.trim_start();
        t.starts_with("panic: ")
            || t.starts_with("fatal error: ")
            || t.starts_with("[signal ")
            || is_signal_line(t)
    };
    let first = lines.iter().position(|l| fatal(l))?;
    let mut message = Vec::new();
    let mut rest: Vec<String> = lines[..first].iter().map(|l| l.to_string()).collect();
    for (i, l) in lines.iter().enumerate().skip(first) {
        if fatal(l) && message.len() < 4 && i < first + 6 {
            message.push(l.trim().to_owned());
        } else {
            rest.push(l.to_string());
        }
    }
    // Frames: `\t/w/x_test.go:13 +0x65` under each function's line.
    let frames: Vec<(&str, &str)> = (first.max(1)..lines.len())
        .filter_map(|i| {
            let place = lines[i].strip_prefix('\t')?.split(" +0x").next()?;
            (place.starts_with('/') && place.contains(".go:")).then_some((lines[i - 1], place))
        })
        .collect();
    let top = test.split('/').next().unwrap_or(test);
    let in_test = |function: &str| {
        [format!(".{top}("), format!(".{top}.")]
            .iter()
            .any(|n| function.contains(n.as_str()))
    };
    let in_tests = (frames.iter())
        .find(|(function, f)| f.contains("_test.go:") && !top.is_empty() && in_test(function))
        .or_else(|| frames.iter().find(|(_, f)| f.contains("_test.go:")))
        .map(|(_, f)| f);
    let frames: Vec<&str> = frames.iter().map(|(_, f)| *f).collect();
    let outside_go = || {
        frames
            .iter()
            .find(|f| !f.contains("/src/runtime/") && !f.contains("/src/testing/"))
    };
    Some(Failed {
        message: message.join("\n"),
        at: in_tests.or_else(outside_go).map(|f| f.to_string()),
        rest,
    })
}

/// The runtime's line for a signal it did not handle: `SIGSEGV: segmentation violation`.
fn is_signal_line(t: &str) -> bool {
    t.split_once(": ").is_some_and(|(sig, _)| {
        sig.len() > 3 && sig.starts_with("SIG") && sig.bytes().all(|b| b.is_ascii_uppercase())
    })
}

/// `x_test.go:12` in the package's folder `dir`: `pkg/x_test.go:12`. A location with a folder
/// already (a panic's absolute path) is kept.
fn located(at: &str, dir: Option<&str>) -> String {
    match dir {
        Some(dir) if !dir.is_empty() && !at.contains('/') => format!("{dir}/{at}"),
        _ => at.to_owned(),
    }
}

/// `    x_test.go:12: got 3` → (`x_test.go:12`, `got 3`).
fn strip_location(line: &str) -> (Option<&str>, &str) {
    let t = line.trim_start();
    if let Some((loc, rest)) = t.split_once(": ") {
        if let Some((file, num)) = loc.rsplit_once(':') {
            if file.ends_with(".go") && !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                return (Some(loc), rest);
            }
        }
    }
    (None, line)
}

/// Lines without the indentation they all share (go indents a test's log by 4 per level).
fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn parse(bytes: &[u8]) -> Vec<Event<'static>> {
        let mut p = GoJsonParser::new(Vec::new());
        for chunk in bytes.chunks(7) {
            p.feed(chunk);
        }
        p.finish()
    }

    fn end(events: &[Event<'static>]) -> crate::event::Verdict<'static> {
        match events.last() {
            Some(Event::End { verdict }) => verdict.clone(),
            other => panic!("no end: {other:?}"),
        }
    }

    #[test]
    fn a_parent_whose_subtests_failed_has_its_logs_as_output() {
        // BurntSushi/toml's TestToml: a table test's loop logs its counts after its subtests.
        let stream = br#"{"Action":"run","Package":"p","Test":"TestT"}
{"Action":"run","Package":"p","Test":"TestT/x"}
{"Action":"output","Package":"p","Test":"TestT/x","Output":"    t_test.go:358: got 1\n"}
{"Action":"fail","Package":"p","Test":"TestT/x","Elapsed":0.01}
{"Action":"output","Package":"p","Test":"TestT","Output":"    t_test.go:375:   valid: passed 218; failed 0\n"}
{"Action":"output","Package":"p","Test":"TestT","Output":"    t_test.go:377: skipped: 17\n"}
{"Action":"fail","Package":"p","Test":"TestT","Elapsed":0.02}
{"Action":"fail","Package":"p","Elapsed":0.03}
"#;
        let events = parse(stream);
        let point = |name: &str| {
            events.iter().find_map(|e| match e {
                Event::Assert(a) if a.name == name => Some(a.clone()),
                _ => None,
            })
        };
        let parent = point("TestT").expect("TestT");
        assert!(!parent.ok);
        assert_eq!(parent.diagnostics, None);
        let x = point("x").expect("x");
        assert!(x
            .diagnostics
            .as_deref()
            .unwrap_or_default()
            .contains("at: t_test.go:358"));
        // After its subtests' end, so that no subtest's failure keeps them as its own.
        let at = |want: &dyn Fn(&Event<'static>) -> bool| events.iter().position(want);
        let end = at(&|e| matches!(e, Event::SubtestEnd { depth: 2, .. }));
        let logged = at(
            &|e| matches!(e, Event::Output { depth: 1, text, .. } if text.contains("valid: passed 218")),
        );
        let skipped = at(
            &|e| matches!(e, Event::Output { depth: 1, text, .. } if text.contains("skipped: 17")),
        );
        assert!(
            end.is_some() && end < logged && logged < skipped,
            "{events:#?}"
        );
    }

    #[test]
    fn parallel_subtests_come_out_as_trees() {
        let stream = br#"{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestA/x"}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestA/x","Output":"    a_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestA/x","Elapsed":0.01}
{"Action":"skip","Package":"p","Test":"TestB","Elapsed":0}
{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0.02}
{"Action":"fail","Package":"p","Elapsed":0.03}
"#;
        let events = parse(stream);
        let shape: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::SubtestStart { depth, name, .. } => Some(format!("{depth}>{name}")),
                Event::Assert(a) => Some(format!(
                    "{}{}{}",
                    a.depth,
                    if a.ok { "ok " } else { "notok " },
                    a.name
                )),
                _ => None,
            })
            .collect();
        assert_eq!(
            shape,
            [
                "1>p",
                "1ok TestB",
                "2>TestA",
                "2notok x",
                "1notok TestA",
                "0notok p"
            ]
        );
        let x = events.iter().find_map(|e| match e {
            Event::Assert(a) if a.name == "x" => Some(a.clone()),
            _ => None,
        });
        let x = x.expect("x");
        assert_eq!(x.duration_ms, Some(10.0));
        let diag = x.diagnostics.as_deref().unwrap_or_default();
        assert!(
            diag.contains("got 1, want 2") && diag.contains("at: a_test.go:9"),
            "{diag}"
        );
        assert!(!end(&events).ok);
    }

    #[test]
    fn interleaved_packages_wait_their_turn() {
        let stream = br#"{"Action":"run","Package":"a","Test":"T1"}
{"Action":"run","Package":"b","Test":"T2"}
{"Action":"pass","Package":"b","Test":"T2"}
{"Action":"pass","Package":"b"}
{"Action":"pass","Package":"a","Test":"T1"}
{"Action":"pass","Package":"a"}
"#;
        let events = parse(stream);
        let names: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::Assert(a) => Some(a.name.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(names, ["T1", "a", "T2", "b"]);
        let v = end(&events);
        assert!(v.ok && v.count == 2, "{v:?}");
    }

    /// `go test -json ./...` (go 1.19.8) of test-data/formats/src/go-nested.
    const NESTED: &[u8] = include_bytes!("../../../test-data/formats/go-nested.jsonl");

    /// The diagnostics of the failing point `name`.
    fn diagnostics_of(events: &[Event<'static>], name: &str) -> String {
        events
            .iter()
            .find_map(|e| match e {
                Event::Assert(a) if a.name == name => a.diagnostics.as_deref().map(str::to_owned),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no diagnostics of {name:?}"))
    }

    /// The recording read with its module in `dir`, or not knowing it.
    fn nested_in(dir: Option<&str>) -> Vec<Event<'static>> {
        let mut p = GoJsonParser::new(Vec::new());
        p.dirs = dir.map(|d| PackageDirs::new("example.com/gonested", d));
        p.feed(NESTED);
        p.finish()
    }

    #[test]
    fn locations_are_relative_to_the_project_given_the_modules_folder() {
        let events = nested_in(Some("go"));
        for (name, at) in [
            ("ints", "at: go/equal_test.go:11"),
            ("ascending", "at: go/cmp/cmpopts/util_test.go:18"),
            ("TestEmpty", "at: go/cmp/cmpopts/util_test.go:31"),
        ] {
            let diag = diagnostics_of(&events, name);
            assert!(diag.contains(at), "{name}: {diag}");
        }
        // At the project root; and without the module's folder, as go prints them.
        let root = (Some(""), "at: cmp/cmpopts/util_test.go:18");
        for (dir, at) in [root, (None, "at: util_test.go:18")] {
            let diag = diagnostics_of(&nested_in(dir), "ascending");
            assert!(diag.contains(at), "{dir:?}: {diag}");
        }
        // A package of another module keeps go's location.
        let dirs = PackageDirs::new("example.com/other", "go");
        assert_eq!(dirs.dir_of("example.com/gonested/cmp"), None);
        assert_eq!(dirs.dir_of("example.com/otherwise"), None);
        assert_eq!(dirs.dir_of("example.com/other").as_deref(), Some("go"));
    }

    /// `(name, ok, skip reason)` of every point but the packages'.
    fn results(events: &[Event<'static>]) -> Vec<(String, bool, Option<String>)> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Assert(a) if a.depth > 0 => Some((
                    a.name.to_string(),
                    a.ok,
                    a.skip.as_deref().map(str::to_owned),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_crash_with_no_output_blames_the_test_that_started_last() {
        let stream = br#"{"Action":"run","Package":"p","Test":"TestPar"}
{"Action":"pause","Package":"p","Test":"TestPar"}
{"Action":"run","Package":"p","Test":"TestOne"}
{"Action":"pass","Package":"p","Test":"TestOne"}
{"Action":"run","Package":"p","Test":"TestCrash"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}
{"Action":"fail","Package":"p","Elapsed":0.01}
"#;
        let got = results(&parse(stream));
        let paused = "did not run: paused by t.Parallel when its package ended".to_owned();
        assert_eq!(
            got,
            [
                ("TestOne".to_owned(), true, None),
                ("TestPar".to_owned(), true, Some(paused)),
                ("TestCrash".to_owned(), false, None),
            ]
        );
    }

    #[test]
    fn a_timeout_blames_the_tests_go_lists_as_running() {
        // go >= 1.20 lists the running tests after the panic line.
        let stream = br#"{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestA/x"}
{"Action":"pause","Package":"p","Test":"TestA/x"}
{"Action":"run","Package":"p","Test":"TestA/y"}
{"Action":"pause","Package":"p","Test":"TestA/y"}
{"Action":"cont","Package":"p","Test":"TestA/x"}
{"Action":"cont","Package":"p","Test":"TestA/y"}
{"Action":"output","Package":"p","Test":"TestA/y","Output":"panic: test timed out after 2s\n"}
{"Action":"output","Package":"p","Test":"TestA/y","Output":"running tests:\n"}
{"Action":"output","Package":"p","Test":"TestA/y","Output":"\tTestA/x (2s)\n"}
{"Action":"output","Package":"p","Test":"TestA/y","Output":"\n"}
{"Action":"fail","Package":"p","Elapsed":2}
"#;
        let events = parse(stream);
        let got: Vec<(String, bool)> = results(&events)
            .into_iter()
            .map(|(n, ok, _)| (n, ok))
            .collect();
        let want = [("x", false), ("y", true), ("TestA", false)].map(|(n, ok)| (n.to_owned(), ok));
        assert_eq!(got, want);
        let x = diagnostics_of(&events, "x");
        assert!(x.contains("-timeout 2s"), "{x}");
    }

    #[test]
    fn a_dump_places_the_crash_in_its_tests_goroutine_whatever_the_order() {
        // The runtime lists every goroutine; a paused parallel test's may come first.
        let dump = "SIGSEGV: segmentation violation\n\ngoroutine 7 [chan receive]:\n\
            testing.(*T).Parallel(0xc0000a2)\n\t/usr/lib/go/src/testing/testing.go:1400 +0x1\n\
            example.com/k.TestPaused(0xc0000a2)\n\t/w/k/kill_test.go:12 +0x1d\n\n\
            goroutine 9 [running]:\nsyscall.Kill(0x1, 0xb)\n\t/usr/lib/go/src/syscall/zsyscall.go:1 +0x2\n\
            example.com/k.TestKillsItself.func1(0xc0000b4)\n\t/w/k/kill_test.go:19 +0x3\n";
        let lines: Vec<&str> = dump.lines().collect();
        let read = panicked(&lines, "TestKillsItself").expect("a fatal line");
        assert_eq!(read.at.as_deref(), Some("/w/k/kill_test.go:19"));
        assert_eq!(read.message, "SIGSEGV: segmentation violation");
        // Without its test's frame: the first in the tests, as before.
        let read = panicked(&lines, "TestOther").expect("a fatal line");
        assert_eq!(read.at.as_deref(), Some("/w/k/kill_test.go:12"));
    }

    #[test]
    fn bad_input_is_a_problem_not_a_panic() {
        for bytes in [
            &b""[..],
            b"{not json\n",
            b"{\"Action\":1}\n",
            b"\xff\xfe\n{",
            br#"{"Action":"run","Package":"p","Test":"T"}"#,
        ] {
            let events = parse(bytes);
            assert!(!end(&events).ok, "{bytes:?} passed");
        }
    }

    #[test]
    fn the_last_entry_is_the_failure_and_the_earlier_ones_its_output() {
        let read = failure(
            "x_test.go:8: computing\nx_test.go:11: got 2, want 3",
            "TestX",
        );
        assert_eq!(read.message, "got 2, want 3");
        assert_eq!(read.at.as_deref(), Some("x_test.go:11"));
        assert_eq!(read.rest, ["x_test.go:8: computing"]);
        // `t.Errorf("\n…")`: the text on the lines under the entry.
        let read = failure("x_test.go:358: \n    Error:\n      detail", "TestX");
        assert_eq!(read.message, "Error:\n  detail");
        assert_eq!(read.at.as_deref(), Some("x_test.go:358"));
    }
}
