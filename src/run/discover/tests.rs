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

/// The files passed over, by name.
fn over(found: &Found) -> Vec<&str> {
    found.passed_over.iter().map(|p| p.rel.as_str()).collect()
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
    "test/node_modules/m.js",
    "test/.hidden/h.t",
    "test/ignored/i.t",
    "other/o.t",
];

#[test]
fn walks_test_dirs_by_default() {
    let dir = project(TREE);
    let files = run(dir.path(), &[], &Config::default(), None).expect("tests found");
    assert_eq!(
        rels(&files),
        [
            "test/a.t",
            "test/b.test.ts",
            "test/c.sh",
            "test/sub/e.mjs",
            "test/test_x.py",
            "test/y_test.py"
        ],
        "no helper: test/sub/d.pl, test/helper.py; nothing for being executable: test/run-me"
    );
    assert_eq!(files[0].path, Path::new("test/a.t"));
    assert_eq!(command(&files[0]), ["perl", "test/a.t"]);
    assert_eq!(command(&files[2]), ["sh", "test/c.sh"]);
    assert_eq!(command(&files[4]), ["python3", "test/test_x.py"]);
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(
        over(&found),
        [
            "test/README.md",
            "test/helper.py",
            "test/helpers.ts",
            "test/run-me",
            "test/sub/d.pl"
        ]
    );
    assert_eq!(found.passed_over[3].why, PassedOverWhy::Executable);
    assert_eq!(found.passed_over[0].why, PassedOverWhy::NotATest);
}

#[test]
fn configured_test_dirs() {
    let dir = project(TREE);
    let cfg = Config {
        test_dirs: Some(vec!["other".into(), "missing".into()]),
        ..Config::default()
    };
    assert_eq!(
        rels(&run(dir.path(), &[], &cfg, None).expect("tests found")),
        ["other/o.t"]
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

#[test]
fn builtin_rules() {
    let dir = project(&[
        "t/a.t",
        "t/a.pl",
        "t/test_a.py",
        "t/a.js",
        "t/a.mjs",
        "t/a.cjs",
        "t/test_a.ts",
        "t/a.sh",
        "t/a.bats",
        "t/a.rb",
    ]);
    let files = run(dir.path(), &["t"], &Config::default(), None).expect("tests found");
    let programs: Vec<(&str, String)> =
        files.iter().map(|f| (f.rel.as_str(), program(f))).collect();
    let expected = [
        ("t/a.bats", "bats"),
        ("t/a.cjs", "node"),
        ("t/a.js", "node"),
        ("t/a.mjs", "node"),
        ("t/a.sh", "sh"),
        ("t/a.t", "perl"),
        ("t/test_a.py", "python3"),
        ("t/test_a.ts", "tsx"),
    ];
    assert_eq!(
        programs,
        expected.map(|(rel, program)| (rel, program.to_owned()))
    );
    if let Ok(words) = &files[0].command {
        assert_eq!(words, &["bats", "--tap", "t/a.bats"]);
    }
    let named = run(dir.path(), &["t/a.pl"], &Config::default(), None).expect("named");
    assert_eq!(program(&named[0]), "perl", "a helper named explicitly runs");
    assert_eq!(
        walk_globs().join(" "),
        "*.t test*.py *_test.py *.{js,mjs,cjs} test*.ts *.test.ts *.test.*.ts *.sh *.bats"
    );
}

/// A project whose files have the given contents (a trailing `*` on the name marks
/// executables).
fn project_with(files: &[(&str, &str)]) -> TempDir {
    let dir = project(&[]);
    for (file, text) in files {
        let (name, executable) = file
            .strip_suffix('*')
            .map_or((*file, false), |name| (name, true));
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().expect("inside")).expect("mkdir");
        fs::write(&path, text).expect("write");
        if executable {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    dir
}

#[test]
fn shebang_lines_shape_commands() {
    let dir = project_with(&[
        ("t/taint.t", "#!/usr/bin/env perl -T\n"),
        ("t/warn.t", "#!perl -wT\n"),
        ("t/plain.t", "#!/usr/bin/perl\n"),
        ("t/none.t", "use strict;\n"),
        ("t/test_u.py", "#!/usr/bin/env python3 -u -W error\n"),
        ("t/gc.mjs", "#!/usr/bin/env -S node --expose-gc\n"),
        ("t/b.sh", "#!/bin/bash -eu\n"),
        ("t/p.sh", "#!/bin/sh\n"),
        ("t/env-perl*", "#!/usr/bin/env perl -T -w\n"),
        ("t/binary*", "\x7fELF"),
        ("t/script", "#!/bin/sh\n"),
        ("t/b.bats", "#!/usr/bin/env bats -x\n"),
    ]);
    let files = run(dir.path(), &["t"], &Config::default(), None).expect("tests found");
    let commands: Vec<(&str, String)> = files
        .iter()
        .map(|f| match &f.command {
            Ok(words) => (
                f.rel.as_str(),
                words
                    .iter()
                    .map(|w| w.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Err(missing) => (f.rel.as_str(), format!("missing {}", missing.program)),
        })
        .collect();
    let expected = [
        ("t/b.bats", "bats --tap t/b.bats"),
        ("t/b.sh", "/bin/bash -eu t/b.sh"),
        ("t/gc.mjs", "node --expose-gc t/gc.mjs"),
        ("t/none.t", "perl t/none.t"),
        ("t/p.sh", "/bin/sh t/p.sh"),
        ("t/plain.t", "perl t/plain.t"),
        ("t/taint.t", "perl -T t/taint.t"),
        ("t/test_u.py", "python3 -u -W error t/test_u.py"),
        ("t/warn.t", "perl -w -T t/warn.t"),
    ];
    let expected: Vec<(&str, String)> = expected
        .iter()
        .map(|&(rel, command)| {
            let program = command.split(' ').next().unwrap_or_default();
            let shown = if program.contains('/')
                || crate::util::which::find(OsStr::new(program), dir.path()).is_some()
            {
                command.to_owned()
            } else {
                format!("missing {program}")
            };
            (rel, shown)
        })
        .collect();
    assert_eq!(
        commands, expected,
        "t/script, t/env-perl and t/binary are not named as tests (a walk runs nothing for being executable)"
    );

    let named = run(dir.path(), &["t/script"], &Config::default(), None).expect("named");
    assert_eq!(
        command(&named[0]),
        ["/bin/sh", "t/script"],
        "named, it runs by its #! line"
    );
    let named = run(
        dir.path(),
        &["t/env-perl", "t/binary"],
        &Config::default(),
        None,
    )
    .expect("named executables");
    assert_eq!(command(&named[0]), ["t/binary"], "named, it runs directly");
    assert_eq!(
        command(&named[1]),
        ["perl", "-T", "-w", "t/env-perl"],
        "named, it runs by its #! line, words split"
    );

    let cfg = Config {
        runners: vec![
            rule("*.t", &["perl", "-Ilib", "{}"]),
            rule("*.py", &["python3", "-m", "pytest", "{}"]),
        ],
        ..Config::default()
    };
    let files = run(dir.path(), &["t/taint.t", "t/test_u.py"], &cfg, None).expect("named");
    assert_eq!(
        command(&files[0]),
        ["perl", "-T", "-Ilib", "t/taint.t"],
        "perl insists on -T, even in the user's own rule"
    );
    assert_eq!(
        command(&files[1]),
        ["python3", "-m", "pytest", "t/test_u.py"],
        "other commands of the user's stay as written"
    );
    let files = run(dir.path(), &["t/taint.t"], &cfg, Some("perl {}")).expect("named");
    assert_eq!(
        command(&files[0]),
        ["perl", "t/taint.t"],
        "--exec is used as written"
    );
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

/// A Perl distribution walks `t/` for `*.t` only: no JavaScript asset, no executable.
#[test]
fn a_perl_distribution_yields_dot_t_only() {
    let dir = project(&[
        "Makefile.PL",
        "t/basic.t",
        "t/deep/more.t",
        "t/static/app.js",
        "t/static/test.js",
        "t/lib/Helper.pm",
        "t/run-me*",
        "test/other.t",
    ]);
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(
        rels(&found.files),
        ["t/basic.t"],
        "MakeMaker's make test, with no TESTS, runs t/*.t"
    );
    assert!(over(&found).contains(&"t/static/test.js"));
    let deeper = found.passed_over.iter().find(|p| p.rel == "t/deep/more.t");
    assert!(matches!(
        deeper.map(|p| p.why),
        Some(PassedOverWhy::Unrun(_))
    ));
    let named = run(dir.path(), &["t"], &Config::default(), None).expect("found");
    assert_eq!(
        rels(&named),
        ["t/basic.t", "t/deep/more.t"],
        "named, all of it"
    );

    let bare = |dir: &Path| rels(&run(dir, &[], &Config::default(), None).expect("found")).len();
    for (marker, text, files) in [
        (
            "Makefile.PL",
            "WriteMakefile(test => {TESTS => 't/*.t t/*/*.t'});",
            2,
        ),
        (
            "Makefile.PL",
            "WriteMakefile(test => { TESTS => \"t/*.t\" });",
            1,
        ),
        (
            "Makefile.PL",
            "WriteMakefile(test => {TESTS => $tests});",
            2,
        ),
        (
            "Makefile.PL",
            "WriteMakefile(test => {RECURSIVE_TEST_FILES => 1});",
            2,
        ),
        ("Build.PL", "use Module::Build::Tiny;\nBuild_PL();", 2),
        (
            "Build.PL",
            "Module::Build->new(module_name => 'X')->create_build_script;",
            1,
        ),
        ("dist.ini", "name = X", 2),
    ] {
        let dir = project(&["t/basic.t", "t/deep/more.t"]);
        fs::write(dir.path().join(marker), text).expect("write");
        assert_eq!(bare(dir.path()), files, "{marker}: {text}");
    }
}

/// A folder of `*.t` tests is read as prove reads it: `*.t` only, `t/*.t` alone in a run with
/// no PATH (prove without `-r`), every `*.t` below a folder named.
#[test]
fn a_folder_of_dot_t_yields_dot_t_only() {
    let dir = project(&[
        "t/t0000-basic.t*",
        "t/t0001-more.t",
        "t/lib.sh*",
        "t/aggregate-results.sh",
        "t/test-terminal.perl*",
        "t/sub/deeper.t",
        "t/Makefile",
        "test/a.t",
        "test/b.test.js",
        "test/c.sh",
        "test/run*",
    ]);
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(
        rels(&found.files),
        [
            "t/t0000-basic.t",
            "t/t0001-more.t",
            "test/a.t",
            "test/b.test.js",
            "test/c.sh"
        ],
        "test/ holds a test of node's too: not a folder of *.t tests"
    );
    // The folder's harness words why; its kind is what this test pins.
    let why: Vec<(&str, PassedOverWhy)> = found
        .passed_over
        .iter()
        .map(|p| match p.why {
            PassedOverWhy::Helper(_) => (p.rel.as_str(), PassedOverWhy::Helper("")),
            PassedOverWhy::Unrun(_) => (p.rel.as_str(), PassedOverWhy::Unrun("")),
            why => (p.rel.as_str(), why),
        })
        .collect();
    use PassedOverWhy::*;
    assert_eq!(
        why,
        [
            ("t/Makefile", NotATest),
            ("t/aggregate-results.sh", Helper("")),
            ("t/lib.sh", Helper("")),
            ("t/sub/deeper.t", Unrun("")),
            ("t/test-terminal.perl", Helper("")),
            ("test/run", Executable),
        ]
    );
    let named = run(dir.path(), &["t"], &Config::default(), None).expect("named");
    assert_eq!(
        rels(&named),
        ["t/sub/deeper.t", "t/t0000-basic.t", "t/t0001-more.t"],
        "a folder named is walked down"
    );
    let cfg = Config {
        runners: vec![rule("t/*.sh", &["sh", "{}"])],
        ..Config::default()
    };
    let mine = run(dir.path(), &["t"], &cfg, None).expect("user rule");
    assert!(rels(&mine).contains(&"t/lib.sh"), "your globs still take");
    let notes = passed_over_notes(&found.passed_over);
    assert_eq!(
        notes[0],
        "t/aggregate-results.sh: passed over: a helper beside *.t tests (prove runs *.t only)"
    );
    assert_eq!(
        notes.last().map(String::as_str),
        Some("not tests (1 file): t/Makefile")
    );
}

/// JavaScript as node and node-tap name it; fixture folders are never walked.
#[test]
fn javascript_and_fixture_folders() {
    let dir = project(&[
        "t/static/app.js",
        "t/app.test.js",
        "test/helpers.js",
        "test/fixtures/bad.test.js",
        "test/__fixtures__/x.bats",
        "test/dist/a.test.js",
        "test/unit/a.bats",
    ]);
    assert_eq!(
        rels(&run(dir.path(), &[], &Config::default(), None).expect("found")),
        ["t/app.test.js", "test/helpers.js", "test/unit/a.bats"],
        "a helper in test/ is node's test too (and judged as one with no tests)"
    );
    assert_eq!(
        rels(&run(dir.path(), &["t"], &Config::default(), None).expect("found")),
        ["t/app.test.js", "t/static/app.js"],
        "a folder named on the command line is a test folder"
    );
    assert_eq!(
        rels(&run(dir.path(), &["test/fixtures"], &Config::default(), None).expect("found")),
        ["test/fixtures/bad.test.js"],
        "a fixture folder named explicitly runs"
    );
}

/// node-tap's saved snapshots are named as tests (`*.test.cjs`) but tap never runs them.
#[test]
fn tap_snapshots_are_not_tests() {
    let dir = project_with(&[
        ("package.json", r#"{"scripts": {"test": "tap"}}"#),
        ("test/bin/semver.js", ""),
        ("tap-snapshots/test/bin/semver.js.test.cjs", ""),
    ]);
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(rels(&found.files), ["test/bin/semver.js"]);
    let walked = run(dir.path(), &["."], &Config::default(), None).expect("found");
    assert_eq!(rels(&walked), ["test/bin/semver.js"], "nor in a walk");
}

/// What tap's own configuration excludes does not run when the run follows tap.
#[test]
fn tap_config_excludes() {
    let dir = project_with(&[
        (
            "package.json",
            r#"{"scripts": {"test": "tap"}, "tap": {"exclude": ["test/slow/**"]}}"#,
        ),
        ("test/a.test.js", ""),
        ("test/slow/b.test.js", ""),
    ]);
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(rels(&found.files), ["test/a.test.js"]);
    assert!(found
        .passed_over
        .iter()
        .any(|p| p.rel == "test/slow/b.test.js"));
    let named = run(dir.path(), &["test"], &Config::default(), None).expect("found");
    assert_eq!(rels(&named).len(), 2, "a folder named runs what it holds");
}

/// `package.json` declaring its tests wins over the default folders.
#[test]
fn package_json_declares_the_tests() {
    let dir = project_with(&[
        (
            "package.json",
            r#"{"scripts": {"test": "npm run lint && npm run unit", "lint": "eslint .", "unit": "tape 'test/*.js' | tap-spec"}}"#,
        ),
        ("test/index.js", ""),
        ("test/data.js", ""),
        ("test/browser/dom.js", ""),
        ("tests/other.test.js", ""),
    ]);
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(rels(&found.files), ["test/data.js", "test/index.js"]);
    assert_eq!(
        found.declared.as_deref(),
        Some("package.json scripts.unit (`tape 'test/*.js' | tap-spec`)"),
        "the command as the script that runs it writes it"
    );
    assert_eq!(
        found.one_at_a_time, None,
        "tape: one process, no files to wait on"
    );
    let cfg = Config {
        test_dirs: Some(vec!["tests".into()]),
        ..Config::default()
    };
    assert_eq!(
        rels(&run(dir.path(), &[], &cfg, None).expect("found")),
        ["tests/other.test.js"],
        "tapline.toml's test_dirs win over package.json"
    );

    let dir = project_with(&[
        ("package.json", r#"{"scripts": {"test": "bats test"}}"#),
        ("test/a.bats", ""),
        ("test/deeper/b.bats", ""),
        ("test/helper.bash", ""),
    ]);
    assert_eq!(
        rels(&run(dir.path(), &[], &Config::default(), None).expect("found")),
        ["test/a.bats"],
        "bats does not recurse"
    );
    let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
    assert_eq!(
        found.one_at_a_time.as_deref(),
        Some("bats runs files one at a time")
    );

    let dir = project_with(&[
        ("package.json", r#"{"scripts": {"test": "node --test"}}"#),
        ("src/a.test.mjs", ""),
        ("src/util.js", ""),
        ("test/helper.js", ""),
        ("node_modules/x/a.test.js", ""),
    ]);
    assert_eq!(
        rels(&run(dir.path(), &[], &Config::default(), None).expect("found")),
        ["src/a.test.mjs", "test/helper.js"],
        "node's own patterns from the cwd"
    );

    let dir = project_with(&[
        (
            "package.json",
            r#"{"scripts": {"test": "tape 'spec/*.js'"}}"#,
        ),
        ("test/a.test.js", ""),
    ]);
    let err = run(dir.path(), &[], &Config::default(), None).expect_err("nothing declared runs");
    assert_eq!(
        err.to_string(),
        "failed to find test files: package.json scripts.test (`tape 'spec/*.js'`) names no file tapline can run; name a folder or file"
    );
}

/// TypeScript as tstest names its tests, run with the project's own runner.
#[test]
fn typescript_names_and_the_projects_runner() {
    let dir = project_with(&[
        ("test/test.basic.ts", ""),
        ("test/math.test.ts", ""),
        ("test/test.deno.ts", ""),
        ("test/helpers.ts", ""),
        ("node_modules/.bin/tsrun*", "#!/bin/sh\n"),
    ]);
    let files = run(dir.path(), &[], &Config::default(), None).expect("found");
    // (A `test.browser.ts` runs in Chromium: browser_files_by_name_and_by_rule.)
    assert_eq!(rels(&files), ["test/math.test.ts", "test/test.basic.ts"]);
    let tsrun = dir.path().join("node_modules/.bin/tsrun");
    assert_eq!(
        program(&files[0]),
        tsrun.to_string_lossy(),
        "tstest's runner"
    );
    fs::write(dir.path().join("node_modules/.bin/tsx"), "#!/bin/sh\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    let tsx = dir.path().join("node_modules/.bin/tsx");
    fs::set_permissions(&tsx, fs::Permissions::from_mode(0o755)).expect("chmod");
    let files = run(dir.path(), &["test/helpers.ts"], &Config::default(), None).expect("named");
    assert_eq!(program(&files[0]), tsx.to_string_lossy(), "tsx first");
    let cfg = Config {
        ts_runner: Some(vec!["sh".into(), "-c".into(), "x".into()]),
        ..Config::default()
    };
    let files = run(dir.path(), &["test/helpers.ts"], &cfg, None).expect("named");
    assert_eq!(command(&files[0]), ["sh", "-c", "x", "test/helpers.ts"]);
}

/// How each file is judged when it prints no TAP.
#[test]
fn silence_is_judged_by_language() {
    let dir = project_with(&[
        ("t/a.t", ""),
        ("t/a.test.js", ""),
        ("t/test_plain.py", "print('1..0')\n"),
        (
            "t/test_pytest.py",
            "import pytest\n\ndef test_x():\n    assert True\n",
        ),
        (
            "t/test_main.py",
            "def test_x():\n    pass\n\nif __name__ == '__main__':\n    test_x()\n",
        ),
        ("t/a.sh", ""),
    ]);
    let files = run(dir.path(), &["t"], &Config::default(), None).expect("found");
    let silent: Vec<(&str, Silent)> = files
        .iter()
        .map(|f| (f.rel.as_str(), f.input.silent))
        .collect();
    assert_eq!(
        silent,
        [
            ("t/a.sh", Silent::Fails),
            ("t/a.t", Silent::NoSubtests),
            ("t/a.test.js", Silent::NoTests),
            ("t/test_main.py", Silent::Fails),
            ("t/test_plain.py", Silent::Fails),
            ("t/test_pytest.py", Silent::Fails),
        ]
    );
}

/// Issue 25: Python test files written for pytest (or unittest) run under pytest, found in the
/// project's venv first, with tapline's plugin; a script printing its own TAP runs with
/// python3; in a pytest project every Python test file is pytest's.
#[test]
fn pytest_files_run_under_the_projects_pytest() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project_with(&[
        ("tests/test_plain.py", "print('1..0')\n"),
        ("tests/test_pytest.py", "import pytest\n"),
        (
            "tests/test_unit.py",
            "import unittest\n\nclass T(unittest.TestCase):\n    pass\n",
        ),
        (".venv/bin/pytest", "#!/bin/sh\n"),
    ]);
    let venv = dir.path().join(".venv/bin/pytest");
    fs::set_permissions(&venv, fs::Permissions::from_mode(0o755)).expect("chmod");
    let venv = venv.to_string_lossy().into_owned();
    let pytest = |file: &str| {
        vec![
            venv.clone(),
            "-p".into(),
            "tapline_pytest".into(),
            file.into(),
        ]
    };
    let found = |dir: &Path| -> Vec<(String, Vec<String>, bool)> {
        run(dir, &[], &Config::default(), None)
            .expect("found")
            .iter()
            .map(|f| {
                (
                    f.rel.clone(),
                    command(f).iter().map(|w| w.to_string()).collect(),
                    f.input.harness == Some("pytest"),
                )
            })
            .collect()
    };
    assert_eq!(
        found(dir.path()),
        [
            (
                "tests/test_plain.py".into(),
                vec!["python3".into(), "tests/test_plain.py".into()],
                false
            ),
            (
                "tests/test_pytest.py".into(),
                pytest("tests/test_pytest.py"),
                true
            ),
            (
                "tests/test_unit.py".into(),
                pytest("tests/test_unit.py"),
                true
            ),
        ]
    );
    fs::write(dir.path().join("pytest.ini"), "[pytest]\n").expect("write");
    assert_eq!(
        found(dir.path())[0],
        (
            "tests/test_plain.py".into(),
            pytest("tests/test_plain.py"),
            true
        ),
        "a pytest project's test files are all pytest's"
    );
    let exec = run(
        dir.path(),
        &["tests"],
        &Config::default(),
        Some("python3 {}"),
    )
    .expect("found");
    assert!(
        exec.iter().all(|f| f.input.harness.is_none()),
        "--exec runs its own command"
    );
}

/// Issue 18: browser files run in Chromium, `.both` files twice, `.deno` not at all in a walk,
/// and a user's rule can say `runtime = "chromium"`.
#[test]
fn browser_files_by_name_and_by_rule() {
    if std::env::var_os("TAPLINE_CHROMIUM").is_some() {
        return; // the variable wins over `[run] chromium`, which this test sets
    }
    let dir = project(&[
        "test/a.browser.js",
        "test/b.both.mjs",
        "test/c.test.js",
        "test/test.chromium.ts",
        "test/test.deno.ts",
        "web/page.spec.mjs",
    ]);
    let mut browser_rule = rule("web/*.spec.mjs", &["ignored"]);
    browser_rule.host = Host::Page;
    let cfg = Config {
        browser: Some("/bin/sh".into()),
        runners: vec![browser_rule],
        ..Config::default()
    };
    let files = run(dir.path(), &["test", "web"], &cfg, None).expect("tests found");
    assert_eq!(
        rels(&files),
        [
            "test/a.browser.js",
            "test/b.both.mjs (node)",
            "test/b.both.mjs (chromium)",
            "test/c.test.js",
            "test/test.chromium.ts",
            "web/page.spec.mjs",
        ]
    );
    let runtime = |i: usize| files[i].input.host;
    for i in [0, 2, 4, 5] {
        assert_eq!(runtime(i), Host::Page, "{}", files[i].rel);
        assert_eq!(program(&files[i]), "/bin/sh");
        assert_eq!(
            command(&files[i]).last().copied(),
            Some(files[i].path.to_str().expect("utf-8"))
        );
    }
    assert_eq!(runtime(1), Host::Process);
    assert_eq!(program(&files[1]), "node");
    let missing = Config {
        browser: Some("/no/such/chromium".into()),
        ..Config::default()
    };
    let files = run(dir.path(), &["test/a.browser.js"], &missing, None).expect("found");
    let why = files[0]
        .command
        .as_ref()
        .expect_err("no chromium")
        .to_string();
    assert!(
        why.contains("/no/such/chromium") && why.contains("apt-get install chromium"),
        "{why}"
    );
    let exec = run(dir.path(), &["test/a.browser.js"], &cfg, Some("cat")).expect("found");
    assert_eq!(exec[0].input.host, Host::Process, "--exec runs the command");
}

/// Issue 25: a pytest project with no test folder has its tests where pytest looks with no
/// argument: from the cwd down, past a virtual environment and pytest's other skipped folders.
#[test]
fn a_pytest_project_without_a_test_folder_is_walked_as_pytest_walks_it() {
    let dir = project_with(&[
        ("pytest.ini", "[pytest]\n"),
        ("test_top.py", "def test_a():\n    pass\n"),
        ("pkg/sub/thing_test.py", ""),
        ("pkg/helpers.py", ""),
        ("env/pyvenv.cfg", ""),
        ("env/lib/test_vendored.py", ""),
        ("build/test_built.py", ""),
        ("scripts/run.sh", ""),
    ]);
    let files = run(dir.path(), &[], &Config::default(), None).expect("found");
    assert_eq!(rels(&files), ["pkg/sub/thing_test.py", "test_top.py"]);
    assert!(files.iter().all(|f| f.input.harness == Some("pytest")));
    fs::remove_file(dir.path().join("test_top.py")).expect("rm");
    fs::remove_file(dir.path().join("pkg/sub/thing_test.py")).expect("rm");
    assert!(matches!(
        run(dir.path(), &[], &Config::default(), None),
        Err(DiscoverError::NoProjectFiles(_))
    ));
}

/// Files run one at a time as the harness the run mirrors runs them: a followed command's
/// reason first, then a Perl distribution's harness, then a walk of bats files alone.
#[test]
fn serial_harnesses() {
    let file = |program: &str| TestFile {
        path: "t/a".into(),
        rel: "t/a".into(),
        command: Ok(vec![OsString::from(program), "t/a".into()]),
        input: Input::default(),
    };
    let plain = project(&[]);
    let dist = project(&["Makefile.PL", "dist.ini"]);
    let none = plain.path();
    let bats = [file("/usr/bin/bats"), file("bats")];
    assert_eq!(
        one_at_a_time(None, none, &bats).as_deref(),
        Some("bats runs files one at a time")
    );
    assert_eq!(
        one_at_a_time(None, none, &[file("bats"), file("node")]),
        None,
        "a mixed walk keeps the cores"
    );
    assert_eq!(one_at_a_time(None, none, &[]), None);
    assert_eq!(
        one_at_a_time(None, dist.path(), &[file("perl")]).as_deref(),
        Some("a Perl distribution's `make test` runs files one at a time")
    );
    assert_eq!(
        one_at_a_time(Some(None), dist.path(), &bats),
        None,
        "a followed command that runs in parallel wins"
    );
    assert_eq!(
        one_at_a_time(Some(Some("prove runs files one at a time")), none, &[]).as_deref(),
        Some("prove runs files one at a time")
    );
    assert_eq!(
        harness_notes(none, Some("bats runs files one at a time"), &[]),
        ["-j1: bats runs files one at a time; -j N to change"]
    );
}
