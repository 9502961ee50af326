//! The top of the page: verdict, when and where, the count cards and the filter toolbar.
use std::fmt::Write;

use super::escape::Esc;
use crate::report::record::{FileStatus, RunView};
use crate::report::style::duration_ms;
use crate::util::time::utc;

pub(crate) fn write_header(out: &mut String, run: &RunView) {
    let (class, word) = if run.interrupted {
        ("interrupted", "INTERRUPTED")
    } else if run.ok {
        ("pass", "PASSED")
    } else {
        ("fail", "FAILED")
    };
    let _ = write!(
        out,
        "<header class=\"top\"><span class=\"verdict {class}\" id=\"verdict\">{word}</span>\
         <h1>tapline test report</h1><div class=\"where\">"
    );
    if let Some(started) = run.started {
        let _ = write!(out, "<span>started <b>{}</b></span>", Esc(&utc(started)));
    }
    let _ = write!(
        out,
        "<span>took <b>{}</b></span>",
        Esc(&duration_ms(run.duration.as_secs_f64() * 1000.0))
    );
    if let Some(host) = &run.host {
        let _ = write!(out, "<span>on <b>{}</b></span>", Esc(host));
    }
    if let Some(cwd) = &run.cwd {
        let _ = write!(out, "<span>in <b class=\"mono\">{}</b></span>", Esc(cwd));
    }
    if let Some(command) = &run.command {
        let _ = write!(out, "<span><b class=\"mono\">{}</b></span>", Esc(command));
    }
    if let Some(filter) = &run.test_filter {
        let _ = write!(
            out,
            "<span>tests <b class=\"mono\">{}</b></span>",
            Esc(&crate::report::test_filter_said(filter))
        );
    }
    out.push_str("</div></header>\n");
}

fn count_files(run: &RunView, status: FileStatus) -> usize {
    run.files.iter().filter(|f| f.status == status).count()
}

pub(crate) fn write_cards(out: &mut String, run: &RunView) {
    let failed_files = count_files(run, FileStatus::Fail);
    let not_run = count_files(run, FileStatus::NotRun);
    let t = &run.tests;
    out.push_str("<section class=\"cards\" aria-label=\"Totals\">");
    let mut files_sub = format!(
        "{} passed · {failed_files} failed",
        run.files.len() - failed_files - not_run
    );
    if not_run > 0 {
        let _ = write!(files_sub, " · {not_run} not run");
    }
    card(out, "", "files", run.files.len() as u64, &files_sub);
    card(out, "", "tests", t.total(), "top-level test points");
    card(out, "fail", "failed", t.fail, "");
    card(out, "pass", "passed", t.pass, "");
    card(out, "skip", "skipped", t.skip, "");
    card(out, "todo", "todo", t.todo, "");
    out.push_str("</section>\n");
    write_bar(out, run);
}

fn card(out: &mut String, class: &str, key: &str, value: u64, sub: &str) {
    let class = if value == 0 && !class.is_empty() {
        ""
    } else {
        class
    };
    let _ = write!(
        out,
        "<div class=\"card {class}\" id=\"n-{key}\"><div class=\"k\">{key}</div>\
         <div class=\"v\">{value}</div><div class=\"s\">{}</div></div>",
        Esc(sub)
    );
}

/// A proportion bar of the test outcomes, as SVG: its geometry is attributes, which the
/// CSP allows, where widths in `style` attributes would not be.
fn write_bar(out: &mut String, run: &RunView) {
    let t = &run.tests;
    let total = t.total();
    if total == 0 {
        return;
    }
    let _ = write!(
        out,
        "<svg class=\"bar\" viewBox=\"0 0 1000 6\" preserveAspectRatio=\"none\" role=\"img\" \
         aria-label=\"{} passed, {} failed, {} skipped, {} todo\">",
        t.pass, t.fail, t.skip, t.todo
    );
    let mut x = 0.0;
    for (class, n) in [
        ("pass", t.pass),
        ("fail", t.fail),
        ("skip", t.skip),
        ("todo", t.todo),
    ] {
        if n > 0 {
            let width = n as f64 * 1000.0 / total as f64;
            let _ = write!(
                out,
                "<rect class=\"{class}\" x=\"{x:.2}\" width=\"{width:.2}\" height=\"6\"/>"
            );
            x += width;
        }
    }
    out.push_str("</svg>\n");
}

pub(crate) fn write_toolbar(out: &mut String, run: &RunView) {
    out.push_str(
        "<div class=\"toolbar\" id=\"toolbar\" hidden>\
         <button class=\"chip\" type=\"button\" data-st=\"all\" aria-pressed=\"true\">All</button>",
    );
    for (status, label) in [
        (FileStatus::Fail, "Failed"),
        (FileStatus::Pass, "Passed"),
        (FileStatus::Skip, "Skipped"),
        (FileStatus::NoTests, "No tests"),
        (FileStatus::Cancelled, "Cancelled"),
        (FileStatus::NotRun, "Not run"),
    ] {
        let n = count_files(run, status);
        if n > 0 {
            let _ = write!(
                out,
                "<button class=\"chip\" type=\"button\" data-st=\"{}\" aria-pressed=\"false\">\
                 {label} <span class=\"n\">{n}</span></button>",
                status.class()
            );
        }
    }
    out.push_str(
        "<input id=\"q\" type=\"search\" placeholder=\"Filter files and tests… (press /)\" \
         aria-label=\"Filter files and tests\" autocomplete=\"off\">\
         <span class=\"count\" id=\"shown\"></span></div>\n",
    );
}
