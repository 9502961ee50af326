//! The explanation of a failing test point, built once from the event stream and rendered by
//! every report: its name path, where it failed (relative to the project root), the message,
//! the expected and actual values as the producer meant them, their diff, the stack, and the
//! output that is that failure's.
//!
//! One [`FileExplainer`] follows one file's stream (its TAP events and its stderr lines) and
//! hands out an [`Explanation`] per failing point once the output that point owns has
//! arrived ([`crate::explain::trailing`] has the rule), in the order the terminal reads them:
//! a subtest's own failure before its failing children. Every failing point is one
//! explanation, whatever its name; past the limits ([`FILE_EXPLAINED`] per file) a failure
//! is still one, with its names only (`full: false`), so a report can count and name it.
//!
//! The reports never work a failure out again: the run's sinks get each explanation as a
//! `RunEvent::Explained` event, which the stage `report::sink::Explaining` puts into the stream
//! in front of them. This room knows nothing of runs or reports: it reads a stream's events
//! (the protocol crate's) and gives explanations.
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use tapline_protocol::dialect::suite_failed_by_subtests;
use tapline_protocol::event::{Assert, Event, OpenSubtests};

pub mod diff;
pub mod failure;
pub(crate) mod headings;
pub mod held;
pub mod names;
mod placed;
pub(crate) mod trailing;

use diff::{Budget, Diff};
use headings::Headings;
use held::HeldLines;
use trailing::{Step, Trailing};

#[cfg(test)]
mod tests;

/// Output lines a failure keeps from before it reported (the newest) and after (the first);
/// the log has every line.
pub const OUTPUT_LINES: usize = 100;
/// Failures of one file explained in full; the rest are named only.
pub const FILE_EXPLAINED: usize = 100;
/// Lines of a file's own output (no failure's) kept for its report: the newest.
pub const REST_LINES: usize = 40;

/// One failing test point, explained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// Its place among the file's test points of every depth, from 0: what tells two failures
    /// with one name apart, and a report's test case from another's.
    pub point: usize,
    /// Its TAP number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// Its nesting depth in the stream (0: top level).
    pub depth: u32,
    /// Its names from the outermost: its comment heading, the enclosing subtests, its own.
    pub path: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// Explained in full; past the limits only the names are kept and the rest is empty.
    pub full: bool,
    /// A subtest that failed only through its failing children and said nothing of its own:
    /// its children explain it (the reports that list failures leave it out; one that draws
    /// the tree draws its line).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub by_children: bool,
    /// `file:line[:column]`, relative to the project root when it is under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The producer's machine fields on one line (`operator strictEqual · AssertionError
    /// [ERR_ASSERTION]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// Other diagnostics worth a line each (`source: …`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// The producer's names for `expected` and `actual` when it means neither as such (Rust's
    /// `["left", "right"]`): the diff calls its sides so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sides: Option<[&'static str; 2]>,
    /// The one diff of this failure (of the values, or of the producer's own text diff), with
    /// changed characters marked; a renderer without colours ignores the marks.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "plain_diff")]
    pub diff: Option<Diff>,
    /// Diagnostics that did not parse as YAML: the raw text and the parser's complaint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_yaml: Option<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// What its test printed before it reported and after, up to the next test, less the
    /// diagnostics read into the fields above.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<String>,
}

/// The diff as the lines the plain terminal shows.
fn plain_diff<S: serde::Serializer>(diff: &Option<Diff>, s: S) -> Result<S::Ok, S::Error> {
    let lines: Option<Vec<String>> = diff
        .as_ref()
        .map(|d| d.lines.iter().map(|l| l.plain_text()).collect());
    lines.serialize(s)
}

impl Explanation {
    /// Its names joined as every report shows them: `parent > child`.
    pub fn name(&self) -> String {
        self.path.join(" > ")
    }

    /// [`Self::name`], or for a point with no name its number (`#3`, `(unnamed)`), so a
    /// report never shows an empty name.
    pub fn shown_name(&self) -> String {
        let parents = &self.path[..self.path.len().saturating_sub(1)];
        let mut name = parents.join(" > ");
        if !name.is_empty() {
            name.push_str(" > ");
        }
        name.push_str(&self.shown_own_name());
        name
    }

    /// [`Self::own_name`], or for a point with no name its number.
    pub fn shown_own_name(&self) -> std::borrow::Cow<'_, str> {
        match (self.own_name(), self.id) {
            ("", Some(id)) => format!("#{id}").into(),
            ("", None) => "(unnamed)".into(),
            (own, _) => own.into(),
        }
    }

    /// Its own name, the last of [`Self::path`].
    pub fn own_name(&self) -> &str {
        self.path.last().map_or("", String::as_str)
    }
}

/// What a file's stream explains, in the order the reports show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Explained {
    /// A failing point.
    Failure(Explanation),
    /// The heading the points of the level at `depth` are under from now on (`# name`
    /// comments, see headings.rs; `None`: none), said just before the first point it names,
    /// so that a report that names passing points too names them as the failures are named.
    Heading { depth: u32, heading: Option<String> },
    /// At the file's end: its output that no failure owns, the newest [`REST_LINES`] lines.
    /// `after_last_point` is what it printed after its last test point (often the crash);
    /// `tail` is the file's whole output, for a file that failed with no failing point.
    Rest {
        after_last_point: Vec<String>,
        tail: Vec<String>,
    },
}

/// A failing point whose trailing output is still arriving, or one held until its parent's
/// explanation goes first.
enum Slot {
    Open,
    Done(Explanation),
}

/// A failing point waiting for the output after it.
struct Unfinished {
    assert: Assert<'static>,
    point: usize,
    path: Vec<String>,
    /// What its test printed before it reported.
    output: Vec<String>,
    /// It closes a subtest in which a point failed.
    children_failed: bool,
    /// A `not ok … # TODO`: its diagnostics after it are its own, but it is no failure.
    expected: bool,
}

/// A failing point's identity: its place, number, depth and names.
fn identity(point: usize, a: &Assert<'_>, path: Vec<String>) -> Explanation {
    Explanation {
        point,
        id: a.id,
        depth: a.depth,
        path,
        duration_ms: a.duration_ms,
        full: false,
        by_children: false,
        location: None,
        message: None,
        machine: None,
        other: Vec::new(),
        expected: None,
        actual: None,
        sides: None,
        diff: None,
        raw_yaml: None,
        stack: None,
        output: Vec::new(),
    }
}

/// Follows one file's stream and explains its failing points.
pub struct FileExplainer {
    /// The project root, to which locations are made relative.
    root: Option<Arc<Path>>,
    budget: Budget,
    /// Output since the last test point: the next point's, each line tagged with the depth it
    /// was a comment at.
    pending: HeldLines<Option<u32>>,
    /// The file's newest output lines (every line, whoever owns it).
    tail: HeldLines,
    subtests: OpenSubtests,
    headings: Headings,
    /// Boxed: what `Trailing::event` returns for every event of the stream (`Step`) then
    /// stays a few words, not a whole failing point copied per event.
    trailing: Trailing<Box<Unfinished>>,
    /// Failures per open nesting level (`[0]`: the file's own), held until their subtest
    /// closes so that the parent goes first.
    levels: Vec<Vec<Slot>>,
    /// Explanations (and heading changes) ready to hand out, in order.
    ready: Vec<Explained>,
    /// The headings last said, by depth.
    headings_said: Vec<Option<String>>,
    /// Test points seen, of every depth.
    points: usize,
    /// Failures explained in full so far.
    explained: usize,
    /// A process death its output told (issue 41 item 3): its rest reads fatal lines first.
    crash: failure::crash::Crash,
    /// `root` as text, `/`-ended, cut off a death's frame paths.
    root_prefix: Option<String>,
}

impl FileExplainer {
    /// Explains one file's stream; locations under `root` are made relative to it.
    pub fn new(root: Option<Arc<Path>>) -> Self {
        FileExplainer {
            budget: Budget::default(),
            pending: HeldLines::new(OUTPUT_LINES),
            tail: HeldLines::new(REST_LINES),
            subtests: OpenSubtests::default(),
            headings: Headings::default(),
            trailing: Trailing::new(OUTPUT_LINES),
            levels: vec![Vec::new()],
            ready: Vec::new(),
            headings_said: Vec::new(),
            points: 0,
            explained: 0,
            crash: failure::crash::Crash::default(),
            root_prefix: (root.as_deref())
                .and_then(Path::to_str)
                .map(|r| format!("{}/", r.trim_end_matches('/'))),
            root,
        }
    }

    /// The explanations completed so far, and the heading changes, in order; empties the list.
    pub fn take(&mut self) -> impl Iterator<Item = Explained> + '_ {
        self.ready.drain(..)
    }

    /// Whether an explanation is ready (cheap; the hot path asks it after every event).
    pub fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// A line the file wrote to stderr: output of the test in progress.
    /// Written after a failing point's line, it is that failure's (read as its output line
    /// at its depth, under the same rule as stdout's); else the next point's.
    pub fn stderr(&mut self, text: &str) {
        match self.trailing.open_at() {
            Some((depth, line)) => {
                let text = std::borrow::Cow::Borrowed(text);
                self.event(&Event::Output { depth, line, text });
            }
            None => self.output(text, None),
        }
    }

    /// One event of the file's TAP stream. Returns whether it is a line of a failure's own
    /// output (which a report that shows the stream line by line leaves to the failure).
    pub fn event(&mut self, event: &Event<'_>) -> bool {
        let todo = self.trailing.item().is_some_and(|f| f.expected);
        match self.trailing.event(event) {
            Step::Kept => {
                // The failure's line: in the file's output, not the next point's.
                match event {
                    Event::Output { text, .. } => {
                        self.crash.line(text, self.root_prefix.as_deref());
                        self.tail.push(text)
                    }
                    Event::Comment { text, .. } => self.tail.push(&format!("# {text}")),
                    _ => {}
                }
                // A TODO point's lines explain no failure: such a report still shows them.
                return !todo;
            }
            Step::Closed(f, trailing) => self.finish(*f, trailing),
            Step::Passed => {}
        }
        let held = self.headings.event(event);
        for earlier in held.released {
            // In `tail` already, from when it was held.
            self.pending.push_tagged(format!("# {earlier}"), None);
        }
        if let (true, Event::Comment { text, .. }) = (held.heading, event) {
            // It names the points after it: the file's output, not shown again as theirs.
            self.tail.push(&format!("# {text}"));
            return false;
        }
        match event {
            Event::Assert(a) => self.assert(a),
            Event::Output { text, .. } => self.output(text, None),
            Event::Comment { depth, text, .. } => self.output(&format!("# {text}"), Some(*depth)),
            // The run's reasons say it; the file's tail keeps it for a file that ended so.
            Event::BailOut { reason, .. } => self.tail.push(&format!("Bail out! {reason}")),
            Event::SubtestStart { depth, name, .. } => self.subtests.start(*depth, name),
            _ => {}
        }
        false
    }

    /// The stream has ended (or the file was stopped): every failure still open is explained,
    /// then what is no failure's. Returns everything not taken yet, in order.
    pub fn end(&mut self) -> Vec<Explained> {
        if let Some((f, trailing)) = self.trailing.close() {
            self.finish(*f, trailing);
        }
        // Subtests the stream never closed still hold failures: the file's, in order.
        while self.levels.len() > 1 {
            let inner = self.levels.pop().unwrap_or_default();
            self.levels[0].extend(inner);
        }
        self.release();
        if let Some(unused) = self.headings.take_unused() {
            self.pending.push_tagged(format!("# {unused}"), None);
        }
        let mut out: Vec<Explained> = self.ready.drain(..).collect();
        // A producer's run summary is the run's, no file's output (the log keeps it).
        let mut after_last_point = self.pending.take();
        failure::strip_run_summary(&mut after_last_point);
        failure::strip_totals(&mut after_last_point);
        let mut tail = self.tail.take();
        failure::strip_run_summary(&mut tail);
        failure::strip_totals(&mut tail);
        out.push(Explained::Rest {
            after_last_point: newest(self.crash.reshape(after_last_point), REST_LINES),
            tail: newest(self.crash.reshape(tail), REST_LINES),
        });
        out
    }

    /// An output line (`comment`: a comment's depth) of the test in progress.
    fn output(&mut self, text: &str, comment: Option<u32>) {
        if comment.is_none() {
            self.crash.line(text, self.root_prefix.as_deref());
        }
        self.pending.push_tagged(text.to_owned(), comment);
        self.tail.push(text);
    }

    fn assert(&mut self, a: &Assert<'_>) {
        self.say_headings(a.depth);
        let point = self.points;
        self.points += 1;
        let d = a.depth as usize;
        // A subtest's comments after its last point are its harness's trailer (`# Looks like
        // you failed 1 test of 2.`, `# time=…`: protocol-spec/producers.md), no failure's.
        let closing = a.closes_subtest.then_some(a.depth);
        let output =
            (self.pending).take_unless(|c| matches!((c, closing), (Some(c), Some(d)) if *c > d));
        // Failures of the subtest this point closes (and of any left unclosed below it).
        let inner: Vec<Slot> = match self.levels.len() > d + 1 {
            true => self.levels.drain(d + 1..).flatten().collect(),
            false => Vec::new(),
        };
        if self.levels.len() <= d {
            self.levels.resize_with(d + 1, Vec::new);
        }
        // A subtest that failed only because its children did is said by their failures (one
        // with its own diagnostics or output, before or after it, still is one): known once
        // its trailing output has been read.
        let children_failed = a.closes_subtest && !inner.is_empty();
        // A SKIP or TODO subtest's failures are expected: they are not the run's.
        let inner = match a.skip.is_some() || a.todo.is_some() {
            true => Vec::new(),
            false => inner,
        };
        if a.is_failure() {
            // The parent's own failure, then its children's.
            let f = Unfinished {
                assert: a.clone().into_owned(),
                point,
                path: self.path(a),
                output,
                children_failed,
                expected: false,
            };
            self.levels[d].push(Slot::Open);
            self.levels[d].extend(inner);
            self.trailing.open(a, Box::new(f));
        } else {
            self.levels[d].extend(inner);
            if (!a.ok && a.todo.is_some()) || a.failed_as_printed() {
                // A not-selected failure's lines are its own, and not explained.
                // Its traceback or `Failed (TODO) test` diagnostics are its own: not
                // the next point's, nor a heading.
                let f = Unfinished {
                    assert: a.clone().into_owned(),
                    point,
                    path: Vec::new(),
                    output,
                    children_failed: false,
                    expected: true,
                };
                self.trailing.open(a, Box::new(f));
            }
        }
        self.subtests.after(a);
        if d == 0 {
            self.release();
        }
    }

    /// Says the headings of the point just read where they changed: its stream's and its
    /// level's.
    fn say_headings(&mut self, depth: u32) {
        for d in [0, depth as usize] {
            let now = self.headings.heading(d);
            let said = self.headings_said.get(d).and_then(Option::as_deref);
            if now == said {
                continue;
            }
            let now = now.map(str::to_owned);
            if self.headings_said.len() <= d {
                self.headings_said.resize(d + 1, None);
            }
            self.headings_said[d] = now.clone();
            self.ready.push(Explained::Heading {
                depth: d as u32,
                heading: now,
            });
        }
    }

    /// `heading > parent > child`, for the point just read.
    fn path(&self, a: &Assert<'_>) -> Vec<String> {
        self.headings.path(self.subtests.parents(a.depth), &a.name)
    }

    /// A failing point's trailing output has ended: it is explained, in its place.
    fn finish(&mut self, f: Unfinished, trailing: Vec<String>) {
        if f.expected {
            return;
        }
        let explanation = match f.children_failed {
            true => self.subtest(&f, trailing),
            false => self.point(&f, trailing),
        };
        let slot = self
            .levels
            .iter_mut()
            .rev()
            .flat_map(|l| l.iter_mut())
            .find(|s| matches!(s, Slot::Open));
        match slot {
            Some(slot) => *slot = Slot::Done(explanation),
            None => self.ready.push(Explained::Failure(explanation)),
        }
        self.release();
    }

    /// A failing point explained in full while the file's limit allows.
    fn point(&mut self, f: &Unfinished, trailing: Vec<String>) -> Explanation {
        if self.explained >= FILE_EXPLAINED {
            return named_only(f);
        }
        self.explained += 1;
        explain(f, trailing, self.root.as_deref(), &self.budget)
    }

    /// A subtest that failed with failing points inside: said by its children when it says
    /// nothing of its own but where it is (`Failed test 'outer' at t/a.t line 26`
    /// names the subtest's own line; its children name theirs; a `source:` excerpt of the
    /// lines around that place says where too), else a failure of its own.
    fn subtest(&mut self, f: &Unfinished, trailing: Vec<String>) -> Explanation {
        let by_children = Explanation {
            by_children: true,
            ..named_only(f)
        };
        let a = &f.assert;
        // A suite whose tests failed says `1 subtest failed` and nothing of its own (the
        // dialect that announces every test: tapline_protocol::dialect): it is no test (its
        // producer counts its tests), and its tests' failures say it.
        let silent = (a.diagnostics.is_none() || suite_failed_by_subtests(a))
            && a.meta.is_none()
            && a.blocks.is_empty();
        if silent
            && f.output
                .iter()
                .chain(&trailing)
                .all(|l| l.trim().is_empty())
        {
            return by_children;
        }
        let e = explain(f, trailing, self.root.as_deref(), &self.budget);
        let only_where = e.message.is_none()
            && e.expected.is_none()
            && e.diff.is_none()
            && e.stack.is_none()
            && e.other.iter().all(|(k, _)| k == "source")
            && e.raw_yaml.is_none()
            && e.output.iter().all(|l| l.trim().is_empty());
        match only_where {
            true => by_children,
            false if self.explained >= FILE_EXPLAINED => named_only(f),
            false => {
                self.explained += 1;
                e
            }
        }
    }

    /// Hands out the top level's explanations up to the first one still open.
    fn release(&mut self) {
        let top = &mut self.levels[0];
        let done = top
            .iter()
            .position(|s| matches!(s, Slot::Open))
            .unwrap_or(top.len());
        for slot in top.drain(..done) {
            if let Slot::Done(e) = slot {
                self.ready.push(Explained::Failure(e));
            }
        }
    }
}

/// The newest `max` of `lines` (which may start with a note of earlier ones).
fn newest(mut lines: Vec<String>, max: usize) -> Vec<String> {
    if lines.len() > max {
        lines.drain(..lines.len() - max);
    }
    lines
}

fn named_only(f: &Unfinished) -> Explanation {
    identity(f.point, &f.assert, f.path.clone())
}

/// The whole explanation of a failing point from its attachments and its output.
fn explain(f: &Unfinished, trailing: Vec<String>, root: Option<&Path>, b: &Budget) -> Explanation {
    let mut output = f.output.clone();
    output.extend(trailing);
    let d = failure::details(&f.assert, &output);
    let diff = d.diff(b, true);
    let (expected, actual) = d.expected_actual.unzip();
    let sides = d.sides.map(|s| [s.expected, s.received]);
    // Places in built JavaScript, the source's as node's `--enable-source-maps` gives them.
    let mut maps = failure::source_mapped::Maps::new(root);
    let mut other = d.other;
    let location = (d.location).map(|l| {
        let l = placed::placed(l, d.stack.as_deref());
        let Some(mapped) = maps.place(&l) else {
            return l;
        };
        // The producer's excerpt was of the built file: the source's, as tap shows it mapped.
        let source = other.iter_mut().find(|(k, _)| k == "source");
        if let (Some((_, text)), Some(excerpt)) = (source, maps.excerpt(&mapped)) {
            *text = excerpt;
        }
        mapped
    });
    let stack = d.stack.map(|s| maps.stack(&s));
    Explanation {
        location: location.map(|l| project_relative(l, root)),
        message: d.message,
        machine: d.machine,
        other,
        expected,
        actual,
        sides,
        diff,
        raw_yaml: d.raw_yaml,
        stack,
        output: d.output,
        full: true,
        ..named_only(f)
    }
}

/// A location made relative to the project root when it names a file under it
/// (`/w/proj/t/a.js:14:5` → `t/a.js:14:5`, `file:///w/proj/t/a.js:3` too).
pub fn project_relative(location: String, root: Option<&Path>) -> String {
    // A place, not a URL: an ES module's `file:///w/t/a.mjs:4:5` is `/w/t/a.mjs:4:5`.
    let location = match crate::util::paths::from_file_url(&location) {
        Some(path) => path.to_string_lossy().into_owned(),
        None => location,
    };
    let Some(root) = root.and_then(Path::to_str) else {
        return location;
    };
    match location
        .strip_prefix(root.trim_end_matches('/'))
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) if !rest.is_empty() => rest.to_owned(),
        _ => location,
    }
}
