//! The page's coverage section (`run --coverage`): lines reached in all, then a row per
//! language and per file with the lines no test reaches, and each missing engine.
use super::escape::Esc;
use crate::coverage::percent;
use crate::coverage::summary::rows;
use crate::report::record::RunView;
use std::fmt::Write;

pub(crate) fn write_section(out: &mut String, run: &RunView) {
    let Some(cov) = &run.coverage else {
        return;
    };
    let (total, hit) = cov.counts();
    // No measurable line is no percentage: never `100%` of nothing.
    let share = match total {
        0 => "—".to_owned(),
        _ => format!("{:.1}%", percent(hit, total)),
    };
    let _ = write!(
        out,
        "<section id=\"coverage\"><h2>Coverage <span class=\"n\">{share}</span></h2>\
         <div class=\"panel\"><p>{}</p><table><thead><tr>\
         <th>Language</th><th>File</th><th class=\"num\">Lines</th><th class=\"num\">Reached</th>\
         <th class=\"num\">%</th><th>Not reached</th></tr></thead><tbody>",
        crate::coverage::reached(hit, total)
    );
    for row in rows(cov) {
        let file = match &row.path {
            Some(path) => format!("<span class=\"mono\">{}</span>", Esc(path)),
            None => "<strong>all</strong>".to_owned(),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"path\">{file}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td class=\"mono\">{}</td></tr>",
            row.lang,
            row.lines,
            row.hit,
            percent(row.hit, row.lines),
            Esc(&row.not_reached)
        );
    }
    out.push_str("</tbody></table>");
    for note in &cov.missing {
        let _ = write!(out, "<p>{}</p>", Esc(note));
    }
    out.push_str("</div></section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{Lang, RunCoverage, SourceLines, TestCoverage};

    #[test]
    fn a_row_per_language_and_file_with_what_no_test_reaches() {
        let mut cov = RunCoverage::default();
        cov.add(&TestCoverage {
            test: "t/a.t".into(),
            sources: vec![SourceLines {
                path: "lib/<A>.pm".into(),
                lang: Lang::new("ruby"),
                lines: vec![(1, 1), (2, 0), (3, 0)],
            }],
            missing: vec!["lua: luacov is not installed".into()],
            root: None,
        });
        let run = RunView {
            coverage: Some(cov),
            ..RunView::default()
        };
        let mut out = String::new();
        write_section(&mut out, &run);
        assert!(
            out.contains("Coverage <span class=\"n\">33.3%</span>"),
            "{out}"
        );
        assert!(
            out.contains("<span class=\"mono\">lib/&lt;A&gt;.pm</span>"),
            "{out}"
        );
        assert!(out.contains("<td class=\"mono\">2-3</td>"), "{out}");
        assert!(out.contains("<p>lua: luacov is not installed</p>"), "{out}");
        let mut none = String::new();
        write_section(&mut none, &RunView::default());
        assert_eq!(none, "");
    }
}
