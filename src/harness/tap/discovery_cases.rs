//! The tap room seen through discovery ([`crate::harness::discovery_cases`]): its saved
//! snapshots, its own configuration's excludes, tap in a test script.
use crate::harness::discovery_cases::{place, Case, DeclaredCase, Expect, Run, ScriptCase};
use crate::harness::follow::{Only, Through};

pub(crate) static PROJECTS: &[Case] = &[
    Case {
        why: "node-tap's saved snapshots are named as tests (`*.test.cjs`) but tap never runs them",
        files: &[
            ("package.json", r#"{"scripts": {"test": "tap"}}"#),
            ("test/bin/semver.js", ""),
            ("tap-snapshots/test/bin/semver.js.test.cjs", ""),
        ],
        runs: &[
            Run {
                why: "no PATH",
                expect: &[Expect::Files(&["test/bin/semver.js"])],
                ..Run::BARE
            },
            Run {
                why: "nor in a walk",
                args: &["."],
                expect: &[Expect::Files(&["test/bin/semver.js"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "what tap's own configuration excludes does not run when the run follows tap",
        files: &[
            (
                "package.json",
                r#"{"scripts": {"test": "tap"}, "tap": {"exclude": ["test/slow/**"]}}"#,
            ),
            ("test/a.test.js", ""),
            ("test/slow/b.test.js", ""),
        ],
        runs: &[
            Run {
                why: "no PATH",
                expect: &[
                    Expect::Files(&["test/a.test.js"]),
                    Expect::PassedOverHas(&[("test/slow/b.test.js", "")]),
                ],
                ..Run::BARE
            },
            Run {
                why: "a folder named runs what it holds",
                args: &["test"],
                expect: &[Expect::Files(&["test/a.test.js", "test/slow/b.test.js"])],
                ..Run::BARE
            },
        ],
    },
];

pub(crate) static DECLARED: &[DeclaredCase] = &[DeclaredCase {
    scripts: r#""test": "tap""#,
    source: None,
    one_at_a_time: None,
}];

pub(crate) fn scripts() -> Vec<ScriptCase> {
    vec![ScriptCase {
        why: "tap runs its own files where it can list them, else tap 18's naming walks",
        test: "c8 --reporter=lcov tap",
        others: &[],
        places: vec![Through::place_or(
            "tap",
            &["tap".to_owned()],
            vec![place("", true, Only::Js { ts: true })],
        )],
    }]
}
