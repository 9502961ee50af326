//! Discovery tests: temporary projects walked, named and globbed.
use super::super::config::find_project_root;
use super::words::{fill, split_words};
use super::*;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Component, Path};
use tempfile::TempDir;

/// A project: `.git`, `.gitignore`, and the given files (a trailing `*` marks executables).
fn project(files: &[&str]) -> TempDir {
    let dir = TempDir::new().expect("temp dir");
    fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
    fs::write(dir.path().join(".gitignore"), "ignored/\n").expect("write .gitignore");
    for file in files {
        let (name, executable) = file
            .strip_suffix('*')
            .map_or((*file, false), |name| (name, true));
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().expect("files are inside the project")).expect("mkdir");
        fs::write(&path, "").expect("write file");
        #[cfg(unix)]
        if executable {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    dir
}

fn run(
    cwd: &Path,
    args: &[&str],
    cfg: &Config,
    exec: Option<&str>,
) -> Result<Vec<TestFile>, DiscoverError> {
    let args: Vec<String> = args.iter().map(|&arg| arg.to_owned()).collect();
    discover(&args, cwd, &find_project_root(cwd), cfg, exec)
}

fn rels(files: &[TestFile]) -> Vec<&str> {
    files.iter().map(|f| f.rel.as_str()).collect()
}

/// The program, installed or not.
fn program(f: &TestFile) -> String {
    match &f.command {
        Ok(words) => words[0].to_string_lossy().into_owned(),
        Err(missing) => missing.program.clone(),
    }
}

fn command(f: &TestFile) -> Vec<&str> {
    f.command
        .as_ref()
        .expect("installed")
        .iter()
        .map(|word| word.to_str().expect("UTF-8"))
        .collect()
}

fn rule(glob: &str, command: &[&str]) -> RunnerRule {
    RunnerRule::new(glob, command.iter().map(|&word| word.to_owned()).collect())
        .expect("valid rule")
}

const TREE: &[&str] = &[
    "test/a.t",
    "test/b.test.ts",
    "test/helpers.ts",
    "test/c.sh",
    "test/sub/d.pl",
    "test/sub/e.mjs",
    "test/helper.py",
    "test/test_x.py",
    "test/y_test.py",
    "test/README.md",
    "test/run-me*",
    "test/.hidden/h.t",
    "test/ignored/i.t",
    "other/o.t",
];

#[test]
fn configured_test_dirs() {
    let dir = project(TREE);
    let cfg = Config {
        test_dirs: Some(vec!["other".into(), "missing".into()]),
        ..Config::default()
    };
    let files = run(dir.path(), &[], &cfg, None).expect("tests found");
    assert_eq!(rels(&files), ["other/o.t"]);
    assert_eq!(
        files[0].path,
        Path::new("other/o.t"),
        "the path from the cwd"
    );
}

#[test]
fn no_tests_names_where_it_looked() {
    let dir = project(&["test/README.md"]);
    let err = run(dir.path(), &[], &Config::default(), None).expect_err("nothing to run");
    assert!(matches!(err, DiscoverError::NoTests(_)));
    assert_eq!(
        err.to_string(),
        "failed to find test files in `test`: no file there is named as a test (by a runner rule, or as its language's harness names tests; a walk runs nothing for being executable)"
    );
    fs::create_dir(dir.path().join("t")).expect("mkdir");
    fs::write(dir.path().join("t/notes.txt"), "").expect("write");
    let cfg = Config {
        test_dirs: Some(vec!["t".into(), "spec".into()]),
        ..Config::default()
    };
    let err = run(dir.path(), &[], &cfg, None).expect_err("nothing to run");
    assert!(
        err.to_string()
            .starts_with("failed to find test files in `t`: "),
        "{err}"
    );
    let err = run(dir.path(), &["test"], &Config::default(), None).expect_err("nothing to run");
    assert!(
        err.to_string()
            .starts_with("failed to find test files in `test`: "),
        "{err}"
    );
}

#[test]
fn named_files_need_only_a_runner() {
    let dir = project(TREE);
    let cfg = Config::default();
    let files = run(
        dir.path(),
        &["test/helper.py", "test/ignored/i.t", "test/.hidden/h.t"],
        &cfg,
        None,
    )
    .expect("named");
    assert_eq!(
        rels(&files),
        ["test/.hidden/h.t", "test/helper.py", "test/ignored/i.t"]
    );
    let err = run(dir.path(), &["test/README.md"], &cfg, None).expect_err("no runner");
    assert!(matches!(err, DiscoverError::NoRunner(_)));
    assert_eq!(
        err.to_string(),
        "failed to find how to run test/README.md: no runner rule matches it and it is not executable"
    );
}

#[test]
fn globs_match_paths_relative_to_the_cwd() {
    let dir = project(TREE);
    let cfg = Config::default();
    assert_eq!(
        rels(&run(dir.path(), &["test/*.t"], &cfg, None).expect("match")),
        ["test/a.t"]
    );
    assert_eq!(
        rels(&run(dir.path(), &["**/*.t"], &cfg, None).expect("match")),
        ["other/o.t", "test/a.t"],
        "the walk skips hidden and ignored files"
    );
    // Globs pick runnable files, including helpers a walk would skip.
    assert_eq!(
        rels(&run(dir.path(), &["test/*.py"], &cfg, None).expect("match")),
        ["test/helper.py", "test/test_x.py", "test/y_test.py"]
    );
    assert_eq!(
        rels(&run(dir.path(), &["./test/sub/*"], &cfg, None).expect("match")),
        ["test/sub/d.pl", "test/sub/e.mjs"]
    );
    assert_eq!(
        rels(&run(&dir.path().join("test"), &["../other/*.t"], &cfg, None).expect("match")),
        ["other/o.t"]
    );

    for pattern in ["foo/*.t", "test/*.md", "nothing.t"] {
        let err = run(dir.path(), &[pattern], &cfg, None).expect_err("no match");
        assert_eq!(
            err.to_string(),
            format!("failed to find test files: no file matches `{pattern}`")
        );
    }
    let err = run(dir.path(), &["test/[.t"], &cfg, None).expect_err("bad glob");
    assert!(
        err.to_string()
            .starts_with("failed to parse glob `test/[.t`: "),
        "{err}"
    );
}

#[test]
fn results_are_sorted_and_deduplicated() {
    let dir = project(TREE);
    let files = run(
        dir.path(),
        &[
            "test/sub/e.mjs",
            "test/sub",
            "./test/sub/d.pl",
            "test/sub/*.pl",
        ],
        &Config::default(),
        None,
    )
    .expect("tests found");
    assert_eq!(rels(&files), ["test/sub/d.pl", "test/sub/e.mjs"]);
    assert_eq!(
        files[0].path,
        Path::new("./test/sub/d.pl"),
        "the first spelling is kept (the walk of test/sub passes over the helper)"
    );
}

#[test]
fn paths_from_a_subdirectory() {
    let dir = project(TREE);
    let cwd = dir.path().join("test");
    let files = run(
        &cwd,
        &["a.t", "run-me", "../other/o.t"],
        &Config::default(),
        None,
    )
    .expect("tests found");
    let found: Vec<(&Path, &str)> = files
        .iter()
        .map(|f| (f.path.as_path(), f.rel.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (Path::new("../other/o.t"), "other/o.t"),
            (Path::new("a.t"), "test/a.t"),
            (Path::new("run-me"), "test/run-me")
        ]
    );
    assert_eq!(
        command(&files[2]),
        ["./run-me"],
        "a bare name would be searched on PATH"
    );
}

#[test]
fn files_outside_the_root_get_relative_names() {
    let outer = TempDir::new().expect("temp dir");
    fs::create_dir_all(outer.path().join("proj/.git")).expect("mkdir");
    fs::create_dir_all(outer.path().join("elsewhere")).expect("mkdir");
    fs::write(outer.path().join("elsewhere/x.t"), "").expect("write");
    let cwd = outer.path().join("proj");
    let files = run(&cwd, &["../elsewhere/x.t"], &Config::default(), None).expect("found");
    assert_eq!(files[0].rel, "../elsewhere/x.t");
    assert_eq!(log_name(&files[0].rel), "up__elsewhere__x.log");
}

#[test]
fn user_rules_come_first() {
    let dir = project(TREE);
    let cfg = Config {
        runners: vec![
            rule("*.t", &["sh", "-c", "cat \"$1\"", "--", "{}"]),
            rule("test/sub/*", &["sh", "--file={}"]),
            rule("*.md", &["cat"]),
        ],
        ..Config::default()
    };
    let files = run(dir.path(), &["test"], &cfg, None).expect("tests found");
    let by_rel = |rel: &str| {
        files
            .iter()
            .find(|f| f.rel == rel)
            .unwrap_or_else(|| panic!("{rel} missing"))
    };
    assert_eq!(
        command(by_rel("test/a.t")),
        ["sh", "-c", "cat \"$1\"", "--", "test/a.t"]
    );
    assert_eq!(
        command(by_rel("test/sub/d.pl")),
        ["sh", "--file=test/sub/d.pl"]
    );
    assert_eq!(
        command(by_rel("test/README.md")),
        ["cat", "test/README.md"],
        "without {{}} the path is appended"
    );
    assert_eq!(
        program(by_rel("test/c.sh")),
        "sh",
        "other files fall through to the built-in rules"
    );
}

#[test]
fn missing_interpreters_are_per_file() {
    let dir = project(TREE);
    let cfg = Config {
        runners: vec![rule("*.t", &["tapline-no-such-interpreter", "{}"])],
        ..Config::default()
    };
    let files = run(dir.path(), &["test/a.t", "test/c.sh"], &cfg, None).expect("tests found");
    let missing = files[0].command.as_ref().expect_err("not installed");
    assert_eq!(
        missing,
        &MissingInterpreter {
            program: "tapline-no-such-interpreter".into(),
            file: "test/a.t".into(),
            hint: String::new(),
        }
    );
    assert_eq!(
        missing.to_string(),
        "`tapline-no-such-interpreter` is not installed (needed to run test/a.t)"
    );
    assert_eq!(
        list_line(&files[0]),
        "test/a.t\t`tapline-no-such-interpreter` is not installed (needed to run test/a.t)"
    );
    assert_eq!(command(&files[1]), ["sh", "test/c.sh"]);
}

#[test]
fn exec_runs_named_files_and_the_tests_of_directories() {
    let dir = project(TREE);
    let files = run(
        dir.path(),
        &["test/sub", "test/README.md", "test/helper.py"],
        &Config::default(),
        Some("sh -c 'echo \"$0\"' {}"),
    )
    .expect("tests found");
    assert_eq!(
        rels(&files),
        ["test/README.md", "test/helper.py", "test/sub/e.mjs"],
        "a directory yields its tests only, not test/sub/d.pl"
    );
    let all = run(dir.path(), &["test"], &Config::default(), Some("cat")).expect("tests found");
    assert_eq!(
        rels(&all),
        rels(&run(dir.path(), &["test"], &Config::default(), None).expect("tests found")),
        "--exec runs what discovery picks"
    );
    assert_eq!(command(&all[0]), ["cat", "test/a.t"]);
    let err = run(
        dir.path(),
        &["test/sub/*.pl"],
        &Config::default(),
        Some("cat"),
    )
    .map(|files| rels(&files).join(" "));
    assert_eq!(
        err.ok().as_deref(),
        Some("test/sub/d.pl"),
        "a glob is the user's own pick"
    );
    fs::create_dir(dir.path().join("rb")).expect("mkdir");
    fs::write(dir.path().join("rb/a.rb"), "").expect("write");
    let err = run(dir.path(), &["rb"], &Config::default(), Some("ruby {}"))
        .expect_err("no test file in rb/");
    assert!(matches!(err, DiscoverError::NoExecTests(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "failed to find test files in `rb`: with --exec a directory still yields only its test files (those named as tests by a runner rule or their language's harness); name the files, or a glob, to run others"
    );
    assert_eq!(
        command(&files[0]),
        ["sh", "-c", "echo \"$0\"", "test/README.md"]
    );

    let files = run(
        dir.path(),
        &["test/sub/d.pl"],
        &Config::default(),
        Some("./test/run-me --verbose"),
    )
    .expect("found");
    assert_eq!(
        command(&files[0]),
        ["./test/run-me", "--verbose", "test/sub/d.pl"],
        "a program path is checked against the cwd"
    );
    let files = run(
        dir.path(),
        &["test/sub/d.pl"],
        &Config::default(),
        Some("./test/nope"),
    )
    .expect("found");
    assert!(files[0].command.is_err());

    for (exec, reason) in [
        ("", "no command"),
        ("  ", "no command"),
        ("sh 'x", "unterminated single quote"),
    ] {
        let err =
            run(dir.path(), &["test/a.t"], &Config::default(), Some(exec)).expect_err("bad --exec");
        assert_eq!(
            err.to_string(),
            format!("failed to parse --exec `{exec}`: {reason}")
        );
    }
}

#[test]
fn word_splitting() {
    let split = |line: &str| split_words(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    assert_eq!(split("interp -Ilib {}"), ["interp", "-Ilib", "{}"]);
    assert_eq!(split("  a\t b  "), ["a", "b"]);
    assert_eq!(
        split(r#"a 'b c' "d \"e\" \$x \n" f\ g"#),
        ["a", "b c", r#"d "e" $x \n"#, "f g"]
    );
    assert_eq!(split(r#"'' "" x'y'"z""#), ["", "", "xyz"]);
    assert_eq!(split(r"'a\b'"), [r"a\b"]);
    assert_eq!(split(""), Vec::<String>::new());
    assert_eq!(split_words("a 'b"), Err("unterminated single quote"));
    assert_eq!(split_words("a \"b"), Err("unterminated double quote"));
    assert_eq!(split_words("a \"b\\"), Err("unterminated double quote"));
    assert_eq!(split_words("a\\"), Err("trailing backslash"));
}

#[test]
fn fill_places_the_file() {
    let fill = |template: &[&str], path: &str| {
        let template: Vec<String> = template.iter().map(|&word| word.to_owned()).collect();
        fill(&template, Path::new(path))
    };
    assert_eq!(fill(&["interp"], "t/a.t"), ["interp", "t/a.t"]);
    assert_eq!(
        fill(&["interp", "{}", "--", "{}"], "t/a.t"),
        ["interp", "t/a.t", "--", "t/a.t"]
    );
    assert_eq!(fill(&["x", "--in={}.json"], "a"), ["x", "--in=a.json"]);
    assert_eq!(fill(&["{}", "-v"], "a.t"), ["./a.t", "-v"]);
}

#[test]
fn log_names() {
    assert_eq!(log_name("test/support/test.ts"), "test__support__test.log");
    // Issue 43: a name edged with `_` is joined by `--`, so the separator shows.
    assert_eq!(log_name("__tests__/sum.test.js"), "__tests__--sum.test.log");
    assert_eq!(log_name("tests/__sum.test.js"), "tests--__sum.test.log");
    assert_eq!(log_name("a_/b/_c/d.t"), "a_--b--_c__d.log");
    assert_eq!(log_name("a.t"), "a.log");
    assert_eq!(log_name("test/a.test.ts"), "test__a.test.log");
    assert_eq!(log_name("test/noext"), "test__noext.log");
    assert_eq!(log_name("test/a.both.ts (node)"), "test__a.both.node.log");
    // A file run twice is labelled by its host's runtime, the page host's too.
    let page = registry::page_runtime();
    assert_eq!(
        log_name(&format!("test/a.both.ts ({page})")),
        format!("test__a.both.{page}.log")
    );
    assert_eq!(log_name("test/.hidden"), "test__.hidden.log");
    assert_eq!(log_name("../x.t"), "up__x.log");
    assert_eq!(log_name("../../a/../b.t"), "up__up__a__up__b.log");
    assert_eq!(log_name("/abs/x.t"), "abs__x.log");
    assert_eq!(log_name("./a//b.t"), "a__b.log");
    assert_eq!(log_name("a\\..\\b\0c.t"), "a_.._b_c.log");
    assert_eq!(log_name(".."), "up.log");
    assert_eq!(log_name("..."), "...log");
    assert_eq!(log_name(""), "_.log");
    assert_eq!(log_name("/"), "_.log");
    for rel in [
        "../x.t",
        "/etc/passwd",
        "..",
        ".",
        "",
        "a/../../..",
        "\\..\\x",
        "x\0/..",
        "...",
    ] {
        let name = log_name(rel);
        assert!(
            name.ends_with(".log") && !name.contains(['/', '\\', '\0']),
            "{rel:?} → {name:?}"
        );
        assert_eq!(
            Path::new(&name).components().count(),
            1,
            "{rel:?} → {name:?}"
        );
        assert!(
            matches!(
                Path::new(&name).components().next(),
                Some(Component::Normal(_))
            ),
            "{rel:?} → {name:?}"
        );
    }
}

#[test]
fn list_lines_quote_when_needed() {
    let file = |path: &str, command: &[&str]| TestFile {
        path: path.into(),
        rel: path.into(),
        command: Ok(command.iter().map(OsString::from).collect()),
        input: Default::default(),
    };
    assert_eq!(
        list_line(&file("test/a.t", &["interp", "test/a.t"])),
        "test/a.t\tinterp test/a.t"
    );
    assert_eq!(
        list_line(&file("t/my test.t", &["interp", "t/my test.t"])),
        "t/my test.t\tinterp 't/my test.t'"
    );
    assert_eq!(
        list_line(&file("t/it's.t", &["interp", "-e", "", "t/it's.t"])),
        "t/it's.t\tinterp -e '' 't/it'\\''s.t'"
    );
}

/// A project whose files have the given contents (a trailing `*` on the name marks
/// executables).
fn project_with(files: &[(&str, &str)]) -> TempDir {
    let dir = project(&[]);
    for (file, text) in files {
        write_file(dir.path(), file, text);
    }
    dir
}

/// Issue 16: with no PATH, `test/`, `tests/` and `t/`, whichever exist; a missing and an empty
/// folder say different things.
#[test]
fn defaults_follow_the_project() {
    let dir = project(&["tests/test_a.py", "t/a.t", "spec/a.test.js"]);
    assert_eq!(
        rels(&run(dir.path(), &[], &Config::default(), None).expect("found")),
        ["t/a.t", "tests/test_a.py"]
    );

    let dir = project(&["spec/a.test.js"]);
    let err = run(dir.path(), &[], &Config::default(), None).expect_err("no folder");
    assert!(matches!(err, DiscoverError::NoTestFolder(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "failed to find test files: no test folder here (looked for `test/`, `tests/`, `t/`); name a folder or file, or set `test_dirs` in tapline.toml (`tapline init` writes one)"
    );
    fs::create_dir(dir.path().join("test")).expect("mkdir");
    let err = run(dir.path(), &[], &Config::default(), None).expect_err("empty");
    assert_eq!(
        err.to_string(),
        "failed to find test files in `test`: the folder is empty"
    );
    let err = run(dir.path(), &["test"], &Config::default(), None).expect_err("empty");
    assert!(matches!(err, DiscoverError::EmptyFolder(_)), "{err}");
}

/// The names a walk takes by the built-in rules, in the registry's order.
#[test]
fn walk_globs_in_the_registrys_order() {
    assert_eq!(
        walk_globs().join(" "),
        crate::harness::discovery_cases::WALK_GLOBS
    );
}

/// Files run one at a time as the harness the run mirrors runs them: a followed command's
/// reason first, else what the harnesses say of the files' programs and the project.
#[test]
fn serial_harnesses() {
    let file = |program: &str| TestFile {
        path: "t/a".into(),
        rel: "t/a".into(),
        command: Ok(vec![OsString::from(program), "t/a".into()]),
        input: Input::default(),
    };
    let plain = project(&[]);
    let none = plain.path();
    let files = [file("a"), file("b")];
    let programs: Vec<Option<String>> = vec![Some("a".into()), Some("b".into())];
    assert_eq!(
        one_at_a_time(None, none, &files),
        registry::one_at_a_time(none, &programs),
        "with no followed command, the harnesses say by the programs' base names"
    );
    assert_eq!(
        one_at_a_time(None, none, &[file("/usr/bin/a")]),
        registry::one_at_a_time(none, &[Some("a".into())]),
        "a program's folder says nothing"
    );
    assert_eq!(
        one_at_a_time(Some(None), none, &files),
        None,
        "a followed command that runs in parallel wins"
    );
    assert_eq!(
        one_at_a_time(Some(Some("x runs files one at a time")), none, &[]).as_deref(),
        Some("x runs files one at a time")
    );
    assert_eq!(
        harness_notes(none, Some("x runs files one at a time"), &[]),
        ["-j1: x runs files one at a time; -j N to change"]
    );
}

/// Every room's discovery cases ([`crate::harness::discovery_cases`]): each project built,
/// each run asked in order, each check held.
#[test]
fn every_rooms_discovery_cases() {
    use crate::harness::discovery_cases::projects;
    let mut count = 0;
    for case in projects() {
        let dir = project_with(case.files);
        for (i, step) in case.runs.iter().enumerate() {
            for (file, text) in step.write {
                write_file(dir.path(), file, text);
            }
            for file in step.remove {
                fs::remove_file(dir.path().join(file)).expect("remove a case's file");
            }
            let at = format!("{} (run {}: {})", case.why, i + 1, step.why);
            check_run(dir.path(), step, &at);
            count += 1;
        }
    }
    assert!(count > 0, "the rooms offer cases");
}

/// Writes `file` (a trailing `*`: executable) with `text` below `dir`.
fn write_file(dir: &Path, file: &str, text: &str) {
    let (name, executable) = file
        .strip_suffix('*')
        .map_or((file, false), |name| (name, true));
    let path = dir.join(name);
    fs::create_dir_all(path.parent().expect("inside")).expect("mkdir");
    fs::write(&path, text).expect("write");
    if executable {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

/// The configuration a case's run names.
fn case_config(config: &crate::harness::discovery_cases::Config) -> Config {
    let words = |w: &[&str]| w.iter().map(|&w| w.to_owned()).collect::<Vec<String>>();
    Config {
        test_dirs: config
            .test_dirs
            .map(|dirs| dirs.iter().map(|&d| d.into()).collect()),
        runners: config
            .runners
            .iter()
            .map(|r| {
                let mut rule = rule(r.glob, r.command);
                if r.page {
                    rule.host = Host::Page;
                }
                rule
            })
            .collect(),
        browser: config.browser.map(Into::into),
        ts_runner: config.ts_runner.map(words),
        ..Config::default()
    }
}

/// A file's command as a case writes it: words joined by spaces, or `missing PROGRAM`.
fn shown_command(f: &TestFile) -> String {
    match &f.command {
        Ok(words) => words
            .iter()
            .map(|w| w.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        Err(missing) => format!("missing {}", missing.program),
    }
}

/// A case's expected command, `{dir}` filled and an uninstalled program shown missing.
fn expected_command(dir: &Path, command: &str) -> String {
    let command = command.replace("{dir}", &dir.to_string_lossy());
    let program = command.split(' ').next().unwrap_or_default();
    if program.contains('/') || which::find(OsStr::new(program), dir).is_some() {
        command
    } else {
        format!("missing {program}")
    }
}

/// The kind of a reason a file was passed over, as the cases write it.
fn why_kind(why: PassedOverWhy) -> &'static str {
    match why {
        PassedOverWhy::NotATest => "not a test",
        PassedOverWhy::Executable => "executable",
        PassedOverWhy::Helper(_) => "helper",
        PassedOverWhy::Unrun(_) => "unrun",
        PassedOverWhy::TapExcluded => "excluded",
    }
}

fn silent_kind(silent: Silent) -> &'static str {
    match silent {
        Silent::Fails => "fails",
        Silent::NoSubtests => "no subtests",
        Silent::NoTests => "no tests",
    }
}

/// Runs discovery as `step` says in `dir` and holds each of its checks.
fn check_run(dir: &Path, step: &crate::harness::discovery_cases::Run, at: &str) {
    use crate::harness::discovery_cases::Expect;
    let cfg = case_config(&step.config);
    let args: Vec<String> = step.args.iter().map(|&a| a.to_owned()).collect();
    if step.config.browser_overridden() {
        return;
    }
    let found = find(&args, dir, &find_project_root(dir), &cfg, step.exec);
    let found = match (found, step.expect) {
        (Err(err), [Expect::Error(message)]) => {
            assert_eq!(err.to_string(), *message, "{at}");
            return;
        }
        (Err(err), _) => panic!("{at}: {err}"),
        (Ok(found), _) => found,
    };
    let files = &found.files;
    for expect in step.expect {
        match expect {
            Expect::Files(rels_) => assert_eq!(rels(files), *rels_, "{at}"),
            Expect::Commands(commands) => {
                let got: Vec<(&str, String)> = files
                    .iter()
                    .map(|f| (f.rel.as_str(), shown_command(f)))
                    .collect();
                let want: Vec<(&str, String)> = commands
                    .iter()
                    .map(|(rel, c)| (*rel, expected_command(dir, c)))
                    .collect();
                assert_eq!(got, want, "{at}");
            }
            Expect::CommandsOf(commands) => {
                for (rel, c) in *commands {
                    let file = files.iter().find(|f| f.rel == *rel);
                    let file = file.unwrap_or_else(|| panic!("{at}: {rel} runs"));
                    assert_eq!(shown_command(file), expected_command(dir, c), "{at}");
                }
            }
            Expect::LastWords(words) => {
                for (rel, word) in *words {
                    let file = files.iter().find(|f| f.rel == *rel);
                    let file = file.unwrap_or_else(|| panic!("{at}: {rel} runs"));
                    assert_eq!(command(file).last(), Some(word), "{at}: {rel}");
                }
            }
            Expect::Programs(programs) => {
                let got: Vec<(&str, String)> =
                    files.iter().map(|f| (f.rel.as_str(), program(f))).collect();
                let want: Vec<(&str, String)> = programs
                    .iter()
                    .map(|(rel, p)| (*rel, p.replace("{dir}", &dir.to_string_lossy())))
                    .collect();
                assert_eq!(got, want, "{at}");
            }
            Expect::PassedOver(over_) => {
                let got: Vec<(&str, &str)> = found
                    .passed_over
                    .iter()
                    .map(|p| (p.rel.as_str(), why_kind(p.why)))
                    .collect();
                assert_eq!(got, *over_, "{at}");
            }
            Expect::PassedOverHas(names) => {
                for (name, kind) in *names {
                    let passed = found.passed_over.iter().find(|p| p.rel == *name);
                    let passed = passed.unwrap_or_else(|| panic!("{at}: {name} passed over"));
                    if !kind.is_empty() {
                        assert_eq!(why_kind(passed.why), *kind, "{at}: {name}");
                    }
                }
            }
            Expect::FilesHas(names) => {
                for name in *names {
                    assert!(rels(files).contains(name), "{at}: {name} runs");
                }
            }
            Expect::PassedOverNotes(first, last) => {
                let notes = passed_over_notes(&found.passed_over);
                assert_eq!(notes.first().map(String::as_str), Some(*first), "{at}");
                assert_eq!(notes.last().map(String::as_str), Some(*last), "{at}");
            }
            Expect::Declared(declared) => {
                assert_eq!(found.declared.as_deref(), *declared, "{at}")
            }
            Expect::OneAtATime(why) => {
                assert_eq!(found.one_at_a_time.as_deref(), *why, "{at}")
            }
            Expect::Silent(silent) => {
                let got: Vec<(&str, &str)> = files
                    .iter()
                    .map(|f| (f.rel.as_str(), silent_kind(f.input.silent)))
                    .collect();
                assert_eq!(got, *silent, "{at}");
            }
            Expect::Harnesses(harnesses) => {
                let got: Vec<(&str, Option<&str>)> = files
                    .iter()
                    .map(|f| (f.rel.as_str(), f.input.harness))
                    .collect();
                assert_eq!(got, *harnesses, "{at}");
            }
            Expect::Pages(pages) => {
                let got: Vec<&str> = files
                    .iter()
                    .filter(|f| f.input.host == Host::Page)
                    .map(|f| f.rel.as_str())
                    .collect();
                assert_eq!(got, *pages, "{at}");
            }
            Expect::Error(message) => panic!("{at}: found files, not `{message}`"),
            Expect::Missing(words) => {
                for f in files {
                    let why = f.command.as_ref().expect_err("cannot start").to_string();
                    for word in *words {
                        assert!(why.contains(word), "{at}: {why}");
                    }
                }
            }
        }
    }
}
