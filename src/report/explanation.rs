//! An explanation as the terminal writes it under a failing point (the terminal report and
//! `parse`'s): location, message, the producer's machine fields, other diagnostics, the diff
//! (changed characters marked with colours), the stack's own frames, the output.
use std::io::{self, Write};

use super::style::{self, Style};
use crate::explain::failure::stack;
use crate::explain::Explanation;

/// Which stack frames a failure shows ([`stack`] says which are runtime-internal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frames {
    /// Every frame, however many (`-v`).
    All,
    /// The test's own frames, at most [`STACK_LINES`]; the runtime's are counted, with the
    /// flag that would show them where there is one.
    Own { shown_by: Option<&'static str> },
}

/// Most lines of a stack trace worth showing; the rest is in the log.
const STACK_LINES: usize = 6;

/// Writes the explanation under a failing point's line, every line prefixed by `indent`;
/// `frames` says whether runtime-internal stack frames show. The diff's changed characters
/// show only with colours.
pub fn render(
    out: &mut dyn Write,
    e: &Explanation,
    indent: &str,
    style: Style,
    frames: Frames,
) -> io::Result<()> {
    if let Some(loc) = &e.location {
        writeln!(
            out,
            "{indent}{}",
            style.paint(style::CYAN, format!("at {loc}"))
        )?;
    }
    if let Some(msg) = &e.message {
        for l in msg.trim_end().lines() {
            if l.trim().is_empty() {
                writeln!(out)?; // no trailing indentation on blank lines
            } else {
                writeln!(out, "{indent}{}", style.paint(style::BOLD, l))?;
            }
        }
    }
    if let Some(machine) = &e.machine {
        writeln!(out, "{indent}{}", style.paint(style::DIM, machine))?;
    }
    for (k, v) in &e.other {
        write_other(out, k, v, indent, style)?;
    }
    if let Some(diff) = &e.diff {
        writeln!(out)?;
        let mut buf = Vec::new();
        diff.write_terminal(&mut buf, &style)?;
        for l in String::from_utf8_lossy(&buf).lines() {
            if l.is_empty() {
                writeln!(out)?; // no trailing indentation on blank lines
            } else {
                writeln!(out, "{indent}{l}")?;
            }
        }
    }
    if let Some((raw, err)) = &e.raw_yaml {
        writeln!(
            out,
            "{indent}{}",
            style.paint(
                style::YELLOW,
                format!("diagnostics are not valid YAML ({err}):")
            )
        )?;
        for l in raw.lines().take(20) {
            writeln!(out, "{indent}  {l}")?;
        }
    }
    if let Some(stack) = &e.stack {
        write_stack(out, stack, indent, style, frames)?;
    }
    if !e.output.is_empty() {
        writeln!(out, "{indent}{}", style.paint(style::DIM, "output:"))?;
        for l in &e.output {
            writeln!(out, "{indent}{} {l}", style.paint(style::DIM, "│"))?;
        }
    }
    Ok(())
}

/// `key: value`, or for a value of several lines (a YAML `source:`) `key:` over the lines.
fn write_other(
    out: &mut dyn Write,
    k: &str,
    v: &str,
    indent: &str,
    style: Style,
) -> io::Result<()> {
    let v = v.trim_matches('\n');
    if !v.contains('\n') {
        return writeln!(
            out,
            "{indent}{}",
            style.paint(style::DIM, format!("{k}: {v}"))
        );
    }
    writeln!(out, "{indent}{}", style.paint(style::DIM, format!("{k}:")))?;
    for l in v.lines() {
        let l = l.trim_end();
        if l.is_empty() {
            writeln!(out)?;
        } else {
            writeln!(out, "{indent}  {}", style.paint(style::DIM, l))?;
        }
    }
    Ok(())
}

/// The stack's frames worth showing: internal ones only with `-v`, at most [`STACK_LINES`]
/// without it.
fn write_stack(
    out: &mut dyn Write,
    stack: &str,
    indent: &str,
    style: Style,
    frames: Frames,
) -> io::Result<()> {
    let verbose = frames == Frames::All;
    let (lines, hidden) = stack::frames(stack, verbose);
    if lines.is_empty() && hidden == 0 {
        return Ok(());
    }
    writeln!(out)?;
    let shown = if verbose { lines.len() } else { STACK_LINES };
    for l in lines.iter().take(shown) {
        writeln!(out, "{indent}{}", style.paint(style::DIM, l))?;
    }
    let mut notes = Vec::new();
    if lines.len() > shown {
        notes.push(format!("{} more stack lines", lines.len() - shown));
    }
    if hidden > 0 {
        let word = if hidden == 1 { "frame" } else { "frames" };
        let how = match frames {
            Frames::Own {
                shown_by: Some(flag),
            } => format!(" ({flag} shows them)"),
            _ => String::new(),
        };
        notes.push(format!("{hidden} runtime {word} hidden{how}"));
    }
    if !notes.is_empty() {
        let note = format!("… {}", notes.join(", "));
        writeln!(out, "{indent}{}", style.paint(style::DIM, note))?;
    }
    Ok(())
}
