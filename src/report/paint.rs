//! Paints a structured diff for the terminal: ANSI colours and inverse video when styles are
//! on, plain text otherwise.
use std::io::{self, Write};

use super::style::Style;
#[cfg(test)]
use crate::explain::diff::{compute, Budget, Outcome};
use crate::explain::diff::{Diff, DiffLine, Sign};
#[cfg(test)]
use serde_json::Value;

pub(crate) mod ansi {
    pub const GREEN: &str = "\x1b[32m";
    pub const RED: &str = "\x1b[31m";
    pub const YELLOW: &str = "\x1b[33m";
    pub const DIM: &str = "\x1b[2m";
    pub const INVERSE: &str = "\x1b[7m";
    pub const INVERSE_OFF: &str = "\x1b[27m";
    pub const RESET: &str = "\x1b[0m";
}

/// Render a diff of `expected` vs `actual` into `out` for a terminal: [`compute`] painted by
/// [`Diff::write_terminal`]. Values come from test diagnostics (TAP YAML `wanted`/`found`,
/// `expected`/`actual`, or a protocol-v2 ERROR marker's JSON): they may be JSON strings, numbers,
/// bools, null, arrays, objects.
///
/// # Errors
///
/// Only errors from writing to `out`. Everything is rendered into memory
/// first, so on error nothing or a prefix of the diff has been written.
#[cfg(test)]
pub fn render(
    out: &mut dyn Write,
    expected: &Value,
    actual: &Value,
    style: &Style,
    budget: &Budget,
) -> io::Result<Outcome> {
    // Highlighting only shows with colours, so it is not computed without them.
    let diff = compute(expected, actual, budget, style.enabled);
    diff.write_terminal(out, style)?;
    Ok(diff.outcome)
}

fn sign_color(sign: Sign) -> &'static str {
    match sign {
        Sign::Expected => ansi::GREEN,
        Sign::Received => ansi::RED,
        Sign::Context => ansi::DIM,
    }
}

impl Diff {
    /// Writes the diff as terminal lines. Everything is painted into memory first, so on a
    /// write error nothing or a prefix of the diff has been written.
    ///
    /// # Errors
    ///
    /// Only errors from writing to `out`.
    pub fn write_terminal(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        let mut buf = String::new();
        for line in &self.lines {
            paint_line(&mut buf, line, style.enabled);
            buf.push('\n');
        }
        out.write_all(buf.as_bytes())
    }
}

fn paint_line(buf: &mut String, line: &DiffLine, enabled: bool) {
    match line {
        DiffLine::Legend(sign, _) => paint(buf, enabled, sign_color(*sign), &line.plain_text()),
        DiffLine::Note(note) => paint(buf, enabled, ansi::DIM, note),
        DiffLine::Blank => {}
        DiffLine::NoDifference => buf.push_str(&line.plain_text()),
        DiffLine::Hunk(header) => paint(buf, enabled, ansi::YELLOW, header),
        DiffLine::Omitted(_) => paint(buf, enabled, ansi::DIM, &line.plain_text()),
        DiffLine::Line { sign, segments } => {
            // No trailing blank after the sign of an empty line: the reporter's
            // own output should not contain the trailing whitespace it warns about.
            let head = if segments.is_empty() {
                sign.marker()
            } else {
                sign.prefix()
            };
            if head.is_empty() && segments.is_empty() {
                return; // an empty context line stays empty, without colour codes
            }
            if enabled {
                buf.push_str(sign_color(*sign));
            }
            buf.push_str(head);
            for segment in segments {
                if segment.emphasized && enabled {
                    buf.push_str(ansi::INVERSE);
                    buf.push_str(&segment.text);
                    buf.push_str(ansi::INVERSE_OFF);
                } else {
                    buf.push_str(&segment.text);
                }
            }
            if enabled {
                buf.push_str(ansi::RESET);
            }
        }
    }
}

fn paint(buf: &mut String, enabled: bool, color: &str, text: &str) {
    if enabled && !text.is_empty() {
        buf.push_str(color);
        buf.push_str(text);
        buf.push_str(ansi::RESET);
    } else {
        buf.push_str(text);
    }
}
