//! The structured diff as HTML: one `<span>` per line, the changed characters in `<mark>`,
//! the same lines and text the terminal shows.
use std::fmt::Write;

use super::escape::push_escaped;
use crate::explain::diff::{Diff, DiffLine, Sign};

/// Appends `diff` as a `<pre class="diff">` block. Each line is a block-level span holding
/// its own newline, so copying the block gives the terminal's text.
pub(crate) fn write_diff(out: &mut String, diff: &Diff) {
    out.push_str("<pre class=\"diff\">");
    for line in &diff.lines {
        write_line(out, line);
    }
    out.push_str("</pre>\n");
}

fn sign_class(sign: Sign) -> &'static str {
    match sign {
        Sign::Expected => "de",
        Sign::Received => "dr",
        Sign::Context => "dc",
    }
}

fn write_line(out: &mut String, line: &DiffLine) {
    match line {
        DiffLine::Legend(sign, _) => {
            let _ = write!(out, "<span class=\"{} dl\">", sign_class(*sign));
            push_escaped(out, &line.plain_text());
        }
        DiffLine::Note(note) => {
            out.push_str("<span class=\"dn\">");
            push_escaped(out, note);
        }
        DiffLine::Blank => out.push_str("<span>"),
        DiffLine::NoDifference => {
            out.push_str("<span>");
            push_escaped(out, &line.plain_text());
        }
        DiffLine::Hunk(header) => {
            out.push_str("<span class=\"dh\">");
            push_escaped(out, header);
        }
        DiffLine::Omitted(_) => {
            out.push_str("<span class=\"dn\">");
            push_escaped(out, &line.plain_text());
        }
        DiffLine::Line { sign, segments } => {
            let _ = write!(out, "<span class=\"{}\">", sign_class(*sign));
            out.push_str(if segments.is_empty() {
                sign.marker()
            } else {
                sign.prefix()
            });
            for segment in segments {
                if segment.emphasized {
                    out.push_str("<mark>");
                    push_escaped(out, &segment.text);
                    out.push_str("</mark>");
                } else {
                    push_escaped(out, &segment.text);
                }
            }
        }
    }
    out.push_str("\n</span>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::diff::{compute, Budget};
    use crate::report::lossless::{cases, config, highlighted, reference, value_pair};
    use proptest::prelude::*;
    use serde_json::json;

    fn html(expected: serde_json::Value, actual: serde_json::Value) -> String {
        let diff = compute(&expected, &actual, &Budget::default(), true);
        let mut out = String::new();
        write_diff(&mut out, &diff);
        out
    }

    #[test]
    fn lines_carry_their_side_and_changes_are_marked() {
        assert_eq!(
            html(json!("hello world"), json!("hello wurld")),
            "<pre class=\"diff\"><span class=\"de dl\">- Expected\n</span>\
             <span class=\"dr dl\">+ Received\n</span>\
             <span>\n</span>\
             <span class=\"de\">- &quot;hello <mark>world</mark>&quot;\n</span>\
             <span class=\"dr\">+ &quot;hello <mark>wurld</mark>&quot;\n</span></pre>\n"
        );
    }

    #[test]
    fn hostile_values_are_escaped() {
        let out = html(
            json!({"k": "<script>alert(1)</script>"}),
            json!({"k": "</pre><img src=x onerror=alert(1)>"}),
        );
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;/pre&gt;&lt;img"), "{out}");
        assert_eq!(out.matches("<pre").count(), 1);
        assert_eq!(out.matches("</pre>").count(), 1);
    }

    #[test]
    fn hunks_notes_and_truncation_have_their_classes() {
        let long: String = (0..40).map(|i| format!("{i}\n")).collect();
        let out = html(json!(long.clone()), json!(long.replace("20\n", "x\n")));
        assert!(
            out.contains("<span class=\"dh\">@@ -18,7 +18,7 @@\n</span>"),
            "{out}"
        );
        assert!(out.contains("<span class=\"dc\">  19\n</span>"), "{out}");
        let out = html(json!(1), json!("1"));
        assert!(out.contains("<span class=\"dn\">(different types: number vs string)\n</span>"));
        let budget = Budget {
            max_output_lines: 2,
            ..Budget::default()
        };
        let mut cut = String::new();
        write_diff(&mut cut, &compute(&json!("a"), &json!("b"), &budget, true));
        assert!(
            cut.contains("<span class=\"dn\">… 4 more lines\n</span>"),
            "{cut}"
        );
    }

    /// The text a reader copies from the block: the tags dropped, then the character
    /// references read back.
    fn text_of(html: &str) -> String {
        let inner = html
            .strip_prefix("<pre class=\"diff\">")
            .and_then(|rest| rest.strip_suffix("</pre>\n"))
            .unwrap_or_else(|| panic!("not one diff block: {html:?}"));
        let mut untagged = String::new();
        let mut rest = inner;
        while let Some(open) = rest.find('<') {
            untagged.push_str(&rest[..open]);
            let close = rest[open..].find('>').map_or(rest.len(), |c| open + c + 1);
            rest = &rest[close..];
        }
        untagged.push_str(rest);
        let mut text = String::new();
        let mut rest = untagged.as_str();
        while let Some(amp) = rest.find('&') {
            text.push_str(&rest[..amp]);
            rest = &rest[amp..];
            let (entity, c) = [
                ("&amp;", '&'),
                ("&lt;", '<'),
                ("&gt;", '>'),
                ("&quot;", '"'),
                ("&#39;", '\''),
            ]
            .into_iter()
            .find(|(entity, _)| rest.starts_with(entity))
            .unwrap_or_else(|| panic!("unknown reference in {html:?}"));
            text.push(c);
            rest = &rest[entity.len()..];
        }
        text.push_str(rest);
        text
    }

    #[test]
    fn the_real_cases_keep_every_character() {
        for case in cases() {
            let mut out = String::new();
            write_diff(&mut out, &highlighted(&case.expected, &case.actual));
            let plain = reference(&case.expected, &case.actual);
            assert_eq!(text_of(&out), plain, "{}: {out}", case.name);
            assert!(out.contains("<mark>"), "{}: {out}", case.name);
        }
        assert!(html(json!("1.0"), json!("100")).contains(
            "<span class=\"de\">- &quot;<mark>1.0</mark>&quot;\n</span>\
             <span class=\"dr\">+ &quot;<mark>100</mark>&quot;\n</span>"
        ));
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn marks_drop_and_invent_nothing((expected, actual) in value_pair()) {
            let mut out = String::new();
            write_diff(&mut out, &highlighted(&expected, &actual));
            prop_assert_eq!(text_of(&out), reference(&expected, &actual));
        }
    }
}
