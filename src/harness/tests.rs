//! The rooms behind the interface, as the generic layers see them through the registry.
use super::registry::{self, HARNESSES};
use super::Harness;
use crate::harness::shebang::Shebang;
use std::ffi::OsString;

fn line(text: &str) -> Shebang {
    Shebang::parse(text).expect("a #! line")
}

/// The harness whose built-in rule maps `name`, as discovery finds it (the first in order).
fn of(name: &str) -> &'static dyn Harness {
    registry::builtin_rules()
        .find(|(_, rule)| {
            globset::Glob::new(rule.glob)
                .expect("valid")
                .compile_matcher()
                .is_match(name)
        })
        .map(|(h, _)| h)
        .unwrap_or_else(|| panic!("no built-in rule maps {name}"))
}

fn words(command: Vec<OsString>) -> Vec<String> {
    command
        .into_iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect()
}

/// The rule's command for `file`, shaped by a `#!` line as its harness shapes it.
fn apply(command: &[&str], text: &str) -> Vec<String> {
    let file = command.last().expect("a file");
    let command = command.iter().map(OsString::from).collect();
    words(of(file).by_line(command, &line(text)))
}

#[test]
fn each_harness_reads_its_own_line() {
    let perl = ["perl", "t/a.t"];
    assert_eq!(
        apply(&perl, "/usr/bin/env perl -T"),
        ["perl", "-T", "t/a.t"]
    );
    assert_eq!(apply(&perl, "perl -wT -l"), ["perl", "-w", "-T", "t/a.t"]);
    assert_eq!(
        apply(&perl, "/usr/bin/perl5.36.0 -t"),
        ["perl", "-t", "t/a.t"]
    );
    assert_eq!(apply(&perl, "/usr/bin/perl"), perl);

    let py = ["python3", "test_a.py"];
    assert_eq!(
        apply(&py, "/usr/bin/env python3 -u -W error"),
        ["python3", "-u", "-W", "error", "test_a.py"]
    );
    assert_eq!(
        apply(&py, "/usr/bin/python -B"),
        ["python3", "-B", "test_a.py"]
    );
    assert_eq!(apply(&py, "/bin/sh -e"), py, "not python's line");

    let node = ["node", "a.mjs"];
    assert_eq!(
        apply(&node, "/usr/bin/env -S node --expose-gc"),
        ["node", "--expose-gc", "a.mjs"]
    );
    assert_eq!(apply(&node, "/usr/bin/env deno run"), node);
    assert_eq!(
        apply(&["tsx", "a.ts"], "/usr/bin/env -S tsx --no-warnings"),
        ["tsx", "--no-warnings", "a.ts"]
    );

    let sh = ["sh", "a.sh"];
    assert_eq!(apply(&sh, "/bin/bash -eu"), ["/bin/bash", "-eu", "a.sh"]);
    assert_eq!(apply(&sh, "/usr/bin/env zsh"), ["zsh", "a.sh"]);
    assert_eq!(apply(&sh, "/usr/bin/python3"), sh, "not a shell");

    let bats = ["bats", "--tap", "a.bats"];
    assert_eq!(apply(&bats, "/usr/bin/env bats -x"), bats);
}

#[test]
fn user_perl_commands_get_the_switches_perl_insists_on() {
    let switches = |command: &[&str]| {
        words(registry::user_command(
            command.iter().map(OsString::from).collect(),
            &line("perl -T"),
        ))
    };
    assert_eq!(
        switches(&["perl", "-Ilib", "t/a.t"]),
        ["perl", "-T", "-Ilib", "t/a.t"]
    );
    assert_eq!(
        switches(&["/opt/perl/bin/perl", "t/a.t"]),
        ["/opt/perl/bin/perl", "-T", "t/a.t"]
    );
    assert_eq!(switches(&["sh", "-c", "x"]), ["sh", "-c", "x"]);
}

/// The built-in rules keep their order (the first that matches wins) and each harness its
/// name: a cache key or a `--list` line must not change with the move into rooms.
#[test]
fn the_rules_in_their_order() {
    let rules: Vec<(&str, &str)> = registry::builtin_rules()
        .map(|(h, rule)| (h.id(), rule.glob))
        .collect();
    assert_eq!(
        rules,
        [
            ("prove", "*.{t,pl}"),
            ("prove", "*.t2"),
            ("python", "*.py"),
            ("node", "*.{js,mjs,cjs}"),
            ("typescript", "*.ts"),
            ("sh", "*.sh"),
            ("bats", "*.bats"),
            ("busted", "*.lua"),
            ("pgtap", "*.{pg,sql}"),
        ]
    );
    let mut ids: Vec<&str> = HARNESSES.iter().map(|h| h.id()).collect();
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count, "each harness once");
    assert!(HARNESSES
        .iter()
        .all(|h| registry::harness(h.id()).is_some_and(|found| found.id() == h.id())));
}

#[test]
fn a_name_alone_says_whose_test_it_is() {
    let whose = |name: &str| -> Vec<&str> {
        HARNESSES
            .iter()
            .filter(|h| h.is_test_name(name))
            .map(|h| h.id())
            .collect()
    };
    assert_eq!(whose("test_a.py"), ["python"]);
    assert_eq!(whose("a_test.py"), ["python"]);
    assert!(whose("helpers.py").is_empty());
    assert_eq!(whose("a.bats"), ["bats"]);
    assert_eq!(whose("a.test.js"), ["node"]);
    assert_eq!(whose("test.ts"), ["typescript"]);
    assert!(
        whose("test-lib.sh").is_empty(),
        "a shell library is no test"
    );
    assert!(whose("a.pl").is_empty());
}

/// A retry of only the failed tests (run/test_filter's `Refilter`) puts each room's filter on
/// the unfiltered command: node's name pattern after the program, pytest's node IDs in place
/// of the file.
#[test]
fn a_rooms_filter_narrows_a_retry_to_the_named_tests() {
    let os = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut node = os(&["/usr/bin/node", "test/a.test.mjs"]);
    super::node::NODE_TEST_FILTER.narrow(&mut node, &[], &[path(&["math", "flaky"])]);
    assert_eq!(
        node,
        os(&[
            "/usr/bin/node",
            "--test-name-pattern=^(flaky)$",
            "test/a.test.mjs"
        ])
    );
    let mut py = os(&["pytest", "-p", "tapline_pytest", "t/test_a.py"]);
    super::python::PYTEST_FILE_FILTER.narrow(
        &mut py,
        &[],
        &[path(&["TestBox::test_open"]), path(&["test_x[1]"])],
    );
    assert_eq!(
        py,
        os(&[
            "pytest",
            "-p",
            "tapline_pytest",
            "t/test_a.py::TestBox::test_open",
            "t/test_a.py::test_x[1]"
        ])
    );
}
