//! A report's text with its format's escapes undone, so one fact (a value, a location, a
//! message) is looked for in the same words in the terminal, JUnit and Markdown.

/// XML's entities undone (`&quot;`, `&apos;`, `&#39;`, `&lt;`, `&gt;`, then `&amp;`).
pub fn unxml(text: &str) -> String {
    [
        ("&quot;", "\""),
        ("&apos;", "'"),
        ("&#39;", "'"),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text.to_owned(), |t, (from, to)| t.replace(from, to))
}

/// Markdown's escapes undone: a backslash before an ASCII punctuation character, and the
/// entities the Markdown report writes in table cells (`&lt;`, `&gt;`, `&amp;`).
pub fn unmarkdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(char::is_ascii_punctuation) {
            continue;
        }
        out.push(c);
    }
    [("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
        .iter()
        .fold(out, |t, (from, to)| t.replace(from, to))
}
