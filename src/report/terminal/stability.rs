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
    let stable_tests = st.tests.len() - unstable_tests.len();
    let line = if st.all_stable() {
        format!(
            "{}  {} in {} passed in all {} runs",
            s.paint(style::BOLD, s.paint(style::GREEN, "✓ STABLE")),
            crate::report::counted(st.tests.len() as u64, "test"),
            crate::report::counted(st.files.len() as u64, "file"),
            st.runs
        )
    } else {
        let kind = |k: Kind| st.tests.iter().filter(|t| t.kind == k).count();
        // Unstable only where some run disagreed with another: a series whose every failure
        // failed in every run is broken, not unstable.
        let flaky = st
            .files
            .iter()
            .chain(&st.tests)
            .any(|t| t.kind == Kind::Flaky);
        let headline = if flaky { "✗ UNSTABLE" } else { "✗ FAILING" };
        format!(
            "{}  {} of {} tests and {} of {} files not stable over {} runs · {stable_tests} stable · {} flaky · {} failing in every run",
            s.paint(style::BOLD, s.paint(style::RED, headline)),
            unstable_tests.len(),
            st.tests.len(),
            unstable_files.len(),
            st.files.len(),
            st.runs,
            kind(Kind::Flaky),
            kind(Kind::StableFail),
        )
    };
    writeln!(text, "{line}")
}

/// `  unstable         50.0%  3/6  consistency 50%  p50 12ms  ✓✗✓✗✓✗  test/a.t › name`.
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
        writeln!(
            text,
            "  {}  {:>6}  {}  {}{}  {marks}  {name}",
            s.paint(color, format!("{:<15}", subject.class.as_str())),
            format!("{:.1}%", subject.pass_rate),
            s.paint(style::DIM, format!("{}/{}", subject.passed, subject.runs)),
            s.paint(
                style::DIM,
                format!("consistency {:.0}%", subject.consistency)
            ),
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
