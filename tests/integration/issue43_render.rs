//! #43, items 6 and 7: a failure's diff colours by one rule in every report (expected green),
//! a change inside a word marks the whole word, HTML headings name the test, and `tapline
//! parse` shows a stream's control characters instead of obeying them.
use crate::util::Project;

/// A file whose one failing point's values differ inside a word (`True` / `False`).
fn word_change() -> Project {
    let p = Project::new();
    p.script(
        "t/flag.t",
        "#!/bin/sh\necho 1..1\necho 'not ok 1 - flag is set'\necho '  ---'\n\
         echo '  message: wrong flag'\necho '  wanted: \"flag is True now\"'\n\
         echo '  found: \"flag is False now\"'\necho '  ...'\n",
    );
    p
}

#[test]
fn issue43_markdown_diff_colours_expected_green_as_the_terminal_and_html_do() {
    let p = word_change();
    let ran = p.run(&["--no-history", "-o", "report.md"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let md = p.read_text("report.md");
    // A ```diff block paints `+` green and `-` red: expected is `+` there.
    assert!(md.contains("+ Expected\n- Received\n"), "{md}");
    assert!(
        md.contains("\n+ \"flag is True now\"\n- \"flag is False now\""),
        "{md}"
    );
    // The terminal keeps Jest's signs, expected green.
    assert!(ran.stderr.contains("- Expected"), "{}", ran.stderr);
}

#[test]
fn issue43_a_change_inside_a_word_marks_the_whole_word() {
    let p = word_change();
    let ran = p.run(&["--no-history", "-o", "report.html"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let html = p.read_text("report.html");
    assert!(html.contains("<mark>True</mark>"), "{html}");
    assert!(html.contains("<mark>False</mark>"), "{html}");
    assert!(!html.contains("<mark>Tru</mark>"), "{html}");
}

#[test]
fn issue43_html_failure_heading_is_the_test_name_not_its_tap_line() {
    let p = word_change();
    let ran = p.run(&["--no-history", "-o", "report.html"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let html = p.read_text("report.html");
    assert!(
        html.contains("<h3><a class=\"file\" href=\"#file-0\">t/flag.t</a>flag is set</h3>"),
        "{html}"
    );
    assert!(!html.contains("not ok 1 - flag is set"), "{html}");
    // Reasons wrap between words: nothing breaks them anywhere.
    assert!(
        html.contains("td .why{display:block;color:var(--fail);font-size:12px;word-break:normal"),
        "{html}"
    );
}

#[test]
fn issue43_parse_shows_control_characters_instead_of_obeying_them() {
    let p = Project::new();
    p.write(
        "s.tap",
        "TAP version 13\n1..2\nok 1 - clears \x1b[2J the screen\n# sets \x1b]0;title\x07 the title\n\
         not ok 2 - rings \x07 the bell\n",
    );
    let ran = p.tapline(&["parse", "--color", "always", "s.tap"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(!ran.stdout.contains("\x1b[2J"), "{:?}", ran.stdout);
    assert!(!ran.stdout.contains('\x07'), "{:?}", ran.stdout);
    assert!(
        ran.stdout.contains("clears \\u{1b}[2J the screen"),
        "{:?}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("sets \\u{1b}]0;title\\u{7} the title"),
        "{:?}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("rings \\u{7} the bell"),
        "{:?}",
        ran.stdout
    );
    // Its own colours still colour.
    assert!(ran.stdout.contains("\x1b[31m"), "{:?}", ran.stdout);
    // jsonl keeps every byte (as JSON escapes).
    let jsonl = p.tapline(&["parse", "--format", "jsonl", "s.tap"]);
    assert!(
        jsonl.stdout.contains("clears \\u001b[2J the screen"),
        "{}",
        jsonl.stdout
    );
}

/// After a run, `tapline list` names what the run reported, even a run that kept no
/// per-test records (`--no-history`): a Test::More assertion inside a subtest, which the
/// static scan cannot see.
#[test]
fn issue43_list_after_a_run_names_what_the_run_reported() {
    if !crate::util::require(
        "issue43_list_after_a_run_names_what_the_run_reported",
        &["perl"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "Makefile.PL",
        "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Math', VERSION => '0.01');\n",
    );
    p.write(
        "lib/Math.pm",
        "package Math;\nsub add { $_[0] + $_[1] }\n1;\n",
    );
    p.write(
        "t/math.t",
        "use strict; use warnings; use Test::More; use Math;\n\
         subtest 'adds numbers' => sub {\n    is(Math::add(1, 1), 2, 'one and one');\n};\n\
         done_testing;\n",
    );
    let ran = p.run(&["--no-history", "-I", "lib", "--format", "jsonl"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let id = "t/math.t > adds numbers > one and one";
    assert!(ran.stdout.contains(id), "{}", ran.both());
    let listed = p.tapline(&["list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(listed.stdout.contains(id), "{}", listed.both());
    assert!(
        listed.stdout.contains("2 tests in 1 file\n"),
        "{}",
        listed.both()
    );
}

/// A log's name shows where the path's folders were: `__tests__` keeps its underscores and
/// the separator beside it is `--`, not `__` blurred into them.
#[test]
fn issue43_log_names_keep_their_separator_visible() {
    let p = Project::new();
    p.script(
        "t/__tests__/sum.t",
        "#!/bin/sh\necho 1..1\necho 'ok 1 - adds'\n",
    );
    p.script("t/plain.t", "#!/bin/sh\necho 1..1\necho 'ok 1 - plain'\n");
    // `t/` runs its own `*.t` (as prove does): both are named.
    let files = ["t/__tests__/sum.t", "t/plain.t"];
    let ran = p.run(&[&["--no-history"][..], &files[..]].concat());
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        p.join(".nogit/testlogs/t--__tests__--sum.log").is_file(),
        "{}",
        ran.both()
    );
    // The common case keeps tstest's name.
    assert!(
        p.join(".nogit/testlogs/t__plain.log").is_file(),
        "{}",
        ran.both()
    );
    // The next run moves the last run's logs, whatever their names, to previous/.
    let again = p.run(&[&["--no-history"][..], &files[..]].concat());
    assert_eq!(again.code, 0, "{}", again.both());
    assert!(p
        .join(".nogit/testlogs/previous/t--__tests__--sum.log")
        .is_file());
}
