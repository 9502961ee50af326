//! pgTAP's diagnostics (`# Failed test 2: "name"`, `have:`/`want:`, `Extra records:` /
//! `Missing records:`), read as pgTAP means them: `want` is what was expected and `have` what
//! the database gave; a value's later lines (pgTAP prefixes each line of a multi-line value
//! with `# ` alone) belong to it; `NULL` is SQL's null. `set_eq`'s and `bag_eq`'s records,
//! and what a `*_are` test lists (`Extra functions:`), are a diff of the rows one side lacks:
//! the missing ones expected, the extra ones had.
use crate::explain::diff;
use serde_json::Value;

/// What pgTAP's lines said, and how many were read.
#[derive(Debug, PartialEq)]
pub(super) struct Said {
    pub(super) used: usize,
    pub(super) message: Option<String>,
    pub(super) expected_actual: Option<(Value, Value)>,
}

/// Most lines read for one value.
const MAX_VALUE_LINES: usize = 1000;

/// `Failed test 2: "name"` (`Failed (TODO) test 3: …`): pgTAP's heading of a failure (it has no source location to give).
pub(super) fn is_heading(body: &str) -> bool {
    let body = body.trim();
    let Some(rest) = body
        .strip_prefix("Failed test ")
        .or_else(|| body.strip_prefix("Failed (TODO) test "))
    else {
        return false;
    };
    let (number, name) = rest.split_once(':').unwrap_or((rest, ""));
    !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && (name.is_empty() || name.trim_start().starts_with('"'))
}

/// The diagnostics starting at `bodies[0]` (comments without their `#`), if pgTAP's.
pub(super) fn read(bodies: &[Option<&str>]) -> Option<Said> {
    let first = bodies.first().copied().flatten()?;
    let message = first
        .trim()
        .strip_suffix(':')
        .filter(|m| {
            m.starts_with("Results differ beginning at row")
                || m.starts_with("Number of columns or their types differ")
        })
        .map(str::to_owned);
    let start = usize::from(message.is_some());
    if let Some((have, want, used)) = have_want(&bodies[start..]) {
        return Some(Said {
            used: start + used,
            message,
            expected_actual: Some((want, have)),
        });
    }
    if message.is_some() {
        return None;
    }
    records(bodies)
}

/// `have: X` then `want: Y`, each maybe going on over lines of their own.
fn have_want(bodies: &[Option<&str>]) -> Option<(Value, Value, usize)> {
    let have = value_after(bodies, "have:")?;
    let want = value_after(&bodies[have.1..], "want:")?;
    Some((have.0, want.0, have.1 + want.1))
}

/// The value of a `KEY: value` line and its later lines (up to the next indented line).
fn value_after(bodies: &[Option<&str>], key: &str) -> Option<(Value, usize)> {
    let first = bodies.first().copied().flatten()?;
    let text = first.trim_start().strip_prefix(key)?;
    let text = text.strip_prefix(' ').unwrap_or(text);
    let mut lines = vec![text.to_owned()];
    for body in bodies.iter().skip(1).take(MAX_VALUE_LINES) {
        let Some(body) = body else { break };
        // pgTAP's own lines are indented; a value's later lines follow `# ` alone.
        if body.starts_with("  ") || body.trim_start().starts_with("Looks like you") {
            break;
        }
        lines.push(body.strip_prefix(' ').unwrap_or(body).to_owned());
    }
    let used = lines.len();
    let joined = lines.join("\n");
    let value = if joined == "NULL" {
        diff::bare("NULL")
    } else {
        Value::String(joined)
    };
    Some((value, used))
}

/// `Extra records:` and/or `Missing records:` (`set_eq`, `bag_eq`), or the same of what a
/// `*_are` test lists (`Extra functions:`, `Missing tables:`), each followed by its rows.
fn records(bodies: &[Option<&str>]) -> Option<Said> {
    let mut extra = Vec::new();
    let mut missing = Vec::new();
    let mut noun: Option<String> = None;
    let mut at = 0;
    while let Some(body) = bodies.get(at).copied().flatten() {
        let Some((side, what)) = list_heading(body) else {
            break;
        };
        if noun.as_deref().is_some_and(|n| n != what) {
            break;
        }
        noun = Some(what.to_owned());
        let list = if side == "Extra" {
            &mut extra
        } else {
            &mut missing
        };
        at += 1;
        while let Some(row) = bodies.get(at).copied().flatten() {
            let indent = row.len() - row.trim_start().len();
            if indent < 6 || row.trim().is_empty() {
                break;
            }
            list.push(Value::String(row.trim().to_owned()));
            at += 1;
        }
    }
    let noun = noun?;
    let mut message = noun.clone();
    if let Some(first) = message.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    Some(Said {
        used: at,
        message: Some(format!("{message} differ")),
        expected_actual: Some((Value::Array(missing), Value::Array(extra))),
    })
}

/// `Extra functions:` as `("Extra", "functions")`: a side and one lowercase word.
fn list_heading(body: &str) -> Option<(&str, &str)> {
    let text = body.trim().strip_suffix(':')?;
    let (side, what) = text.split_once(' ')?;
    let lower = !what.is_empty() && what.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    (matches!(side, "Extra" | "Missing") && lower).then_some((side, what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bodies(text: &str) -> Vec<Option<&str>> {
        text.lines().map(|l| l.strip_prefix('#')).collect()
    }

    #[test]
    fn want_is_expected_and_have_is_actual() {
        let b = bodies("#         have: 2\n#         want: 3\n# Looks like you failed 1 test of 1");
        let said = read(&b).expect("read");
        assert_eq!(said.used, 2);
        assert_eq!(said.expected_actual, Some((json!("3"), json!("2"))));
    }

    #[test]
    fn a_values_later_lines_are_its_own() {
        let b = bodies("#         have: a\n# b\n#         want: a\n# c");
        let said = read(&b).expect("read");
        assert_eq!(said.used, 4);
        assert_eq!(said.expected_actual, Some((json!("a\nc"), json!("a\nb"))));
    }

    #[test]
    fn null_is_sqls_and_rows_say_where_they_differ() {
        let b = bodies(
            "#     Results differ beginning at row 2:\n#         have: (2,b)\n#         want: NULL",
        );
        let said = read(&b).expect("read");
        assert_eq!(
            said.message.as_deref(),
            Some("Results differ beginning at row 2")
        );
        assert_eq!(
            said.expected_actual,
            Some((diff::bare("NULL"), json!("(2,b)")))
        );
    }

    #[test]
    fn records_one_side_lacks() {
        let b = bodies("#     Extra records:\n#         (2)\n#     Missing records:\n#         (3)\n#         (4)\n# Looks like");
        let said = read(&b).expect("read");
        assert_eq!(said.used, 5);
        assert_eq!(
            said.expected_actual,
            Some((json!(["(3)", "(4)"]), json!(["(2)"])))
        );
    }

    #[test]
    fn what_a_schema_test_lists() {
        let b = bodies(
            "#     Extra functions:\n#         normalize_kind\n# Looks like you failed 1 test of 1",
        );
        let said = read(&b).expect("read");
        assert_eq!(said.used, 2);
        assert_eq!(said.message.as_deref(), Some("Functions differ"));
        assert_eq!(
            said.expected_actual,
            Some((json!([]), json!(["normalize_kind"])))
        );
        assert_eq!(read(&bodies("#     Extra ones here: x")), None);
    }

    #[test]
    fn the_heading() {
        assert!(is_heading(" Failed test 1: \"sum\""));
        assert!(is_heading(" Failed test 12"));
        assert!(is_heading(" Failed (TODO) test 3: \"later\""));
        assert!(!is_heading(" Failed test 'x'"));
        assert!(!is_heading(" Failed test at t/a.t line 3."));
    }
}
