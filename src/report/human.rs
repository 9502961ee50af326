//! `--format human`: a readable report of one stream, like a good TAP reporter: a line per
//! top-level test, failures explained with their diff, problems, and a one-line summary.
use super::leaves::StreamTally;
use super::style::{self, Style};
use super::Tally;
use crate::event::{Assert, Event, Sink, Verdict};
use crate::explain::held::HeldLines;
use crate::explain::{Explained, Explanation, FileExplainer, OUTPUT_LINES};
use std::io::{self, Write};

pub struct HumanReport<W: Write> {
    out: W,
    style: Style,
    /// The stream's failures, explained as every report explains them.
    explainer: FileExplainer,
    /// Output lines since the last top-level point that no failure owns: shown at the end of
    /// a failing stream.
    output: HeldLines,
    /// Its tests: top-level points, the tests of the dialect that announces every test, or
    /// for `go-json` and JUnit
    /// input, whose top level is packages and suites, their leaf tests (as `tapline run`
    /// counts them).
    tally: StreamTally,
    error: Option<io::Error>,
}

impl<W: Write> HumanReport<W> {
    pub fn new(out: W, style: Style) -> Self {
        HumanReport {
            out,
            style,
            // A stream from anywhere: its locations stay as the producer wrote them, so the
            // same input reads the same wherever it is parsed.
            explainer: FileExplainer::new(None),
            output: HeldLines::new(OUTPUT_LINES),
            tally: StreamTally::default(),
            error: None,
        }
    }

    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        // A stream ends with `End`, which explains the last failure; events fed by hand (a
        // stream cut off right after a failing point) may not.
        for e in self.explainer.end() {
            if let Explained::Failure(e) = e {
                self.explained(&e)?;
            }
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn write(&mut self, event: &Event<'_>) -> io::Result<()> {
        let s = self.style;
        let owned = self.explainer.event(event);
        let ready: Vec<Explained> = self.explainer.take().collect();
        for e in &ready {
            if let Explained::Failure(e) = e {
                self.explained(e)?;
            }
        }
        if owned {
            return Ok(());
        }
        match event {
            Event::Assert(a) if a.depth == 0 => {
                self.output.clear();
                // A failing point's line comes with its explanation.
                if !a.is_failure() {
                    writeln!(self.out, "{}", point_line(a, s))?;
                }
            }
            Event::Output { text, .. } => self.output.push(text),
            // A `# Subtest:` heading that opened no subtest (the dialect that announces every
            // test prints one before every test) says nothing the test's own line does not.
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

    /// The stream's end: the failures still held, the output after the last point of a
    /// failing stream, and the summary line.
    fn end(&mut self, verdict: &crate::event::Verdict<'_>) -> io::Result<()> {
        let s = self.style;
        for e in self.explainer.end() {
            match e {
                Explained::Failure(e) => self.explained(&e)?,
                Explained::Rest { .. } | Explained::Heading { .. } => {}
            }
        }
        if !self.output.is_empty() && !verdict.ok {
            // Output after the last point: often the crash that ended the stream. (Its
            // comments were shown as they came.)
            writeln!(
                self.out,
                "{}",
                s.paint(style::DIM, "output after the last test:")
            )?;
            // `parse` has no log to point at for the lines it left out.
            let (dropped, lines) = self.output.take_counted(|()| false);
            let note = (dropped > 0).then(|| format!("… {dropped} earlier lines not shown"));
            for l in note.into_iter().chain(lines) {
                writeln!(self.out, "{} {l}", s.paint(style::DIM, "│"))?;
            }
        }
        writeln!(self.out)?;
        writeln!(self.out, "{}", summary_line(verdict, self.tally.tally(), s))
    }

    /// A failing point's line, indented by its depth (a subtest's before its children's),
    /// and its explanation four columns further.
    fn explained(&mut self, e: &Explanation) -> io::Result<()> {
        let depth = e.depth as usize;
        let indent = "  ".repeat(depth);
        let name = match depth {
            0 => e.shown_name(),
            _ => e.shown_own_name().into_owned(),
        };
        let time = e
            .duration_ms
            .map(|t| format!("  {}", self.style.paint(style::DIM, style::duration_ms(t))))
            .unwrap_or_default();
        let mark = self.style.paint(style::RED, "✗");
        writeln!(
            self.out,
            "{indent}{mark} {}{time}",
            self.style.paint(style::RED, name)
        )?;
        crate::report::explanation::render(
            &mut self.out,
            e,
            &format!("{indent}    "),
            self.style,
            // `tapline parse` has no `-v`: the frames are in the input.
            crate::report::explanation::Frames::Own { shown_by: None },
        )
    }
}

impl<W: Write> Sink for HumanReport<W> {
    fn leaf_tests(&mut self) {
        self.tally.count_leaves();
    }

    fn event(&mut self, event: &Event<'_>) {
        self.tally.event(event);
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
        .map(|t| format!("  {}", s.paint(style::DIM, style::duration_ms(t))))
        .unwrap_or_default();
    let indent = "  ".repeat(a.depth as usize);
    if a.not_selected {
        let outcome = if a.failed_as_printed() {
            ", failed"
        } else {
            ""
        };
        return s.paint(
            style::DIM,
            format!("{indent}· {name} # not selected{outcome}"),
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Parser;

    #[test]
    fn output_after_the_last_test_keeps_its_newest_lines_and_says_how_many_it_left_out() {
        let mut tap = String::from("1..2\nok 1 - a\n");
        for n in 0..OUTPUT_LINES + 5 {
            tap.push_str(&format!("crash line {n}\n"));
        }
        let mut p = Parser::new(HumanReport::new(Vec::new(), Style::default()));
        p.feed(tap.as_bytes());
        let out = String::from_utf8(p.finish().finish().expect("to memory")).expect("UTF-8");
        // `parse` has no log: the note does not point at one.
        assert!(out.contains("│ … 5 earlier lines not shown\n"), "{out}");
        assert!(
            !out.contains("crash line 4\n") && out.contains("crash line 5\n"),
            "{out}"
        );
        assert!(!out.contains("the log"), "{out}");
    }
}
