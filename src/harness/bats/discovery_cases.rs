//! The bats room seen through discovery ([`crate::harness::discovery_cases`]): bats in a
//! test script, and why its files run one at a time.
use crate::harness::discovery_cases::{place, Case, DeclaredCase, Expect, Run, ScriptCase};
use crate::harness::follow::Only;

pub(crate) static PROJECTS: &[Case] = &[Case {
    why: "a test script running bats",
    files: &[
        ("package.json", r#"{"scripts": {"test": "bats test"}}"#),
        ("test/a.bats", ""),
        ("test/deeper/b.bats", ""),
        ("test/helper.bash", ""),
    ],
    runs: &[Run {
        why: "bats does not recurse, and runs files one at a time",
        expect: &[
            Expect::Files(&["test/a.bats"]),
            Expect::OneAtATime(Some("bats runs files one at a time")),
        ],
        ..Run::BARE
    }],
}];

pub(crate) static DECLARED: &[DeclaredCase] = &[
    DeclaredCase {
        scripts: r#""test": "bats test""#,
        source: Some("package.json scripts.test (`bats test`)"),
        one_at_a_time: Some("bats runs files one at a time"),
    },
    DeclaredCase {
        scripts: r#""test": "bats -j 4 test""#,
        source: None,
        one_at_a_time: None,
    },
];

pub(crate) fn scripts() -> Vec<ScriptCase> {
    vec![
        ScriptCase {
            why: "bats's folder, not into subfolders",
            test: "bats test",
            others: &[],
            places: vec![place("test", false, Only::Names(&["*.bats"]))],
        },
        ScriptCase {
            why: "options before a script's name",
            test: "yarn -s unit",
            others: &[("unit", "bats test")],
            places: vec![place("test", false, Only::Names(&["*.bats"]))],
        },
    ]
}

/// A walk of bats files alone runs one at a time, as bats does; a mixed walk keeps the cores.
#[test]
fn a_walk_of_bats_files_alone_runs_one_at_a_time() {
    let none = tempfile::tempdir().expect("temp dir");
    let programs = |names: &[&str]| -> Vec<Option<String>> {
        names.iter().map(|&n| Some(n.to_owned())).collect()
    };
    let one_at_a_time =
        |names: &[&str]| crate::harness::registry::one_at_a_time(none.path(), &programs(names));
    assert_eq!(
        one_at_a_time(&["bats", "bats"]).as_deref(),
        Some("bats runs files one at a time")
    );
    assert_eq!(
        one_at_a_time(&["bats", "node"]),
        None,
        "a mixed walk keeps the cores"
    );
    assert_eq!(one_at_a_time(&[]), None);
}
