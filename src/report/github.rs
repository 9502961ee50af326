//! GitHub Actions annotations: workflow commands that mark failing lines in a pull request.
//!
//! One `::error file=…,line=…,title=…::message` per failing test (at its own location when the
//! producer gave one that can be read as `path:line[:col]`, else at the test file), one per
//! file that failed without a failing test (its reasons), and `::warning` for leaked
//! processes and parse warnings. GitHub shows at most 50 annotations of a step, so after 50
//! one last line says how many more there were. Values are escaped as GitHub's toolkit does:
//! `%` `\r` `\n` in messages, and `:` `,` too in properties.
//! Colour codes a child printed are dropped and other control bytes shown as `\u{…}`, as in
//! the Markdown report.
use super::markdown::safe_chars;
use super::record::{FailureView, FileStatus, FileView, PointStatus, RunView};
use crate::explain::diff::DiffLine;
use std::io::{self, Write};
use std::path::Path;

/// GitHub shows no more than this many annotations per step.
pub const MAX_ANNOTATIONS: usize = 50;
/// Diff lines put in an annotation's message (the full diff is in the reports and logs).
const DIFF_LINES: usize = 12;

/// Writes the annotations for `run`.
///
/// # Errors
///
/// Only errors from writing to `out`.
pub fn write(out: &mut dyn Write, run: &RunView) -> io::Result<()> {
    let cwd = std::env::current_dir().ok();
    let mut all = Vec::new();
    for file in &run.files {
        annotations_of(file, cwd.as_deref(), &mut all);
    }
    for a in all.iter().take(MAX_ANNOTATIONS) {
        out.write_all(a.as_bytes())?;
    }
    if all.len() > MAX_ANNOTATIONS {
        writeln!(
            out,
            "tapline: {} more annotations not shown (GitHub shows {MAX_ANNOTATIONS}); see the report and logs",
            all.len() - MAX_ANNOTATIONS
        )?;
    }
    Ok(())
}

fn annotations_of(file: &FileView, cwd: Option<&Path>, all: &mut Vec<String>) {
    for f in &file.failures {
        let (path, line) = f
            .location
            .as_deref()
            .and_then(|l| parse_location(l, cwd))
            .unwrap_or_else(|| (file.rel.clone(), None));
        all.push(command("error", &path, line, &f.name, &failure_message(f)));
    }
    let failing_point = file.points.iter().any(|p| p.status == PointStatus::Fail);
    if file.status == FileStatus::Fail && !failing_point {
        let title = format!("{} failed", file.rel);
        all.push(command(
            "error",
            &file.rel,
            None,
            &title,
            &file.reasons.join("\n"),
        ));
    }
    for w in &file.warnings {
        all.push(command("warning", &file.rel, None, &file.rel, w));
    }
}

fn failure_message(f: &FailureView) -> String {
    let mut lines: Vec<String> = Vec::new();
    if let Some(m) = &f.message {
        lines.push(m.clone());
    }
    if let Some(diff) = &f.diff {
        lines.extend(diff.lines.iter().take(DIFF_LINES).map(DiffLine::plain_text));
        if diff.lines.len() > DIFF_LINES {
            lines.push(format!(
                "… {} more diff lines",
                diff.lines.len() - DIFF_LINES
            ));
        }
    }
    if lines.is_empty() {
        lines.push("failed".to_owned());
    }
    lines.join("\n")
}

fn command(kind: &str, file: &str, line: Option<u64>, title: &str, message: &str) -> String {
    // Colour codes and control bytes from a child would reach the annotation as they are.
    let (title, message) = (safe_chars(title), safe_chars(message));
    let mut props = format!("file={}", escape_property(file));
    if let Some(n) = line {
        props.push_str(&format!(",line={n}"));
    }
    props.push_str(&format!(",title={}", escape_property(&title)));
    format!("::{kind} {props}::{}\n", escape_data(&message))
}

/// `%`, CR and LF, as GitHub's toolkit escapes command data.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Command data escaping plus `:` and `,`, which separate properties.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `path:line[:col]` in a location as producers write it (`at t/a.js:12:5`,
/// `file:///repo/t/a.js:12:5`, `Object.<anonymous> (/repo/t/a.js:12:5)`), the path made
/// relative to `cwd` when it is inside it.
pub(crate) fn parse_location(location: &str, cwd: Option<&Path>) -> Option<(String, Option<u64>)> {
    let mut text = location.trim();
    text = text.strip_prefix("at ").unwrap_or(text);
    if let (Some(open), true) = (text.rfind('('), text.ends_with(')')) {
        text = &text[open + 1..text.len() - 1];
    }
    text = text.strip_prefix("file://").unwrap_or(text);
    let mut parts: Vec<&str> = text.rsplitn(3, ':').collect();
    parts.reverse();
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (path, line) = match parts.as_slice() {
        [path, line, col] if numeric(line) && numeric(col) => (*path, line.parse().ok()),
        [rest, line, last] if numeric(last) && !numeric(line) => {
            // `a:b.js:12` split as [a, b.js, 12].
            let path = &text[..rest.len() + 1 + line.len()];
            (path, last.parse().ok())
        }
        [path, line] if numeric(line) => (*path, line.parse().ok()),
        _ => return None,
    };
    if path.is_empty() || path.contains(char::is_whitespace) {
        return None;
    }
    let relative = cwd
        .and_then(|c| Path::new(path).strip_prefix(c).ok())
        .map_or_else(|| path.to_owned(), |p| p.display().to_string());
    Some((relative, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_toolkit() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }

    #[test]
    fn colour_codes_and_control_bytes_do_not_reach_github() {
        assert_eq!(
            command(
                "error",
                "t/a.sh",
                Some(3),
                "a\u{1b}[31mb",
                "x\u{7}y\u{1b}[0m"
            ),
            "::error file=t/a.sh,line=3,title=ab::x\\u{7}y\n"
        );
    }

    #[test]
    fn locations_as_producers_write_them() {
        let cwd = Path::new("/repo");
        let p = |l: &str| parse_location(l, Some(cwd));
        assert_eq!(p("t/a.js:12:5"), Some(("t/a.js".into(), Some(12))));
        assert_eq!(p("at /repo/t/a.js:7"), Some(("t/a.js".into(), Some(7))));
        assert_eq!(
            p("Object.<anonymous> (file:///repo/test/x.mjs:3:9)"),
            Some(("test/x.mjs".into(), Some(3)))
        );
        assert_eq!(
            p("/elsewhere/b.py:40"),
            Some(("/elsewhere/b.py".into(), Some(40)))
        );
        assert_eq!(p("somewhere"), None);
    }
}
