//! A `[[suite]]` running `go test`: `-coverprofile=<file>` is added after `test` (unless the
//! command writes a profile itself), and the profile's blocks (`path:l.c,l.c statements
//! count`) become lines: every line of a block gets the block's count, the most of the blocks
//! sharing the line. Paths are import paths, placed by the module path of the nearest
//! `go.mod` at or above the suite's folder.
use crate::coverage::Lang;
use crate::harness::api::Id;
use crate::harness::trace::{CoverageEngine, Measured, Reading};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub(crate) struct GoCover;
pub(crate) static GO_COVER: GoCover = GoCover;

impl CoverageEngine for GoCover {
    fn id(&self) -> Id {
        "go"
    }

    fn lang(&self) -> Lang {
        Lang::new("go")
    }

    fn ext(&self) -> &'static str {
        ".go"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["go"]
    }

    fn own_files_only(&self) -> bool {
        true
    }

    fn adapt(&self, argv: Vec<OsString>, out: &Path) -> Vec<OsString> {
        with_profile(argv, out)
    }

    fn read(&self, _hooks: &Path, out: &Path, cwd: &Path, _root: &Path) -> Result<Reading, String> {
        Ok(Reading {
            measured: read(out, cwd),
            ..Reading::default()
        })
    }
}

/// `argv` with `-coverprofile=<profile>` after its `test` word; as it was when it already
/// names a profile (that one is the project's).
fn with_profile(mut argv: Vec<OsString>, profile: &Path) -> Vec<OsString> {
    let has = argv.iter().any(|w| {
        let w = w.to_string_lossy();
        w.starts_with("-coverprofile") || w.starts_with("--coverprofile")
    });
    let Some(at) = argv.iter().position(|w| w == "test") else {
        return argv;
    };
    if has {
        return argv;
    }
    let mut flag = OsString::from("-coverprofile=");
    flag.push(profile);
    argv.insert(at + 1, flag);
    argv
}

/// The profile's lines per file, placed under the module's folder.
fn read(profile: &Path, cwd: &Path) -> Vec<Measured> {
    let Ok(text) = std::fs::read_to_string(profile) else {
        return Vec::new();
    };
    let Some((module, module_dir)) = module_of(cwd) else {
        return Vec::new();
    };
    let mut files: BTreeMap<String, BTreeMap<u32, u64>> = BTreeMap::new();
    for line in text.lines().skip_while(|l| l.starts_with("mode:")) {
        let Some((file, start, end, count)) = block(line) else {
            continue;
        };
        let lines = files.entry(file.to_owned()).or_default();
        for n in start..=end {
            let hits = lines.entry(n).or_insert(0);
            *hits = (*hits).max(count);
        }
    }
    files
        .into_iter()
        .filter_map(|(file, lines)| {
            let rel = file.strip_prefix(&module)?.trim_start_matches('/');
            Some((module_dir.join(rel), Lang::new("go"), lines))
        })
        .collect()
}

/// `path:l.c,l.c statements count` as (path, first line, last line, count).
fn block(line: &str) -> Option<(&str, u32, u32, u64)> {
    let (file, rest) = line.rsplit_once(':')?;
    let mut words = rest.split(' ');
    let (span, _statements, count) = (words.next()?, words.next()?, words.next()?);
    let (from, to) = span.split_once(',')?;
    let line_of = |pos: &str| pos.split_once('.').and_then(|(l, _)| l.parse::<u32>().ok());
    Some((file, line_of(from)?, line_of(to)?, count.parse().ok()?))
}

/// The module path and folder of the nearest `go.mod` at or above `dir`.
fn module_of(dir: &Path) -> Option<(String, PathBuf)> {
    dir.ancestors().find_map(|d| {
        let text = std::fs::read_to_string(d.join("go.mod")).ok()?;
        let module = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("module "))?
            .trim()
            .trim_matches('"')
            .to_owned();
        Some((module, d.to_path_buf()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_lines_under_the_module_folder() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let p = dir.path();
        std::fs::write(p.join("go.mod"), "module example.com/calc\n\ngo 1.19\n").expect("write");
        let profile = p.join("c.out");
        std::fs::write(
            &profile,
            "mode: set\nexample.com/calc/calc.go:4.25,6.2 1 1\nexample.com/calc/calc.go:6.2,7.3 1 0\nother.org/x/y.go:1.1,2.2 1 1\n",
        )
        .expect("write");
        let read = read(&profile, p);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].0, p.join("calc.go"));
        assert_eq!(read[0].2, BTreeMap::from([(4, 1), (5, 1), (6, 1), (7, 0)]));
        let argv = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            with_profile(
                argv(&["go", "test", "-json", "./..."]),
                Path::new("/s/1.go")
            ),
            argv(&["go", "test", "-coverprofile=/s/1.go", "-json", "./..."])
        );
        let theirs = argv(&["go", "test", "-coverprofile", "c.out", "./..."]);
        assert_eq!(with_profile(theirs.clone(), Path::new("/s/1.go")), theirs);
    }
}
