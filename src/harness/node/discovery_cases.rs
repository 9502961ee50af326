//! The node room seen through discovery ([`crate::harness::discovery_cases`]): tape and
//! node's runner in a test script, TypeScript test names and the project's runner.
use crate::harness::discovery_cases::{place, Case, Config, DeclaredCase, Expect, Run, ScriptCase};
use crate::harness::follow::Only;

pub(crate) static PROJECTS: &[Case] = &[
    Case {
        why: "`package.json` declaring its tests wins over the default folders",
        files: &[
            (
                "package.json",
                r#"{"scripts": {"test": "npm run lint && npm run unit", "lint": "eslint .", "unit": "tape 'test/*.js' | tap-spec"}}"#,
            ),
            ("test/index.js", ""),
            ("test/data.js", ""),
            ("test/browser/dom.js", ""),
            ("tests/other.test.js", ""),
        ],
        runs: &[
            Run {
                why: "the command as the script that runs it writes it; tape: one process, no files to wait on",
                expect: &[
                    Expect::Files(&["test/data.js", "test/index.js"]),
                    Expect::Declared(Some(
                        "package.json scripts.unit (`tape 'test/*.js' | tap-spec`)",
                    )),
                    Expect::OneAtATime(None),
                ],
                ..Run::BARE
            },
            Run {
                why: "tapline.toml's test_dirs win over package.json",
                config: Config {
                    test_dirs: Some(&["tests"]),
                    ..Config::NONE
                },
                expect: &[Expect::Files(&["tests/other.test.js"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "node's own patterns from the cwd",
        files: &[
            ("package.json", r#"{"scripts": {"test": "node --test"}}"#),
            ("src/a.test.mjs", ""),
            ("src/util.js", ""),
            ("test/helper.js", ""),
            ("node_modules/x/a.test.js", ""),
        ],
        runs: &[Run {
            why: "no PATH",
            expect: &[Expect::Files(&["src/a.test.mjs", "test/helper.js"])],
            ..Run::BARE
        }],
    },
    Case {
        why: "a declared command that names no file tapline can run",
        files: &[
            ("package.json", r#"{"scripts": {"test": "tape 'spec/*.js'"}}"#),
            ("test/a.test.js", ""),
        ],
        runs: &[Run {
            why: "no PATH",
            expect: &[Expect::Error(
                "failed to find test files: package.json scripts.test (`tape 'spec/*.js'`) names no file tapline can run; name a folder or file",
            )],
            ..Run::BARE
        }],
    },
    Case {
        why: "TypeScript as tstest names its tests, run with the project's own runner",
        files: &[
            ("test/test.basic.ts", ""),
            ("test/math.test.ts", ""),
            ("test/test.deno.ts", ""),
            ("test/helpers.ts", ""),
            ("node_modules/.bin/tsrun*", "#!/bin/sh\n"),
        ],
        runs: &[
            Run {
                // (A `test.browser.ts` runs as a page: the page host's cases.)
                why: "tstest's runner",
                expect: &[Expect::Programs(&[
                    ("test/math.test.ts", "{dir}/node_modules/.bin/tsrun"),
                    ("test/test.basic.ts", "{dir}/node_modules/.bin/tsrun"),
                ])],
                ..Run::BARE
            },
            Run {
                why: "tsx first",
                write: &[("node_modules/.bin/tsx*", "#!/bin/sh\n")],
                args: &["test/helpers.ts"],
                expect: &[Expect::Programs(&[(
                    "test/helpers.ts",
                    "{dir}/node_modules/.bin/tsx",
                )])],
                ..Run::BARE
            },
            Run {
                why: "the configured runner",
                args: &["test/helpers.ts"],
                config: Config {
                    ts_runner: Some(&["sh", "-c", "x"]),
                    ..Config::NONE
                },
                expect: &[Expect::Commands(&[(
                    "test/helpers.ts",
                    "sh -c x test/helpers.ts",
                )])],
                ..Run::BARE
            },
        ],
    },
];

pub(crate) static DECLARED: &[DeclaredCase] = &[DeclaredCase {
    scripts: r#""test": "npm run --silent tests-only", "tests-only": "tape 'test/*.js'""#,
    source: Some("package.json scripts.tests-only (`tape 'test/*.js'`)"),
    one_at_a_time: None,
}];

pub(crate) fn scripts() -> Vec<ScriptCase> {
    vec![
        ScriptCase {
            why: "tape's glob, piped to a reporter",
            test: "tape 'test/*.js' | tap-spec",
            others: &[],
            places: vec![place("test/", true, Only::Glob("test/*.js".into()))],
        },
        ScriptCase {
            why: "tape's files and globs, a required module no place",
            test: "tape -r ./setup.js test/index.js ./test/**/*.js",
            others: &[],
            places: vec![
                place("test/index.js", true, Only::Js { ts: false }),
                place("test/", true, Only::Glob("test/**/*.js".into())),
            ],
        },
        ScriptCase {
            why: "node's runner with no PATH: its own patterns from the cwd",
            test: "node --test",
            others: &[],
            places: vec![place("", true, Only::Js { ts: false })],
        },
        ScriptCase {
            why: "node's runner after a variable and a preload",
            test: "NODE_ENV=test node --import ./x.mjs --test spec/",
            others: &[],
            places: vec![place("spec", true, Only::Js { ts: false })],
        },
        ScriptCase {
            why: "an option's value is no path",
            test: "node --test --test-reporter spec --test-reporter-destination=stdout",
            others: &[],
            places: vec![place("", true, Only::Js { ts: false })],
        },
        ScriptCase {
            why: "scripts calling scripts: a linter says nothing",
            test: "npm run lint && npm run test:unit",
            others: &[
                ("lint", "eslint ."),
                ("test:unit", "node --test 'spec/**/*.spec.mjs'"),
            ],
            places: vec![place(
                "spec/",
                true,
                Only::Glob("spec/**/*.spec.mjs".into()),
            )],
        },
        ScriptCase {
            why: "resolve's own: `npm run --silent tests-only`, options before a script's name",
            test: "npm run --silent tests-only",
            others: &[("tests-only", "tape test/*.js")],
            places: vec![place("test/", true, Only::Glob("test/*.js".into()))],
        },
    ]
}
