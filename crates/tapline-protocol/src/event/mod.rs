//! The one event model: everything tapline knows about a TAP / protocol-v2 stream, as the parser emits it.
//!
//! Events borrow from the parser's line buffer (`Cow::Borrowed`) so the hot path allocates
//! nothing per line; [`Event::into_owned`] detaches one for sending across threads.
//! `depth` is the subtest nesting level: 0 for the top-level document, 1 inside a subtest.
//!
//! Ordering guarantees (all of them hold whatever the chunking of the input):
//! - `Version`, `Plan`, `Pragma`, `BailOut`, `V2Event`, `Marker` are emitted as soon as their
//!   line is read (so a `V2Event` can come before a pending point read earlier: its `line`
//!   places it). `Comment` and `Output` too, unless a test point is pending: then they follow
//!   it, in stream order.
//! - An `AssertBegin` is emitted as soon as a test point's line is read, after the events that
//!   line completes (the previous point, a subtest it closes) and those of the line itself (an
//!   out-of-plan id, an unknown inline marker), before anything that follows it: live views
//!   name the test at once. It announces the point; it is not one: counts, verdicts and reports
//!   go by the `Assert`.
//! - An `Assert` is emitted once it is complete: after its YAML diagnostics, `META` line and
//!   v2 blocks, that is when the next TAP line of its level (or the end of stream) arrives.
//!   It is the next `Assert` at its depth after its `AssertBegin` (same `depth` and `line`;
//!   `skip`/`todo` may differ, as a later `⟦TSTEST:SKIP⟧` line can add one). Between the two
//!   come only events of lines that do not complete it: its own buffered subtest
//!   (`ok 1 - name {`), problems, and what is emitted as soon as read (`V2Event`, `Marker`, …);
//!   `Output` and `Comment` are held as said above. A bail out can drop a begun point (one in a
//!   subtest it abandons, or a buffered subtest's opener), as the reference drops it: then no
//!   `Assert` follows, and `BailOut` or `End` ends what it began.
//! - A subtest is `SubtestStart` … its events at `depth + 1` … `SubtestEnd`, and the `Assert` that
//!   closes it (`closes_subtest: true`) is the next `Assert` at `depth`, whatever the dialect
//!   (indented, `# Subtest:` heading, Test2 buffered `{ … }`).
//! - `End` is the last event; it carries the verdict.
//!
//! Which test point an `Output` or `Comment` line belongs to is not an ordering but a rule
//! every report applies the same way (`report::trailing`): a test prints, then reports, so a
//! line is the next point's; except that the lines at a failing point's depth right after it,
//! up to the next test point, subtest, plan, `# Subtest:` heading or v2 `test:started` (and,
//! after YAML diagnostics, a `#` comment), are that failure's: producers such as tapbundle
//! print the error after the `not ok`. Other lines after the last point are the stream's end's.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A TAP directive on a test point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Directive<'a> {
    Skip(Cow<'a, str>),
    Todo(Cow<'a, str>),
}

/// A test point (`ok` / `not ok`) with everything attached to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assert<'a> {
    pub depth: u32,
    /// 1-based line number of the test point line in the stream.
    pub line: u64,
    pub ok: bool,
    /// The number written on the line, if any.
    pub id: Option<u64>,
    /// Description without `- `, escapes resolved, directive and v2 markers removed.
    pub name: Cow<'a, str>,
    pub skip: Option<Cow<'a, str>>,
    pub todo: Option<Cow<'a, str>>,
    /// From `⟦TSTEST:time:N⟧`, `# time=Nms`, v2 META `time`, or YAML `duration_ms`.
    pub duration_ms: Option<f64>,
    /// Raw YAML diagnostics block (without its `---`/`...` lines and indentation); parse on demand.
    pub diagnostics: Option<Cow<'a, str>>,
    /// Raw JSON of a `⟦TSTEST:META:{…}⟧` line following the point.
    pub meta: Option<Cow<'a, str>>,
    /// v2 blocks (`⟦TSTEST:ERROR⟧` …) that followed the point.
    pub blocks: Vec<Block<'a>>,
    /// This point closes the subtest whose `SubtestEnd` came just before.
    pub closes_subtest: bool,
    /// Not selected by the run's test-name patterns (`tapline run -t`) in a file whose
    /// framework could not be told to skip it: it ran, and is reported as it ran (`ok`,
    /// `skip`, `todo` as printed), but counts as neither passed nor failed. Never set by the
    /// parser: the runner marks it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub not_selected: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Assert<'static> {
    /// A top-level point with a name and nothing attached: what tests (and tools that make
    /// points of their own) build theirs from.
    pub fn plain(ok: bool, name: &str) -> Self {
        Assert {
            depth: 0,
            line: 0,
            ok,
            id: None,
            name: std::borrow::Cow::Owned(name.to_owned()),
            skip: None,
            todo: None,
            duration_ms: None,
            diagnostics: None,
            meta: None,
            blocks: Vec::new(),
            closes_subtest: false,
            not_selected: false,
        }
    }
}

impl Assert<'_> {
    /// A failure that counts: `not ok` without SKIP or TODO, of a selected test.
    pub fn is_failure(&self) -> bool {
        self.failed_as_printed() && !self.not_selected
    }

    /// `not ok` without SKIP or TODO, selected or not.
    pub fn failed_as_printed(&self) -> bool {
        !self.ok && self.skip.is_none() && self.todo.is_none()
    }
    pub fn into_owned(self) -> Assert<'static> {
        Assert {
            depth: self.depth,
            line: self.line,
            ok: self.ok,
            id: self.id,
            name: own(self.name),
            skip: self.skip.map(own),
            todo: self.todo.map(own),
            duration_ms: self.duration_ms,
            diagnostics: self.diagnostics.map(own),
            meta: self.meta.map(own),
            blocks: self.blocks.into_iter().map(Block::into_owned).collect(),
            closes_subtest: self.closes_subtest,
            not_selected: self.not_selected,
        }
    }

    /// `self.clone().into_owned()`, built in place: the text copied once, the point never.
    pub fn to_static(&self) -> Assert<'static> {
        Assert {
            depth: self.depth,
            line: self.line,
            ok: self.ok,
            id: self.id,
            name: copied(&self.name),
            skip: self.skip.as_deref().map(copied),
            todo: self.todo.as_deref().map(copied),
            duration_ms: self.duration_ms,
            diagnostics: self.diagnostics.as_deref().map(copied),
            meta: self.meta.as_deref().map(copied),
            blocks: self.blocks.iter().map(|b| b.clone().into_owned()).collect(),
            closes_subtest: self.closes_subtest,
            not_selected: self.not_selected,
        }
    }
}

/// A protocol-v2 block: `⟦TSTEST:KIND⟧`, payload lines, `⟦TSTEST:/KIND⟧`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block<'a> {
    pub kind: Cow<'a, str>,
    pub payload: Cow<'a, str>,
    /// The stream ended before the closing line.
    pub unterminated: bool,
}

impl Block<'_> {
    pub fn into_owned(self) -> Block<'static> {
        Block {
            kind: own(self.kind),
            payload: own(self.payload),
            unterminated: self.unterminated,
        }
    }
}

/// A plan line `1..N # reason`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan<'a> {
    pub start: u64,
    pub end: u64,
    pub skip_all: bool,
    pub reason: Option<Cow<'a, str>>,
}

impl Plan<'_> {
    pub fn into_owned(self) -> Plan<'static> {
        Plan {
            start: self.start,
            end: self.end,
            skip_all: self.skip_all,
            reason: self.reason.map(own),
        }
    }
}

/// Why a stream (or subtest) is not what it should be. Failing problems decide the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub depth: u32,
    /// Line number it concerns (0 when it concerns the whole stream).
    pub line: u64,
    pub kind: ProblemKind,
    pub message: String,
    /// Whether it makes the stream fail (warnings do not).
    pub fails: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    NoPlan,
    CountMismatch,
    IdOutOfPlan,
    DuplicateId,
    SkipAllWithTests,
    /// A test point after the document's trailing plan (the plan is at neither end).
    PointAfterPlan,
    StrictNonTap,
    LineTooLong,
    BlockTooLarge,
    UnterminatedBlock,
    UnterminatedYaml,
    UnterminatedSubtest,
    StrayMarker,
    InvalidJson,
    BailedOut,
    /// A go test -json or JUnit XML input that is not what its format says.
    InvalidInput,
    /// No plan, no test point and no bail out in the whole stream: `no TAP output`.
    NoOutput,
}

/// The outcome of one TAP document (the whole stream, or a subtest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict<'a> {
    pub ok: bool,
    pub count: u64,
    pub pass: u64,
    pub fail: u64,
    pub todo: u64,
    pub skip: u64,
    /// The plan in force: written, or `1..0 # no tests found` for an empty document.
    pub plan: Option<Plan<'a>>,
    /// `Some("")` for a bail out without a reason.
    pub bailout: Option<Cow<'a, str>>,
    /// Messages of the failing problems, in order (why `ok` is false beyond failed points).
    pub reasons: Vec<String>,
}

impl Verdict<'static> {
    /// The verdict of a stream that never came (a file that never started, a stream the
    /// daemon abandoned): failing, with nothing counted and no reason of its own.
    pub fn none() -> Self {
        Verdict {
            ok: false,
            count: 0,
            pass: 0,
            fail: 0,
            todo: 0,
            skip: 0,
            plan: None,
            bailout: None,
            reasons: Vec::new(),
        }
    }
}

impl Verdict<'_> {
    pub fn into_owned(self) -> Verdict<'static> {
        Verdict {
            ok: self.ok,
            count: self.count,
            pass: self.pass,
            fail: self.fail,
            todo: self.todo,
            skip: self.skip,
            plan: self.plan.map(Plan::into_owned),
            bailout: self.bailout.map(own),
            reasons: self.reasons,
        }
    }
}

/// One event of the stream. Serialized as `{"type": "...", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event<'a> {
    /// `⟦TSTEST:PROTOCOL:2.0.0⟧`.
    Protocol {
        line: u64,
        version: Cow<'a, str>,
    },
    /// `TAP version N` (accepted only before any plan or test point).
    Version {
        depth: u32,
        line: u64,
        version: u32,
    },
    Plan {
        depth: u32,
        line: u64,
        plan: Plan<'a>,
    },
    Pragma {
        depth: u32,
        line: u64,
        key: Cow<'a, str>,
        enabled: bool,
    },
    SubtestStart {
        depth: u32,
        line: u64,
        name: Cow<'a, str>,
        buffered: bool,
    },
    /// A test point's line was read; its `Assert` follows once its YAML, META and v2 blocks
    /// have (see the ordering guarantees). The fields are the line's.
    AssertBegin {
        depth: u32,
        line: u64,
        ok: bool,
        id: Option<u64>,
        name: Cow<'a, str>,
        skip: Option<Cow<'a, str>>,
        todo: Option<Cow<'a, str>>,
    },
    Assert(Assert<'a>),
    SubtestEnd {
        depth: u32,
        verdict: Verdict<'a>,
    },
    /// A `#` comment line (text without the leading `#` and one space).
    Comment {
        depth: u32,
        line: u64,
        text: Cow<'a, str>,
    },
    /// A line that is not TAP (console output of the test in progress, or garbage).
    Output {
        depth: u32,
        line: u64,
        text: Cow<'a, str>,
    },
    BailOut {
        depth: u32,
        line: u64,
        reason: Cow<'a, str>,
    },
    /// `⟦TSTEST:EVENT:{json}⟧`: a real-time lifecycle event (`test:started`, …), raw JSON.
    V2Event {
        depth: u32,
        line: u64,
        json: Cow<'a, str>,
    },
    /// A v2 block that no test point owns.
    V2Block {
        depth: u32,
        line: u64,
        block: Block<'a>,
    },
    /// Any other protocol-v2 marker (unknown kinds are kept, never fatal).
    Marker {
        depth: u32,
        line: u64,
        kind: Cow<'a, str>,
        payload: Cow<'a, str>,
    },
    Problem(Problem),
    End {
        verdict: Verdict<'a>,
    },
}

impl Event<'_> {
    /// `self.clone().into_owned()`, a test point's events (the commonest) built in place.
    pub fn to_static(&self) -> Event<'static> {
        match self {
            Event::Assert(a) => Event::Assert(a.to_static()),
            Event::AssertBegin {
                depth,
                line,
                ok,
                id,
                name,
                skip,
                todo,
            } => Event::AssertBegin {
                depth: *depth,
                line: *line,
                ok: *ok,
                id: *id,
                name: copied(name),
                skip: skip.as_deref().map(copied),
                todo: todo.as_deref().map(copied),
            },
            other => other.clone().into_owned(),
        }
    }

    pub fn into_owned(self) -> Event<'static> {
        match self {
            Event::Protocol { line, version } => Event::Protocol {
                line,
                version: own(version),
            },
            Event::Version {
                depth,
                line,
                version,
            } => Event::Version {
                depth,
                line,
                version,
            },
            Event::Plan { depth, line, plan } => Event::Plan {
                depth,
                line,
                plan: plan.into_owned(),
            },
            Event::Pragma {
                depth,
                line,
                key,
                enabled,
            } => Event::Pragma {
                depth,
                line,
                key: own(key),
                enabled,
            },
            Event::SubtestStart {
                depth,
                line,
                name,
                buffered,
            } => Event::SubtestStart {
                depth,
                line,
                name: own(name),
                buffered,
            },
            Event::AssertBegin {
                depth,
                line,
                ok,
                id,
                name,
                skip,
                todo,
            } => Event::AssertBegin {
                depth,
                line,
                ok,
                id,
                name: own(name),
                skip: skip.map(own),
                todo: todo.map(own),
            },
            Event::Assert(a) => Event::Assert(a.into_owned()),
            Event::SubtestEnd { depth, verdict } => Event::SubtestEnd {
                depth,
                verdict: verdict.into_owned(),
            },
            Event::Comment { depth, line, text } => Event::Comment {
                depth,
                line,
                text: own(text),
            },
            Event::Output { depth, line, text } => Event::Output {
                depth,
                line,
                text: own(text),
            },
            Event::BailOut {
                depth,
                line,
                reason,
            } => Event::BailOut {
                depth,
                line,
                reason: own(reason),
            },
            Event::V2Event { depth, line, json } => Event::V2Event {
                depth,
                line,
                json: own(json),
            },
            Event::V2Block { depth, line, block } => Event::V2Block {
                depth,
                line,
                block: block.into_owned(),
            },
            Event::Marker {
                depth,
                line,
                kind,
                payload,
            } => Event::Marker {
                depth,
                line,
                kind: own(kind),
                payload: own(payload),
            },
            Event::Problem(p) => Event::Problem(p),
            Event::End { verdict } => Event::End {
                verdict: verdict.into_owned(),
            },
        }
    }
}

fn own(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

fn copied(c: &str) -> Cow<'static, str> {
    Cow::Owned(String::from(c))
}

/// A consumer of events: reporters, collectors, the runner's bus. The ripgrep-style seam between
/// the parser and everything downstream.
pub trait Sink {
    fn event(&mut self, event: &Event<'_>);

    /// Told once, before any event, when the stream's top level is packages or suites
    /// (`go test -json`, JUnit XML) whose tests are their leaf tests: a package or suite
    /// without tests is then no test. A TAP stream never says it.
    fn leaf_tests(&mut self) {}
}

impl Sink for Vec<Event<'static>> {
    fn event(&mut self, event: &Event<'_>) {
        self.push(event.clone().into_owned());
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn leaf_tests(&mut self) {
        (**self).leaf_tests()
    }
    fn event(&mut self, event: &Event<'_>) {
        (**self).event(event)
    }
}

/// The names of the subtests open at a point of a stream, outermost first: what names a test
/// point by its full path (`parent > child`) in every report, history and the live displays.
#[derive(Debug, Default, Clone)]
pub struct OpenSubtests(Vec<String>);

impl OpenSubtests {
    /// A subtest opens; `depth` is its own level, so its parents are the levels above it (a
    /// sibling that no point closed is closed by it).
    pub fn start(&mut self, depth: u32, name: &str) {
        self.0.truncate((depth as usize).saturating_sub(1));
        self.0.push(name.to_owned());
    }

    /// After `a` is named: a point that closes a subtest closes its name too.
    pub fn after(&mut self, a: &Assert<'_>) {
        if a.closes_subtest {
            self.0.truncate(a.depth as usize);
        }
    }

    /// `parent > child` for a point at `depth`.
    pub fn path(&self, depth: u32, name: &str) -> String {
        let mut path = String::new();
        for parent in self.0.iter().take(depth as usize) {
            path.push_str(parent);
            path.push_str(" > ");
        }
        path.push_str(name);
        path
    }

    /// The names of the subtests a point at `depth` is inside, outermost first.
    pub fn parents(&self, depth: u32) -> impl Iterator<Item = &str> + Clone {
        self.0.iter().take(depth as usize).map(String::as_str)
    }

    /// The open subtests' own path: the innermost one's full name.
    pub fn innermost(&self) -> String {
        self.0.join(" > ")
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}
