//! What the terminal knows of one file: its tests, failures and bounded output tails.
use super::*;
use crate::event::run::OpenSubtests;
use crate::report::headings::Headings;
use crate::report::trailing::{Step, Trailing};

/// What one file's events have told so far.
pub(super) struct FileState {
    pub(super) info: FileInfo,
    pub(super) result: Option<FileResult>,
    /// The test it is on and its counts so far, for the live region.
    pub(super) progress: Progress,
    /// Its counts once finished.
    pub(super) tally: Tally,
    /// Output since the last test point: the next point's (console output precedes `ok`).
    pub(super) pending: Tail,
    /// The whole file's output, for a failing file whose failure no test point explains.
    pub(super) all: Tail,
    pub(super) subtests: OpenSubtests,
    /// Failing points per open nesting level; `[0]` is the file's own list.
    pub(super) failures: Vec<Vec<Failure>>,
    /// The failing point just seen (its place in `failures`), collecting the output printed
    /// after it.
    pub(super) trailing: Trailing<(usize, usize)>,
    /// tape's `# test name` comments, which name the points after them.
    pub(super) headings: Headings,
    /// Failing points past [`EXPLAINED_FAILURES`]: counted, not kept.
    pub(super) more_failures: usize,
}

/// A failing point, with the output its test printed.
pub(super) struct Failure {
    /// `parent > child` for a point inside subtests.
    pub(super) path: String,
    pub(super) assert: Assert<'static>,
    pub(super) output: Vec<String>,
    /// Where it failed, kept for the recap once the output is released (Test::More says it
    /// in the output).
    pub(super) at: Option<String>,
}

/// The newest lines of an output stream, counting the ones that fell off.
pub(super) struct Tail {
    pub(super) lines: VecDeque<String>,
    pub(super) dropped: usize,
    pub(super) cap: usize,
}

impl Tail {
    pub(super) fn new(cap: usize) -> Self {
        Tail {
            lines: VecDeque::new(),
            dropped: 0,
            cap,
        }
    }

    /// Keeps `line`, cut at [`crate::report::held::LINE_BYTES`].
    pub(super) fn push(&mut self, line: String) {
        let line = match line.len() > crate::report::held::LINE_BYTES {
            true => crate::report::held::cut_line(&line),
            false => line,
        };
        if self.lines.len() >= self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
        self.lines.push_back(line);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The newest `max` lines, under a note saying how many earlier ones are not shown.
    pub(super) fn newest(&self, max: usize) -> Vec<String> {
        let skip = self.lines.len().saturating_sub(max);
        let hidden = self.dropped + skip;
        let note = (hidden > 0).then(|| format!("… {hidden} earlier lines"));
        note.into_iter()
            .chain(self.lines.iter().skip(skip).cloned())
            .collect()
    }

    pub(super) fn take(&mut self, max: usize) -> Vec<String> {
        let lines = self.newest(max);
        self.lines.clear();
        self.dropped = 0;
        lines
    }
}

impl FileState {
    pub(super) fn new(info: FileInfo) -> Self {
        FileState {
            info,
            result: None,
            progress: Progress::default(),
            tally: Tally::default(),
            pending: Tail::new(FILE_OUTPUT_LINES),
            all: Tail::new(FILE_OUTPUT_LINES),
            subtests: OpenSubtests::default(),
            failures: vec![Vec::new()],
            trailing: Trailing::new(TEST_OUTPUT_LINES),
            headings: Headings::default(),
            more_failures: 0,
        }
    }

    pub(super) fn running(&self) -> bool {
        self.result.is_none()
    }

    /// A line of the child's output (stdout non-TAP, or stderr).
    pub(super) fn output(&mut self, text: &str) {
        self.all.push(text.to_owned());
        self.pending.push(text.to_owned());
    }

    pub(super) fn comment(&mut self, text: &str) {
        let line = format!("# {text}");
        self.all.push(line.clone());
        self.pending.push(line);
    }

    /// The failing point whose trailing output has ended gets it.
    fn end_failure(&mut self, (depth, index): (usize, usize), trailing: Vec<String>) {
        if let Some(f) = self.failures.get_mut(depth).and_then(|l| l.get_mut(index)) {
            f.output.extend(trailing);
        }
    }

    pub(super) fn subtest_start(&mut self, depth: u32, name: &str) {
        self.subtests.start(depth, name);
    }

    pub(super) fn assert(&mut self, a: &Assert<'static>) {
        let d = a.depth as usize;
        let output = self.pending.take(TEST_OUTPUT_LINES);
        // Failures of the subtest this point closes (and of any left unterminated below it).
        let inner: Vec<Failure> = if self.failures.len() > d + 1 {
            self.failures.drain(d + 1..).flatten().collect()
        } else {
            Vec::new()
        };
        if self.failures.len() <= d {
            self.failures.resize_with(d + 1, Vec::new);
        }
        // A subtest that failed only because its children did is said by their paths; one
        // with its own diagnostics or output still gets a line.
        let said_by_children = a.closes_subtest
            && !inner.is_empty()
            && a.diagnostics.is_none()
            && a.meta.is_none()
            && a.blocks.is_empty()
            && output.is_empty();
        let kept: usize = self.failures.iter().map(Vec::len).sum::<usize>() + inner.len();
        let own_fails = a.is_failure() && !said_by_children;
        if own_fails && kept >= EXPLAINED_FAILURES {
            self.more_failures += 1;
        }
        let own = (own_fails && kept < EXPLAINED_FAILURES).then(|| Failure {
            path: self.headings.name(self.subtests.path(a.depth, &a.name)),
            assert: a.clone(),
            output,
            at: None,
        });
        // A SKIP or TODO subtest's failures are expected; they are not the run's.
        let inner = if a.skip.is_some() || a.todo.is_some() {
            Vec::new()
        } else {
            inner
        };
        let list = &mut self.failures[d];
        let opens = own.is_some();
        let at = if a.closes_subtest {
            let at = list.len();
            list.extend(own);
            list.extend(inner);
            at
        } else {
            list.extend(inner);
            list.extend(own);
            list.len().saturating_sub(1)
        };
        if opens {
            self.trailing.open(a, (d, at));
        }
        self.subtests.after(a);
    }

    pub(super) fn tap(&mut self, ev: &Event<'static>) {
        self.progress.event(ev);
        match self.trailing.event(ev) {
            Step::Kept => {
                // The failing point's line: the file's output, not the next point's.
                match ev {
                    Event::Output { text, .. } => self.all.push(text.to_string()),
                    Event::Comment { text, .. } => self.all.push(format!("# {text}")),
                    _ => {}
                }
                return;
            }
            Step::Closed(at, trailing) => self.end_failure(at, trailing),
            Step::Passed => {}
        }
        let held = self.headings.event(ev);
        if let Some(earlier) = held.released {
            // In `all` already, from when it was held.
            self.pending.push(format!("# {earlier}"));
        }
        if let (true, Event::Comment { text, .. }) = (held.heading, ev) {
            // It names the points after it: in the file's output, not shown again as theirs.
            self.all.push(format!("# {text}"));
            return;
        }
        match ev {
            Event::Assert(a) => self.assert(a),
            Event::Output { text, .. } => self.output(text),
            Event::Comment { text, .. } => self.comment(text),
            Event::SubtestStart { depth, name, .. } => self.subtest_start(*depth, name),
            _ => {}
        }
    }

    pub(super) fn finish(&mut self, result: &FileResult) {
        if let Some(unused) = self.headings.take_unused() {
            self.pending.push(format!("# {unused}"));
        }
        // A stream always ends with `End`, which ends the failure; a file cut short may not.
        if let Some((at, trailing)) = self.trailing.close() {
            self.end_failure(at, trailing);
        }
        // Subtests the stream never closed still hold failures.
        let inner: Vec<Failure> = self.failures.drain(1..).flatten().collect();
        self.failures[0].extend(inner);
        self.tally = result.tally;
        self.result = Some(result.clone());
    }

    /// Once the file's block is printed only the recap needs it: names and locations.
    pub(super) fn release_output(&mut self) {
        self.pending = Tail::new(0);
        self.all = Tail::new(0);
        for f in self.failures.iter_mut().flatten() {
            f.at = failure::details(&f.assert, &f.output).location;
            f.output = Vec::new();
        }
    }

    pub(super) fn failures(&self) -> &[Failure] {
        self.failures.first().map_or(&[], Vec::as_slice)
    }
}
