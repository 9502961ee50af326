//! Shell test libraries (sharness, git's `test-lib.sh`): their closing lines, and the `diff -u`
//! that `test_cmp expect actual` prints in verbose mode (`-v`) among a failing test's output,
//! read as the failure's diff (protocol-spec/producers.md, Values and diffs).
//!
//! Such a library prints a failing test's script as `#` lines after its `not ok` and nothing
//! else of its own: the script stays the failure's output (it is what failed, as the library
//! shows it); with `-v`, what the script printed comes before the point, `test_cmp`'s diff
//! among it.

/// A library's summing up of the file after its last point: `failed 1 among 3 test(s)`,
/// `passed all 3 test(s)` (`… remaining 2 test(s)`), `still have 1 known breakage(s)`,
/// `1 known breakage(s) vanished; please update test(s)`.
pub(crate) fn is_closing_line(comment: &str) -> bool {
    let c = comment.trim();
    let counted = |rest: &str| rest.starts_with(|ch: char| ch.is_ascii_digit());
    (c.starts_with("failed ")
        && counted(&c[7..])
        && c.contains(" among ")
        && c.ends_with(" test(s)"))
        || (c.starts_with("passed all ") && c.ends_with(" test(s)"))
        || (c.starts_with("still have ") && c.ends_with(" known breakage(s)"))
        || (counted(c) && c.ends_with(" known breakage(s) vanished; please update test(s)"))
}

/// The first `diff -u` in `output` (`--- FILE`, `+++ FILE`, its `@@` hunks, each as long as
/// its header says): its text for the diff renderer, the headers' timestamps left out (they
/// change every run), and `output` without its lines. A diff cut short reads as none.
pub(super) fn unified(output: &[String]) -> Option<(String, Vec<String>)> {
    let start = output.windows(3).position(|w| {
        w[0].starts_with("--- ") && w[1].starts_with("+++ ") && hunk_sizes(&w[2]).is_some()
    })?;
    let mut text: Vec<String> = vec![
        file_name(&output[start]).to_owned(),
        file_name(&output[start + 1]).to_owned(),
    ];
    let mut at = start + 2;
    while let Some((mut old, mut new)) = output.get(at).and_then(|l| hunk_sizes(l)) {
        text.push(output[at].clone());
        at += 1;
        while old + new > 0 {
            let line = diff_line(output.get(at)?)?;
            match line.as_bytes().first() {
                Some(b'-') if old > 0 => old -= 1,
                Some(b'+') if new > 0 => new -= 1,
                Some(b' ') | None if old > 0 && new > 0 => (old, new) = (old - 1, new - 1),
                Some(b'\\') => {}
                _ => return None,
            }
            text.push(line);
            at += 1;
        }
        // `\ No newline at end of file` after the last line.
        while output.get(at).is_some_and(|l| l.starts_with("\\ ")) {
            text.push(output[at].clone());
            at += 1;
        }
    }
    let rest = output[..start]
        .iter()
        .chain(&output[at..])
        .cloned()
        .collect();
    Some((text.join("\n"), rest))
}

/// `@@ -1,5 +1,6 @@` → the old and new line counts (1 where omitted).
fn hunk_sizes(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let size = |r: &str| match r.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => r.parse::<usize>().ok().map(|_| 1),
    };
    Some((size(old)?, size(new)?))
}

/// A line of a hunk as diff printed it. A context line that begins ` #` reached the failure
/// as a TAP comment (`# ` and its text, one space after `#` taken as the comment's): it is
/// put back, ` # text` or, before a tab, ` #\ttext`.
fn diff_line(line: &str) -> Option<String> {
    match line.strip_prefix("# ") {
        Some(text) if text.starts_with(char::is_whitespace) => Some(format!(" #{text}")),
        Some(text) => Some(format!(" # {text}")),
        None if line == "#" => Some(" #".to_owned()),
        None => Some(line.to_owned()),
    }
}

/// `--- expect\t2024-01-01 …` → `--- expect`: the header without diff's timestamp.
fn file_name(header: &str) -> &str {
    header.split('\t').next().unwrap_or(header).trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn closing_lines() {
        for c in [
            "failed 1 among 3 test(s)",
            "failed 2 among remaining 4 test(s)",
            "passed all 3 test(s)",
            "passed all remaining 1 test(s)",
            "still have 1 known breakage(s)",
            "1 known breakage(s) vanished; please update test(s)",
        ] {
            assert!(is_closing_line(c), "{c}");
        }
        for c in ["failed to open x", "\texpected: 1", "passed all the tests"] {
            assert!(!is_closing_line(c), "{c}");
        }
    }

    #[test]
    fn test_cmp_diff_among_the_output() {
        let out = lines(
            "expecting success: \n\techo b >actual &&\n\ttest_cmp expect actual\n\n--- expect\t2026-11-30 00:43:38.5 +0000\n+++ actual\t2026-11-30 00:43:38.5 +0000\n@@ -1 +1 @@\n-a\n+b\n# \techo b >actual &&",
        );
        let (text, rest) = unified(&out).expect("a diff");
        assert_eq!(text, "--- expect\n+++ actual\n@@ -1 +1 @@\n-a\n+b");
        assert_eq!(
            rest,
            lines("expecting success: \n\techo b >actual &&\n\ttest_cmp expect actual\n\n# \techo b >actual &&")
        );
        assert!(unified(&lines("--- a\nnot a diff\n@@ -1 +1 @@")).is_none());
        assert!(
            unified(&lines("--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+b")).is_none(),
            "cut short"
        );
    }

    #[test]
    fn a_context_line_read_as_a_comment_is_put_back() {
        // sharness's own tests compare TAP: ` #\tfalse` reaches the failure as a comment.
        let out = lines("--- expect\n+++ out\n@@ -1,5 +1,5 @@\n not ok 2 - x\n# \tfalse\n# still have 1 known breakage(s)\n-# failed 1 among 3 test(s)\n+# failed 1 out of 3 test(s)\n 1..3\n#\n# \tbody");
        let (text, rest) = unified(&out).expect("a diff");
        assert_eq!(
            text,
            "--- expect\n+++ out\n@@ -1,5 +1,5 @@\n not ok 2 - x\n #\tfalse\n # still have 1 known breakage(s)\n-# failed 1 among 3 test(s)\n+# failed 1 out of 3 test(s)\n 1..3"
        );
        assert_eq!(rest, lines("#\n# \tbody"));
    }
}
