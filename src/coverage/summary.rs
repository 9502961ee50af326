//! The run's coverage as people and the summary document read it: the terminal's section (per
//! language, per file, the lines no test reaches), its JSON (`--format summary`, `-o
//! run.json`), and the gate of `--coverage-min`/`[coverage] min`.
use super::{percent, RunCoverage};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The lines of `lines` (line → hits) no test reaches, as ranges: `3-5, 9`.
pub fn unreached(lines: &BTreeMap<u32, u64>) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    let mut previous_code_line = None;
    for (&line, &hits) in lines {
        if hits > 0 {
            previous_code_line = Some(line);
            continue;
        }
        // A run of unreached lines stays one range across lines that are not code.
        match ranges.last_mut() {
            Some((_, end)) if previous_code_line == Some(*end) => *end = line,
            _ => ranges.push((line, line)),
        }
        previous_code_line = Some(line);
    }
    let shown: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    shown.join(", ")
}

/// Per language: (lines, reached).
fn by_lang(cov: &RunCoverage) -> BTreeMap<&str, (u64, u64)> {
    let mut langs = BTreeMap::new();
    for s in cov.sources.values() {
        let (t, h) = s.counts();
        let entry = langs.entry(s.lang.name()).or_insert((0, 0));
        entry.0 += t;
        entry.1 += h;
    }
    langs
}

/// One row of a coverage table: a language's total (`path: None`) or one of its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    pub lang: &'a str,
    pub path: Option<String>,
    pub lines: u64,
    pub hit: u64,
    /// The lines no test reaches, as ranges (files only).
    pub not_reached: String,
}

/// The rows of a coverage table: each language, then its files, in path order.
pub fn rows(cov: &RunCoverage) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    for (lang, (lines, hit)) in by_lang(cov) {
        rows.push(Row {
            lang,
            path: None,
            lines,
            hit,
            not_reached: String::new(),
        });
        for (path, s) in cov.sources.iter().filter(|(_, s)| s.lang.name() == lang) {
            let (lines, hit) = s.counts();
            rows.push(Row {
                lang,
                path: Some(path.clone()),
                lines,
                hit,
                not_reached: unreached(&s.lines()),
            });
        }
    }
    rows
}

/// The terminal's coverage section: the total, each language, each file with what no test
/// reaches, then each missing engine once.
pub fn section(cov: &RunCoverage) -> String {
    let (total, hit) = cov.counts();
    let mut out = format!("coverage: {}\n", super::reached(hit, total));
    for (lang, (t, h)) in by_lang(cov) {
        let _ = writeln!(out, "  {lang}: {h} of {t} lines ({:.1}%)", percent(h, t));
        for (path, s) in cov.sources.iter().filter(|(_, s)| s.lang.name() == lang) {
            let lines = s.lines();
            let (t, h) = s.counts();
            let missed = unreached(&lines);
            let _ = write!(out, "    {path}: {h}/{t} ({:.1}%)", percent(h, t));
            if !missed.is_empty() {
                let _ = write!(out, ", not reached: {missed}");
            }
            out.push('\n');
        }
    }
    for note in &cov.missing {
        let _ = writeln!(out, "  {note}");
    }
    out
}

/// The summary document's `coverage` member.
pub fn to_json(cov: &RunCoverage) -> Value {
    let (total, hit) = cov.counts();
    let languages: serde_json::Map<String, Value> = by_lang(cov)
        .into_iter()
        .map(|(lang, (t, h))| {
            (
                lang.to_owned(),
                json!({"lines": t, "hit": h, "percent": percent_json(h, t)}),
            )
        })
        .collect();
    let files: Vec<Value> = cov
        .sources
        .iter()
        .map(|(path, s)| {
            let (t, h) = s.counts();
            json!({
                "path": path,
                "language": s.lang.name(),
                "lines": t,
                "hit": h,
                "percent": percent_json(h, t),
                "not_reached": unreached(&s.lines()),
                "tests": s.by_test.keys().collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "lines": total,
        "hit": hit,
        "percent": percent_json(hit, total),
        "languages": languages,
        "files": files,
        "missing_engines": cov.missing,
    })
}

/// A percentage as the document gives it: `null` where there were no measurable lines, as
/// the terminal says `no measurable lines`, never 100% of nothing.
fn percent_json(hit: u64, total: u64) -> Value {
    match total {
        0 => Value::Null,
        _ => json!(round(percent(hit, total))),
    }
}

fn round(p: f64) -> f64 {
    (p * 100.0).round() / 100.0
}

/// `--coverage-min PCT`: the run fails below it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    pub min: f64,
}

impl Gate {
    /// Why `cov` fails the gate (how far below, and the files furthest below), or `None`.
    pub fn check(self, cov: &RunCoverage) -> Option<String> {
        let (total, hit) = cov.counts();
        let got = percent(hit, total);
        if got + 1e-9 >= self.min {
            return None;
        }
        let mut worst: Vec<(f64, &String, String)> = cov
            .sources
            .iter()
            .filter_map(|(path, s)| {
                let (t, h) = s.counts();
                let p = percent(h, t);
                (p < self.min).then(|| (p, path, unreached(&s.lines())))
            })
            .collect();
        worst.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        let mut why = format!(
            "coverage {got:.1}% is {:.1} points below the minimum {}% ({hit} of {total} lines reached)",
            self.min - got,
            self.min
        );
        for (p, path, missed) in worst.iter().take(5) {
            let _ = write!(why, "\n  {path}: {p:.1}%, not reached: {missed}");
        }
        if worst.len() > 5 {
            let _ = write!(why, "\n  … and {} more files below it", worst.len() - 5);
        }
        Some(why)
    }
}

/// `--coverage-min`'s value: a percentage from 0 to 100.
///
/// # Errors
///
/// Not a number in that range.
pub fn parse_min(text: &str) -> Result<f64, String> {
    let n: f64 = text
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("expected a percentage such as 80 or 92.5, got `{text}`"))?;
    if !(0.0..=100.0).contains(&n) {
        return Err(format!("a percentage is 0 to 100, got `{text}`"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{Lang, SourceLines, TestCoverage};

    fn run() -> RunCoverage {
        let mut cov = RunCoverage::default();
        cov.add(&TestCoverage {
            test: "t/a.t".into(),
            sources: vec![SourceLines {
                path: "lib/A.pm".into(),
                lang: Lang::new("ruby"),
                lines: vec![(1, 1), (2, 1), (4, 0), (5, 0), (8, 1), (9, 0)],
            }],
            missing: vec!["lua: luacov is not installed".into()],
            root: None,
        });
        cov
    }

    #[test]
    fn unreached_lines_read_as_ranges_across_non_code() {
        let lines = run().sources["lib/A.pm"].lines();
        assert_eq!(unreached(&lines), "4-5, 9");
        let section = section(&run());
        assert!(section.starts_with("coverage: 3 of 6 lines reached (50.0%)\n  ruby: 3 of 6"));
        assert!(section.contains("lib/A.pm: 3/6 (50.0%), not reached: 4-5, 9"));
        assert!(section.ends_with("  lua: luacov is not installed\n"));
        assert_eq!(to_json(&run())["languages"]["ruby"]["percent"], 50.0);
    }

    #[test]
    fn the_gate_says_by_how_much_and_where() {
        let why = Gate { min: 90.0 }.check(&run()).expect("below");
        assert_eq!(
            why,
            "coverage 50.0% is 40.0 points below the minimum 90% (3 of 6 lines reached)\n  lib/A.pm: 50.0%, not reached: 4-5, 9"
        );
        assert_eq!(Gate { min: 50.0 }.check(&run()), None);
        assert_eq!(parse_min("92.5%"), Ok(92.5));
        assert!(parse_min("101").is_err());
        assert!(parse_min("x").is_err());
    }
}
