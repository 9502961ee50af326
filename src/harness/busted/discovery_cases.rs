//! The busted room seen through discovery ([`crate::harness::discovery_cases`]): a project that
//! runs busted, its `.busted` selection, and its files one at a time.
use crate::harness::discovery_cases::{Case, Expect, Run};

pub(crate) static PROJECTS: &[Case] = &[
    Case {
        why: "a .busted project: busted's defaults (spec/, _spec), each file through busted's TAP",
        files: &[
            (".busted", "return { default = { verbose = true } }\n"),
            ("spec/a_spec.lua", ""),
            ("spec/deep/b_spec.lua", ""),
            ("spec/helper.lua", ""),
            ("src/m.lua", ""),
        ],
        runs: &[
            Run {
                why: "a bare run takes busted's selection, one file at a time",
                expect: &[
                    Expect::Files(&["spec/a_spec.lua", "spec/deep/b_spec.lua"]),
                    Expect::CommandsOf(&[("spec/a_spec.lua", "busted -o TAP spec/a_spec.lua")]),
                    Expect::OneAtATime(Some("busted runs files one at a time")),
                ],
                ..Run::BARE
            },
            Run {
                why: "a walk of spec/ takes the _spec files, not the helper",
                args: &["spec"],
                expect: &[Expect::Files(&["spec/a_spec.lua", "spec/deep/b_spec.lua"])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: ".busted's ROOT and pattern say which files run",
        files: &[
            (
                ".busted",
                "return {\n  default = {\n    ROOT = {'tests'},\n    pattern = '_test%.lua$',\n  },\n}\n",
            ),
            ("tests/unit/x_test.lua", ""),
            ("tests/unit/helpers.lua", ""),
        ],
        runs: &[
            Run {
                why: "tests/ is walked by busted's pattern (no test/, tests/ or t/ rule takes them)",
                expect: &[Expect::Files(&["tests/unit/x_test.lua"])],
                ..Run::BARE
            },
            Run {
                why: "a folder under ROOT named: busted's pattern, not the walk's *_spec.lua",
                args: &["tests/unit"],
                expect: &[
                    Expect::Files(&["tests/unit/x_test.lua"]),
                    Expect::PassedOverHas(&[("tests/unit/helpers.lua", "not a test")]),
                ],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "a Makefile whose test recipe runs busted, no .busted",
        files: &[
            ("Makefile", "test:\n\tbusted\n"),
            ("spec/inspect_spec.lua", ""),
            ("spec/unindent.lua", ""),
        ],
        runs: &[Run {
            why: "busted's defaults",
            expect: &[Expect::Files(&["spec/inspect_spec.lua"])],
            ..Run::BARE
        }],
    },
    Case {
        why: "a spec/ folder of *_spec.lua files and nothing else (kikito/middleclass): busted's defaults",
        files: &[
            ("middleclass.lua", ""),
            ("spec/classes_spec.lua", ""),
            ("spec/metamethods_lua_5_3.lua", ""),
        ],
        runs: &[Run {
            why: "a bare run takes what a bare busted runs",
            expect: &[
                Expect::Files(&["spec/classes_spec.lua"]),
                Expect::CommandsOf(&[(
                    "spec/classes_spec.lua",
                    "busted -o TAP spec/classes_spec.lua",
                )]),
            ],
            ..Run::BARE
        }],
    },
];
