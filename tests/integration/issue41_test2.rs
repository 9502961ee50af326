//! Issue 41's Test2 reader (and #40 item 3): Test2::Tools::Compare's failure tables, recorded
//! from real perl (scripts/record-test2.sh, test-data/producers/test2/), read as Test2 means
//! them: each row a difference at its PATH between GOT and the CHECK by its OP, never a
//! comparison of two strings; `<DOES NOT EXIST>` is absence; `TRUE()`/`FALSE()`/`DEFINED()`
//! and `=~` are checks, shown unquoted; a wrapped or multi-line cell is one value. The known
//! answer of the terminal's explanation (tables.explained.txt), and the same facts in the
//! log, JUnit and Markdown.
use crate::util::{parse_cli, repo, require, unmarkdown, unxml, Project};

fn recording() -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/test2/tables.tap")).expect("recording")
}

#[test]
fn issue41_test2_tables_explained_as_test2_means_them() {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording());
    let known =
        std::fs::read_to_string(repo().join("test-data/producers/test2/tables.explained.txt"))
            .expect("known answer");
    assert_eq!(format!("{stdout}{stderr}"), known);
}

#[test]
fn issue41_test2_tables_read_the_same_in_every_sink() {
    if !require(
        "issue41_test2_tables_read_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("tables.tap", recording())
        .write("tables.sh", "cat tables.tap\nexit 1\n");
    let ran = p.run(&["tables.sh", "-o", "out.xml", "-o", "out.md", "--no-cache"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let log = p.read_text(".nogit/testlogs/tables.log");
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", unxml(&p.read_text("out.xml"))),
        ("Markdown", unmarkdown(&p.read_text("out.md"))),
    ] {
        for fact in [
            "Structures differ at {a}, {b}[2], {d}, {c}",
            "\"{b}[2]\": \"3\",",
            "\"{x}\": FALSE(),",
            "\"{y}\": DEFINED(),",
            "Expected: TRUE()",
            "Expected: =~ (?^:z)",
            "Comparison matched (it should not)",
            "Structures differ at [1]",
            "Structures differ at {a}, {a_long_key_a_long_key_a_long_key_}, {b}",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        assert!(
            !text.contains("DOES NOT EXIST"),
            "{sink}: absence is no value:\n{text}"
        );
        assert!(
            !text.contains("| GOT"),
            "{sink}: the table is read:\n{text}"
        );
    }
    // The log keeps what the file printed, the table included: nothing the child printed is lost.
    assert!(
        log.contains("| {b}[2] | 3                | !exists | <DOES NOT EXIST> |"),
        "{log}"
    );
}
