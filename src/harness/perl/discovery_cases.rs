//! The perl room seen through discovery ([`crate::harness::discovery_cases`]): a Perl
//! distribution's `t/`, a folder of `*.t` tests, prove in a test script.
use crate::harness::discovery_cases::{
    place, Case, Config, DeclaredCase, Expect, Rule, Run, ScriptCase,
};
use crate::harness::follow::Only;

pub(crate) static PROJECTS: &[Case] = &[
    Case {
        why: "a Perl distribution walks `t/` for `*.t` only: no JavaScript asset, no executable",
        files: &[
            ("Makefile.PL", ""),
            ("t/basic.t", ""),
            ("t/deep/more.t", ""),
            ("t/static/app.js", ""),
            ("t/static/test.js", ""),
            ("t/lib/Helper.pm", ""),
            ("t/run-me*", ""),
            ("test/other.t", ""),
        ],
        runs: &[
            Run {
                why: "MakeMaker's make test, with no TESTS, runs t/*.t",
                expect: &[
                    Expect::Files(&["t/basic.t"]),
                    Expect::PassedOverHas(&[("t/static/test.js", ""), ("t/deep/more.t", "unrun")]),
                ],
                ..Run::BARE
            },
            Run {
                why: "named, all of it",
                args: &["t"],
                expect: &[Expect::Files(&["t/basic.t", "t/deep/more.t"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "what a distribution's own build file says its tests are",
        files: &[("t/basic.t", ""), ("t/deep/more.t", "")],
        runs: &[
            Run {
                why: "Makefile.PL: TESTS of both levels",
                write: &[("Makefile.PL", "WriteMakefile(test => {TESTS => 't/*.t t/*/*.t'});")],
                expect: &[Expect::Files(&["t/basic.t", "t/deep/more.t"])],
                ..Run::BARE
            },
            Run {
                why: "Makefile.PL: TESTS of t/*.t",
                write: &[("Makefile.PL", "WriteMakefile(test => { TESTS => \"t/*.t\" });")],
                expect: &[Expect::Files(&["t/basic.t"])],
                ..Run::BARE
            },
            Run {
                why: "Makefile.PL: TESTS unread",
                write: &[("Makefile.PL", "WriteMakefile(test => {TESTS => $tests});")],
                expect: &[Expect::Files(&["t/basic.t", "t/deep/more.t"])],
                ..Run::BARE
            },
            Run {
                why: "Makefile.PL: RECURSIVE_TEST_FILES",
                write: &[("Makefile.PL", "WriteMakefile(test => {RECURSIVE_TEST_FILES => 1});")],
                expect: &[Expect::Files(&["t/basic.t", "t/deep/more.t"])],
                ..Run::BARE
            },
            Run {
                why: "Build.PL of Module::Build::Tiny",
                remove: &["Makefile.PL"],
                write: &[("Build.PL", "use Module::Build::Tiny;\nBuild_PL();")],
                expect: &[Expect::Files(&["t/basic.t", "t/deep/more.t"])],
                ..Run::BARE
            },
            Run {
                why: "Build.PL of Module::Build",
                write: &[("Build.PL", "Module::Build->new(module_name => 'X')->create_build_script;")],
                expect: &[Expect::Files(&["t/basic.t"])],
                ..Run::BARE
            },
            Run {
                why: "dist.ini",
                remove: &["Build.PL"],
                write: &[("dist.ini", "name = X")],
                expect: &[Expect::Files(&["t/basic.t", "t/deep/more.t"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "a folder of `*.t` tests is read as prove reads it: `*.t` only, `t/*.t` alone in a run with no PATH (prove without `-r`), every `*.t` below a folder named",
        files: &[
            ("t/t0000-basic.t*", ""),
            ("t/t0001-more.t", ""),
            ("t/lib.sh*", ""),
            ("t/aggregate-results.sh", ""),
            ("t/test-terminal.perl*", ""),
            ("t/sub/deeper.t", ""),
            ("t/Makefile", ""),
            ("test/a.t", ""),
            ("test/b.test.js", ""),
            ("test/c.sh", ""),
            ("test/run*", ""),
        ],
        runs: &[
            Run {
                why: "test/ holds a test of node's too: not a folder of *.t tests",
                expect: &[
                    Expect::Files(&[
                        "t/t0000-basic.t",
                        "t/t0001-more.t",
                        "test/a.t",
                        "test/b.test.js",
                        "test/c.sh",
                    ]),
                    Expect::PassedOver(&[
                        ("t/Makefile", "not a test"),
                        ("t/aggregate-results.sh", "helper"),
                        ("t/lib.sh", "helper"),
                        ("t/sub/deeper.t", "unrun"),
                        ("t/test-terminal.perl", "helper"),
                        ("test/run", "executable"),
                    ]),
                    Expect::PassedOverNotes(
                        "t/aggregate-results.sh: passed over: a helper beside *.t tests (prove runs *.t only)",
                        "not tests (1 file): t/Makefile",
                    ),
                ],
                ..Run::BARE
            },
            Run {
                why: "a folder named is walked down",
                args: &["t"],
                expect: &[Expect::Files(&[
                    "t/sub/deeper.t",
                    "t/t0000-basic.t",
                    "t/t0001-more.t",
                ])],
                ..Run::BARE
            },
            Run {
                why: "your globs still take",
                args: &["t"],
                config: Config {
                    runners: &[Rule {
                        glob: "t/*.sh",
                        command: &["sh", "{}"],
                        page: false,
                    }],
                    ..Config::NONE
                },
                expect: &[Expect::FilesHas(&["t/lib.sh"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "a yath project runs t/ and t2/ as yath does",
        files: &[
            ("Makefile.PL", ""),
            (".yath.rc", "[test]\n-I t/inc\n-P My::Preload\n"),
            ("t/a.t", ""),
            ("t/deep/b.t", ""),
            ("t/inc/My/Preload.pm", ""),
            ("t2/c.t2", ""),
        ],
        runs: &[Run {
            why: "recursively, *.t2 too, each by perl with .yath.rc's [test] options",
            expect: &[
                Expect::Files(&["t/a.t", "t/deep/b.t", "t2/c.t2"]),
                Expect::CommandsOf(&[("t2/c.t2", "perl -It/inc -mMy::Preload t2/c.t2")]),
            ],
            ..Run::BARE
        }],
    },
    Case {
        why: "a *.t2 outside a yath project is no test of prove's",
        files: &[("Makefile.PL", ""), ("t/a.t", ""), ("t/b.t2", "")],
        runs: &[Run {
            why: "make test runs t/*.t",
            expect: &[Expect::Files(&["t/a.t"])],
            ..Run::BARE
        }],
    },
];

pub(crate) static DECLARED: &[DeclaredCase] = &[
    DeclaredCase {
        scripts: r#""test": "prove -lrj4 t""#,
        source: None,
        one_at_a_time: None,
    },
    DeclaredCase {
        scripts: r#""test": "prove -Ilib/j -r t""#,
        source: None,
        one_at_a_time: Some("prove runs files one at a time"),
    },
];

pub(crate) fn scripts() -> Vec<ScriptCase> {
    vec![
        ScriptCase {
            why: "prove's folders, into subfolders with -r",
            test: "prove -lr t xt",
            others: &[],
            places: vec![
                place("t", true, Only::Names(&["*.t"])),
                place("xt", true, Only::Names(&["*.t"])),
            ],
        },
        ScriptCase {
            why: "prove with no folder: t/, an option's value no folder",
            test: "prove -I lib",
            others: &[],
            places: vec![place("t", false, Only::Names(&["*.t"]))],
        },
    ]
}

/// A Perl distribution's `make test` runs files one at a time, whatever their programs.
#[test]
fn a_distribution_runs_one_file_at_a_time() {
    let dist = tempfile::tempdir().expect("temp dir");
    for marker in ["Makefile.PL", "dist.ini"] {
        std::fs::write(dist.path().join(marker), "").expect("write");
    }
    let perl = [Some("perl".to_owned())];
    assert_eq!(
        crate::harness::registry::one_at_a_time(dist.path(), &perl).as_deref(),
        Some("a Perl distribution's `make test` runs files one at a time")
    );
}
