//! `-o cov.cobertura.xml`: Cobertura's XML as GitLab's merge-request diff and Azure Pipelines'
//! coverage tab read it: a package per language, a class per source file (its `filename`
//! relative to the one `<source>`, the project root), a `<line>` per line with its hits.
//! Branches are not measured (`branch-rate="0"`, `branches-valid="0"`).
use super::{RunCoverage, Source};
use quick_xml::escape::escape;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Writes `cov`; `root` is the project root (`<source>`), `timestamp` the run's start (Unix
/// seconds, as Cobertura's own reports have it).
///
/// # Errors
///
/// Writing to `out` failed.
pub fn write(out: &mut dyn Write, cov: &RunCoverage, root: &str, timestamp: u64) -> io::Result<()> {
    let (total, hit) = cov.counts();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">"#
    )?;
    writeln!(
        out,
        r#"<coverage line-rate="{}" branch-rate="0" lines-covered="{hit}" lines-valid="{total}" branches-covered="0" branches-valid="0" complexity="0" version="tapline {}" timestamp="{timestamp}">"#,
        rate(hit, total),
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(
        out,
        "  <sources>\n    <source>{}</source>\n  </sources>",
        escape(root)
    )?;
    writeln!(out, "  <packages>")?;
    let mut by_lang: BTreeMap<&str, Vec<(&String, &Source)>> = BTreeMap::new();
    for (path, source) in &cov.sources {
        by_lang
            .entry(source.lang.name())
            .or_default()
            .push((path, source));
    }
    for (lang, sources) in by_lang {
        let (t, h) = sources.iter().fold((0, 0), |(t, h), (_, s)| {
            let (st, sh) = s.counts();
            (t + st, h + sh)
        });
        writeln!(
            out,
            r#"    <package name="{lang}" line-rate="{}" branch-rate="0" complexity="0">"#,
            rate(h, t)
        )?;
        writeln!(out, "      <classes>")?;
        for (path, source) in sources {
            class(out, path, source)?;
        }
        writeln!(out, "      </classes>\n    </package>")?;
    }
    writeln!(out, "  </packages>\n</coverage>")
}

fn class(out: &mut dyn Write, path: &str, source: &Source) -> io::Result<()> {
    let lines = source.lines();
    let (t, h) = source.counts();
    let path = escape(path);
    writeln!(
        out,
        r#"        <class name="{path}" filename="{path}" line-rate="{}" branch-rate="0" complexity="0">"#,
        rate(h, t)
    )?;
    writeln!(out, "          <methods/>\n          <lines>")?;
    for (line, hits) in lines {
        writeln!(
            out,
            r#"            <line number="{line}" hits="{hits}" branch="false"/>"#
        )?;
    }
    writeln!(out, "          </lines>\n        </class>")
}

/// A rate as Cobertura writes it: 0 to 1, four decimals.
fn rate(hit: u64, total: u64) -> String {
    format!("{:.4}", super::percent(hit, total) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{Lang, SourceLines, TestCoverage};

    #[test]
    fn a_package_per_language_a_class_per_file() {
        let mut cov = RunCoverage::default();
        cov.add(&TestCoverage {
            test: "t/a.t".into(),
            sources: vec![
                SourceLines {
                    path: "lib/A&B.pm".into(),
                    lang: Lang::new("b"),
                    lines: vec![(2, 1), (5, 0)],
                },
                SourceLines {
                    path: "lib/c.js".into(),
                    lang: Lang::new("a"),
                    lines: vec![(1, 4)],
                },
            ],
            missing: Vec::new(),
            root: None,
        });
        let mut out = Vec::new();
        write(&mut out, &cov, "/p", 7).expect("write");
        let xml = String::from_utf8(out).expect("utf-8");
        assert!(
            xml.contains(r#"line-rate="0.6667" branch-rate="0" lines-covered="2" lines-valid="3""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<package name="a" line-rate="1.0000""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"filename="lib/A&amp;B.pm" line-rate="0.5000""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<line number="5" hits="0" branch="false"/>"#),
            "{xml}"
        );
        let at = |lang: &str| {
            xml.find(&format!("<package name=\"{lang}\""))
                .expect("package")
        };
        // Languages are listed by name.
        assert!(at("a") < at("b"), "{xml}");
    }
}
