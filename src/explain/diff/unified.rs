//! A producer's own unified diff (a YAML `diff:`, which comes without the values) read into
//! the diff model, so it is painted like ours: one diff, in one notation, on every report.
use super::*;

/// The diff in `text` (`--- expected` / `+++ actual` headers, `@@` hunks, ` `/`-`/`+` lines),
/// within `budget`'s line limit. `None` when `text` is not a unified diff with a change in it.
/// A lone hunk's header is dropped (it only says the diff starts at line 1), as ours never
/// prints one for a diff that leaves nothing out.
pub fn from_unified(text: &str, budget: &Budget) -> Option<Diff> {
    let mut lines = text.lines().peekable();
    // The headers say which side is which; a producer may write expected first
    // (protocol-spec/producers.md, Values and diffs).
    let mut flip = false;
    let mut headers = 0;
    while let Some(line) = lines.peek() {
        if let Some(name) = line.strip_prefix("--- ") {
            flip = name.trim() == "actual" || name.trim() == "found";
        } else if !line.starts_with("+++ ") {
            break;
        }
        headers += 1;
        lines.next();
    }
    if headers == 0 {
        return None;
    }
    let body: Vec<&str> = lines.collect();
    let hunks = body.iter().filter(|l| l.starts_with("@@")).count();
    let mut sink = Sink::new(budget.max_output_lines);
    sink.push(DiffLine::Legend(Sign::Expected, Sign::Expected.name()));
    sink.push(DiffLine::Legend(Sign::Received, Sign::Received.name()));
    sink.push(DiffLine::Blank);
    let mut changed = false;
    for line in body {
        if line.starts_with("@@") {
            if hunks > 1 {
                sink.push(DiffLine::Hunk(line.to_owned()));
            }
            continue;
        }
        let (sign, rest) = match line.split_at_checked(1) {
            Some(("-", rest)) => (Sign::Expected, rest),
            Some(("+", rest)) => (Sign::Received, rest),
            Some((" ", rest)) => (Sign::Context, rest),
            Some(("\\", _)) => {
                sink.push(DiffLine::Note(line.to_owned()));
                continue;
            }
            // A blank line in a diff whose trailing spaces were trimmed: context.
            _ if line.is_empty() => (Sign::Context, ""),
            _ => return None,
        };
        let sign = match (sign, flip) {
            (Sign::Expected, true) => Sign::Received,
            (Sign::Received, true) => Sign::Expected,
            (sign, _) => sign,
        };
        changed |= sign != Sign::Context;
        if sink.room() == 0 {
            sink.skip();
            continue;
        }
        let mut escaped = String::new();
        let trail = rest.trim_end_matches([' ', '\t']).len();
        push_raw_escaped(&mut escaped, rest, 0, trail);
        let mut built = LineBuilder::new(sign);
        built.push(false, &escaped);
        sink.push(built.finish());
    }
    changed.then(|| sink.finish(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(diff: &Diff) -> String {
        let lines: Vec<String> = diff.lines.iter().map(DiffLine::plain_text).collect();
        lines.join("\n")
    }

    #[test]
    fn node_tap_diff_reads_as_ours() {
        let text = "--- expected\n+++ actual\n@@ -1,6 +1,6 @@\n Object {\n   \"b\": Array [\n     1,\n-    3,\n+    2,\n   ],\n }\n";
        let diff = from_unified(text, &Budget::default()).expect("a diff");
        assert_eq!(
            plain(&diff),
            "- Expected\n+ Received\n\n  Object {\n    \"b\": Array [\n      1,\n-     3,\n+     2,\n    ],\n  }"
        );
    }

    #[test]
    fn sides_follow_the_headers_and_hunks_show_when_several() {
        let text = "--- actual\n+++ expected\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n";
        let diff = from_unified(text, &Budget::default()).expect("a diff");
        assert_eq!(
            plain(&diff),
            "- Expected\n+ Received\n\n@@ -1 +1 @@\n+ a\n- b\n@@ -9 +9 @@\n+ c\n- d"
        );
    }

    #[test]
    fn not_a_diff_or_no_change_is_none() {
        let budget = Budget::default();
        assert_eq!(from_unified("just words\n", &budget), None);
        assert_eq!(
            from_unified("--- expected\n+++ actual\n same\n", &budget),
            None
        );
        assert_eq!(
            from_unified("--- expected\n+++ actual\nstray\n", &budget),
            None
        );
    }

    #[test]
    fn hidden_characters_are_escaped_and_the_budget_holds() {
        let mut text = String::from("--- expected\n+++ actual\n-a\x1b[31m\n");
        for i in 0..50 {
            text.push_str(&format!("+{i}\n"));
        }
        let budget = Budget {
            max_output_lines: 10,
            ..Budget::default()
        };
        let diff = from_unified(&text, &budget).expect("a diff");
        assert_eq!(diff.lines.len(), 10);
        assert_eq!(diff.lines[3].plain_text(), "- a\\u{1b}[31m");
        assert!(matches!(diff.outcome, Outcome::Truncated { .. }));
    }
}
