//! The terminal's report of a `--runs N` series: the tests (then files) that were not stable,
//! least stable first, and a verdict line.
use super::*;
use crate::event::stability::{Class, Kind, RunVerdict, Stability, Subject};

/// Rows shown before "… and N more" (the summary document has them all).
const SHOWN_ROWS: usize = 30;

pub(super) fn render(st: &Stability, quiet: bool, s: Style, text: &mut Vec<u8>) -> io::Result<()> {
    let unstable_tests: Vec<&Subject> = st
        .tests
        .iter()
        .filter(|t| t.class != Class::Stable)
        .collect();
    let unstable_files: Vec<&Subject> = st
        .files
        .iter()
        .filter(|f| f.class != Class::Stable)
        .collect();
    // Even `-q` shows what was unstable: it is what the series was run to learn.
    if !quiet || !unstable_tests.is_empty() || !unstable_files.is_empty() {
        writeln!(
            text,
            "{}",
            s.paint(style::BOLD, format!("Stability over {} runs:", st.runs))
        )?;
        if unstable_tests.is_empty() && unstable_files.is_empty() {
            writeln!(text, "  every test passed in every run")?;
        }
        table(text, &unstable_tests, s)?;
        let failing_files_without_tests: Vec<&&Subject> = unstable_files
            .iter()
            .filter(|f| !unstable_tests.iter().any(|t| t.file == f.file))
            .collect();
        if !failing_files_without_tests.is_empty() {
            writeln!(
                text,
                "  {}",
                s.paint(style::DIM, "files failing beyond their tests:")
            )?;
            let files: Vec<&Subject> = failing_files_without_tests.into_iter().copied().collect();
            table(text, &files, s)?;
        }
        writeln!(text)?;
    }
    let line = if st.all_stable() {
        format!(
            "{}  {} in {} passed in all {} runs",
            s.paint(style::BOLD, s.paint(style::GREEN, "✓ STABLE")),
            crate::report::counted(st.tests.len() as u64, "test"),
            crate::report::counted(st.files.len() as u64, "file"),
            st.runs
        )
    } else {
        verdict_line(st, s)
    };
    writeln!(text, "{line}")
}

/// A series that was not all stable: `✗ UNSTABLE` when some test or file passed in one run and
/// failed in another, else `✗ FAIL` (its failures failed in every run: broken, not unstable).
/// The counts are of tests; a file is counted only where none of its tests tells its story
/// (it crashed in some runs with every test passing), so the flaky count is the headline's.
/// `✗ FAIL  4 tests in 1 file over 3 runs · 0 flaky · 1 fails every run · 3 stable`.
fn verdict_line(st: &Stability, s: Style) -> String {
    let tests_of = |k: Kind| st.tests.iter().filter(|t| t.kind == k).count();
    let files_alone = |k: Kind| {
        (st.files.iter())
            .filter(|f| f.kind == k && !st.tests.iter().any(|t| t.file == f.file && t.kind == k))
            .count()
    };
    let flaky = tests_of(Kind::Flaky) + files_alone(Kind::Flaky);
    let broken = tests_of(Kind::StableFail) + files_alone(Kind::StableFail);
    let headline = if flaky > 0 {
        "✗ UNSTABLE"
    } else {
        "✗ FAIL"
    };
    let fail_word = if broken == 1 { "fails" } else { "fail" };
    format!(
        "{}  {} in {} over {} runs · {flaky} flaky · {broken} {fail_word} every run · {} stable",
        s.paint(style::BOLD, s.paint(style::RED, headline)),
        crate::report::counted(st.tests.len() as u64, "test"),
        crate::report::counted(st.files.len() as u64, "file"),
        st.runs,
        tests_of(Kind::StablePass),
    )
}

/// `  unstable         50.0%  3/6  consistency 50%  p50 12ms  ✓✗✓✗✓✗  test/a.t › name`;
/// a subject that failed in every run has no rate or consistency to tell:
/// `  fails every run                                ✗✗✗  test/a.t › name`.
fn table(text: &mut Vec<u8>, rows: &[&Subject], s: Style) -> io::Result<()> {
    for subject in rows.iter().take(SHOWN_ROWS) {
        let color = match subject.class {
            Class::Stable => style::GREEN,
            Class::MostlyStable => style::YELLOW,
            Class::Unstable | Class::HighlyUnstable | Class::FailsEveryRun => style::RED,
        };
        let marks: String = subject
            .verdicts
            .iter()
            .map(|v| match v {
                RunVerdict::Pass => s.paint(style::GREEN, "✓"),
                RunVerdict::Fail => s.paint(style::RED, "✗"),
                RunVerdict::Missing => s.paint(style::DIM, "·"),
            })
            .collect();
        let p50 = subject
            .duration_ms
            .map(|d| format!("  p50 {}", style::duration_ms(d.p50)))
            .unwrap_or_default();
        let name = match &subject.name {
            Some(name) => format!("{} › {name}", subject.file),
            None => subject.file.clone(),
        };
        let class = s.paint(color, format!("{:<15}", subject.class.words()));
        let rates = match subject.class {
            // 0% passed with its runs agreeing 100%: numbers that only contradict the class.
            Class::FailsEveryRun => String::new(),
            _ => format!(
                "  {:>6}  {}  {}",
                format!("{:.1}%", subject.pass_rate),
                s.paint(style::DIM, format!("{}/{}", subject.passed, subject.runs)),
                s.paint(
                    style::DIM,
                    format!("consistency {:.0}%", subject.consistency)
                ),
            ),
        };
        writeln!(
            text,
            "  {class}{rates}{}  {marks}  {name}",
            s.paint(style::DIM, p50),
        )?;
    }
    if rows.len() > SHOWN_ROWS {
        writeln!(
            text,
            "  {}",
            s.paint(
                style::DIM,
                format!("… and {} more", rows.len() - SHOWN_ROWS)
            )
        )?;
    }
    Ok(())
}
