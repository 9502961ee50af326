//! Opening and closing documents: subtests of every dialect, emitting results and verdicts.
use super::*;

impl Machine {
    pub(super) fn start_child(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        if lvl + 1 >= MAX_DEPTH {
            return self.non_tap(lvl, text, sink);
        }
        let pending_buffered = self.levels[lvl]
            .current
            .as_ref()
            .is_some_and(|p| p.buffered);
        let heading_here = !pending_buffered && self.levels[lvl].maybe_child.is_some();
        let heading_indented = !pending_buffered && !heading_here && is_indented_heading(text);
        if !pending_buffered {
            self.emit_result(lvl, sink);
        }
        if self.levels[lvl].bailed_out {
            return;
        }
        let body = &text[4..];
        let (name, first_line) = if heading_indented {
            (heading_name(body).to_owned(), None)
        } else if pending_buffered {
            let name = self.levels[lvl]
                .current
                .as_ref()
                .map(|p| p.name.clone())
                .unwrap_or_default();
            (name, Some(body))
        } else {
            let heading = self.levels[lvl].maybe_child.take().unwrap_or_default();
            (heading_name(&heading).to_owned(), Some(body))
        };
        self.levels[lvl].maybe_child = None;
        self.levels[lvl].child_skipped = None;
        let mut child = Level::new(lvl as u32 + 1, self.levels[lvl].strict);
        child.buffered = pending_buffered;
        child.name.clone_from(&name);
        if pending_buffered {
            child.has_closing_point = true;
            if let Some(p) = self.levels[lvl].current.as_mut() {
                p.closes_subtest = true;
            }
        }
        self.abandon_above(lvl, sink);
        self.levels.push(child);
        self.opened_child = true;
        sink.event(&Event::SubtestStart {
            depth: lvl as u32 + 1,
            line: self.line_no,
            name: Cow::Owned(name),
            buffered: pending_buffered,
        });
        if let Some(first) = first_line {
            self.parse(lvl + 1, first, sink);
        }
    }

    /// Subtests that will never be closed (left behind by a bail out): their `SubtestEnd`
    /// keeps the event stream balanced, but they count for nothing, as in the reference.
    /// Unfinished, they did not pass, and say so.
    pub(super) fn abandon_above(&mut self, lvl: usize, sink: &mut dyn Sink) {
        while self.levels.len() > lvl + 1 {
            let Some(mut l) = self.levels.pop() else {
                break;
            };
            l.ok = false;
            l.reasons
                .push("the stream bailed out before this subtest finished".to_owned());
            let verdict = l.verdict(false);
            sink.event(&Event::SubtestEnd {
                depth: l.depth,
                verdict,
            });
        }
    }

    pub(super) fn end_child(&mut self, lvl: usize, sink: &mut dyn Sink) {
        if !self.has_child(lvl) {
            return;
        }
        if self.levels[lvl].bailing_out.is_none() || self.levels[lvl + 1].count > 0 {
            self.end(lvl + 1, sink);
            self.levels.truncate(lvl + 1);
        }
    }

    /// The pending test point is complete: count it and emit it.
    pub(super) fn emit_result(&mut self, lvl: usize, sink: &mut dyn Sink) {
        if self.levels[lvl].bailed_out {
            return;
        }
        self.end_child(lvl, sink);
        self.levels[lvl].yaml = None;
        let Some(mut p) = self.levels[lvl].current.take() else {
            return self.flush_held(sink);
        };
        self.skip_if_child_skipped(lvl, &mut p);
        let l = &mut self.levels[lvl];
        l.count += 1;
        let (skip, todo) = match &p.directive {
            Some(Directive::Skip(_)) => (true, false),
            Some(Directive::Todo(_)) => (false, true),
            None => (false, false),
        };
        let failed = !p.ok && !skip && !todo;
        if p.ok {
            l.pass += 1;
        } else {
            l.fail += 1;
            if failed {
                l.ok = false;
                l.failed_points += 1;
                if l.failed_labels.len() < FAILED_LABELS {
                    l.failed_labels.push(point_label(p.id, &p.name));
                }
            }
        }
        if p.closes_subtest {
            // A failed subtest closed by a failing point is named by that point; closed by
            // an `ok` (or TODO/SKIP) point, its failure is a reason of its own.
            if failed {
                l.unexplained_child = None;
            } else {
                // An unnamed subtest (bare indentation) is named by the point closing it.
                let has_label = !p.name.is_empty() || p.id.is_some();
                if let Some(name) = l.unexplained_child.as_mut().filter(|n| n.is_empty()) {
                    if has_label {
                        *name = point_label(p.id, &p.name);
                    }
                }
                l.explain_child();
            }
        }
        l.skip += u64::from(skip);
        l.todo += u64::from(todo);
        let extra = p.extra.map(|b| *b).unwrap_or_default();
        let (skip, todo) = match p.directive {
            Some(Directive::Skip(r)) => (Some(r), None),
            Some(Directive::Todo(r)) => (None, Some(r)),
            None => (None, None),
        };
        sink.event(&Event::Assert(Assert {
            depth: lvl as u32,
            line: p.line,
            ok: p.ok,
            id: p.id,
            name: Cow::Borrowed(&p.name),
            skip,
            todo,
            duration_ms: p.time,
            diagnostics: extra.diag.map(Cow::Owned),
            meta: extra.meta.map(Cow::Owned),
            blocks: extra.blocks,
            closes_subtest: p.closes_subtest,
            not_selected: false,
        }));
        // Names are recycled: a stream of points then allocates none.
        if self.spare_names.len() < 8 {
            self.spare_names.push(p.name);
        }
        self.flush_held(sink);
    }

    /// Checks the document at `lvl` against its plan (none, skip-all, or a count that does
    /// not match); whether it skipped everything. `label` prefixes the reasons of one of
    /// several documents of the stream (`document 2: `).
    pub(super) fn judge_plan(&mut self, lvl: usize, label: &str, sink: &mut dyn Sink) -> bool {
        let l = &mut self.levels[lvl];
        let ran = l.count - l.doc_start;
        let mut skip_all = false;
        if l.plan == Some((1, 0)) {
            skip_all = true;
            if ran == 0 && l.docs_before == 0 {
                // Nothing ran, so failed subtests before the plan are excused, as in the
                // reference; a failing problem (strict mode) or a bail out is not.
                l.ok = !l.problem_failed && l.bailing_out.is_none();
                if l.ok {
                    l.reasons.clear();
                    l.unexplained_child = None;
                }
            } else if lvl > 0 {
                // Test2's `skip_all` inside a subtest after assertions: the subtest is skipped
                // whatever its points said, as Test2 and prove mean it (Test::More's closing
                // point says `# skip`; Test2's buffered `ok 1 - name {` does not, so the
                // closing point is made a skip: see `skip_if_child_skipped`).
                l.ok = !l.problem_failed && l.bailing_out.is_none();
                if l.ok {
                    l.reasons.clear();
                    l.unexplained_child = None;
                    l.failed_points = 0;
                    l.failed_labels.clear();
                    let reason = l.plan_comment.trim();
                    let reason = strip_skip_word(reason).to_owned();
                    self.levels[lvl - 1].child_skipped = Some(reason);
                }
            } else if ran > 0 && !l.after_plan_reported {
                let msg = format!("{label}plan 1..0 (skip all), but {ran} test points ran");
                self.tap_error(lvl, 0, ProblemKind::SkipAllWithTests, msg, sink);
            }
        } else if !l.bailed_out && l.plan.is_none() {
            if ran == 0 && l.docs_before > 0 {
                // A `TAP version` line and nothing more after a finished document.
            } else if l.count == 0 && lvl == 0 && !self.opened_child && !self.allow_empty {
                // Nothing in TAP at all: not a pass (tap-parser calls it one; we do not).
                let msg = super::NO_TAP_OUTPUT.to_owned();
                self.tap_error(lvl, 0, ProblemKind::NoOutput, msg, sink);
            } else if l.count == 0 {
                // An empty document is a skip-all with nothing to run, as in the reference.
                skip_all = true;
                l.plan = Some((1, 0));
                l.plan_comment = "no tests found".to_owned();
            } else {
                let msg = format!("{label}no plan");
                self.tap_error(lvl, 0, ProblemKind::NoPlan, msg, sink);
            }
        } else if let Some((start, end)) = l.plan {
            let planned = (end + 1).saturating_sub(start);
            if l.ok && ran != planned {
                let msg = format!("{label}planned {planned}, ran {ran}");
                self.tap_error(lvl, 0, ProblemKind::CountMismatch, msg, sink);
            }
        }
        skip_all
    }

    /// A plain `ok` closing a subtest that skipped all after its assertions is a skip.
    pub(super) fn skip_if_child_skipped(&mut self, lvl: usize, p: &mut Pending) {
        let Some(reason) = self.levels[lvl].child_skipped.take() else {
            return;
        };
        if p.closes_subtest && p.ok && p.directive.is_none() {
            p.directive = Some(Directive::Skip(Cow::Owned(reason)));
        }
    }

    /// The stream's plan when it held several documents: `1..N`, N the sum of their plans.
    fn join_documents(&mut self, skip_all: bool) -> bool {
        let l = &mut self.levels[0];
        if l.docs_before == 0 {
            return skip_all;
        }
        let planned = l
            .plan
            .map_or(0, |(start, end)| (end + 1).saturating_sub(start));
        l.plan = Some((1, l.planned_before + planned));
        l.plan_comment.clear();
        l.count == 0 && skip_all
    }

    /// Closes the document at `lvl` and emits its verdict.
    pub(super) fn end(&mut self, lvl: usize, sink: &mut dyn Sink) {
        if self.levels[lvl].yaml.is_some() {
            if self.ending {
                let start = self.levels[lvl].yaml.as_ref().map_or(0, |y| y.start_line);
                let msg = format!("stream ended inside the YAML block opened on line {start}");
                self.tap_error(lvl, start, ProblemKind::UnterminatedYaml, msg, sink);
                self.yaml_garbage(lvl, sink);
            } else {
                // The stream goes on at a shallower level (a subtest's closing point, a `}`, a
                // bail out): the block was never YAML, and not the stream's end.
                self.yaml_left_open(lvl, sink);
            }
        }
        self.emit_result(lvl, sink);
        if let Some(heading) = self.levels[lvl].maybe_child.take() {
            self.comment(lvl, &heading, sink);
        }
        let label = if lvl == 0 {
            self.document_label(false)
        } else {
            String::new()
        };
        let mut skip_all = self.judge_plan(lvl, &label, sink);
        if lvl == 0 {
            skip_all = self.join_documents(skip_all);
        }
        self.abandon_above(lvl, sink);
        let l = &self.levels[lvl];
        if let Some(reason) = &l.bailing_out {
            let msg = if reason.is_empty() {
                "bailed out".to_owned()
            } else {
                format!("bailed out: {reason}")
            };
            self.levels[lvl].reasons.push(msg);
        }
        let verdict = self.levels[lvl].verdict(skip_all);
        // Held lines go out before the verdict even when a bail out stopped the counting.
        self.flush_held(sink);
        let child_failed = !verdict.ok;
        if lvl == 0 {
            sink.event(&Event::End { verdict });
        } else {
            sink.event(&Event::SubtestEnd {
                depth: lvl as u32,
                verdict,
            });
            if child_failed {
                let name = std::mem::take(&mut self.levels[lvl].name);
                let name = if name.is_empty() {
                    name
                } else {
                    format!("\"{name}\"")
                };
                let parent = &mut self.levels[lvl - 1];
                parent.ok = false;
                parent.explain_child();
                parent.unexplained_child = Some(name);
            }
        }
    }
}

impl Level {
    /// The document's verdict as it stands; `skip_all` when its plan skipped everything.
    pub(super) fn verdict(&mut self, skip_all: bool) -> Verdict<'static> {
        self.explain_child();
        let mut reasons = Vec::with_capacity(self.reasons.len() + 1);
        if self.failed_points > 0 {
            reasons.push(failed_points_reason(
                self.failed_points,
                &self.failed_labels,
            ));
        }
        reasons.append(&mut self.reasons);
        let comment = &self.plan_comment;
        Verdict {
            ok: self.ok,
            count: self.count,
            pass: self.pass,
            fail: self.fail,
            todo: self.todo,
            skip: if skip_all { self.count } else { self.skip },
            plan: self.plan.map(|(start, end)| Plan {
                start,
                end,
                skip_all,
                reason: (!comment.is_empty()).then(|| Cow::Owned(comment.clone())),
            }),
            bailout: self.bailing_out.clone().map(Cow::Owned),
            reasons,
        }
    }

    /// A failed subtest no failing point reported becomes a reason of its own; the child's
    /// label is its quoted name, the closing point's label, or empty.
    pub(super) fn explain_child(&mut self) {
        if let Some(label) = self.unexplained_child.take() {
            self.reasons.push(if label.is_empty() {
                "a subtest failed".to_owned()
            } else {
                format!("subtest {label} failed")
            });
        }
    }

    pub(super) fn new(depth: u32, strict: bool) -> Self {
        Level {
            depth,
            ok: true,
            strict,
            ..Level::default()
        }
    }
}

/// A skip-all plan's comment without its `SKIP` word (read as a directive is: `Skipped:
/// reason` too): the reason alone.
fn strip_skip_word(comment: &str) -> &str {
    match crate::line::parse_directive(comment) {
        Some(crate::line::Parsed::Skip(reason)) => reason.trim_start_matches([':', ' ']),
        _ => comment,
    }
}

/// How many failed points a verdict's reason names; the rest are counted.
const FAILED_LABELS: usize = 3;

/// A failed point as a reason names it: its name, else its id.
pub fn point_label(id: Option<u64>, name: &str) -> String {
    match (name.is_empty(), id) {
        (false, _) => format!("\"{name}\""),
        (true, Some(id)) => format!("#{id}"),
        (true, None) => "(unnamed)".to_owned(),
    }
}

/// `1 test point failed: "adds"`, `5 test points failed: "a", "b", "c" and 2 more`.
pub fn failed_points_reason(count: u64, labels: &[String]) -> String {
    let noun = if count == 1 { "point" } else { "points" };
    let mut out = format!("{count} test {noun} failed: {}", labels.join(", "));
    let more = count.saturating_sub(labels.len() as u64);
    if more > 0 {
        out.push_str(&format!(" and {more} more"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::strip_skip_word;

    #[test]
    fn a_skip_all_reason_is_read_as_a_directive_is() {
        assert_eq!(strip_skip_word("SKIP Missing prereq"), "Missing prereq");
        assert_eq!(strip_skip_word("Skipped: no db"), "no db");
        assert_eq!(strip_skip_word("skip"), "");
        assert_eq!(strip_skip_word("no reason word"), "no reason word");
    }
}
