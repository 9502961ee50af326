//! The documents of one stream: a point after the trailing plan, and a stream that holds
//! more than one TAP document (protocol-spec/tap.md, "Documents in one stream").
use super::*;

impl Machine {
    /// The top-level document is over: its plan came after its points (or was `1..0`), or
    /// its leading plan's count has run. A plan or `TAP version` line then starts another.
    pub(super) fn document_ended(&self) -> bool {
        let l = &self.levels[0];
        let Some((start, end)) = l.plan else {
            return false;
        };
        if self.has_child(0) || l.yaml.is_some() || l.bailing_out.is_some() {
            return false;
        }
        let planned = (end + 1).saturating_sub(start);
        let ran = l.count - l.doc_start + u64::from(l.current.is_some());
        l.post_plan || ran >= planned
    }

    /// Judges the top-level document that just ended and starts counting the next one; the
    /// stream's counts go on adding up.
    pub(super) fn new_document(&mut self, sink: &mut dyn Sink) {
        self.emit_result(0, sink);
        let label = self.document_label(true);
        self.judge_plan(0, &label, sink);
        let l = &mut self.levels[0];
        let planned = l
            .plan
            .map_or(0, |(start, end)| (end + 1).saturating_sub(start));
        l.planned_before += planned;
        l.docs_before += 1;
        l.doc_start = l.count;
        l.plan = None;
        l.plan_comment.clear();
        l.ids_seen = IdSet::default();
        l.post_plan = false;
        l.trailing_plan = false;
        l.after_plan_reported = false;
    }

    /// `document 2: ` before a plan's reason when the stream holds several documents;
    /// `closing` when the current one ends because another starts.
    pub(super) fn document_label(&self, closing: bool) -> String {
        let before = self.levels[0].docs_before;
        if before == 0 && !closing {
            String::new()
        } else {
            format!("document {}: ", before + 1)
        }
    }

    /// A test point after its document's trailing plan, or after a `1..0` that skipped it all:
    /// prove fails such a stream (the plan is at neither end; planned 0 but ran 1), and so does
    /// tapline, naming the first such point.
    pub(super) fn point_after_plan(&mut self, lvl: usize, p: &Pending, sink: &mut dyn Sink) {
        let l = &mut self.levels[lvl];
        if l.after_plan_reported {
            return;
        }
        l.after_plan_reported = true;
        let (start, end) = l.plan.unwrap_or((1, 0));
        let which = if l.trailing_plan {
            "trailing"
        } else {
            "skip-all"
        };
        let label = point_label(p.id, &p.name);
        let msg = format!("test point {label} came after the {which} plan {start}..{end}");
        self.tap_error(lvl, self.line_no, ProblemKind::PointAfterPlan, msg, sink);
    }
}
