//! `-o cov.lcov` (or `.info`): the lcov tracefile genhtml, Codecov and the editors read. Each
//! record is one source file as one test file reached it, `TN:` naming the test file, so a
//! reader summing the records gets the run's hits and one reading `TN:` gets who reached what.
use super::RunCoverage;
use std::io::{self, Write};

/// Writes `cov` as lcov records, by source path then test file.
///
/// # Errors
///
/// Writing to `out` failed.
pub fn write(out: &mut dyn Write, cov: &RunCoverage) -> io::Result<()> {
    for (path, source) in &cov.sources {
        for (test, lines) in &source.by_test {
            writeln!(out, "TN:{}", test_name(test))?;
            writeln!(out, "SF:{path}")?;
            for (line, hits) in lines {
                writeln!(out, "DA:{line},{hits}")?;
            }
            let hit = lines.values().filter(|&&h| h > 0).count();
            writeln!(out, "LF:{}", lines.len())?;
            writeln!(out, "LH:{hit}")?;
            writeln!(out, "end_of_record")?;
        }
    }
    Ok(())
}

/// A test name lcov can carry: one line, no `,` (geninfo's own test names are words; genhtml
/// splits some fields on commas).
fn test_name(test: &str) -> String {
    test.chars()
        .map(|c| if c.is_control() || c == ',' { '_' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{Lang, SourceLines, TestCoverage};

    #[test]
    fn each_test_file_has_its_record_of_each_source() {
        let mut cov = RunCoverage::default();
        for (test, hits) in [("t/b.t", [0, 0]), ("t/a.t", [3, 0])] {
            cov.add(&TestCoverage {
                test: test.into(),
                sources: vec![SourceLines {
                    path: "lib/A.pm".into(),
                    lang: Lang::new("ruby"),
                    lines: vec![(2, hits[0]), (5, hits[1])],
                }],
                missing: Vec::new(),
                root: None,
            });
        }
        let mut out = Vec::new();
        write(&mut out, &cov).expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "TN:t/a.t\nSF:lib/A.pm\nDA:2,3\nDA:5,0\nLF:2\nLH:1\nend_of_record\n\
             TN:t/b.t\nSF:lib/A.pm\nDA:2,0\nDA:5,0\nLF:2\nLH:0\nend_of_record\n"
        );
    }
}
