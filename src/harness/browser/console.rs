//! A page's console call as Node would print it: which stream it goes to, and its arguments
//! (DevTools `RemoteObject`s with their previews) joined into text.
//!
//! Node formats `console.log(a, b)` with `util.format`: a first string argument's `%s`, `%d`,
//! `%i`, `%f`, `%j`, `%o`, `%O`, `%c` and `%%` take the arguments after it, and the rest are
//! appended, separated by spaces; strings print as they are, other values as `util.inspect`
//! shows them. The browser sends the arguments unformatted, so the formatting is done here.
//! An object prints from its preview (`{ a: 1, b: 'x' }`, `[ 1, 2, 3 ]`), which Chromium cuts
//! at a few properties (`…` then); an error prints its stack, as Node prints it.
use serde_json::Value;

/// Where a console call's text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// The stream of a `Runtime.consoleAPICalled` type: Node writes `warn`, `error`, `trace` and
/// a failed `assert` to stderr, the rest to stdout.
pub(crate) fn stream(kind: &str) -> Stream {
    match kind {
        "warning" | "error" | "trace" | "assert" => Stream::Stderr,
        _ => Stream::Stdout,
    }
}

/// The text of a console call, without its newline; `None` for calls Node prints nothing for
/// (`console.clear`, the end of a group).
pub(crate) fn text(kind: &str, args: &[Value]) -> Option<String> {
    match kind {
        "clear" | "endGroup" | "profile" | "profileEnd" => return None,
        "assert" => {
            let rest = format_args(args);
            return Some(if rest.is_empty() {
                "Assertion failed".to_owned()
            } else {
                format!("Assertion failed: {rest}")
            });
        }
        _ => {}
    }
    Some(format_args(args))
}

/// `text` inside `depth` console groups: every line indented two spaces a level, as Node
/// prints it.
pub(crate) fn indent(text: &str, depth: usize) -> String {
    if depth == 0 {
        return text.to_owned();
    }
    let pad = "  ".repeat(depth);
    text.split('\n')
        .map(|line| format!("{pad}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `util.format` over the call's arguments.
pub(crate) fn format_args(args: &[Value]) -> String {
    let mut out = String::new();
    let mut rest = args;
    if let Some((first, after)) = args.split_first() {
        if first.get("type").and_then(Value::as_str) == Some("string") {
            let template = first.get("value").and_then(Value::as_str).unwrap_or("");
            rest = after;
            out = substitute(template, &mut rest);
        } else {
            out = inspect(first);
            rest = after;
        }
    }
    for arg in rest {
        out.push(' ');
        out.push_str(&plain(arg));
    }
    out
}

/// A template's `%` directives filled from `args` (consumed as used).
fn substitute(template: &str, args: &mut &[Value]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(&d) = chars.peek() else {
            out.push('%');
            break;
        };
        if d == '%' {
            chars.next();
            out.push('%');
            continue;
        }
        if !"sdifjoOc".contains(d) {
            out.push('%');
            continue;
        }
        let Some((arg, after)) = args.split_first() else {
            out.push('%');
            continue;
        };
        chars.next();
        *args = after;
        match d {
            's' => out.push_str(&plain(arg)),
            'd' | 'i' => out.push_str(&number(arg, d == 'i')),
            'f' => out.push_str(&number(arg, false)),
            'c' => {}
            _ => out.push_str(&inspect(arg)),
        }
    }
    out
}

/// `%d`/`%i`/`%f`: the argument as a number (`NaN` when it is none).
fn number(arg: &Value, integer: bool) -> String {
    let n = match arg.get("value") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    match n {
        Some(n) if integer => format!("{}", n.trunc()),
        Some(n) => format!("{n}"),
        None => "NaN".to_owned(),
    }
}

/// An argument after the first: a string as it is, anything else inspected.
fn plain(arg: &Value) -> String {
    match (arg.get("type").and_then(Value::as_str), arg.get("value")) {
        (Some("string"), Some(Value::String(s))) => s.clone(),
        _ => inspect(arg),
    }
}

/// `util.inspect` of a remote object, as far as its description and preview tell.
pub(crate) fn inspect(arg: &Value) -> String {
    let kind = arg.get("type").and_then(Value::as_str).unwrap_or("");
    let subtype = arg.get("subtype").and_then(Value::as_str).unwrap_or("");
    let description = arg.get("description").and_then(Value::as_str);
    if let Some(u) = arg.get("unserializableValue").and_then(Value::as_str) {
        return u.to_owned();
    }
    match (kind, subtype) {
        ("undefined", _) => "undefined".to_owned(),
        ("string", _) => quote(arg.get("value").and_then(Value::as_str).unwrap_or("")),
        ("number" | "boolean", _) => arg.get("value").map_or_else(String::new, Value::to_string),
        ("bigint", _) => description.map_or_else(String::new, |d| d.to_owned()),
        ("object", "null") => "null".to_owned(),
        ("object", "error") => description.unwrap_or("Error").to_owned(),
        ("function", _) => match description.and_then(function_name) {
            Some(name) if !name.is_empty() => format!("[Function: {name}]"),
            _ => "[Function (anonymous)]".to_owned(),
        },
        ("object", _) => match arg.get("preview") {
            Some(preview) => from_preview(preview),
            None => description.unwrap_or("Object").to_owned(),
        },
        _ => description.unwrap_or("").to_owned(),
    }
}

/// A string inside an object, quoted as Node quotes it.
fn quote(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', "\\'"))
    }
}

/// `function add(a, b) {…}` → `add`.
fn function_name(description: &str) -> Option<&str> {
    let rest = description
        .strip_prefix("async function")
        .or_else(|| description.strip_prefix("function"))
        .or_else(|| description.strip_prefix("class"))?;
    let name = rest.trim_start().trim_start_matches('*').trim_start();
    Some(
        name.split(|c: char| c == '(' || c == '{' || c.is_whitespace())
            .next()
            .unwrap_or(""),
    )
}

/// An object or array from its preview.
fn from_preview(preview: &Value) -> String {
    let subtype = preview.get("subtype").and_then(Value::as_str).unwrap_or("");
    let props = preview
        .get("properties")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let overflow = preview
        .get("overflow")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut items: Vec<String> = props
        .iter()
        .map(|p| {
            let value = preview_value(p);
            let name = p.get("name").and_then(Value::as_str).unwrap_or("");
            if subtype == "array" {
                value
            } else {
                format!("{}: {value}", key(name))
            }
        })
        .collect();
    if overflow {
        items.push("…".to_owned());
    }
    let (open, close) = if subtype == "array" {
        ("[", "]")
    } else {
        ("{", "}")
    };
    let prefix = match preview.get("description").and_then(Value::as_str) {
        Some(d) if subtype != "array" && d != "Object" => format!("{d} "),
        _ => String::new(),
    };
    if items.is_empty() {
        return format!("{prefix}{open}{close}");
    }
    format!("{prefix}{open} {} {close}", items.join(", "))
}

/// A property's value inside a preview.
fn preview_value(p: &Value) -> String {
    let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
    let value = p.get("value").and_then(Value::as_str).unwrap_or("");
    match (kind, p.get("subtype").and_then(Value::as_str)) {
        ("string", _) => quote(value),
        ("object", Some("null")) => "null".to_owned(),
        ("object", Some("array")) => format!("[{value}]"),
        ("object", _) => match p.get("valuePreview") {
            Some(inner) => from_preview(inner),
            None => "[Object]".to_owned(),
        },
        ("function", _) => "[Function]".to_owned(),
        _ => value.to_owned(),
    }
}

/// A property name, quoted when it is no identifier.
fn key(name: &str) -> String {
    let ident = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_owned()
    } else {
        quote(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn s(v: &str) -> Value {
        json!({"type": "string", "value": v})
    }

    #[test]
    fn arguments_join_as_node_prints_them() {
        let n = json!({"type": "number", "value": 42, "description": "42"});
        let obj = json!({"type": "object", "className": "Object", "description": "Object",
            "preview": {"type": "object", "description": "Object", "overflow": false, "properties": [
                {"name": "a", "type": "number", "value": "1"},
                {"name": "b c", "type": "string", "value": "x"},
                {"name": "d", "type": "object", "subtype": "array", "value": "Array(2)"}]}});
        let arr = json!({"type": "object", "subtype": "array", "description": "Array(3)",
            "preview": {"type": "object", "subtype": "array", "overflow": false, "properties": [
                {"name": "0", "type": "number", "value": "1"},
                {"name": "1", "type": "string", "value": "two"},
                {"name": "2", "type": "boolean", "value": "true"}]}});
        assert_eq!(format_args(&[s("a"), n.clone(), s("b\nc")]), "a 42 b\nc");
        assert_eq!(format_args(&[n.clone(), s("x")]), "42 x");
        assert_eq!(
            format_args(&[s("%s=%d%%"), s("n"), n.clone(), s("more")]),
            "n=42% more"
        );
        assert_eq!(
            format_args(&[s("%o and %j"), obj.clone()]),
            "{ a: 1, 'b c': 'x', d: [Array(2)] } and %j"
        );
        assert_eq!(format_args(&[s("list"), arr]), "list [ 1, 'two', true ]");
        assert_eq!(
            format_args(&[
                json!({"type": "undefined"}),
                json!({"type": "object", "subtype": "null", "value": null})
            ]),
            "undefined null"
        );
        assert_eq!(
            format_args(&[
                json!({"type": "bigint", "unserializableValue": "12n", "description": "12n"})
            ]),
            "12n"
        );
        assert_eq!(
            format_args(&[
                json!({"type": "function", "description": "function add(a, b) { return a + b }"})
            ]),
            "[Function: add]"
        );
        let err = json!({"type": "object", "subtype": "error", "description": "Error: boom\n    at x.js:1:7"});
        assert_eq!(
            format_args(&[s("failed:"), err]),
            "failed: Error: boom\n    at x.js:1:7"
        );
        assert_eq!(
            text("assert", &[s("nope")]).as_deref(),
            Some("Assertion failed: nope")
        );
        assert_eq!(text("clear", &[]), None);
        assert_eq!(text("endGroup", &[]), None);
        assert_eq!(indent("a\nb", 2), "    a\n    b");
        assert_eq!(indent("a", 0), "a");
        assert_eq!(stream("warning"), Stream::Stderr);
        assert_eq!(stream("info"), Stream::Stdout);
    }
}
