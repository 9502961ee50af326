//! Issue 41's Test::More reader, checked on a real project (libwww-perl/URI's t/heuristic.t
//! with a planted bug, docs/failures.md "Checked on real projects"): `like`'s and `unlike`'s
//! diagnostics, `'GOT'` then `doesn't match '(?^:RE)'` (or `matches`), are the value received
//! against the check, `=~ (?^:RE)` (`!~`), on the expected side as a Test2 `like` reads, in
//! every report; they were left as the failure's output, with no values. The stream below is
//! real perl 5.36's Test::More 1.302 output of the file written by `like_file()`.
use crate::util::{parse_cli, require, unxml, Project};

const LIKE_T: &str = r#"use strict;
use warnings;
use Test::More tests => 4;

like("https://www.perl.co.uk/camel.gif", qr,^http://www\.perl\.(org|co)\.uk/camel\.gif$,, 'scheme');
unlike("line one\nline two", qr/two/, 'no second line');
like(undef, qr/x/, 'undefined');
is("https://www.perl.org", "http://www.perl.org", 'is still reads');
"#;

/// `perl t/like.t 2>&1`, recorded.
const RECORDED: &str = r#"1..4
not ok 1 - scheme
#   Failed test 'scheme'
#   at t/like.t line 5.
#                   'https://www.perl.co.uk/camel.gif'
#     doesn't match '(?^:^http://www\.perl\.(org|co)\.uk/camel\.gif$)'
not ok 2 - no second line
#   Failed test 'no second line'
#   at t/like.t line 6.
#                   'line one
# line two'
#           matches '(?^:two)'
not ok 3 - undefined
#   Failed test 'undefined'
#   at t/like.t line 7.
#                   undef
#     doesn't match '(?^:x)'
not ok 4 - is still reads
#   Failed test 'is still reads'
#   at t/like.t line 8.
#          got: 'https://www.perl.org'
#     expected: 'http://www.perl.org'
# Looks like you failed 4 tests of 4.
"#;

/// What every report must say of the four failures: each a diff of the check (expected, `-`)
/// and the value (received, `+`).
const FACTS: &[(char, &str)] = &[
    (
        '-',
        "Expected: =~ (?^:^http://www\\.perl\\.(org|co)\\.uk/camel\\.gif$)",
    ),
    ('+', "Received: \"https://www.perl.co.uk/camel.gif\""),
    ('-', "Expected: !~ (?^:two)"),
    ('-', "Expected: =~ (?^:x)"),
    ('+', "Received: undef"),
    ('-', "\"http://www.perl.org\""),
    ('+', "\"https://www.perl.org\""),
];

fn signed(sign: char, fact: &str) -> String {
    format!("{sign} {fact}")
}

#[test]
fn issue41_test_more_like_reads_as_the_value_against_its_check() {
    let (code, stdout, stderr) = parse_cli(&["--color", "never"], RECORDED.as_bytes());
    let text = format!("{stdout}{stderr}");
    assert_eq!(code, 1, "{text}");
    for &(sign, fact) in FACTS {
        let fact = signed(sign, fact);
        assert!(text.contains(&fact), "lacks {fact:?}:\n{text}");
    }
    for at in ["t/like.t:5", "t/like.t:6", "t/like.t:7", "t/like.t:8"] {
        assert!(text.contains(&format!("at {at}")), "lacks {at}:\n{text}");
    }
    // Read, so no longer the failures' output.
    assert!(!text.contains("doesn't match"), "{text}");
    assert!(!text.contains("  matches '"), "{text}");
}

#[test]
fn issue41_test_more_like_reads_the_same_in_every_sink() {
    if !require(
        "issue41_test_more_like_reads_the_same_in_every_sink",
        &["perl"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("t/like.t", LIKE_T);
    let ran = p.run(&["t/like.t", "-o", "out.xml", "-o", "out.md", "--no-cache"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = unxml(&p.read_text("out.xml"));
    // Markdown's diff block draws expected in green: its signs are swapped.
    let markdown = p.read_text("out.md");
    for (sink, text) in [("terminal", ran.stderr.clone()), ("JUnit", junit)] {
        for &(sign, fact) in FACTS {
            let fact = signed(sign, fact);
            assert!(text.contains(&fact), "{sink} lacks {fact:?}:\n{text}");
        }
        assert!(!text.contains("doesn't match"), "{sink}:\n{text}");
    }
    for &(sign, fact) in FACTS {
        let swapped = signed(if sign == '-' { '+' } else { '-' }, fact);
        assert!(
            markdown.contains(&swapped),
            "Markdown lacks {swapped:?}:\n{markdown}"
        );
    }
    // The log keeps every line perl wrote.
    let log = p.read_text(".nogit/testlogs/t__like.log");
    assert!(log.contains("#     doesn't match '(?^:x)'"), "{log}");
}
