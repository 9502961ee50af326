//! `-t` in a file whose framework cannot be told to run only some tests (its harness has no
//! filter, [`crate::harness::Harness::filter`]: any TAP producer): the file runs whole, and each test point the patterns do not
//! select is marked not selected as its events arrive, before anything counts or reports it.
//!
//! The rules (docs/tests.md, "Not selected"):
//! - A point is selected when its name path, or the path of a subtest it is in, matches a
//!   pattern ([`Pattern::selects`], the one matcher the filters use).
//! - A subtest's closing point that does not match itself is selected by its selected
//!   children, unless it failed while none of them did: its failure is then its unselected
//!   children's, and it is not selected either.
//! - A not-selected point counts as neither passed nor failed; the stream's verdict (its `End`)
//!   follows the selected points: a failure among the others no longer fails it, but a bad
//!   plan, a bail out or a parse error still does. The counts of the `End` verdict stay the
//!   stream's own.
//! - The framework's own non-zero exit for failed assertions (1, or the count of failures) is
//!   forgiven when every failure was not selected ([`Mark::forgives`](crate::event::collect::Mark::forgives)); any
//!   other exit (a crash, a signal, 255) still fails the file.
use super::test_filter::Pattern;
use crate::event::collect::Mark;
use crate::event::{Event, Verdict};
use crate::explain::names::PointNames;
use crate::protocol::{failed_points_reason, point_label};
use std::sync::Arc;

/// How many failed points a verdict's reason names (the parser's own number).
const LABELS: usize = 3;

/// The patterns a file runs under when its framework has no filter: kept with the file
/// ([`crate::run::discover::Input`]) for every attempt.
#[derive(Debug, Clone)]
pub struct Selection(Arc<[Pattern]>);

impl Selection {
    pub fn new(patterns: &[Pattern]) -> Selection {
        Selection(patterns.into())
    }

    /// A fresh marking for one attempt's stream.
    pub(crate) fn marking(&self) -> Marking {
        Marking {
            patterns: Arc::clone(&self.0),
            names: PointNames::default(),
            below: Vec::new(),
            top: Failed::default(),
            selected: Failed::default(),
        }
    }
}

impl PartialEq for Selection {
    fn eq(&self, other: &Selection) -> bool {
        let texts = |s: &Selection| s.0.iter().map(|p| p.text.clone()).collect::<Vec<_>>();
        texts(self) == texts(other)
    }
}

/// Failed top-level points, counted and labelled as the parser's verdict reason names them.
#[derive(Default)]
struct Failed {
    count: u64,
    labels: Vec<String>,
}

impl Failed {
    fn add(&mut self, id: Option<u64>, name: &str) {
        self.count += 1;
        if self.labels.len() < LABELS {
            self.labels.push(point_label(id, name));
        }
    }

    fn reason(&self) -> String {
        failed_points_reason(self.count, &self.labels)
    }
}

/// One stream's points marked as they come ([`Selection::marking`]).
pub(crate) struct Marking {
    patterns: Arc<[Pattern]>,
    names: PointNames,
    /// By depth: whether a point deeper than it was selected, and whether one of those failed,
    /// since the last point that closed a subtest at that depth.
    below: Vec<(bool, bool)>,
    /// Every failed top-level point, then the selected ones.
    top: Failed,
    selected: Failed,
}

impl Mark for Marking {
    /// The event as the run reports it: a not-selected point marked, the stream's verdict
    /// judged by the selected points. `None`: unchanged.
    fn mark(&mut self, event: &Event<'_>) -> Option<Event<'static>> {
        let name = self.names.event(event);
        match (event, name) {
            (Event::Assert(a), Some(name)) => {
                let own = self.patterns.iter().any(|p| p.selects(&name.parts()));
                let depth = a.depth as usize;
                if self.below.len() <= depth {
                    self.below.resize(depth + 1, (false, false));
                }
                let (children, child_failed) = match a.closes_subtest {
                    true => std::mem::take(&mut self.below[depth]),
                    false => (false, false),
                };
                let failed = a.failed_as_printed();
                let selected = own || (children && (child_failed || !failed));
                if selected {
                    for level in &mut self.below[..depth] {
                        level.0 = true;
                        level.1 |= failed;
                    }
                }
                if depth == 0 && failed {
                    self.top.add(a.id, &a.name);
                    if selected {
                        self.selected.add(a.id, &a.name);
                    }
                }
                (!selected).then(|| {
                    let mut a = a.clone().into_owned();
                    a.not_selected = true;
                    Event::Assert(a)
                })
            }
            (Event::End { verdict }, _) => Some(Event::End {
                verdict: self.verdict(verdict),
            }),
            _ => None,
        }
    }

    /// Whether a non-zero exit `code` is the framework's own count of failed assertions, all
    /// of them not selected: a framework exits 1, or with the number of failed tests (at most
    /// 254), when a test failed. A code above the failed points' number (255: the interpreter
    /// died) or any selected failure is no such count.
    fn forgives(&self, code: i32) -> bool {
        let failed_only_unselected = self.selected.count == 0 && self.top.count > 0;
        failed_only_unselected && u64::try_from(code).is_ok_and(|c| c >= 1 && c <= self.top.count)
    }
}

/// A file its framework's filter narrowed, where the framework reports the tests it left out
/// as skipped with its own reason ([`crate::harness::filter::Filter::left_out`]): those points
/// are not selected, counted as `-t` counts a file run whole's leftovers, never as skipped by
/// the test itself. Their `ok` already keeps the verdict and the exit as they were.
pub(crate) struct LeftOut(pub(crate) &'static str);

impl Mark for LeftOut {
    fn mark(&mut self, event: &Event<'_>) -> Option<Event<'static>> {
        let Event::Assert(a) = event else {
            return None;
        };
        if a.not_selected || a.skip.as_deref().map(str::trim) != Some(self.0) {
            return None;
        }
        let mut a = a.clone().into_owned();
        a.not_selected = true;
        Some(Event::Assert(a))
    }

    fn forgives(&self, _code: i32) -> bool {
        false
    }
}

impl Marking {
    /// The stream's verdict with only the selected points' failures: the parser's reason for
    /// failed points (always its first) names the selected ones, or goes.
    fn verdict(&self, v: &Verdict<'_>) -> Verdict<'static> {
        let mut v = v.clone().into_owned();
        if self.top.count == self.selected.count || v.reasons.first() != Some(&self.top.reason()) {
            return v;
        }
        match self.selected.count {
            0 => {
                v.reasons.remove(0);
            }
            _ => v.reasons[0] = self.selected.reason(),
        }
        if v.reasons.is_empty() {
            // The parser checks the plan's count only of a stream with no failure.
            match v
                .plan
                .as_ref()
                .filter(|p| !p.skip_all && v.bailout.is_none())
            {
                Some(p) if (p.end + 1).saturating_sub(p.start) != v.count => {
                    let planned = (p.end + 1).saturating_sub(p.start);
                    v.reasons
                        .push(format!("planned {planned}, ran {}", v.count));
                }
                _ => v.ok = true,
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_all;

    /// The marked stream of `tap` under `patterns`: each point's name, whether it is
    /// selected, and the verdict.
    fn marked(tap: &str, patterns: &[&str]) -> (Vec<(String, bool)>, Verdict<'static>, Marking) {
        let patterns: Vec<Pattern> = (patterns.iter())
            .map(|p| Pattern::parse(p).expect("pattern"))
            .collect();
        let mut marking = Selection::new(&patterns).marking();
        let mut points = Vec::new();
        let mut verdict = Verdict::none();
        for ev in parse_all(tap.as_bytes()) {
            let out = marking.mark(&ev).unwrap_or(ev);
            match out {
                Event::Assert(a) => points.push((a.name.to_string(), !a.not_selected)),
                Event::End { verdict: v } => verdict = v,
                _ => {}
            }
        }
        (points, verdict, marking)
    }

    /// Tests named by a comment heading before their points.
    const HEADED: &str = "TAP version 13\n# adds\nok 1 sums\nok 2 carries\n# breaks\nnot ok 3 \
                        should be equal\n  ---\n    operator: equal\n  ...\n\n1..3\n";

    #[test]
    fn a_point_is_selected_by_its_heading_or_its_own_name() {
        let (points, verdict, marking) = marked(HEADED, &["adds"]);
        let sel: Vec<bool> = points.iter().map(|p| p.1).collect();
        assert_eq!(sel, [true, true, false]);
        // The failure elsewhere does not fail the selected tests' verdict, nor does the
        // framework's exit 1 for it.
        assert!(verdict.ok, "{:?}", verdict.reasons);
        assert_eq!(verdict.count, 3);
        assert!(marking.forgives(1));
        assert!(!marking.forgives(2) && !marking.forgives(255) && !marking.forgives(-1));
        let (points, verdict, marking) = marked(HEADED, &["/^carries$/"]);
        assert_eq!(points.iter().filter(|p| p.1).count(), 1);
        assert!(verdict.ok);
        let (_, verdict, marking2) = marked(HEADED, &["breaks"]);
        assert!(!verdict.ok);
        assert_eq!(
            verdict.reasons,
            ["1 test point failed: \"should be equal\""]
        );
        assert!(!marking2.forgives(1));
        drop(marking);
    }

    #[test]
    fn a_subtest_is_selected_by_its_name_or_by_its_selected_children() {
        let tap = "1..2\n# Subtest: outer\n    1..2\n    ok 1 - leaf\n    not ok 2 - other\n\
                   not ok 1 - outer\n# Subtest: second\n    1..1\n    ok 1 - leaf\nok 2 - second\n";
        // `leaf` selects both leaves and `second`; `outer` failed only by `other`, which is not
        // selected, so `outer` is not either.
        let (points, verdict, _) = marked(tap, &["/^leaf$/"]);
        let want = [
            ("leaf", true),
            ("other", false),
            ("outer", false),
            ("leaf", true),
            ("second", true),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(n, s)| (n.to_string(), *s)).collect();
        assert_eq!(points, want);
        assert!(verdict.ok, "{:?}", verdict.reasons);
        // A subtest matched by its own name selects all its children.
        let (points, verdict, _) = marked(tap, &["/^outer$/"]);
        let sel: Vec<bool> = points.iter().map(|p| p.1).collect();
        assert_eq!(sel, [true, true, true, false, false]);
        assert!(!verdict.ok);
        // A selected child that fails fails its subtest too.
        let (points, verdict, _) = marked(tap, &["other"]);
        let sel: Vec<bool> = points.iter().map(|p| p.1).collect();
        assert_eq!(sel, [false, true, true, false, false]);
        assert!(!verdict.ok);
    }

    #[test]
    fn a_bad_plan_or_a_bail_out_still_fails_the_stream() {
        let short = "1..4\nok 1 - a\nnot ok 2 - b\n";
        let (_, verdict, _) = marked(short, &["a"]);
        assert!(!verdict.ok);
        assert_eq!(verdict.reasons, ["planned 4, ran 2"]);
        let bail = "1..3\nok 1 - a\nnot ok 2 - b\nBail out! db gone\n";
        let (_, verdict, _) = marked(bail, &["a"]);
        assert!(!verdict.ok, "{:?}", verdict.reasons);
        let none = "ok 1 - a\nnot ok 2 - b\n";
        let (_, verdict, _) = marked(none, &["a"]);
        assert_eq!(verdict.reasons, ["no plan"]);
    }
}
