//! `-o report.md`: Markdown for pull-request comments and CI step summaries.
//!
//! A heading with the verdict, a summary table, then each failure: its file and test, location,
//! message and the expected/actual diff in a fenced `diff` block, its signs swapped so that
//! expected reads green as everywhere else (stack and output folded in a
//! `<details>`), files that failed without a failing test with their reasons and last output,
//! files not run, and the slowest files. Text from the run is escaped: table cells (`|`,
//! backticks, newlines), inline text (Markdown and HTML punctuation), and fenced blocks get a
//! fence longer than any backtick run inside them.
//!
//! Past [`Options::max_bytes`] (60 KB: a GitHub comment holds 64 KiB, a step summary 1 MiB)
//! the remaining failures are left out and a last line says how many, pointing at the full
//! report when there is one.
use super::record::{FailureView, FileStatus, FileView, RunView};
use super::style::duration_ms;
use crate::explain::diff::DiffLine;
use std::fmt::Write as _;
use std::io::{self, Write};

/// How the Markdown report is written.
#[derive(Debug, Clone)]
pub struct Options {
    /// Size past which failures are left out.
    pub max_bytes: usize,
    /// Where the full report is (an `.html` or `.xml` written beside), for the truncation note.
    pub full_report: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_bytes: 60_000,
            full_report: None,
        }
    }
}

/// Writes the Markdown report for `run`.
///
/// # Errors
///
/// Only errors from writing to `out`.
pub fn write(out: &mut dyn Write, run: &RunView, opts: &Options) -> io::Result<()> {
    let mut md = String::new();
    head(&mut md, run);
    stability(&mut md, run);
    let sections = failure_sections(run);
    let reserve = 600; // room for the files-not-run list, the slowest files and the note
    let mut left_out = 0;
    if !sections.is_empty() {
        md.push_str("\n### Failures\n");
    }
    for section in &sections {
        if left_out > 0 || md.len() + section.len() + reserve > opts.max_bytes {
            left_out += 1;
            continue;
        }
        md.push_str(section);
    }
    left_out += run.failures_left_out;
    not_run(&mut md, run);
    slowest(&mut md, run);
    coverage(&mut md, run);
    if left_out > 0 {
        let _ = write!(
            md,
            "\n_… {left_out} more failure{} not shown",
            plural(left_out)
        );
        match &opts.full_report {
            Some(path) => {
                let _ = write!(md, "; the full report is `{}`", code_text(path));
            }
            None => md.push_str("; every file's log has the whole output"),
        }
        md.push_str("._\n");
    }
    out.write_all(md.as_bytes())
}

/// `run --coverage`: a row per language and per file, with the lines no test reaches.
fn coverage(md: &mut String, run: &RunView) {
    use crate::coverage::percent;
    let Some(cov) = &run.coverage else {
        return;
    };
    let (total, hit) = cov.counts();
    let _ = write!(
        md,
        "\n### Coverage\n\n{}\n\n\
         | language | file | lines | reached | not reached |\n|---|---|--:|--:|---|\n",
        crate::coverage::reached(hit, total)
    );
    for row in crate::coverage::summary::rows(cov) {
        let file = match &row.path {
            Some(path) => format!("`{}`", code_text(path)),
            None => "**all**".to_owned(),
        };
        let _ = writeln!(
            md,
            "| {} | {file} | {} | {} ({:.1}%) | {} |",
            row.lang,
            row.lines,
            row.hit,
            percent(row.hit, row.lines),
            row.not_reached
        );
    }
    for note in &cov.missing {
        let _ = writeln!(md, "\n{note}");
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn head(md: &mut String, run: &RunView) {
    let failed = run
        .files
        .iter()
        .filter(|f| f.status == FileStatus::Fail)
        .count();
    let not_run = run
        .files
        .iter()
        .filter(|f| f.status == FileStatus::NotRun)
        .count();
    let flaky = run.files.iter().filter(|f| f.flaky).count();
    let files = run.files.len();
    let verdict = if run.interrupted {
        format!(
            "⚠️ Interrupted: {failed} of {} failed",
            super::counted(files as u64, "file")
        )
    } else if run.ok {
        format!("✅ Passed: {files} file{}", plural(files))
    } else {
        format!(
            "❌ Failed: {failed} of {}",
            super::counted(files as u64, "file")
        )
    };
    let _ = writeln!(md, "## {verdict}\n");
    md.push_str(
        "| Files | Tests | Passed | Failed | Skipped | Todo | Not run | Flaky | Duration |\n",
    );
    md.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let t = &run.tests;
    let _ = writeln!(
        md,
        "| {files} | {} | {} | {} | {} | {} | {not_run} | {flaky} | {} |",
        t.total(),
        t.pass,
        t.fail,
        t.skip,
        t.todo,
        duration_ms(run.duration.as_secs_f64() * 1000.0)
    );
    if let Some(filter) = &run.test_filter {
        let _ = writeln!(
            md,
            "\nTests: `{}`",
            crate::report::test_filter_said(filter).replace('`', "'")
        );
    }
    if let Some(words) = super::not_selected_words(t) {
        let _ = writeln!(
            md,
            "\nTests {words} by the test filter (`-t`, `--only-failed`): not counted."
        );
    }
}

/// Stability rows shown (least stable first); the summary document has them all.
const STABILITY_ROWS: usize = 30;
/// Runs drawn per row; a longer series shows its last ones.
const STABILITY_MARKS: usize = 40;

/// After `--runs N`: the tests (and files) that were not stable, least stable first, each
/// with its verdict in every run.
fn stability(md: &mut String, run: &RunView) {
    use crate::event::stability::{Class, RunVerdict, Subject};
    let Some(st) = &run.stability else { return };
    let tests: Vec<&Subject> = st
        .tests
        .iter()
        .filter(|t| t.class != Class::Stable)
        .collect();
    let files: Vec<&Subject> = st
        .files
        .iter()
        .filter(|f| f.class != Class::Stable)
        .collect();
    let _ = writeln!(md, "\n### Stability over {} runs\n", st.runs);
    if tests.is_empty() && files.is_empty() {
        let _ = writeln!(
            md,
            "All {} in {} passed in every run.",
            super::counted(st.tests.len() as u64, "test"),
            super::counted(st.files.len() as u64, "file")
        );
        return;
    }
    let _ = writeln!(
        md,
        "{} of {} tests and {} of {} files not stable.\n",
        tests.len(),
        st.tests.len(),
        files.len(),
        st.files.len()
    );
    md.push_str("| Class | Test | Pass rate | Consistency | p50 | Runs |\n");
    md.push_str("|---|---|---:|---:|---:|---|\n");
    let rows = tests.iter().chain(files.iter().filter(|f| {
        // A file is worth its own row only when none of its tests says why it failed.
        !tests.iter().any(|t| t.file == f.file)
    }));
    let mut shown = 0;
    let mut left = 0;
    for s in rows {
        if shown == STABILITY_ROWS {
            left += 1;
            continue;
        }
        shown += 1;
        let what = match &s.name {
            Some(name) => format!("`{}` › {}", code_text(&s.file), cell(name)),
            None => format!("`{}` (file)", code_text(&s.file)),
        };
        let from = s.verdicts.len().saturating_sub(STABILITY_MARKS);
        let mut marks: String = if from > 0 {
            "…".into()
        } else {
            String::new()
        };
        marks.extend(s.verdicts[from..].iter().map(|v| match v {
            RunVerdict::Pass => '🟩',
            RunVerdict::Fail => '🟥',
            RunVerdict::Missing => '⬜',
        }));
        let p50 = s
            .duration_ms
            .map_or_else(|| "–".to_owned(), |d| duration_ms(d.p50));
        // A test failing every run has no consistency worth a number beside its class.
        let consistency = match s.class {
            Class::FailsEveryRun => "–".to_owned(),
            _ => format!("{:.0}%", s.consistency),
        };
        let _ = writeln!(
            md,
            "| {} | {what} | {:.1}% ({}/{}) | {consistency} | {p50} | {marks} |",
            s.class.words(),
            s.pass_rate,
            s.passed,
            s.runs,
        );
    }
    if left > 0 {
        let _ = writeln!(md, "\n_… and {left} more not stable._");
    }
}

/// One section per failing test, then per file that failed without one, in file order.
fn failure_sections(run: &RunView) -> Vec<String> {
    let mut sections = Vec::new();
    for file in &run.files {
        for f in &file.failures {
            sections.push(failure_section(file, f));
        }
        let failing_points = file
            .points
            .iter()
            .any(|p| p.status == super::record::PointStatus::Fail);
        if file.status == FileStatus::Fail && !failing_points {
            sections.push(file_section(file));
        }
    }
    sections
}

fn failure_section(file: &FileView, f: &FailureView) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n#### ❌ `{}` › {}\n",
        code_text(&file.rel),
        inline(&f.name)
    );
    if let Some(loc) = &f.location {
        let _ = writeln!(s, "at `{}`\n", code_text(loc));
    }
    // One line reads best quoted; more (an assertion's own diff, a table) keep their layout.
    match f.message.as_deref().map(str::trim_end) {
        Some(m) if m.contains('\n') => fenced(&mut s, "", m),
        Some(m) if !m.is_empty() => {
            let _ = writeln!(s, "> {}\n", inline(m));
        }
        _ => {}
    }
    if let Some(machine) = &f.machine {
        let _ = writeln!(s, "- {}", inline(machine));
    }
    for (k, v) in &f.other {
        let v = v.trim_matches('\n');
        if v.contains('\n') {
            // A YAML `source:`: code with a caret under the column, kept as lines.
            let _ = writeln!(s, "- {}:\n", inline(k));
            fenced(&mut s, "", v);
        } else {
            let _ = writeln!(s, "- {}: {}", inline(k), inline(v));
        }
    }
    if !f.other.is_empty() || f.machine.is_some() {
        s.push('\n');
    }
    if let Some(diff) = &f.diff {
        let lines: Vec<String> = diff.lines.iter().map(markdown_diff_line).collect();
        fenced(&mut s, "diff", &lines.join("\n"));
    }
    if let Some((raw, err)) = &f.raw_yaml {
        let _ = writeln!(s, "diagnostics are not valid YAML ({}):\n", inline(err));
        fenced(&mut s, "yaml", raw);
    }
    let stack = f.stack.as_deref().map(str::trim).filter(|t| !t.is_empty());
    if stack.is_some() || !f.output.is_empty() {
        s.push_str("<details><summary>stack and output</summary>\n\n");
        if let Some(stack) = stack {
            fenced(&mut s, "", stack);
        }
        if !f.output.is_empty() {
            fenced(&mut s, "", &f.output.join("\n"));
        }
        s.push_str("</details>\n");
    }
    s
}

fn file_section(file: &FileView) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n#### ❌ `{}`\n", code_text(&file.rel));
    for r in &file.reasons {
        let _ = writeln!(s, "- {}", inline(r));
    }
    s.push('\n');
    if !file.output_tail.is_empty() {
        s.push_str("Last output:\n\n");
        fenced(&mut s, "", &file.output_tail.join("\n"));
    }
    if let Some(log) = &file.log {
        let _ = writeln!(s, "Log: `{}`", code_text(log));
    }
    s
}

fn not_run(md: &mut String, run: &RunView) {
    named_list(
        md,
        run,
        FileStatus::Cancelled,
        "Cancelled (stopped before the end)",
    );
    named_list(md, run, FileStatus::NotRun, "Not run");
}

/// `### Not run (3)` and the files with that status, the first 20 named.
fn named_list(md: &mut String, run: &RunView, status: FileStatus, title: &str) {
    let names: Vec<&str> = run
        .files
        .iter()
        .filter(|f| f.status == status)
        .map(|f| f.rel.as_str())
        .collect();
    if names.is_empty() {
        return;
    }
    const SHOWN: usize = 20;
    let _ = writeln!(md, "\n### {title} ({})\n", names.len());
    for name in names.iter().take(SHOWN) {
        let _ = writeln!(md, "- `{}`", code_text(name));
    }
    if names.len() > SHOWN {
        let _ = writeln!(md, "- … and {} more", names.len() - SHOWN);
    }
}

fn slowest(md: &mut String, run: &RunView) {
    let mut timed: Vec<&FileView> = run.files.iter().filter(|f| f.duration.is_some()).collect();
    if timed.len() < 2 {
        return;
    }
    timed.sort_by(|a, b| b.duration.cmp(&a.duration).then_with(|| a.rel.cmp(&b.rel)));
    md.push_str("\n<details><summary>Slowest files</summary>\n\n| File | Duration |\n|---|---:|\n");
    for f in timed.iter().take(5) {
        let ms = f.duration.map_or(0.0, |d| d.as_secs_f64() * 1000.0);
        let _ = writeln!(md, "| {} | {} |", cell(&f.rel), duration_ms(ms));
    }
    md.push_str("\n</details>\n");
}

/// A fenced block whose fence is longer than any run of backticks inside.
fn fenced(s: &mut String, lang: &str, body: &str) {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let _ = writeln!(s, "{fence}{lang}\n{}\n{fence}\n", safe_chars(body));
}

/// Text a reader can see: terminal CSI sequences (colours, cursor moves: `ESC [ … m`) dropped,
/// as the HTML report drops them, and any other control character shown as `\u{…}`; tabs and
/// line ends kept. Shared with the GitHub annotations.
pub(crate) fn safe_chars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameter and intermediate bytes, then one final byte; an unterminated
            // sequence ends at the first character that cannot belong to it.
            while let Some(&n) = chars.peek() {
                match n {
                    ' '..='?' => {
                        chars.next();
                    }
                    '@'..='~' => {
                        chars.next();
                        break;
                    }
                    _ => break,
                }
            }
        } else if (c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            || c == '\u{FFFE}'
            || c == '\u{FFFF}'
        {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Inline text: Markdown and HTML punctuation escaped, one line.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in safe_chars(text).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A table cell: inline text (which escapes `|` and backticks), on one line.
fn cell(text: &str) -> String {
    inline(text)
}

/// Text inside a single-backtick code span: backticks cannot be escaped there, so they become
/// `ˋ` (U+02CB), and line breaks spaces.
fn code_text(text: &str) -> String {
    safe_chars(text)
        .replace('`', "\u{2cb}")
        .replace(['\n', '\r'], " ")
}

/// A diff line for a ```` ```diff ```` block. Such a block is coloured by sign (`-` red, `+`
/// green) and tapline's one rule is expected green, received red, so the signs are swapped:
/// `+ Expected`, `- Received`, and a hunk's line ranges with them. The block reads as the
/// change from what the test received to what it expected (docs/reports.md).
fn markdown_diff_line(line: &DiffLine) -> String {
    swap_signs(&line.plain_text())
}

/// `text` (a diff line as the terminal prints it) with `-` and `+` exchanged where they are
/// signs: the first character of a line, and the ranges of a `@@ -a,b +c,d @@` header.
fn swap_signs(text: &str) -> String {
    if let Some(ranges) = text
        .strip_prefix("@@ -")
        .and_then(|t| t.strip_suffix(" @@"))
    {
        if let Some((old, new)) = ranges.split_once(" +") {
            return format!("@@ -{new} +{old} @@");
        }
    }
    if let Some(rest) = text.strip_prefix('-') {
        format!("+{rest}")
    } else if let Some(rest) = text.strip_prefix('+') {
        format!("-{rest}")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_gets_a_stability_table_of_what_was_not_stable() {
        use crate::event::stability::{Class, RunVerdict::*, Stability, Subject};
        let subject = |file: &str, name: Option<&str>, rate: f64, verdicts| Subject {
            file: file.into(),
            name: name.map(str::to_owned),
            id: None,
            kind: Default::default(),
            runs: 4,
            passed: (rate / 25.0) as u64,
            failed: 4 - (rate / 25.0) as u64,
            pass_rate: rate,
            consistency: rate.max(100.0 - rate),
            class: Class::of(rate),
            duration_ms: None,
            verdicts,
        };
        let run = RunView {
            stability: Some(Stability {
                runs: 4,
                files: vec![
                    subject("t/flip.sh", None, 50.0, vec![Fail, Pass, Fail, Pass]),
                    subject("t/ok.sh", None, 100.0, vec![Pass; 4]),
                ],
                tests: vec![
                    subject(
                        "t/flip.sh",
                        Some("coin|toss"),
                        50.0,
                        vec![Fail, Pass, Fail, Pass],
                    ),
                    subject(
                        "t/ok.sh",
                        Some("one"),
                        100.0,
                        vec![Pass, Pass, Missing, Pass],
                    ),
                ],
            }),
            ..RunView::default()
        };
        let mut out = Vec::new();
        write(&mut out, &run, &Options::default()).expect("write");
        let md = String::from_utf8(out).expect("utf-8");
        assert!(md.contains("### Stability over 4 runs"), "{md}");
        assert!(
            md.contains("1 of 2 tests and 1 of 2 files not stable."),
            "{md}"
        );
        assert!(
            md.contains(
                "| unstable | `t/flip.sh` › coin\\|toss | 50.0% (2/4) | 50% | – | 🟥🟩🟥🟩 |"
            ),
            "{md}"
        );
        assert!(
            !md.contains("(file)"),
            "the file's failing test already says it:\n{md}"
        );
        assert!(!md.contains("› one"), "{md}");
    }

    #[test]
    fn cells_and_code_are_escaped() {
        assert_eq!(cell("a|b`c\nd"), r"a\|b\`c d");
        assert_eq!(
            inline("<script>*x*</script>"),
            r"&lt;script&gt;\*x\*&lt;/script&gt;"
        );
        assert_eq!(code_text("a`b"), "a\u{2cb}b");
        assert_eq!(safe_chars("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(safe_chars("a\u{7}b\u{1b}X\u{1b}["), "a\\u{7}b\\u{1b}X");
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        let mut s = String::new();
        fenced(&mut s, "diff", "- ```js\n+ ````");
        assert!(s.starts_with("`````diff\n"), "{s}");
        assert!(s.ends_with("\n`````\n\n"), "{s}");
    }

    /// The body of the first fenced `diff` block in `md`.
    fn diff_block(md: &str) -> Option<String> {
        let mut lines = md.lines();
        let fence = lines.find_map(|l| l.strip_suffix("diff").filter(|f| f.starts_with("```")))?;
        let body: Vec<&str> = lines.take_while(|l| *l != fence).collect();
        Some(body.join("\n"))
    }

    /// The plain terminal's text of the diff, as lines in a block, its signs swapped so that
    /// expected reads green.
    fn reference_block(expected: &serde_json::Value, actual: &serde_json::Value) -> String {
        let plain = crate::report::lossless::reference(expected, actual);
        let plain = plain.strip_suffix('\n').unwrap_or(&plain);
        let lines: Vec<String> = plain.split('\n').map(swap_signs).collect();
        lines.join("\n")
    }

    #[test]
    fn expected_reads_green_in_the_diff_block() {
        assert_eq!(swap_signs("- Expected"), "+ Expected");
        assert_eq!(swap_signs("+ Received"), "- Received");
        assert_eq!(swap_signs("-"), "+");
        assert_eq!(swap_signs("  context"), "  context");
        assert_eq!(swap_signs("@@ -12,7 +12,8 @@"), "@@ -12,8 +12,7 @@");
        assert_eq!(swap_signs("@@ $.users[2].name @@"), "@@ $.users[2].name @@");
    }

    fn section(expected: &serde_json::Value, actual: &serde_json::Value) -> String {
        let (file, failure) = crate::report::lossless::failing_file(
            crate::report::lossless::highlighted(expected, actual),
        );
        failure_section(&file, &failure)
    }

    #[test]
    fn the_real_cases_keep_every_character_in_the_diff_block() {
        for case in crate::report::lossless::cases() {
            let md = section(&case.expected, &case.actual);
            let block = diff_block(&md).unwrap_or_else(|| panic!("no diff block: {md}"));
            assert_eq!(
                block,
                reference_block(&case.expected, &case.actual),
                "{}",
                case.name
            );
            let lines: Vec<String> = block.lines().map(str::to_owned).collect();
            assert!(
                lines.contains(&swap_signs(case.minus)) && lines.contains(&swap_signs(case.plus)),
                "{}: {md}",
                case.name
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::report::lossless::config())]

        #[test]
        fn the_diff_block_drops_and_invents_nothing(
            (expected, actual) in crate::report::lossless::value_pair()
        ) {
            let md = section(&expected, &actual);
            proptest::prop_assert_eq!(diff_block(&md), Some(reference_block(&expected, &actual)));
        }
    }
}
