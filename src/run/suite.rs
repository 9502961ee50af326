//! `[[suite]]` entries: whole commands (a test tool's run of a whole tree, printing a JSON
//! stream or writing JUnit reports) run once per run as one entry beside the test files, and
//! the JUnit report files they leave.
use super::config::Suite;
use super::discover::{self, Input, MissingInterpreter, TestFile};
use globset::GlobBuilder;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The suites as entries to run: `selected` names the ones asked for, all when `None`. `root`
/// is the project's root, which a go suite's failure locations are relative to.
pub fn entries(
    suites: &[Suite],
    cwd: &Path,
    root: &Path,
    selected: Option<&[String]>,
) -> Vec<TestFile> {
    suites
        .iter()
        .filter(|s| selected.is_none_or(|names| names.contains(&s.name)))
        .map(|s| entry(s, cwd, root))
        .collect()
}

fn entry(s: &Suite, cwd: &Path, root: &Path) -> TestFile {
    let argv: Vec<OsString> = s.command.iter().map(OsString::from).collect();
    let program = argv.first().cloned().unwrap_or_default();
    let mut input = Input {
        format: s.format,
        report: s.report.clone(),
        cwd: Some(s.dir.clone()),
        suite: true,
        skip: None,
        silent: discover::Silent::Fails,
        host: discover::Host::Process,
        merge: None,
        go_packages: crate::harness::registry::suite_packages(s.format, &s.dir, root),
        ..Input::default()
    };
    let missing = crate::util::which::find(&program, &s.dir).is_none();
    let command = if missing && s.optional {
        input.skip = Some(format!(
            "`{}` is not installed (the suite is optional)",
            program.to_string_lossy()
        ));
        Ok(argv)
    } else if missing {
        Err(MissingInterpreter {
            program: program.to_string_lossy().into_owned(),
            file: PathBuf::from(&s.name),
            hint: String::new(),
        })
    } else {
        Ok(argv)
    };
    TestFile {
        path: relative_to(&s.dir, cwd),
        rel: s.name.clone(),
        command,
        input,
    }
}

fn relative_to(dir: &Path, cwd: &Path) -> PathBuf {
    dir.strip_prefix(cwd)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| dir.to_path_buf())
}

/// How deep a report glob's walk goes below its literal folder.
const MAX_DEPTH: usize = 16;

/// The report files `glob` (relative to `dir`) matches that were written at or after `since`,
/// sorted; and how many matched but were older (left by an earlier run).
pub(crate) fn reports(
    dir: &Path,
    glob: &str,
    since: SystemTime,
) -> Result<(Vec<PathBuf>, usize), String> {
    let matcher = GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("failed to parse report glob `{glob}`: {}", e.kind()))?
        .compile_matcher();
    // Walk only below the glob's literal folders (`target/surefire-reports/*.xml`).
    let literal: PathBuf = Path::new(glob)
        .components()
        .take_while(|c| {
            let s = c.as_os_str().to_string_lossy();
            !s.contains(['*', '?', '[', '{'])
        })
        .collect();
    let start = if literal.as_os_str() == glob {
        // No wildcard: the glob names one file.
        literal.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        literal
    };
    let mut found = Vec::new();
    let mut stale = 0;
    let mut stack = vec![(dir.join(&start), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                if depth < MAX_DEPTH {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            let Ok(rel) = path.strip_prefix(dir) else {
                continue;
            };
            if !matcher.is_match(rel) {
                continue;
            }
            // A report older than the run is an earlier run's: reading it would pass a
            // suite whose command wrote nothing this time.
            match meta.modified() {
                Ok(m) if m < since => stale += 1,
                _ => found.push(path),
            }
        }
    }
    found.sort();
    Ok((found, stale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::InputFormat;
    use std::time::Duration;

    /// A suite's entry carries the packages its harness finds for its format and folder
    /// (how a harness finds them, its module's folder relative to the root: the room's
    /// `a_go_suite_knows_its_modules_folder_relative_to_the_root`).
    #[test]
    fn a_suites_entry_carries_the_packages_the_registry_finds() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let root = tmp.path();
        fs::create_dir_all(root.join("unit/cmp")).expect("mkdir");
        let suite = Suite {
            name: "unit".to_owned(),
            dir: root.join("unit"),
            command: vec!["tool".to_owned(), "test".to_owned(), "-json".to_owned()],
            format: InputFormat::GoJson,
            report: None,
            optional: false,
        };
        for format in [InputFormat::GoJson, InputFormat::Tap, InputFormat::Junit] {
            let suite = Suite {
                format,
                ..suite.clone()
            };
            let entry = &entries(std::slice::from_ref(&suite), root, root, None)[0];
            assert_eq!(
                entry.input.go_packages,
                crate::harness::registry::suite_packages(format, &suite.dir, root),
                "{format:?}"
            );
        }
    }

    #[test]
    fn reports_match_below_their_folder_and_skip_stale_ones() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let root = dir.path();
        fs::create_dir_all(root.join("target/reports/sub")).expect("mkdir");
        for f in [
            "target/reports/TEST-a.xml",
            "target/reports/TEST-b.xml",
            "target/reports/notes.txt",
            "target/reports/sub/TEST-c.xml",
            "other.xml",
        ] {
            fs::write(root.join(f), "<testsuite/>").expect("write");
        }
        let old = SystemTime::now() - Duration::from_secs(3600);
        let (found, stale) = reports(root, "target/reports/*.xml", old).expect("glob");
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root).expect("inside").to_path_buf())
            .collect();
        assert_eq!(
            names,
            [
                PathBuf::from("target/reports/TEST-a.xml"),
                PathBuf::from("target/reports/TEST-b.xml")
            ]
        );
        assert_eq!(stale, 0);
        let (found, _) = reports(root, "other.xml", old).expect("glob");
        assert_eq!(found.len(), 1);
        let (found, _) = reports(root, "target/**/*.xml", old).expect("glob");
        assert_eq!(found.len(), 3);
        let later = SystemTime::now() + Duration::from_secs(3600);
        let (found, stale) = reports(root, "target/reports/*.xml", later).expect("glob");
        assert_eq!((found.len(), stale), (0, 2));
    }
}
