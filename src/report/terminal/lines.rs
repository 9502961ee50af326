//! The permanent lines: a file's block, its one-line verdict, the recap of a failure, the summary.
use super::*;
use crate::event::run::FailureReason;
use crate::explain::Explanation;

/// The file's line, and for a failing file its failures, leftover output and log under it.
/// `verbose` (`-v`) keeps the stacks' runtime-internal frames.
pub(super) fn file_block(
    f: &FileState,
    r: &FileResult,
    s: Style,
    verbose: bool,
    text: &mut Vec<u8>,
) -> io::Result<()> {
    writeln!(text, "{}", file_line(&f.info, r, s))?;
    if r.ok {
        return Ok(());
    }
    let under = text.len();
    for failure in f.failures() {
        // The point's own line, named by its path so a nested failure says where it is.
        writeln!(text, "  {}", failure_line(failure, s))?;
        crate::report::explanation::render(
            text,
            failure,
            "    ",
            s,
            if verbose {
                crate::report::explanation::Frames::All
            } else {
                crate::report::explanation::Frames::Own {
                    shown_by: Some("-v"),
                }
            },
        )?;
    }
    if f.more_failures > 0 {
        let more = crate::report::counted(f.more_failures as u64, "more failing point");
        let note = match f.info.log {
            Some(_) => format!("… {more} not shown (the log has every one)"),
            None => format!("… {more} not shown"),
        };
        writeln!(text, "  {}", s.paint(style::DIM, note))?;
    }
    let leftover = f.leftover();
    if !leftover.is_empty() {
        writeln!(text, "  {}", s.paint(style::DIM, "output:"))?;
        for l in newest(leftover, SHOWN_OUTPUT_LINES) {
            writeln!(text, "  {} {l}", s.paint(style::DIM, "│"))?;
        }
    }
    if let Some(log) = &f.info.log {
        writeln!(
            text,
            "  {}",
            s.paint(style::DIM, format!("log: {}", log.display()))
        )?;
    }
    // An explained failure is a paragraph: the next file's line starts a new one.
    if text.len() > under {
        writeln!(text)?;
    }
    Ok(())
}

/// `✓ test/foo.t  12 passed, 1 skipped  35ms`, `✗ test/bar.t  1 failed  1.2s  — exited with code 3`.
pub(super) fn file_line(info: &FileInfo, r: &FileResult, s: Style) -> String {
    let skipped_all = r
        .verdict
        .plan
        .as_ref()
        .filter(|p| p.skip_all && r.tally.total() == 0);
    let (mark, counts) = match skipped_all {
        // Its harness reports a file with no tests: neither a pass nor a failure.
        _ if r.ok && r.no_tests => (
            s.paint(style::YELLOW, "-"),
            s.paint(style::YELLOW, "no tests"),
        ),
        Some(p) if r.ok => {
            let why = p
                .reason
                .as_deref()
                .map_or_else(|| "skipped".to_owned(), |w| format!("skipped: {w}"));
            (s.paint(style::YELLOW, "-"), s.paint(style::YELLOW, why))
        }
        _ if r.ok => (
            s.paint(style::GREEN, "✓"),
            crate::report::render_tally(&r.tally, s),
        ),
        _ if r.cancelled => (
            s.paint(style::YELLOW, "⊘"),
            crate::report::render_tally(&r.tally, s),
        ),
        _ => (
            s.paint(style::RED, "✗"),
            crate::report::render_tally(&r.tally, s),
        ),
    };
    let rel = if r.ok {
        info.rel.clone()
    } else {
        s.paint(style::BOLD, &info.rel)
    };
    // Durations read one way across the run (docs/run.md): bare, as the summary line has it.
    let time = if r.cached {
        s.paint(style::CYAN, "(cached)")
    } else {
        s.paint(
            style::DIM,
            style::duration_ms(r.duration.as_secs_f64() * 1000.0),
        )
    };
    let mut line = format!("{mark} {rel}  {counts}  {time}");
    if r.flaky {
        line.push_str("  ");
        line.push_str(&s.paint(
            style::YELLOW,
            format!("↻ FLAKY: passed on attempt {}", r.attempts),
        ));
    }
    // The reason's kind only: the counts are beside it and the failing points' names under it.
    let why = FailureReason::headline(&r.reasons, "; ");
    if !why.is_empty() {
        let color = if r.cancelled {
            style::YELLOW
        } else {
            style::RED
        };
        line.push_str("  ");
        line.push_str(&s.paint(color, format!("— {why}")));
    }
    line
}

/// `↻ test/a.t  1 failed, 2 passed  20ms  — exited with code 1 · attempt 1 of 3, retrying`.
pub(super) fn retry_line(
    info: &FileInfo,
    r: &FileResult,
    attempt: u32,
    of: u32,
    s: Style,
) -> String {
    let mut line = format!(
        "{} {}  {}  {}",
        s.paint(style::YELLOW, "↻"),
        info.rel,
        crate::report::render_tally(&r.tally, s),
        s.paint(
            style::DIM,
            style::duration_ms(r.duration.as_secs_f64() * 1000.0)
        )
    );
    let mut why = FailureReason::headline(&r.reasons, "; ");
    if why.is_empty() {
        why = format!("{} failed", r.tally.fail);
    }
    line.push_str(&s.paint(
        style::YELLOW,
        format!("  — {why} · attempt {attempt} of {of} failed, retrying"),
    ));
    if let Some(log) = &info.log {
        line.push_str(&s.paint(style::DIM, format!(" (log: {})", log.display())));
    }
    line
}

/// One line per failing point of a failed file (or one for the file when no point failed).
/// `✗ parent > child  3ms`: a failing point's line, named by its whole path.
fn failure_line(e: &Explanation, s: Style) -> String {
    let time = e
        .duration_ms
        .map(|t| format!("  {}", s.paint(style::DIM, style::duration_ms(t))))
        .unwrap_or_default();
    format!("{} {}{time}", s.paint(style::RED, "✗"), e.shown_name())
}

/// The newest `max` of `lines`, under a note of how many earlier ones are not shown.
pub(super) fn newest(lines: &[String], max: usize) -> Vec<String> {
    let skip = lines.len().saturating_sub(max);
    let note = (skip > 0).then(|| format!("… {skip} earlier lines"));
    note.into_iter()
        .chain(lines[skip..].iter().cloned())
        .collect()
}

pub(super) fn recap_lines(f: &FileState, s: Style) -> Vec<String> {
    let rel = &f.info.rel;
    let mut lines: Vec<String> = f
        .failures()
        .map(|fl| {
            // The file named once: `t/a.t:4 › name` when the failure is in the file itself
            // (a path an editor opens at the line), `t/a.t › name  at lib/A.pm:9` otherwise.
            let location = fl.location.as_ref().map(ToString::to_string);
            let (head, at) = match location {
                Some(l)
                    if l.strip_prefix(rel.as_str())
                        .is_some_and(|t| t.starts_with(':')) =>
                {
                    (s.paint(style::CYAN, l), String::new())
                }
                Some(l) => (
                    rel.clone(),
                    format!("  {}", s.paint(style::CYAN, format!("at {l}"))),
                ),
                None => (rel.clone(), String::new()),
            };
            format!(
                "  {} {head} › {}{at}",
                s.paint(style::RED, "✗"),
                s.paint(style::RED, fl.shown_name())
            )
        })
        .collect();
    if f.more_failures > 0 {
        let more = crate::report::counted(f.more_failures as u64, "more failing point");
        lines.push(format!(
            "  {}",
            s.paint(style::DIM, format!("… {more} in {rel}"))
        ));
    }
    let reasons = f
        .result
        .as_ref()
        .map(|r| FailureReason::join(&r.reasons, "; "))
        .unwrap_or_default();
    if lines.is_empty() {
        // (A cancelled file without failing points is recapped apart, as cancelled.)
        lines.push(format!(
            "  {} {rel}  {}",
            s.paint(style::RED, "✗"),
            s.paint(style::DIM, format!("— {reasons}"))
        ));
    }
    lines
}

/// The last line: `✗ FAIL  2 of 12 files failed · 3 failed, 120 passed · 3.4s`.
pub(super) fn summary_line(sum: &RunSummary, s: Style) -> String {
    let files = |n: usize| crate::report::counted(n as u64, "file");
    let files_failed = |n: usize| crate::report::counted(n as u64, "failed file");
    let total = sum.files_total;
    let mut parts = Vec::new();
    let head = if let Some(bailed) = &sum.bailed_out {
        parts.push(if bailed.reason.is_empty() {
            bailed.file.clone()
        } else {
            format!("{}: {}", bailed.file, bailed.reason)
        });
        parts.push(format!("{} of {} failed", sum.files_failed, files(total)));
        cancelled_and_not_run(sum, &mut parts);
        s.paint(style::RED, "✗ BAILED OUT")
    } else if sum.interrupted {
        parts.push(if sum.files_failed > 0 {
            format!("{} of {} failed", sum.files_failed, files(total))
        } else {
            format!("{} of {} passed", sum.files_passed, files(total))
        });
        cancelled_and_not_run(sum, &mut parts);
        // Stopped, not failed: red only when a file did fail.
        if sum.files_failed > 0 {
            s.paint(style::RED, "✗ INTERRUPTED")
        } else {
            s.paint(style::YELLOW, "⊘ INTERRUPTED")
        }
    } else if sum.ok {
        parts.push(files(total));
        s.paint(style::GREEN, "✓ PASS")
    } else {
        parts.push(format!("{} of {} failed", sum.files_failed, files(total)));
        if sum.files_cancelled > 0 {
            parts.push(format!("{} cancelled", sum.files_cancelled));
        }
        if let Some(n) = sum.max_fail_reached {
            let stopped = format!("stopped after {}", files_failed(n));
            // Every file may have started before the limit was reached: "0 not run" says
            // nothing.
            parts.push(match sum.files_not_run {
                0 => stopped,
                not_run => format!("{not_run} not run ({stopped})"),
            });
        }
        s.paint(style::RED, "✗ FAIL")
    };
    parts.push(crate::report::render_tally(&sum.tests, s));
    if !sum.flaky.is_empty() {
        parts.push(s.paint(style::YELLOW, format!("{} flaky", sum.flaky.len())));
    }
    if sum.files_cached > 0 {
        parts.push(s.paint(style::CYAN, format!("{} cached", sum.files_cached)));
    }
    if sum.files_no_tests > 0 {
        let n = sum.files_no_tests;
        parts.push(s.paint(
            style::YELLOW,
            format!("{n} file{} with no tests", if n == 1 { "" } else { "s" }),
        ));
    }
    parts.push(s.paint(
        style::DIM,
        style::duration_ms(sum.duration.as_secs_f64() * 1000.0),
    ));
    format!("{}  {}", s.paint(style::BOLD, head), parts.join(" · "))
}

/// `1 cancelled`, `2 not run`, where there are any.
fn cancelled_and_not_run(sum: &RunSummary, parts: &mut Vec<String>) {
    if sum.files_cancelled > 0 {
        parts.push(format!("{} cancelled", sum.files_cancelled));
    }
    if sum.files_not_run > 0 {
        parts.push(format!("{} not run", sum.files_not_run));
    }
}

/// Paints `parts` in order within `width` columns, cutting the last one that does not fit
/// with `…`: a live line must never wrap, or the cursor-up count would be wrong.
pub(super) fn fit(parts: &[(String, Option<&str>)], width: usize, s: Style) -> String {
    let mut out = String::new();
    let mut used = 0;
    for (text, color) in parts {
        let clean: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let w: usize = clean.chars().map(columns).sum();
        if used + w <= width {
            out.push_str(&paint(s, *color, &clean));
            used += w;
            continue;
        }
        let mut cut = String::new();
        for c in clean.chars() {
            if used + columns(c) + 1 > width {
                break;
            }
            used += columns(c);
            cut.push(c);
        }
        cut.push('…');
        out.push_str(&paint(s, *color, &cut));
        break;
    }
    out
}

pub(super) fn paint(s: Style, color: Option<&str>, text: &str) -> String {
    color.map_or_else(|| text.to_owned(), |c| s.paint(c, text))
}

/// Columns a character takes: 2 for the East Asian wide ranges and emoji, else 1. Erring wide
/// is safe (a line ends early); erring narrow would wrap.
pub(super) fn columns(c: char) -> usize {
    let wide = matches!(u32::from(c),
        0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1F64F | 0x1F900..=0x1F9FF | 0x20000..=0x3FFFD);
    if wide {
        2
    } else {
        1
    }
}
