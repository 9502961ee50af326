//! After `--runs N`: each test's and file's stability, least stable first, with an inline SVG
//! chart of its verdict in every run (a square per run: passed, failed, or not judged).
use std::fmt::Write;

use super::escape::Esc;
use crate::event::stability::{Class, RunVerdict, Stability, Subject};
use crate::report::record::RunView;
use crate::report::style::duration_ms;

/// Test rows charted; the rest (the most stable) are counted.
const CHARTED: usize = 1_000;
/// Side of a run's square and the gap after it, in pixels.
const CELL: usize = 10;
const GAP: usize = 2;

pub(crate) fn write_section(out: &mut String, run: &RunView) {
    let Some(st) = &run.stability else { return };
    let unstable = st.tests.iter().filter(|t| t.class != Class::Stable).count();
    let _ = write!(
        out,
        "<section id=\"stability\"><h2>Stability <span class=\"n\">{} runs · {unstable} of {} tests not stable</span></h2>",
        st.runs,
        st.tests.len()
    );
    write_table(out, st, &st.tests, "Test");
    let files_unstable = st.files.iter().any(|f| f.class != Class::Stable);
    if files_unstable {
        out.push_str("<h3 class=\"sub\">Files</h3>");
        write_table(out, st, &st.files, "File");
    }
    out.push_str("</section>\n");
}

fn write_table(out: &mut String, st: &Stability, rows: &[Subject], what: &str) {
    let _ = write!(
        out,
        "<div class=\"panel\"><table class=\"stability\"><thead><tr><th>Class</th><th>{what}</th>\
         <th class=\"num\">Pass rate</th><th class=\"num\">Consistency</th>\
         <th class=\"num\">p50</th><th>Runs 1–{}</th></tr></thead><tbody>",
        st.runs
    );
    for s in rows.iter().take(CHARTED) {
        let pill = match s.class {
            Class::Stable => "pass",
            Class::MostlyStable => "skip",
            Class::Unstable | Class::HighlyUnstable | Class::FailsEveryRun => "fail",
        };
        let _ = write!(
            out,
            "<tr><td><span class=\"st {pill}\">{}</span></td><td class=\"path\"><span class=\"mono\">{}</span>",
            s.class.as_str().replace('_', " "),
            Esc(&s.file)
        );
        if let Some(name) = &s.name {
            let _ = write!(out, " › {}", Esc(name));
        }
        let p50 = s
            .duration_ms
            .map_or_else(|| "–".to_owned(), |d| duration_ms(d.p50));
        let _ = write!(
            out,
            "</td><td class=\"num\">{:.1}% <span class=\"c-zero\">{}/{}</span></td>\
             <td class=\"num\">{:.0}%</td><td class=\"num\">{}</td><td>",
            s.pass_rate,
            s.passed,
            s.runs,
            s.consistency,
            Esc(&p50)
        );
        write_chart(out, &s.verdicts);
        out.push_str("</td></tr>");
    }
    if rows.len() > CHARTED {
        let _ = write!(
            out,
            "<tr><td colspan=\"6\" class=\"c-zero\">… and {} more (the most stable), in the summary document</td></tr>",
            rows.len() - CHARTED
        );
    }
    out.push_str("</tbody></table></div>");
}

/// `<svg>` with a square per run; its label reads the verdicts for screen readers.
fn write_chart(out: &mut String, verdicts: &[RunVerdict]) {
    let width = verdicts.len() * (CELL + GAP);
    let label: Vec<&str> = verdicts
        .iter()
        .map(|v| match v {
            RunVerdict::Pass => "pass",
            RunVerdict::Fail => "fail",
            RunVerdict::Missing => "not judged",
        })
        .collect();
    let _ = write!(
        out,
        "<svg class=\"runs\" width=\"{width}\" height=\"{CELL}\" viewBox=\"0 0 {width} {CELL}\" role=\"img\" aria-label=\"{}\">",
        Esc(&label.join(", "))
    );
    for (i, (v, word)) in verdicts.iter().zip(&label).enumerate() {
        let class = match v {
            RunVerdict::Pass => "pass",
            RunVerdict::Fail => "fail",
            RunVerdict::Missing => "none",
        };
        let _ = write!(
            out,
            "<rect class=\"{class}\" x=\"{}\" y=\"0\" width=\"{CELL}\" height=\"{CELL}\" rx=\"2\"><title>run {}: {word}</title></rect>",
            i * (CELL + GAP),
            i + 1
        );
    }
    out.push_str("</svg>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::stability::DurationStats;

    fn subject(file: &str, name: Option<&str>, verdicts: &[RunVerdict]) -> Subject {
        let passed = verdicts.iter().filter(|v| **v == RunVerdict::Pass).count() as u64;
        let failed = verdicts.iter().filter(|v| **v == RunVerdict::Fail).count() as u64;
        let rate = passed as f64 * 100.0 / (passed + failed) as f64;
        Subject {
            file: file.into(),
            name: name.map(str::to_owned),
            id: None,
            kind: Default::default(),
            runs: passed + failed,
            passed,
            failed,
            pass_rate: rate,
            consistency: rate.max(100.0 - rate),
            class: Class::of(rate),
            duration_ms: DurationStats::of(&[3.0, 5.0]),
            verdicts: verdicts.to_vec(),
        }
    }

    #[test]
    fn a_row_and_a_chart_per_test_least_stable_first() {
        use RunVerdict::*;
        let run = RunView {
            stability: Some(Stability {
                runs: 4,
                files: vec![subject("t/<flip>.sh", None, &[Fail, Pass, Fail, Pass])],
                tests: vec![
                    subject("t/<flip>.sh", Some("coin <b>"), &[Fail, Pass, Fail, Pass]),
                    subject("t/ok.sh", Some("one"), &[Pass, Pass, Missing, Pass]),
                ],
            }),
            ..RunView::default()
        };
        let mut out = String::new();
        write_section(&mut out, &run);
        assert!(out.contains("4 runs · 1 of 2 tests not stable"), "{out}");
        assert!(
            out.contains("t/&lt;flip&gt;.sh</span> › coin &lt;b&gt;"),
            "{out}"
        );
        assert!(!out.contains("<b>"), "{out}");
        assert_eq!(out.matches("<svg class=\"runs\"").count(), 3, "{out}");
        assert!(
            out.contains("aria-label=\"fail, pass, fail, pass\""),
            "{out}"
        );
        assert!(out.contains("<rect class=\"none\" x=\"24\""), "{out}");
        assert!(out.contains("<title>run 4: pass</title>"), "{out}");
        assert!(
            out.contains("50.0% <span class=\"c-zero\">2/4</span>"),
            "{out}"
        );
        let coin = out.find("coin").expect("coin");
        let one = out.find("› one").expect("one");
        assert!(coin < one);
        let mut none = String::new();
        write_section(&mut none, &RunView::default());
        assert!(none.is_empty());
    }
}
