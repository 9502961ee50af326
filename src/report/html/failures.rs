//! The failures section: every failing test point expanded (location, message, diff, stack,
//! output), and every file that failed without one (crash, timeout, bail out, exit code).
use std::fmt::Write;

use super::diff::write_diff;
use super::escape::{push_escaped, Esc};
use crate::report::record::{FailureView, FileStatus, FileView, RunView};

/// Stack lines shown; the log keeps the rest.
const STACK_LINES: usize = 12;

pub(crate) fn write_failures(out: &mut String, run: &RunView) {
    let points: usize = run.files.iter().map(|f| f.failures.len()).sum();
    let bare: usize = run.files.iter().filter(|f| failed_without_point(f)).count();
    let total = points + bare + run.failures_left_out;
    let _ = writeln!(
        out,
        "<section id=\"failures\"><h2>Failures <span class=\"n\">{total}</span></h2>"
    );
    if total == 0 {
        out.push_str("<div class=\"panel empty\">No failures.</div>");
    }
    let failed_tests = run.tests.fail as usize;
    if points + run.failures_left_out != failed_tests && points > 0 {
        // The cards count failed tests at the top level; here every failing point is one.
        let _ = write!(
            out,
            "<div class=\"panel empty\">{} in {}: each failing assertion inside a test, \
             at any depth, is listed on its own.</div>",
            crate::report::counted((points + run.failures_left_out) as u64, "failing point"),
            crate::report::counted(failed_tests as u64, "failed test"),
        );
    }
    if run.failures_left_out > 0 {
        let _ = write!(
            out,
            "<div class=\"panel empty\">The first {points} failing test points are explained \
             below; {} more are listed by name under their files (each file's log has them \
             all).</div>",
            run.failures_left_out
        );
    }
    for (index, file) in run.files.iter().enumerate() {
        for failure in &file.failures {
            write_point_failure(out, index, file, failure);
        }
        if failed_without_point(file) {
            write_file_failure(out, index, file);
        }
    }
    out.push_str("</section>\n");
}

/// A file that failed for a reason of its own: no failing point explains it.
pub(crate) fn failed_without_point(file: &FileView) -> bool {
    file.status == FileStatus::Fail && file.failures.is_empty() && file.failures_left_out == 0
}

/// Opens an article, with the search key the filter matches (lowercased, escaped).
fn open_article(out: &mut String, file: &FileView, title: &str, extra: &str) {
    let key = format!("{}\n{title}\n{extra}", file.rel).to_lowercase();
    let _ = write!(
        out,
        "<article class=\"failure\" data-st=\"fail\" data-k=\"{}\">",
        Esc(&key)
    );
}

fn write_point_failure(out: &mut String, index: usize, file: &FileView, failure: &FailureView) {
    let title = failure_title(failure);
    open_article(
        out,
        file,
        &title,
        failure.message.as_deref().unwrap_or_default(),
    );
    let _ = write!(
        out,
        "<h3><a class=\"file\" href=\"#file-{index}\">{}</a>{}</h3>",
        Esc(&file.rel),
        Esc(&title)
    );
    // Its stable ID, as `--format jsonl`, JUnit, `tapline list` and `-t` know it.
    let _ = write!(
        out,
        "<div class=\"tid mono\" title=\"test ID\">{}</div>",
        Esc(&crate::explain::names::id_of(&file.rel, &failure.name))
    );
    if let Some(location) = &failure.location {
        let _ = write!(out, "<div class=\"at mono\">at {}</div>", Esc(location));
    }
    if let Some(message) = &failure.message {
        let _ = write!(out, "<p class=\"msg\">{}</p>", Esc(message));
    }
    if let Some(machine) = &failure.machine {
        let _ = write!(out, "<div class=\"kv mono\">{}</div>", Esc(machine));
    }
    for (key, value) in &failure.other {
        let value = value.trim_matches('\n');
        if value.contains('\n') {
            // A YAML `source:`: code with a caret under the column, kept as lines.
            let _ = write!(out, "<div class=\"label\">{}</div>", Esc(key));
            write_pre(out, value.lines().map(str::trim_end), usize::MAX);
        } else {
            let _ = write!(
                out,
                "<div class=\"kv mono\">{}: {}</div>",
                Esc(key),
                Esc(value)
            );
        }
    }
    if let Some(diff) = &failure.diff {
        out.push_str("<div class=\"label\">Diff</div>");
        write_diff(out, diff);
    }
    if let Some((raw, complaint)) = &failure.raw_yaml {
        let _ = write!(
            out,
            "<div class=\"label\">Diagnostics (not valid YAML: {})</div>",
            Esc(complaint)
        );
        write_pre(out, raw.lines(), usize::MAX);
    }
    if let Some(stack) = &failure.stack {
        let lines: Vec<&str> = stack.lines().filter(|l| !l.trim().is_empty()).collect();
        if !lines.is_empty() {
            out.push_str("<div class=\"label\">Stack</div>");
            write_pre(out, lines.iter().copied(), STACK_LINES);
        }
    }
    if !failure.output.is_empty() {
        out.push_str("<div class=\"label\">Output</div>");
        write_pre(out, failure.output.iter().map(String::as_str), usize::MAX);
    }
    out.push_str("</article>\n");
}

/// The test's name, never its TAP line: the card is about the test, and its number is in the
/// log. An unnamed point is known by its number alone (`test point 3`).
fn failure_title(failure: &FailureView) -> String {
    match failure.id {
        Some(id) if failure.name == format!("#{id}") => format!("test point {id}"),
        _ => failure.name.clone(),
    }
}

fn write_file_failure(out: &mut String, index: usize, file: &FileView) {
    let reasons = if file.reasons.is_empty() {
        "failed".to_owned()
    } else {
        file.reasons.join("; ")
    };
    open_article(out, file, &reasons, "");
    let _ = write!(
        out,
        "<h3><a class=\"file\" href=\"#file-{index}\">{}</a>{}</h3>",
        Esc(&file.rel),
        Esc(&reasons)
    );
    if let Some(command) = &file.command {
        let _ = write!(
            out,
            "<div class=\"kv mono\">command: {}</div>",
            Esc(command)
        );
    }
    if let Some(log) = &file.log {
        let _ = write!(out, "<div class=\"kv mono\">log: {}</div>", Esc(log));
    }
    if !file.output_tail.is_empty() {
        out.push_str("<div class=\"label\">Last output</div>");
        write_pre(out, file.output_tail.iter().map(String::as_str), usize::MAX);
    }
    out.push_str("</article>\n");
}

fn write_pre<'a>(out: &mut String, lines: impl Iterator<Item = &'a str>, max: usize) {
    out.push_str("<pre class=\"out\">");
    let mut more = 0usize;
    for (i, line) in lines.enumerate() {
        if i >= max {
            more += 1;
            continue;
        }
        if i > 0 {
            out.push('\n');
        }
        push_escaped(out, line);
    }
    if more > 0 {
        let _ = write!(out, "\n… {more} more lines (see the log)");
    }
    out.push_str("</pre>");
}
