//! Builds the TAP event stream from results that did not come as TAP (`go test -json`, JUnit
//! XML): the readers say "a subtest starts", "a test ended so", and this keeps the counts,
//! plans and verdicts exactly as the TAP machine would for the same tree.
use crate::event::{Assert, Event, Plan, Problem, ProblemKind, Sink, Verdict};
use std::borrow::Cow;

/// One finished test, as a reader saw it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Point {
    pub name: String,
    pub ok: bool,
    pub skip: Option<String>,
    pub todo: Option<String>,
    pub duration_ms: Option<f64>,
    /// YAML, as TAP's diagnostics block would carry it ([`yaml_map`]).
    pub diagnostics: Option<String>,
}

#[derive(Default)]
struct Level {
    count: u64,
    pass: u64,
    fail: u64,
    skip: u64,
    todo: u64,
    failed_labels: Vec<String>,
    reasons: Vec<String>,
    ok: bool,
}

/// How many failed points a verdict's reason names, as in the TAP machine.
const FAILED_LABELS: usize = 3;

impl Level {
    /// A level that passes until something fails it.
    fn fresh() -> Self {
        Level {
            ok: true,
            ..Level::default()
        }
    }

    fn verdict(&self) -> Verdict<'static> {
        let mut reasons = Vec::new();
        if self.fail > 0 {
            let noun = if self.fail == 1 { "point" } else { "points" };
            let mut r = format!(
                "{} test {noun} failed: {}",
                self.fail,
                self.failed_labels.join(", ")
            );
            let more = self.fail.saturating_sub(self.failed_labels.len() as u64);
            if more > 0 {
                r.push_str(&format!(" and {more} more"));
            }
            reasons.push(r);
        }
        reasons.extend(self.reasons.iter().cloned());
        Verdict {
            ok: self.ok && self.fail == 0,
            count: self.count,
            pass: self.pass,
            fail: self.fail,
            todo: self.todo,
            skip: self.skip,
            plan: Some(self.plan()),
            bailout: None,
            reasons,
        }
    }

    fn plan(&self) -> Plan<'static> {
        Plan {
            start: 1,
            end: self.count,
            skip_all: self.count == 0,
            reason: (self.count == 0).then_some(Cow::Borrowed("no tests")),
        }
    }
}

/// The tree being emitted: one level per open subtest, the top level first.
pub(crate) struct Builder {
    levels: Vec<Level>,
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            levels: vec![Level::fresh()],
        }
    }

    /// Depth of the points emitted now: 0 at the top, 1 inside one subtest.
    pub fn depth(&self) -> u32 {
        (self.levels.len() - 1) as u32
    }

    fn top(&mut self) -> &mut Level {
        let last = self.levels.len() - 1;
        &mut self.levels[last]
    }

    pub fn output(&mut self, sink: &mut dyn Sink, line: u64, text: &str) {
        sink.event(&Event::Output {
            depth: self.depth(),
            line,
            text: Cow::Borrowed(text),
        });
    }

    pub fn comment(&mut self, sink: &mut dyn Sink, line: u64, text: &str) {
        sink.event(&Event::Comment {
            depth: self.depth(),
            line,
            text: Cow::Borrowed(text),
        });
    }

    /// A problem at the current level; a failing one fails the level's verdict.
    pub fn problem(
        &mut self,
        sink: &mut dyn Sink,
        line: u64,
        kind: ProblemKind,
        message: String,
        fails: bool,
    ) {
        if fails {
            let top = self.top();
            top.ok = false;
            top.reasons.push(message.clone());
        }
        sink.event(&Event::Problem(Problem {
            depth: self.depth(),
            line,
            kind,
            message,
            fails,
        }));
    }

    pub fn start_subtest(&mut self, sink: &mut dyn Sink, line: u64, name: &str) {
        self.levels.push(Level::fresh());
        sink.event(&Event::SubtestStart {
            depth: self.depth(),
            line,
            name: Cow::Borrowed(name),
            buffered: false,
        });
    }

    /// Announces the point [`Self::point`] emits next, before the output of its test: a reader
    /// that knows which test printed what says so (a failure just before keeps none of it).
    pub fn begin_point(&mut self, sink: &mut dyn Sink, line: u64, p: &Point) {
        let depth = self.depth();
        let id = self.top().count + 1;
        sink.event(&Event::AssertBegin {
            depth,
            line,
            ok: p.ok,
            id: Some(id),
            name: Cow::Borrowed(&p.name),
            skip: p.skip.as_deref().map(Cow::Borrowed),
            todo: p.todo.as_deref().map(Cow::Borrowed),
        });
    }

    /// A test point at the current level.
    pub fn point(&mut self, sink: &mut dyn Sink, line: u64, p: Point) {
        self.emit_point(sink, line, p, false);
    }

    /// Closes the innermost subtest with its point; the point fails if the subtest did.
    pub fn end_subtest(&mut self, sink: &mut dyn Sink, line: u64, p: Point) {
        self.end_subtest_with_output(sink, line, p, &[]);
    }

    /// Closes the innermost subtest with its point, `output` (what the subtest's own code
    /// printed, no test of it) coming just before the point, after the subtest's end.
    pub fn end_subtest_with_output(
        &mut self,
        sink: &mut dyn Sink,
        line: u64,
        mut p: Point,
        output: &[String],
    ) {
        if self.levels.len() < 2 {
            for text in output {
                self.output(sink, line, text);
            }
            return self.point(sink, line, p);
        }
        let depth = self.depth();
        let Some(level) = self.levels.pop() else {
            return;
        };
        sink.event(&Event::Plan {
            depth,
            line,
            plan: level.plan(),
        });
        let verdict = level.verdict();
        // A subtest whose own result says pass, though a point inside failed, still fails:
        // the tree's verdict holds whatever its producer summed up.
        if !verdict.ok && p.skip.is_none() && p.todo.is_none() {
            p.ok = false;
        }
        sink.event(&Event::SubtestEnd { depth, verdict });
        for text in output {
            self.output(sink, line, text);
        }
        self.emit_point(sink, line, p, true);
    }

    fn emit_point(&mut self, sink: &mut dyn Sink, line: u64, p: Point, closes_subtest: bool) {
        let depth = self.depth();
        let top = self.top();
        top.count += 1;
        let id = top.count;
        if p.skip.is_some() {
            top.skip += 1;
        } else if p.todo.is_some() {
            top.todo += 1;
        } else if p.ok {
            top.pass += 1;
        } else {
            top.fail += 1;
            if top.failed_labels.len() < FAILED_LABELS {
                top.failed_labels.push(if p.name.is_empty() {
                    format!("#{id}")
                } else {
                    format!("\"{}\"", p.name)
                });
            }
        }
        sink.event(&Event::Assert(Assert {
            depth,
            line,
            ok: p.ok,
            id: Some(id),
            name: Cow::Owned(p.name),
            skip: p.skip.map(Cow::Owned),
            todo: p.todo.map(Cow::Owned),
            duration_ms: p.duration_ms,
            diagnostics: p.diagnostics.map(Cow::Owned),
            meta: None,
            blocks: Vec::new(),
            closes_subtest,
            not_selected: false,
        }));
    }

    /// Closes every open subtest (as failed: it never ended) and the stream: plan, `End`.
    pub fn finish(mut self, sink: &mut dyn Sink, line: u64) {
        while self.levels.len() > 1 {
            self.problem(
                sink,
                line,
                ProblemKind::UnterminatedSubtest,
                "the stream ended inside a subtest".to_owned(),
                true,
            );
            self.end_subtest(
                sink,
                line,
                Point {
                    name: String::new(),
                    ok: false,
                    ..Point::default()
                },
            );
        }
        let level = self.levels.pop().unwrap_or(Level::fresh());
        sink.event(&Event::Plan {
            depth: 0,
            line,
            plan: level.plan(),
        });
        sink.event(&Event::End {
            verdict: level.verdict(),
        });
    }
}

/// A YAML mapping from keys and text values, as a TAP diagnostics block: plain text as a
/// literal block, text with control characters (terminal colours) as an escaped string.
pub(crate) fn yaml_map(pairs: &[(&str, &str)]) -> Option<String> {
    let mut out = String::new();
    for (key, value) in pairs {
        if value.is_empty() {
            continue;
        }
        out.push_str(key);
        out.push_str(": ");
        let plain = !value
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{feff}');
        if plain && !value.contains('\n') && is_plain_scalar(value) {
            out.push_str(value);
            out.push('\n');
        } else if plain && !value.starts_with([' ', '\t', '\n']) {
            out.push_str("|-\n");
            for l in value.trim_end_matches('\n').split('\n') {
                if !l.is_empty() {
                    out.push_str("  ");
                    out.push_str(l.trim_end_matches('\r'));
                }
                out.push('\n');
            }
        } else {
            // JSON strings are YAML double-quoted scalars.
            out.push_str(&serde_json::to_string(value).unwrap_or_default());
            out.push('\n');
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Text YAML reads back as the same string when written bare.
fn is_plain_scalar(s: &str) -> bool {
    let first_ok = s.chars().next().is_some_and(|c| {
        c.is_alphanumeric() && !c.is_ascii_digit() || matches!(c, '_' | '(' | '/' | '.')
    });
    first_ok
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with([':', ' '])
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_reads_back() {
        let cases = [
            "assert 1 == 2",
            "x_test.go:12: got 3, want 4\n    more: here",
            "\u{1b}[31mred\u{1b}[0m",
            "  leading space",
            "true",
            "12",
            "a: b",
            "line\n\nafter blank\n",
            "tab\there",
        ];
        for text in cases {
            let yaml = yaml_map(&[("message", text)]).expect("non-empty");
            let v: serde_json::Value =
                serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("{yaml:?}: {e}"));
            assert_eq!(
                v["message"].as_str(),
                Some(text.trim_end_matches('\n')),
                "{yaml:?}"
            );
        }
    }

    #[test]
    fn verdicts_count_like_tap() {
        let mut b = Builder::new();
        let mut events: Vec<Event<'static>> = Vec::new();
        b.start_subtest(&mut events, 1, "pkg");
        b.point(
            &mut events,
            2,
            Point {
                name: "a".into(),
                ok: true,
                ..Point::default()
            },
        );
        b.point(
            &mut events,
            3,
            Point {
                name: "b".into(),
                ok: false,
                ..Point::default()
            },
        );
        b.end_subtest(
            &mut events,
            4,
            Point {
                name: "pkg".into(),
                ok: true,
                ..Point::default()
            },
        );
        b.finish(&mut events, 5);
        let Some(Event::End { verdict }) = events.last() else {
            panic!("no end: {events:?}")
        };
        assert!(!verdict.ok);
        assert_eq!((verdict.count, verdict.fail), (1, 1));
        assert_eq!(verdict.reasons, ["1 test point failed: \"pkg\""]);
    }
}
