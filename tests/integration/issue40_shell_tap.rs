//! Issue 40, item 6: shell test libraries' `t/*.t` (sharness and git's `test-lib.sh` style:
//! `t/Makefile` runs `$(wildcard *.t)` from `t/`, each script sourcing `./lib.sh`) run as that
//! Makefile runs them: under the shell of their `#!`, from `t/`, their `*.t` only, with
//! `$TEST_OPTS`; in verbose mode (`-v`) each test's output, printed before its point, is that
//! test's, not the failure's before it (issue 41).
use crate::util::{file_doc, require, Project};
use serde_json::json;

/// A small library of the sharness kind: `test_expect_success NAME SCRIPT` runs SCRIPT in the
/// current folder, prints `ok`/`not ok` and, on failure, the script as `#` lines; with `-v`,
/// `expecting success: SCRIPT` and the script's output before the point.
const LIB: &str = r#"n=0; failed=0; verbose=
for a in "$@"; do case "$a" in -v) verbose=t ;; esac; done
test_expect_success () {
	n=$((n + 1))
	if test -n "$verbose"; then
		printf 'expecting success: %s\n\n' "$2"
		(eval "$2"); ret=$?
	else
		(eval "$2") >/dev/null 2>&1; ret=$?
	fi
	if test $ret = 0; then echo "ok $n - $1"; else
		echo "not ok $n - $1"; echo "$2" | sed 's/^/#	/'; failed=$((failed + 1)); fi
}
test_done () { echo "1..$n"; test $failed = 0; }
mkdir -p test-results
"#;

fn project() -> Project {
    let p = Project::new();
    p.write(
        "t/Makefile",
        "T = $(sort $(wildcard *.t))\ntest: $(T)\n$(T):\n\t'$(SHELL_PATH)' $@ $(TEST_OPTS)\n",
    );
    p.write("t/lib.sh", LIB);
    p.write("t/aggregate-results.sh", "echo aggregated\n");
    p.write(
        "t/test_helper.py",
        "raise SystemExit('a helper named like a test')\n",
    );
    p.write(
        "t/a.t",
        "#!/bin/sh\n. ./lib.sh\ntest_expect_success 'runs from t/' 'test -f lib.sh'\ntest_expect_success 'compares' 'printf \"a\\nb\\n\" >expected && printf \"a\\nc\\n\" >actual && diff -u expected actual'\ntest_expect_success 'compares again' 'echo x >expected && echo y >actual && diff -u expected actual'\ntest_expect_success 'passes' 'true'\ntest_done\n",
    );
    p.write(
        "t/b.t",
        "#!/usr/bin/env bash\n. ./lib.sh\ntest_expect_success 'bash arrays' 'a=(1 2); test ${#a[@]} = 2'\ntest_done\n",
    );
    p
}

#[test]
fn issue40_shell_tap_t_runs_as_its_makefile_runs_it() {
    if !require(
        "issue40_shell_tap_t_runs_as_its_makefile_runs_it",
        &["bash"],
    ) {
        return;
    }
    let p = project();
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed.stdout.contains("t/a.t\t/bin/sh a.t"),
        "{}",
        listed.both()
    );
    assert!(
        listed.stdout.contains("t/b.t\tbash b.t"),
        "{}",
        listed.both()
    );
    assert!(
        !listed.stdout.contains("test_helper.py"),
        "{}",
        listed.both()
    );
    assert!(
        !listed.stdout.contains("aggregate-results.sh\t"),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(2), "{doc:#}");
    let a = file_doc(&doc, "t/a.t");
    assert_eq!(
        a["tests"],
        json!({"pass": 2, "fail": 2, "skip": 0, "todo": 0})
    );
    let b = file_doc(&doc, "t/b.t");
    assert_eq!(b["ok"], true, "run by the bash of its #!: {b:#}");
    assert!(
        p.join("t/test-results").is_dir(),
        "its library writes where make runs it"
    );
    assert!(!p.join("test-results").exists());
}

#[test]
fn issue40_shell_tap_verbose_output_is_its_own_tests() {
    if !require(
        "issue40_shell_tap_verbose_output_is_its_own_tests",
        &["bash"],
    ) {
        return;
    }
    let p = project();
    let ran = p.run_env(
        &["--format", "summary", "t/a.t"],
        &[("TEST_OPTS", std::ffi::OsStr::new("-v"))],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let failures = file_doc(&doc, "t/a.t")["failures"].clone();
    // Its output and its `diff -u`, which is its diff (issue 41), both its own.
    let output = |k: usize| format!("{} {}", failures[k]["output"], failures[k]["diff"]);
    assert_eq!(failures[0]["path"], json!(["compares"]));
    assert!(output(0).contains("+ c"), "its own diff: {}", output(0));
    assert!(
        !output(0).contains("+ y") && !output(0).contains("echo x"),
        "not the next test's: {}",
        output(0)
    );
    assert_eq!(failures[1]["path"], json!(["compares again"]));
    assert!(output(1).contains("+ y"), "{}", output(1));
    assert!(!output(1).contains("+ c"), "{}", output(1));
}
