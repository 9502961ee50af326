//! `--format human`: a readable report of one stream, like a good TAP reporter: a line per
//! top-level test, failures explained with their diff, problems, and a one-line summary.
use super::diff::Budget;
use super::failure;
use super::style::{self, Style};
use super::trailing::{Step, Trailing};
use super::Tally;
use crate::event::{Assert, Event, Sink, Verdict};
use std::io::{self, Write};

/// Output lines kept per test for its failure report (the newest win).
const OUTPUT_LINES: usize = 200;

/// A failing point whose explanation waits for the output printed after it.
struct Unrendered {
    assert: Assert<'static>,
    /// What its test printed before it reported.
    output: Vec<String>,
    /// A nested point: explained under its subtest's closing line, not at once.
    nested: bool,
}

pub struct HumanReport<W: Write> {
    out: W,
    style: Style,
    budget: Budget,
    /// Non-TAP output since the last top-level point: the test in progress printed it.
    output: Vec<String>,
    output_dropped: usize,
    /// Rendered failures of nested points, shown under the subtest's closing line.
    nested: Vec<u8>,
    /// The failing point just read, collecting its trailing output (see [`Trailing`]).
    trailing: Trailing<Unrendered>,
    tally: Tally,
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
            error: None,
        }
    }

    pub fn finish(mut self) -> io::Result<W> {
        // A stream ends with `End`, which explains the last failure; events fed by hand may not.
        if let Some((f, trailing)) = self.trailing.close() {
            if self.error.is_none() {
                self.explain(f, trailing)?;
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }

    /// Explains a failing point whose trailing output has ended.
    fn explain(&mut self, f: Unrendered, trailing: Vec<String>) -> io::Result<()> {
        let mut output = f.output;
        output.extend(trailing);
        let a = &f.assert;
        let indent = format!("{}    ", "  ".repeat(a.depth as usize));
        let out: &mut dyn Write = if f.nested {
            &mut self.nested
        } else {
            &mut self.out
        };
        failure::render(out, a, &output, &indent, self.style, &self.budget)
    }

    fn write(&mut self, event: &Event<'_>) -> io::Result<()> {
        let s = self.style;
        match self.trailing.event(event) {
            Step::Kept => return Ok(()),
            Step::Closed(f, trailing) => self.explain(f, trailing)?,
            Step::Passed => {}
        }
        match event {
            Event::Assert(a) if a.depth == 0 => {
                self.tally.add(a);
                writeln!(self.out, "{}", point_line(a, s))?;
                let nested = std::mem::take(&mut self.nested);
                self.out.write_all(&nested)?;
                if a.is_failure() {
                    let output = self.take_output();
                    let f = Unrendered {
                        assert: a.clone().into_owned(),
                        output,
                        nested: false,
                    };
                    self.trailing.open(a, f);
                }
                self.output.clear();
                self.output_dropped = 0;
            }
            Event::Assert(a) if a.is_failure() => {
                let indent = "  ".repeat(a.depth as usize);
                writeln!(self.nested, "{indent}{}", point_line(a, s))?;
                let output = self.take_output();
                let f = Unrendered {
                    assert: a.clone().into_owned(),
                    output,
                    nested: true,
                };
                self.trailing.open(a, f);
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
            Event::End { verdict } => {
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
                writeln!(self.out, "{}", summary_line(verdict, &self.tally, s))?;
            }
            _ => {}
        }
        Ok(())
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

impl<W: Write> Sink for HumanReport<W> {
    fn event(&mut self, event: &Event<'_>) {
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
    let mut extra = vec![format!("{} tests", t.total())];
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
