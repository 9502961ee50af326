//! `--format human`: a readable report of one stream, like a good TAP reporter: a line per
//! top-level test, failures explained with their diff, problems, and a one-line summary.
use super::diff::Budget;
use super::failure;
use super::leaves::LeafTally;
use super::style::{self, Style};
use super::trailing::{Step, Trailing};
use super::Tally;
use crate::event::{Assert, Event, Sink, Verdict};
use std::io::{self, Write};

/// Output lines kept per test for its failure report (the newest win).
const OUTPUT_LINES: usize = 200;

pub struct HumanReport<W: Write> {
    out: W,
    style: Style,
    budget: Budget,
    /// Non-TAP output since the last top-level point: the test in progress printed it.
    output: Vec<String>,
    output_dropped: usize,
    /// Rendered failures of nested points by depth (`[d]`: of the open subtest at depth
    /// `d - 1`), shown under the subtest's closing line: a parent's line comes before its
    /// failing children.
    nested: Vec<Vec<u8>>,
    /// The failing point just read, not written yet: the output after it is its own
    /// ([`Trailing`]: tapbundle's error and stack, Test::More's `got:`/`expected:`).
    trailing: Trailing<Held>,
    tally: Tally,
    /// The same points counted as `go test -json` and JUnit trees are: their leaf tests.
    leaves: LeafTally,
    /// The summary line counts `leaves` ([`HumanReport::count_leaves`]).
    count_leaves: bool,
    error: Option<io::Error>,
}

impl<W: Write> HumanReport<W> {
    pub fn new(out: W, style: Style) -> Self {
        HumanReport {
            out,
            style,
            budget: Budget::default(),
            output: Vec::new(),
            output_dropped: 0,
            nested: Vec::new(),
            trailing: Trailing::new(OUTPUT_LINES),
            tally: Tally::default(),
            leaves: LeafTally::default(),
            count_leaves: false,
            error: None,
        }
    }

    /// The summary line counts leaf tests, not top-level points: for `go test -json` and
    /// JUnit input, whose top level is packages and suites (as `tapline run` counts them).
    pub fn count_leaves(&mut self) {
        self.count_leaves = true;
    }

    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        // A stream ends with `End`, which explains the last failure; events fed by hand (a
        // stream cut off right after a failing point) may not.
        if let Some((held, trailing)) = self.trailing.close() {
            self.explain(held, trailing)?;
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn write(&mut self, event: &Event<'_>) -> io::Result<()> {
        let s = self.style;
        match self.trailing.event(event) {
            Step::Kept => return Ok(()),
            Step::Closed(held, trailing) => self.explain(held, trailing)?,
            Step::Passed => {}
        }
        match event {
            Event::Assert(a) if a.is_failure() => {
                if a.depth == 0 {
                    self.tally.add(a);
                }
                // Held until the output it owns has arrived (see [`Trailing`]).
                let held = Held {
                    inner: self.take_nested(a.depth as usize + 1),
                    output: self.take_output(),
                    assert: a.clone().into_owned(),
                };
                self.trailing.open(a, held);
            }
            Event::Assert(a) if a.depth == 0 => {
                self.tally.add(a);
                writeln!(self.out, "{}", point_line(a, s))?;
                let inner = self.take_nested(1);
                self.out.write_all(&inner)?;
                self.output.clear();
                self.output_dropped = 0;
            }
            Event::Assert(a) => {
                let depth = a.depth as usize;
                let inner = self.take_nested(depth + 1);
                self.nest(depth, &inner);
            }
            Event::Output { text, .. } => {
                if self.output.len() == OUTPUT_LINES {
                    self.output.remove(0);
                    self.output_dropped += 1;
                }
                self.output.push(text.to_string());
            }
            // A `# Subtest:` heading that opened no subtest (node:test prints one before every
            // test) says nothing the test's own line does not.
            Event::Comment { depth: 0, text, .. } if text.starts_with("Subtest") => {}
            Event::Comment { depth: 0, text, .. } => {
                writeln!(self.out, "{}", s.paint(style::DIM, format!("# {text}")))?;
            }
            Event::BailOut { reason, .. } => {
                let r = if reason.is_empty() {
                    String::new()
                } else {
                    format!(" {reason}")
                };
                writeln!(self.out, "{}", s.paint(style::RED, format!("Bail out!{r}")))?;
            }
            Event::Problem(p) => {
                let (mark, color) = if p.fails {
                    ("✗", style::RED)
                } else {
                    ("⚠", style::YELLOW)
                };
                let at = if p.line > 0 {
                    format!("line {}: ", p.line)
                } else {
                    String::new()
                };
                writeln!(
                    self.out,
                    "{}",
                    s.paint(color, format!("{mark} {at}{}", p.message))
                )?;
            }
            Event::End { verdict } => self.end(verdict)?,
            _ => {}
        }
        Ok(())
    }

    /// The stream's end: what is still held, the output after the last point of a failing
    /// stream, and the summary line.
    fn end(&mut self, verdict: &crate::event::Verdict<'_>) -> io::Result<()> {
        let s = self.style;
        // Failures inside subtests the stream never closed.
        let left = self.take_nested(0);
        self.out.write_all(&left)?;
        if !self.output.is_empty() && !verdict.ok {
            // Output after the last point: often the crash that ended the stream.
            let output = self.take_output();
            writeln!(
                self.out,
                "{}",
                s.paint(style::DIM, "output after the last test:")
            )?;
            for l in output {
                writeln!(self.out, "{} {l}", s.paint(style::DIM, "│"))?;
            }
        }
        writeln!(self.out)?;
        let tally = if self.count_leaves {
            self.leaves.tally()
        } else {
            &self.tally
        };
        writeln!(self.out, "{}", summary_line(verdict, tally, s))
    }

    /// Writes a failing point whose own output has ended: its line, its explanation (with
    /// what its test printed before and after it), then the failures inside it (at the top
    /// level straight out, nested ones under their subtest's line to come).
    fn explain(&mut self, held: Held, trailing: Vec<String>) -> io::Result<()> {
        let Held {
            assert: a,
            mut output,
            inner,
        } = held;
        output.extend(trailing);
        let depth = a.depth as usize;
        let indent = "  ".repeat(depth);
        let mut text = Vec::new();
        // The line indents itself by depth; its explanation goes four columns further.
        writeln!(text, "{}", point_line(&a, self.style))?;
        failure::render(
            &mut text,
            &a,
            &output,
            &format!("{indent}    "),
            self.style,
            &self.budget,
            // `tapline parse` has no `-v`: the frames are in the input.
            failure::Frames::Own { shown_by: None },
        )?;
        text.extend_from_slice(&inner);
        if depth == 0 {
            self.out.write_all(&text)?;
            self.output.clear();
            self.output_dropped = 0;
        } else {
            self.nest(depth, &text);
        }
        Ok(())
    }

    /// Adds rendered failures to those shown under the subtest open at `depth - 1`.
    fn nest(&mut self, depth: usize, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        if self.nested.len() <= depth {
            self.nested.resize_with(depth + 1, Vec::new);
        }
        self.nested[depth].extend_from_slice(text);
    }

    /// The rendered failures at `depth` and deeper, outermost first: what a subtest's closing
    /// point at `depth - 1` shows under its line.
    fn take_nested(&mut self, depth: usize) -> Vec<u8> {
        let mut out = Vec::new();
        if self.nested.len() > depth {
            for level in self.nested.drain(depth..) {
                out.extend_from_slice(&level);
            }
        }
        out
    }

    fn take_output(&mut self) -> Vec<String> {
        let mut out = std::mem::take(&mut self.output);
        if self.output_dropped > 0 {
            out.insert(
                0,
                format!("… {} earlier lines not shown", self.output_dropped),
            );
            self.output_dropped = 0;
        }
        out
    }
}

/// A failing point waiting for its diagnostics, with what its test printed before it and the
/// rendered failures inside it.
struct Held {
    assert: Assert<'static>,
    output: Vec<String>,
    inner: Vec<u8>,
}

impl<W: Write> Sink for HumanReport<W> {
    fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::SubtestStart { depth, .. } => self.leaves.subtest_start(*depth),
            Event::Assert(a) => self.leaves.point(a),
            _ => {}
        }
        if self.error.is_none() {
            if let Err(e) = self.write(event) {
                self.error = Some(e);
            }
        }
    }
}

/// `✓ name (12ms)`, `✗ name`, `- name # SKIP reason`, `~ name # TODO reason`.
pub fn point_line(a: &Assert<'_>, s: Style) -> String {
    let name = if a.name.is_empty() {
        a.id.map_or_else(|| "(unnamed)".to_owned(), |id| format!("#{id}"))
    } else {
        a.name.to_string()
    };
    let time = a
        .duration_ms
        .map(|t| s.paint(style::DIM, format!(" ({})", style::duration_ms(t))))
        .unwrap_or_default();
    let indent = "  ".repeat(a.depth as usize);
    if let Some(r) = &a.skip {
        let r = if r.is_empty() {
            String::new()
        } else {
            format!(" {r}")
        };
        return format!(
            "{indent}{} {name}{}",
            s.paint(style::YELLOW, "-"),
            s.paint(style::YELLOW, format!(" # SKIP{r}"))
        );
    }
    if let Some(r) = &a.todo {
        let r = if r.is_empty() {
            String::new()
        } else {
            format!(" {r}")
        };
        let mark = if a.ok { "✓" } else { "~" };
        return format!(
            "{indent}{} {name}{}{time}",
            s.paint(style::MAGENTA, mark),
            s.paint(style::MAGENTA, format!(" # TODO{r}"))
        );
    }
    if a.ok {
        format!("{indent}{} {name}{time}", s.paint(style::GREEN, "✓"))
    } else {
        format!(
            "{indent}{} {}{time}",
            s.paint(style::RED, "✗"),
            s.paint(style::RED, name)
        )
    }
}

/// `✗ FAIL  2 failed, 5 passed, 1 skipped, 1 todo (9 tests; planned 5, ran 3)`.
pub fn summary_line(v: &Verdict<'_>, t: &Tally, s: Style) -> String {
    let head = if v.ok {
        s.paint(style::GREEN, "✓ PASS")
    } else {
        s.paint(style::RED, "✗ FAIL")
    };
    if t.total() == 0 && v.plan.is_none() && !v.reasons.is_empty() {
        // Nothing was counted because nothing was TAP: the reasons are the whole story.
        return format!("{head}  {}", v.reasons.join("; "));
    }
    let mut extra = vec![super::counted(t.total(), "test")];
    if let Some(p) = v.plan.as_ref().filter(|p| p.skip_all) {
        extra = vec![match &p.reason {
            Some(r) => format!("skipped: {r}"),
            None => "skipped".to_owned(),
        }];
    }
    extra.extend(v.reasons.iter().cloned());
    format!(
        "{head}  {} ({})",
        super::render_tally(t, s),
        extra.join("; ")
    )
}
