//! The python room seen through discovery ([`crate::harness::discovery_cases`]): which Python
//! test files run under the project's pytest, and a pytest project's own walk.
use crate::harness::discovery_cases::{Case, Expect, Run};

/// The project's venv python, standing in for one with pytest: it answers the question
/// whether it has pytest (`-c …`: yes), and its `--collect-only` session holds every file named
/// as pytest names tests, from the cwd down, past the venv and `build/`, as pytest's default
/// `norecursedirs` does.
const STAND_IN: &str = "#!/bin/sh\n\
case \"$*\" in *--collect-only*)\n\
  find . -name .venv -prune -o -name build -prune -o -name env -prune -o \\( -name 'test_*.py' -o -name '*_test.py' \\) -print |\n\
  sed \"s|^\\./|\u{27e6}tapline-file\u{27e7} $PWD/|\"\n\
  echo \"\u{27e6}tapline-files-end\u{27e7}\";;\n\
esac\n";

pub(crate) static PROJECTS: &[Case] = &[
    Case {
        why: "issue 25: Python test files written for pytest (or unittest) run under pytest, the project's venv's python first (`-m pytest`), with tapline's plugin; a script printing its own TAP runs with python3; in a pytest project every Python test file is pytest's",
        files: &[
            ("tests/test_plain.py", "print('1..0')\n"),
            ("tests/test_pytest.py", "import pytest\n"),
            (
                "tests/test_unit.py",
                "import unittest\n\nclass T(unittest.TestCase):\n    pass\n",
            ),
            (".venv/bin/python*", STAND_IN),
        ],
        runs: &[
            Run {
                why: "by what each file imports",
                expect: &[
                    Expect::Commands(&[
                        ("tests/test_plain.py", "python3 tests/test_plain.py"),
                        (
                            "tests/test_pytest.py",
                            "{dir}/.venv/bin/python -m pytest -p tapline_pytest tests/test_pytest.py",
                        ),
                        (
                            "tests/test_unit.py",
                            "{dir}/.venv/bin/python -m pytest -p tapline_pytest tests/test_unit.py",
                        ),
                    ]),
                    Expect::Harnesses(&[
                        ("tests/test_plain.py", Some("python")),
                        ("tests/test_pytest.py", Some("pytest")),
                        ("tests/test_unit.py", Some("pytest")),
                    ]),
                ],
                ..Run::BARE
            },
            Run {
                why: "a pytest project's test files are all pytest's",
                write: &[("pytest.ini", "[pytest]\n")],
                expect: &[
                    Expect::CommandsOf(&[(
                        "tests/test_plain.py",
                        "{dir}/.venv/bin/python -m pytest -p tapline_pytest tests/test_plain.py",
                    )]),
                    Expect::Harnesses(&[
                        ("tests/test_plain.py", Some("pytest")),
                        ("tests/test_pytest.py", Some("pytest")),
                        ("tests/test_unit.py", Some("pytest")),
                    ]),
                ],
                ..Run::BARE
            },
            Run {
                why: "--exec runs its own command",
                args: &["tests"],
                exec: Some("python3 {}"),
                expect: &[Expect::Harnesses(&[
                    ("tests/test_plain.py", None),
                    ("tests/test_pytest.py", None),
                    ("tests/test_unit.py", None),
                ])],
                ..Run::BARE
            },
        ],
    },
    Case {
        why: "issue 25: a pytest project with no test folder has its tests where pytest looks with no argument: from the cwd down, past a virtual environment and pytest's other skipped folders",
        files: &[
            ("pytest.ini", "[pytest]\n"),
            (".venv/bin/python*", STAND_IN),
            ("test_top.py", "def test_a():\n    pass\n"),
            ("pkg/sub/thing_test.py", ""),
            ("pkg/helpers.py", ""),
            ("env/pyvenv.cfg", ""),
            ("env/lib/test_vendored.py", ""),
            ("build/test_built.py", ""),
            ("scripts/run.sh", ""),
        ],
        runs: &[
            Run {
                why: "pytest's walk",
                expect: &[
                    Expect::Files(&["pkg/sub/thing_test.py", "test_top.py"]),
                    Expect::Harnesses(&[
                        ("pkg/sub/thing_test.py", Some("pytest")),
                        ("test_top.py", Some("pytest")),
                    ]),
                ],
                ..Run::BARE
            },
            Run {
                why: "no test file left",
                remove: &["test_top.py", "pkg/sub/thing_test.py"],
                expect: &[Expect::Error(
                    "failed to find test files: this pytest project has no test folder (`test/`, `tests/`, `t/`) and no test_*.py or *_test.py file pytest would collect",
                )],
                ..Run::BARE
            },
        ],
    },
];
