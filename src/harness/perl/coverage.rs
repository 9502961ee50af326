//! Perl's engine: Devel::Cover, loaded by `PERL5OPT=-MDevel::Cover` into every perl the test
//! starts (on the command line for a taint-mode perl, as the trace hook is), writing into a
//! database of the test file's own (`DEVEL_COVER_OPTIONS=-silent,1,-db,<dir>`). Once the file
//! has ended, tapline's `tapline-cover-db.pl` reads the database through Devel::Cover's own
//! API: each line holding a statement, with the most any statement on it ran.
use crate::coverage::Lang;
use crate::harness::api::Id;
use crate::harness::trace::{CoverageEngine, EnvEdit, Measured, Reading};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) struct DevelCover;
pub(crate) static DEVEL_COVER: DevelCover = DevelCover;

/// The reader's file name and text.
const HOOKS: &[(&str, &str)] = &[(
    "tapline-cover-db.pl",
    include_str!("hooks/tapline-cover-db.pl"),
)];

/// Devel::Cover's variable for options given to every perl.
const OPTIONS_VAR: &str = "DEVEL_COVER_OPTIONS";

impl CoverageEngine for DevelCover {
    fn id(&self) -> Id {
        "perl"
    }

    fn lang(&self) -> Lang {
        Lang::new("perl")
    }

    fn ext(&self) -> &'static str {
        ".perl"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["pm", "pl"]
    }

    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        HOOKS
    }

    /// Devel::Cover is asked for only when the run has Perl files.
    fn available(&self, has_files: bool) -> bool {
        has_files && installed()
    }

    fn run_env(&self, _hooks: &Path, _root: &Path) -> Vec<(&'static str, EnvEdit)> {
        vec![("PERL5OPT", EnvEdit::AppendWords("-MDevel::Cover".into()))]
    }

    fn file_env(&self, out: &Path) -> Vec<(OsString, OsString)> {
        let mut options = OsString::from("-silent,1,-db,");
        options.push(out);
        vec![(OPTIONS_VAR.into(), options)]
    }

    fn read(&self, hooks: &Path, out: &Path, cwd: &Path, _root: &Path) -> Result<Reading, String> {
        Ok(Reading {
            measured: read(hooks, out, cwd),
            ..Reading::default()
        })
    }

    fn missing(&self) -> Option<&'static str> {
        Some(MISSING)
    }
}

/// What the summary says once when Devel::Cover is missing.
const MISSING: &str = "perl: Devel::Cover is not installed, so no Perl line was measured: `apt-get install libdevel-cover-perl`, or `cpanm Devel::Cover`";

/// Whether the `perl` on PATH has Devel::Cover (its database module loads without starting
/// a measurement).
fn installed() -> bool {
    crate::util::quiet::succeeds(Command::new("perl").args(["-MDevel::Cover::DB", "-e1"]))
}

/// The lines the database `db` holds; paths relative to `cwd` are as Devel::Cover names
/// files loaded by a relative path.
fn read(hooks: &Path, db: &Path, cwd: &Path) -> Vec<Measured> {
    if !db.is_dir() {
        return Vec::new();
    }
    let output = crate::util::quiet::stdout_of(
        Command::new("perl")
            .arg(hooks.join("tapline-cover-db.pl"))
            .arg(db)
            .current_dir(cwd)
            .env_remove("PERL5OPT")
            .env_remove(OPTIONS_VAR),
    );
    output.map_or_else(Vec::new, |o| parse(&String::from_utf8_lossy(&o)))
}

/// The reader's `F <path>` / `L <line> <count>` lines.
fn parse(text: &str) -> Vec<Measured> {
    let mut out: Vec<Measured> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("F ") {
            out.push((PathBuf::from(path), Lang::new("perl"), BTreeMap::new()));
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
