//! Perl's engine: Devel::Cover, loaded by `PERL5OPT=-MDevel::Cover` into every perl the test
//! starts (on the command line for a taint-mode perl, as the trace hook is), writing into a
//! database of the test file's own (`DEVEL_COVER_OPTIONS=-silent,1,-db,<dir>`). Once the file
//! has ended, tapline's `tapline-cover-db.pl` reads the database through Devel::Cover's own
//! API: each line holding a statement, with the most any statement on it ran.
use crate::coverage::Lang;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The reader's file name and text.
pub(crate) const HOOKS: &[(&str, &str)] = &[(
    "tapline-cover-db.pl",
    include_str!("hooks/tapline-cover-db.pl"),
)];

/// Devel::Cover's variable for options given to every perl.
pub(crate) const OPTIONS_VAR: &str = "DEVEL_COVER_OPTIONS";

/// What the summary says once when Devel::Cover is missing.
pub(crate) const MISSING: &str = "perl: Devel::Cover is not installed, so no Perl line was measured: `apt-get install libdevel-cover-perl`, or `cpanm Devel::Cover`";

/// Whether the `perl` on PATH has Devel::Cover (its database module loads without starting
/// a measurement).
pub(crate) fn installed() -> bool {
    Command::new("perl")
        .args(["-MDevel::Cover::DB", "-e1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The lines the database `db` holds; paths relative to `cwd` are as Devel::Cover names
/// files loaded by a relative path.
pub(crate) fn read(hooks: &Path, db: &Path, cwd: &Path) -> Vec<super::Measured> {
    if !db.is_dir() {
        return Vec::new();
    }
    let output = Command::new("perl")
        .arg(hooks.join("tapline-cover-db.pl"))
        .arg(db)
        .current_dir(cwd)
        .env_remove("PERL5OPT")
        .env_remove(OPTIONS_VAR)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match output {
        Ok(o) if o.status.success() => parse(&String::from_utf8_lossy(&o.stdout)),
        _ => Vec::new(),
    }
}

/// The reader's `F <path>` / `L <line> <count>` lines.
fn parse(text: &str) -> Vec<super::Measured> {
    let mut out: Vec<super::Measured> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("F ") {
            out.push((PathBuf::from(path), Lang::Perl, BTreeMap::new()));
        } else if let Some(rest) = line.strip_prefix("L ") {
            let mut words = rest.split(' ');
            let (Some(n), Some(c)) = (words.next(), words.next()) else {
                continue;
            };
            if let (Ok(n), Ok(c), Some(last)) = (n.parse(), c.parse(), out.last_mut()) {
                last.2.insert(n, c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readers_lines_become_files_and_counts() {
        let parsed = parse("F lib/Calc.pm\nL 2 1\nL 11 0\nF t/calc.t\nL 1 3\nL x y\n");
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].0, PathBuf::from("lib/Calc.pm"));
        assert_eq!(parsed[0].2, BTreeMap::from([(2, 1), (11, 0)]));
        assert_eq!(parsed[1].2, BTreeMap::from([(1, 3)]));
    }
}
