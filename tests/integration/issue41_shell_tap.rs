//! Issue 41's shell TAP readers, checked on real projects (docs/failures.md, "Checked on real
//! projects"): a shell test library's (sharness, git's `test-lib.sh`) `test_cmp expect actual`
//! prints `diff -u` among a failing test's verbose output: it is that failure's diff (the
//! headers' timestamps left out), in every report; the library's closing `# failed 1 among 2
//! test(s)` is no failure's output. bats: a project's own helper frames are the failure's
//! stack, and its helper's `expected:` / `actual:` lines under the failed command its values
//! (rbenv's `assert_equal`).
use crate::util::{file_doc, parse_cli, unmarkdown, unxml, Project};
use serde_json::json;

/// What sharness prints for `./t0001-x.t -v` whose two tests fail in `test_cmp` (the second one
/// last, so the closing line follows its script): recorded shape of sharness 1.2 and git's
/// test-lib (`expecting success:`, the script, what it printed, then the point and the script
/// as `#` lines). A context line of the second diff begins with `#`, as when a test compares
/// TAP.
const VERBOSE: &str = r#"expecting success: 
	printf "a\nb\n" >expect && printf "a\nc\n" >actual &&
	test_cmp expect actual

--- expect	2026-01-01 00:00:00.000000000 +0000
+++ actual	2026-01-01 00:00:01.000000000 +0000
@@ -1,2 +1,2 @@
 a
-b
+c
not ok 1 - compares
#	
#		printf "a\nb\n" >expect && printf "a\nc\n" >actual &&
#		test_cmp expect actual
#	

expecting success: 
	run_sub_test >out &&
	test_cmp expect out

--- expect	2026-01-01 00:00:02.000000000 +0000
+++ out	2026-01-01 00:00:03.000000000 +0000
@@ -1,3 +1,3 @@
 ok 1 - inner
 #	false
-# failed 1 among 1 test(s)
+# failed 1 out of 1 test(s)
not ok 2 - compares TAP
#	
#		run_sub_test >out &&
#		test_cmp expect out
#	
# failed 2 among 2 test(s)
1..2
"#;

fn project() -> Project {
    let p = Project::new();
    p.write(
        "t/t0001-x.t",
        format!("#!/bin/sh\ncat <<'EOF'\n{VERBOSE}EOF\nexit 1\n"),
    );
    p
}

#[test]
fn issue41_shell_tap_test_cmp_diff_in_verbose_output_is_the_failures_diff() {
    let p = project();
    let ran = p.run(&["--format", "summary", "-o", "out.xml", "-o", "out.md"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let failures = file_doc(&doc, "t/t0001-x.t")["failures"].clone();
    assert_eq!(
        failures[0]["diff"],
        json!(["- Expected", "+ Received", "", "  a", "- b", "+ c"]),
        "{failures:#}"
    );
    assert_eq!(
        failures[1]["diff"],
        json!([
            "- Expected",
            "+ Received",
            "",
            "  ok 1 - inner",
            "  #\tfalse",
            "- # failed 1 among 1 test(s)",
            "+ # failed 1 out of 1 test(s)"
        ]),
        "{failures:#}"
    );
    for k in 0..2 {
        let output = failures[k]["output"].to_string();
        assert!(
            !output.contains("@@") && !output.contains("2026-01-01"),
            "the diff left the output: {output}"
        );
        assert!(
            output.contains("test_cmp expect"),
            "the script stays: {output}"
        );
    }
    let junit = unxml(&p.read_text("out.xml"));
    let markdown = unmarkdown(&p.read_text("out.md"));
    assert!(junit.contains("+ c") && junit.contains("- b"), "{junit}");
    assert!(junit.contains("+ # failed 1 out of 1 test(s)"), "{junit}");
    // Markdown's ```diff block marks the expected side `+` (drawn green).
    assert!(
        markdown.contains("+ b") && markdown.contains("- c"),
        "{markdown}"
    );
    assert!(
        markdown.contains("- # failed 1 out of 1 test(s)"),
        "{markdown}"
    );
}

#[test]
fn issue41_shell_tap_closing_line_is_no_failures_output() {
    let p = project();
    let ran = p.run(&["--format", "summary"]);
    let doc = ran.summary_doc();
    let failures = file_doc(&doc, "t/t0001-x.t")["failures"].clone();
    let output = failures[1]["output"].to_string();
    assert!(
        !output.contains("failed 2 among 2"),
        "the library sums up the file, not its last failure: {output}"
    );
}

/// `bats --tap` of rbenv's test/version-name.bats with a planted bug (rbenv @ 23c3041).
const BATS: &str = "1..2
ok 1 no version selected
not ok 2 version with prefix in name
# (from function `assert_equal' in file test/test_helper.bash, line 56,
#  from function `assert_output' in file test/test_helper.bash, line 65,
#  in test file test/version-name.bats, line 81)
#   `assert_output \"1.8.7\"' failed
# expected: 1.8.7
# actual:   ruby-1.8.7
";

#[test]
fn issue41_bats_project_helper_stack_and_its_expected_actual() {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], BATS.as_bytes());
    let text = format!("{stdout}{stderr}");
    for fact in [
        "test/version-name.bats:81",
        "`assert_output \"1.8.7\"' failed",
        "- \"1.8.7\"",
        "+ \"ruby-1.8.7\"",
        "from function `assert_equal' in file test/test_helper.bash, line 56,",
    ] {
        assert!(text.contains(fact), "lacks {fact:?}:\n{text}");
    }
    assert!(
        !text.contains("# expected: 1.8.7"),
        "read, not output: {text}"
    );
}

/// password-store's layout (zx2c4/password-store @ 3ca13cd): the Makefile at the root names
/// the tests, `TESTS = $(sort $(wildcard tests/t[0-9][0-9][0-9][0-9]-*.sh))`, and beside them
/// lie the library and the setup each test sources (also `*.sh`): `make test` runs the tests
/// only, and so does a bare run; was: the library and the setup run as tests and fail.
#[test]
fn issue41_shell_tap_scripts_the_makefile_names_are_the_tests() {
    let p = Project::new();
    p.write(
        "Makefile",
        "TESTS = $(sort $(wildcard tests/t[0-9][0-9][0-9][0-9]-*.sh))\ntest: $(TESTS)\n$(TESTS):\n\t@$@ $(PASS_TEST_OPTS)\n",
    );
    p.write(
        "tests/setup.sh",
        "TEST_HOME=\"$(pwd)\"\n. ./sharness.sh\n[ -e ../Makefile ] || exit 2\n",
    );
    p.write(
        "tests/sharness.sh",
        "#!/bin/sh\nok () { echo \"ok $1 - $2\"; }\n",
    );
    p.write(
        "tests/t0001-sanity.sh",
        "#!/bin/sh\ncd \"$(dirname \"$0\")\"\n. ./setup.sh\nok 1 'runs from tests/'\necho 1..1\n",
    );
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed.stdout.contains("tests/t0001-sanity.sh\t"),
        "{}",
        listed.both()
    );
    for helper in ["tests/setup.sh\t", "tests/sharness.sh\t"] {
        assert!(!listed.stdout.contains(helper), "{}", listed.both());
    }
    assert!(
        listed.stderr.contains("tests/setup.sh: passed over"),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(1), "{doc:#}");
    // Named, a helper still runs.
    let named = p.run(&["--list", "tests/setup.sh"]);
    assert!(
        named.stdout.contains("tests/setup.sh\t"),
        "{}",
        named.both()
    );
}
