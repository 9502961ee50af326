//! What each harness's files look like to discovery, as data: the projects (files → what a
//! run finds) and the test scripts (a `package.json`'s scripts → the places followed) that
//! pin a room's behaviour seen through the generic discovery. The rooms hold their own cases
//! (`<room>/discovery_cases.rs`); the cases that mix several rooms' files are here. The
//! discovery's tests (`run/discover/tests.rs`, `run/discover/project.rs`) run every case,
//! so they name no harness; a room cannot run them itself (it sits below the runner).
use super::follow::Place;

/// A project, and the runs discovery is asked for in it, in order.
pub(crate) struct Case {
    /// What it pins, shown when it fails.
    pub why: &'static str,
    /// Its files with their text (`.git` and a `.gitignore` of `ignored/` come with it); a
    /// trailing `*` on a name marks an executable.
    pub files: &'static [(&'static str, &'static str)],
    pub runs: &'static [Run],
}

/// One run of discovery in a case's project, after its changes to the files.
pub(crate) struct Run {
    /// What it pins, shown when it fails.
    pub why: &'static str,
    /// Files written (or rewritten) before the run, as [`Case::files`].
    pub write: &'static [(&'static str, &'static str)],
    /// Files removed before the run.
    pub remove: &'static [&'static str],
    /// The PATHs named (none: the run follows the project).
    pub args: &'static [&'static str],
    pub config: Config,
    /// `--exec`'s command template.
    pub exec: Option<&'static str>,
    /// What the run finds (each checked alone).
    pub expect: &'static [Expect],
}

impl Run {
    /// A run with no PATH, no configuration and nothing checked: a base for `..`.
    pub const BARE: Run = Run {
        why: "",
        write: &[],
        remove: &[],
        args: &[],
        config: Config::NONE,
        exec: None,
        expect: &[],
    };
}

/// What a run's `tapline.toml` says.
pub(crate) struct Config {
    pub test_dirs: Option<&'static [&'static str]>,
    pub runners: &'static [Rule],
    /// `[run] browser`.
    pub browser: Option<&'static str>,
    /// `[run] ts_runner`.
    pub ts_runner: Option<&'static [&'static str]>,
}

impl Config {
    pub const NONE: Config = Config {
        test_dirs: None,
        runners: &[],
        browser: None,
        ts_runner: None,
    };
}

impl Config {
    /// Whether the run's environment names the page host's browser, which wins over a
    /// case's [`Config::browser`]: such a case cannot be run here.
    pub fn browser_overridden(&self) -> bool {
        self.browser.is_some() && std::env::var_os("TAPLINE_CHROMIUM").is_some()
    }
}

/// A `[[runner]]` rule.
pub(crate) struct Rule {
    pub glob: &'static str,
    pub command: &'static [&'static str],
    /// Its files run as pages (`runtime` names the page host).
    pub page: bool,
}

/// What a run finds, one check each.
pub(crate) enum Expect {
    /// The files that run, by name, in order.
    Files(&'static [&'static str]),
    /// The files' commands (name, words joined by spaces), in order, all of them. `{dir}` stands
    /// for the project's folder; a program named without a `/` that is not installed shows as
    /// `missing PROGRAM`.
    Commands(&'static [(&'static str, &'static str)]),
    /// The commands of the files named (name, words joined by spaces), as [`Expect::Commands`].
    CommandsOf(&'static [(&'static str, &'static str)]),
    /// The last word of the named files' commands (name, word).
    LastWords(&'static [(&'static str, &'static str)]),
    /// Each file's program, installed or not (name, program), in order, all of them.
    Programs(&'static [(&'static str, &'static str)]),
    /// The files passed over with their reason's kind (`not a test`, `executable`, `helper`,
    /// `unrun`, `excluded`), in order, all of them.
    PassedOver(&'static [(&'static str, &'static str)]),
    /// Files among those passed over, each with its reason's kind (`""`: any).
    PassedOverHas(&'static [(&'static str, &'static str)]),
    /// Files among those that run.
    FilesHas(&'static [&'static str]),
    /// `--list`'s notes on the files passed over (first, last).
    PassedOverNotes(&'static str, &'static str),
    /// The project's test command the run followed.
    Declared(Option<&'static str>),
    /// Why the run goes one file at a time.
    OneAtATime(Option<&'static str>),
    /// Each file's judgement when it prints no TAP (name, `fails`, `no subtests`,
    /// `no tests`), in order, all of them.
    Silent(&'static [(&'static str, &'static str)]),
    /// Each file's harness (name, id), in order, all of them.
    Harnesses(&'static [(&'static str, Option<&'static str>)]),
    /// The files that run as pages, by name, in order (the others run as processes).
    Pages(&'static [&'static str]),
    /// The run fails with this message.
    Error(&'static str),
    /// The run's files cannot start, each `why` holding these words.
    Missing(&'static [&'static str]),
}

/// A project's test scripts and the places following them gives.
pub(crate) struct ScriptCase {
    pub why: &'static str,
    /// `scripts.test`'s line.
    pub test: &'static str,
    /// The other scripts (name, line).
    pub others: &'static [(&'static str, &'static str)],
    pub places: Vec<Place>,
}

/// A project's `package.json` scripts and what discovery declares of them.
pub(crate) struct DeclaredCase {
    /// The `scripts` object's inside, as JSON.
    pub scripts: &'static str,
    /// Where the places were read (`None`: not checked).
    pub source: Option<&'static str>,
    /// Why the run goes one file at a time.
    pub one_at_a_time: Option<&'static str>,
}

/// A place from the cwd (`recursive`: into subfolders) whose files `only` says.
pub(crate) fn place(path: &str, recursive: bool, only: super::follow::Only) -> Place {
    Place {
        path: path.into(),
        recursive,
        only,
    }
}

/// Every room's project cases, and those that mix rooms.
pub(crate) fn projects() -> impl Iterator<Item = &'static Case> {
    [
        MIXED,
        super::perl::discovery_cases::PROJECTS,
        super::python::discovery_cases::PROJECTS,
        super::node::discovery_cases::PROJECTS,
        super::bats::discovery_cases::PROJECTS,
        super::busted::discovery_cases::PROJECTS,
        super::pgtap::discovery_cases::PROJECTS,
        super::tap::discovery_cases::PROJECTS,
        super::browser::discovery_cases::PROJECTS,
    ]
    .into_iter()
    .flatten()
}

/// Every room's script cases, and those that mix rooms.
pub(crate) fn scripts() -> Vec<ScriptCase> {
    let mut cases = mixed_scripts();
    cases.extend(super::perl::discovery_cases::scripts());
    cases.extend(super::node::discovery_cases::scripts());
    cases.extend(super::bats::discovery_cases::scripts());
    cases.extend(super::pgtap::discovery_cases::scripts());
    cases.extend(super::tap::discovery_cases::scripts());
    cases.extend(super::mocha::discovery_cases::scripts());
    cases
}

/// Every room's declared cases, and those that mix rooms.
pub(crate) fn declared() -> impl Iterator<Item = &'static DeclaredCase> {
    [
        MIXED_DECLARED,
        super::perl::discovery_cases::DECLARED,
        super::node::discovery_cases::DECLARED,
        super::bats::discovery_cases::DECLARED,
        super::tap::discovery_cases::DECLARED,
    ]
    .into_iter()
    .flatten()
}

// --- the cases that mix rooms ---

/// The names a walk takes by the built-in rules, in the registry's order.
pub(crate) const WALK_GLOBS: &str =
    "*.t *.t2 test*.py *_test.py *.{js,mjs,cjs} test*.ts *.test.ts *.test.*.ts *.sh *.bats *_spec.lua *.{pg,sql}";

static MIXED: &[Case] = &[
    Case {
        why: "a walk of the default folders takes each language's test names",
        files: &[
            ("test/a.t", ""),
            ("test/b.test.ts", ""),
            ("test/helpers.ts", ""),
            ("test/c.sh", ""),
            ("test/sub/d.pl", ""),
            ("test/sub/e.mjs", ""),
            ("test/helper.py", ""),
            ("test/test_x.py", ""),
            ("test/y_test.py", ""),
            ("test/README.md", ""),
            ("test/run-me*", ""),
            ("test/node_modules/m.js", ""),
            ("test/.hidden/h.t", ""),
            ("test/ignored/i.t", ""),
            ("other/o.t", ""),
        ],
        runs: &[Run {
            why: "no helper: test/sub/d.pl, test/helper.py; nothing for being executable: test/run-me; no dependency folder",
            expect: &[
                Expect::Files(&[
                    "test/a.t",
                    "test/b.test.ts",
                    "test/c.sh",
                    "test/sub/e.mjs",
                    "test/test_x.py",
                    "test/y_test.py",
                ]),
                Expect::CommandsOf(&[
                    ("test/a.t", "perl test/a.t"),
                    ("test/c.sh", "sh test/c.sh"),
                    ("test/test_x.py", "python3 test/test_x.py"),
                ]),
                Expect::PassedOver(&[
                    ("test/README.md", "not a test"),
                    ("test/helper.py", "not a test"),
                    ("test/helpers.ts", "not a test"),
                    ("test/run-me", "executable"),
                    ("test/sub/d.pl", "not a test"),
                ]),
            ],
            ..Run::BARE
        }],
    },
    Case {
        why: "the built-in rules, by extension",
        files: &[
            ("t/a.t", ""),
            ("t/a.pl", ""),
            ("t/test_a.py", ""),
            ("t/a.js", ""),
            ("t/a.mjs", ""),
            ("t/a.cjs", ""),
            ("t/test_a.ts", ""),
            ("t/a.sh", ""),
            ("t/a.bats", ""),
            ("t/a.rb", ""),
        ],
        runs: &[
            Run {
                why: "a folder named",
                args: &["t"],
                expect: &[
                    Expect::Programs(&[
                        ("t/a.bats", "bats"),
                        ("t/a.cjs", "node"),
                        ("t/a.js", "node"),
                        ("t/a.mjs", "node"),
                        ("t/a.sh", "sh"),
                        ("t/a.t", "perl"),
                        ("t/test_a.py", "python3"),
                        ("t/test_a.ts", "tsx"),
                    ]),
                    Expect::CommandsOf(&[("t/a.bats", "bats --tap t/a.bats")]),
                ],
                ..Run::BARE
            },
            Run {
                why: "a helper named explicitly runs",
                args: &["t/a.pl"],
                expect: &[Expect::Programs(&[("t/a.pl", "perl")])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "#! lines shape commands",
        files: &[
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
        ],
        runs: &[
            Run {
                why: "t/script, t/env-perl and t/binary are not named as tests (a walk runs nothing for being executable)",
                args: &["t"],
                expect: &[Expect::Commands(&[
                    ("t/b.bats", "bats --tap t/b.bats"),
                    ("t/b.sh", "/bin/bash -eu t/b.sh"),
                    ("t/gc.mjs", "node --expose-gc t/gc.mjs"),
                    ("t/none.t", "perl t/none.t"),
                    ("t/p.sh", "/bin/sh t/p.sh"),
                    ("t/plain.t", "perl t/plain.t"),
                    ("t/taint.t", "perl -T t/taint.t"),
                    ("t/test_u.py", "python3 -u -W error t/test_u.py"),
                    ("t/warn.t", "perl -w -T t/warn.t"),
                ])],
                ..Run::BARE
            },
            Run {
                why: "named, it runs by its #! line",
                args: &["t/script"],
                expect: &[Expect::Commands(&[("t/script", "/bin/sh t/script")])],
                ..Run::BARE
            },
            Run {
                why: "named, an executable runs directly, or by its #! line, words split",
                args: &["t/env-perl", "t/binary"],
                expect: &[Expect::Commands(&[
                    ("t/binary", "t/binary"),
                    ("t/env-perl", "perl -T -w t/env-perl"),
                ])],
                ..Run::BARE
            },
            Run {
                why: "perl insists on -T, even in the user's own rule; other commands of the user's stay as written",
                args: &["t/taint.t", "t/test_u.py"],
                config: Config {
                    runners: &[
                        Rule {
                            glob: "*.t",
                            command: &["perl", "-Ilib", "{}"],
                            page: false,
                        },
                        Rule {
                            glob: "*.py",
                            command: &["python3", "-m", "pytest", "{}"],
                            page: false,
                        },
                    ],
                    ..Config::NONE
                },
                expect: &[Expect::Commands(&[
                    ("t/taint.t", "perl -T -Ilib t/taint.t"),
                    ("t/test_u.py", "python3 -m pytest t/test_u.py"),
                ])],
                ..Run::BARE
            },
            Run {
                why: "--exec is used as written",
                args: &["t/taint.t"],
                exec: Some("perl {}"),
                expect: &[Expect::Commands(&[("t/taint.t", "perl t/taint.t")])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "JavaScript as node and node-tap name it; fixture folders are never walked",
        files: &[
            ("t/static/app.js", ""),
            ("t/app.test.js", ""),
            ("test/helpers.js", ""),
            ("test/fixtures/bad.test.js", ""),
            ("test/__fixtures__/x.bats", ""),
            ("test/dist/a.test.js", ""),
            ("test/unit/a.bats", ""),
        ],
        runs: &[
            Run {
                why: "a helper in test/ is node's test too (and judged as one with no tests)",
                expect: &[Expect::Files(&[
                    "t/app.test.js",
                    "test/helpers.js",
                    "test/unit/a.bats",
                ])],
                ..Run::BARE
            },
            Run {
                why: "a folder named on the command line is a test folder",
                args: &["t"],
                expect: &[Expect::Files(&["t/app.test.js", "t/static/app.js"])],
                ..Run::BARE
            },
            Run {
                why: "a fixture folder named explicitly runs",
                args: &["test/fixtures"],
                expect: &[Expect::Files(&["test/fixtures/bad.test.js"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "how each file is judged when it prints no TAP",
        files: &[
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
        ],
        runs: &[Run {
            why: "by language",
            args: &["t"],
            expect: &[Expect::Silent(&[
                ("t/a.sh", "fails"),
                ("t/a.t", "no subtests"),
                ("t/a.test.js", "no tests"),
                ("t/test_main.py", "fails"),
                ("t/test_plain.py", "fails"),
                ("t/test_pytest.py", "fails"),
            ])],
            ..Run::BARE
        }],
    },
];

/// The source names the script with the runner command, as written; the run goes one file
/// at a time only when every runner command it followed does.
static MIXED_DECLARED: &[DeclaredCase] = &[
    DeclaredCase {
        scripts: r#""test": "prove -lr t && npm run b", "b": "bats e2e""#,
        source: None,
        one_at_a_time: Some("prove runs files one at a time"),
    },
    DeclaredCase {
        scripts: r#""test": "prove -lr -j9 t && bats e2e""#,
        source: None,
        // One parallel runner: the run keeps the cores.
        one_at_a_time: None,
    },
];

fn mixed_scripts() -> Vec<ScriptCase> {
    use super::follow::Only;
    vec![ScriptCase {
        why: "scripts calling scripts, each runner's places in order",
        test: "pnpm run a; pnpm b",
        others: &[("a", "tstest test/"), ("b", "bats -r e2e")],
        places: vec![
            place("test/", true, Only::Ts),
            place("e2e", true, Only::Names(&["*.bats"])),
        ],
    }]
}
