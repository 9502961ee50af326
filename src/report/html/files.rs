//! The file sections: the table of files (status, counts, duration, log), the slowest files,
//! and each file's test points, collapsed.
//!
//! Big runs: each file's points sit in a closed `<details>` (parsed, never laid out until
//! opened), one short `<li>` each with the closing tag left out as HTML allows. Past
//! [`LISTED_POINTS`] points in one file only the points that did not pass are listed, with
//! a count of the passing ones left out; the log has them all. 200,000 points in 200 files
//! stay listed in full (see `benches/README.md` for the size and load time).
use std::fmt::Write;

use super::escape::{push_escaped, Esc};
use crate::event::run::Tally;
use crate::report::record::{FileStatus, FileView, PointStatus, PointView, RunView};
use crate::report::style::duration_ms;

/// Points listed per file before passing ones are only counted.
pub(crate) const LISTED_POINTS: usize = 5_000;
/// Files in the slowest list.
const SLOWEST: usize = 10;

fn search_key(file: &FileView) -> String {
    let mut key = file.rel.to_lowercase();
    for reason in &file.reasons {
        key.push('\n');
        key.push_str(&reason.to_lowercase());
    }
    key
}

fn millis(file: &FileView) -> f64 {
    file.duration.map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

pub(crate) fn write_table(out: &mut String, run: &RunView) {
    let _ = writeln!(
        out,
        "<section id=\"files\"><h2>Files <span class=\"n\">{}</span></h2>\
         <div class=\"panel\"><table><thead><tr>\
         <th data-sort=\"text\">Status</th><th data-sort=\"text\">File</th>\
         <th class=\"num\" data-sort=\"num\">Passed</th><th class=\"num\" data-sort=\"num\">Failed</th>\
         <th class=\"num\" data-sort=\"num\">Skipped</th><th class=\"num\" data-sort=\"num\">Todo</th>\
         <th class=\"num\" data-sort=\"num\">Duration</th></tr></thead><tbody>",
        run.files.len()
    );
    for (index, file) in run.files.iter().enumerate() {
        let status = file.status;
        let _ = write!(
            out,
            "<tr data-st=\"{}\" data-k=\"{}\"><td data-v=\"{}\"><span class=\"st {}\">{}</span></td>\
             <td class=\"path\"><a class=\"mono\" href=\"#file-{index}\">{}</a>",
            status.class(),
            Esc(&search_key(file)),
            sort_rank(status),
            status.class(),
            status.label(),
            Esc(&file.rel)
        );
        if status == FileStatus::Fail && !file.reasons.is_empty() {
            let _ = write!(
                out,
                "<span class=\"why\">{}</span>",
                Esc(&file.reasons.join("; "))
            );
        }
        write_notes(out, file);
        if let Some(log) = &file.log {
            let _ = write!(out, "<span class=\"log mono\">log: {}</span>", Esc(log));
        }
        out.push_str("</td>");
        write_counts(out, &file.tally);
        match file.duration {
            Some(d) => {
                let ms = d.as_secs_f64() * 1000.0;
                let _ = write!(
                    out,
                    "<td class=\"num\" data-v=\"{ms:.3}\">{}</td>",
                    Esc(&duration_ms(ms))
                );
            }
            None => out.push_str("<td class=\"num\" data-v=\"-1\">–</td>"),
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div></section>\n");
}

/// Retries and the result cache, said under the file's path.
fn write_notes(out: &mut String, file: &FileView) {
    if file.flaky {
        let _ = write!(
            out,
            "<span class=\"note\">flaky: passed on attempt {}</span>",
            file.attempts
        );
    } else if file.attempts > 1 {
        let _ = write!(
            out,
            "<span class=\"note\">failed all {} attempts</span>",
            file.attempts
        );
    }
    if file.cached {
        out.push_str("<span class=\"note\">cached: its last passing result, not run</span>");
    }
}

/// Sorting the status column puts failures first.
fn sort_rank(status: FileStatus) -> &'static str {
    match status {
        FileStatus::Fail => "0",
        FileStatus::Cancelled => "1",
        FileStatus::NotRun => "2",
        FileStatus::NoTests => "3",
        FileStatus::Skip => "4",
        FileStatus::Pass => "5",
    }
}

fn write_counts(out: &mut String, tally: &Tally) {
    for (class, n) in [
        ("c-pass", tally.pass),
        ("c-fail", tally.fail),
        ("c-skip", tally.skip),
        ("c-todo", tally.todo),
    ] {
        let class = if n == 0 { "c-zero" } else { class };
        let _ = write!(out, "<td class=\"num {class}\">{n}</td>");
    }
}

pub(crate) fn write_slowest(out: &mut String, run: &RunView) {
    let mut timed: Vec<(usize, &FileView)> = run
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.duration.is_some())
        .collect();
    if timed.is_empty() {
        return;
    }
    timed.sort_by(|a, b| millis(b.1).total_cmp(&millis(a.1)));
    timed.truncate(SLOWEST);
    let max = timed.first().map_or(0.0, |(_, f)| millis(f)).max(1.0);
    out.push_str(
        "<section id=\"slowest\"><h2>Slowest files</h2><div class=\"panel\"><ol class=\"slow\">",
    );
    for (index, file) in timed {
        let ms = millis(file);
        let _ = write!(
            out,
            "<li><a class=\"path mono\" href=\"#file-{index}\">{}</a>\
             <meter min=\"0\" max=\"{max:.3}\" value=\"{ms:.3}\"></meter>\
             <span class=\"num\">{}</span></li>",
            Esc(&file.rel),
            Esc(&duration_ms(ms))
        );
    }
    out.push_str("</ol></div></section>\n");
}

pub(crate) fn open_tests(out: &mut String) {
    out.push_str("<section id=\"tests\"><h2>Tests by file</h2><div class=\"panel\">\n");
}

pub(crate) fn close_tests(out: &mut String) {
    out.push_str("</div></section>\n");
}

pub(crate) fn write_file_tests(out: &mut String, index: usize, file: &FileView) {
    let _ = write!(
        out,
        "<details class=\"tests\" id=\"file-{index}\" data-st=\"{}\" data-k=\"{}\"{}>\
         <summary><span class=\"st {}\">{}</span><span class=\"path mono\">{}</span>\
         <span class=\"counts\">",
        file.status.class(),
        Esc(&search_key(file)),
        // A failing file's points are worth seeing without a click, if they are few.
        if file.status == FileStatus::Fail && file.points.len() <= 200 {
            " open"
        } else {
            ""
        },
        file.status.class(),
        file.status.label(),
        Esc(&file.rel)
    );
    write_tally_words(out, &file.tally);
    if let Some(d) = file.duration {
        let _ = write!(out, " · {}", Esc(&duration_ms(d.as_secs_f64() * 1000.0)));
    }
    out.push_str("</span></summary>");
    if let Some(log) = &file.log {
        let _ = write!(out, "<div class=\"more mono\">log: {}</div>", Esc(log));
    }
    if file.points.is_empty() {
        out.push_str(if file.cached {
            "<div class=\"more\">Not run: its last passing result came from the cache.</div>"
        } else {
            "<div class=\"more\">No test points.</div>"
        });
    } else {
        // Points past the record's bound that passed were counted, not kept: left out here too.
        let everything = file.points.len() + file.points_dropped <= LISTED_POINTS;
        out.push_str("<ol>");
        let mut position = 0u64;
        let mut counter = 1u64;
        let mut left_out = file.points_dropped;
        for point in &file.points {
            position += 1;
            let quiet = matches!(point.status, PointStatus::Pass | PointStatus::NotSelected);
            if !everything && quiet {
                left_out += 1;
                continue;
            }
            write_point(out, point, point.id.unwrap_or(position), &mut counter);
        }
        out.push_str("</ol>");
        if left_out > 0 {
            let _ = write!(
                out,
                "<div class=\"more\">{left_out} passing (or not selected) points not listed (over \
                 {LISTED_POINTS} in this file); the log has them all.</div>"
            );
        }
    }
    out.push_str("</details>\n");
}

fn write_tally_words(out: &mut String, t: &Tally) {
    let _ = write!(out, "{} passed", t.pass);
    let counts = [
        (t.fail, "failed"),
        (t.skip, "skipped"),
        (t.todo, "todo"),
        (t.not_selected, "not selected"),
    ];
    for (n, word) in counts {
        if n > 0 {
            let _ = write!(out, " · {n} {word}");
        }
    }
}

/// One `<li>` numbered `number`; the number is written only when the list's own counting
/// (`counter`, the previous item's number plus one) would give another.
fn write_point(out: &mut String, point: &PointView, number: u64, counter: &mut u64) {
    let class = match point.status {
        PointStatus::Pass => "",
        PointStatus::Fail => " class=\"f\"",
        PointStatus::Skip => " class=\"s\"",
        PointStatus::Todo => " class=\"t\"",
        PointStatus::NotSelected => " class=\"n\"",
    };
    if number == *counter {
        let _ = write!(out, "<li{class}>");
    } else {
        let _ = write!(out, "<li{class} value=\"{number}\">");
    }
    *counter = number.saturating_add(1);
    push_escaped(out, &point.name);
    let directive = match point.status {
        PointStatus::Skip => Some("SKIP"),
        PointStatus::Todo => Some("TODO"),
        PointStatus::NotSelected => Some("not selected"),
        _ => None,
    };
    if let Some(directive) = directive {
        let _ = write!(out, " <span class=\"d\"># {directive}");
        let own = point.status != PointStatus::NotSelected;
        if let Some(reason) = point.reason.as_deref().filter(|r| own && !r.is_empty()) {
            out.push(' ');
            push_escaped(out, reason);
        }
        out.push_str("</span>");
    }
}
