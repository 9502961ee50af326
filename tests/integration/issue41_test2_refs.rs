//! Issue 41's Test2 reader, checked on a real project (Test-More/Test2-Suite's
//! t/modules/Util/Ref.t with a planted bug, docs/failures.md "Checked on real projects"): an
//! `eq` row compares strings, so a cell that reads as a reference (`Test::A=HASH(0x…)`, what
//! `"$ref"` printed) is the string it is, quoted and diffed as the other side is; it was shown
//! as a bare word against a quoted string. A structure's own row and a type check stay words.
use crate::util::parse_cli;

/// `perl -Ilib t/modules/Util/Ref.t`, recorded (the first failure, with `render_ref` joining
/// class and address with `->`).
const RECORDED: &str = "TAP version 13
not ok 1 - Matches normal stringification (blessed)
# Failed test 'Matches normal stringification (blessed)'
# at t/modules/Util/Ref.t line 17.
# +-------------------------------+----+------------------------------+
# | GOT                           | OP | CHECK                        |
# +-------------------------------+----+------------------------------+
# | Test::A->HASH(0x5637b0963760) | eq | Test::A=HASH(0x5637b0963760) |
# +-------------------------------+----+------------------------------+
1..1
";

#[test]
fn issue41_test2_refs_compared_by_eq_are_strings() {
    let (code, stdout, stderr) = parse_cli(&["--color", "never"], RECORDED.as_bytes());
    let text = format!("{stdout}{stderr}");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("at t/modules/Util/Ref.t:17"), "{text}");
    assert!(
        text.contains("- \"Test::A=HASH(0x5637b0963760)\""),
        "{text}"
    );
    assert!(
        text.contains("+ \"Test::A->HASH(0x5637b0963760)\""),
        "{text}"
    );
    assert!(!text.contains("different types"), "{text}");
}
