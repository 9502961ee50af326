//! JSON values: type notes, equality, size estimates, compact and pretty printing with paths.
use serde_json::Value;

use super::*;

/// The key of the one-entry object that stands for a value the producer wrote as a bare word
/// rather than as JSON (`Infinity`, `NaN`, `undef` or `HASH(0x…)`): printed unquoted.
/// A magic key, as `serde_json` itself marks its arbitrary-precision numbers.
pub(crate) const BARE_KEY: &str = "$tapline::bare";
/// Beside [`BARE_KEY`], the type of a literal JSON has no type for (`Date`, `symbol`): named
/// in the type note.
pub(crate) const TYPE_KEY: &str = "$tapline::type";
/// In an object, the name of its class (`Foo` of `Foo { a: 1 }`): printed before its brace and
/// never as a field.
pub(crate) const CLASS_KEY: &str = "$tapline::class";

/// Words that are numbers outside JSON: JavaScript's and YAML's infinities and NaN.
pub(crate) const NUMBER_WORDS: [&str; 10] = [
    "Infinity",
    "-Infinity",
    "+Infinity",
    "NaN",
    ".inf",
    "-.inf",
    "+.inf",
    ".nan",
    ".Inf",
    ".NaN",
];

/// The word of a value made by [`super::bare`] or [`super::typed`].
pub(crate) fn as_bare(value: &Value) -> Option<&str> {
    let Value::Object(map) = value else {
        return None;
    };
    let word = map.get(BARE_KEY)?.as_str()?;
    let typed = map.get(TYPE_KEY).is_some_and(Value::is_string);
    (map.len() == 1 + usize::from(typed)).then_some(word)
}

/// The class an object was printed with (`Foo { … }`), if any.
pub(crate) fn class_of(map: &serde_json::Map<String, Value>) -> Option<&str> {
    map.get(CLASS_KEY)?.as_str()
}

pub(crate) fn type_name(value: &Value) -> &str {
    if let Some(word) = as_bare(value) {
        if let Some(kind) = value.get(TYPE_KEY).and_then(Value::as_str) {
            return kind;
        }
        return if NUMBER_WORDS.contains(&word) {
            "number"
        } else {
            "bare"
        };
    }
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub(crate) fn type_note(expected: &Value, actual: &Value) -> Option<String> {
    let (e, a) = (type_name(expected), type_name(actual));
    // A bare word (`undef`, `HASH(0x…)`) has no JSON type to compare.
    (e != a && e != "bare" && a != "bare").then(|| format!("(different types: {e} vs {a})"))
}

pub(crate) fn parse_json_container(s: &str) -> Option<Value> {
    let t = s.trim();
    let bracketed =
        (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    if !bracketed {
        return None;
    }
    // serde_json's recursion limit keeps hostile nesting out.
    serde_json::from_str(t).ok()
}

/// Structural equality without recursion; `Value`'s derived `PartialEq`
/// recurses and would overflow the stack on very deep input.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (key, xv) in x {
                    match y.get(key) {
                        Some(yv) => stack.push((xv, yv)),
                        None => return false,
                    }
                }
            }
            // At most one side is a container here, so this compares
            // discriminants or scalars and never recurses.
            _ => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether the value's size exceeds `limit`: exact byte length for a string,
/// an estimate of the compact JSON size otherwise. Stops as soon as the limit
/// is passed, so a huge value costs no more than the limit.
pub(crate) fn exceeds(value: &Value, limit: usize) -> bool {
    if let Value::String(s) = value {
        return s.len() > limit;
    }
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        let size = match v {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(n) => n.to_string().len(),
            Value::String(s) => s.len().saturating_add(2),
            // Separators only; the elements are counted when popped.
            Value::Array(items) => items.len().saturating_add(2),
            Value::Object(map) => map
                .keys()
                .fold(2usize, |sum, key| sum.saturating_add(key.len() + 4)),
        };
        total = total.saturating_add(size);
        // Checked before queueing children so a huge container is rejected
        // without first copying all its references.
        if total > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

pub(crate) fn short_repr(value: &Value) -> String {
    let mut out = String::new();
    if let Value::String(s) = value {
        let (head, clipped) = clip_chars(s, SHORT_FORM_CHARS);
        out.push('"');
        push_json_body(&mut out, head, usize::MAX);
        out.push_str(if clipped { "…" } else { "\"" });
        return out;
    }
    // Each shown character takes at most six bytes (`\u001b`), so this limit
    // is enough for the prefix without serialising a huge value.
    let complete = compact(value, &mut out, SHORT_FORM_CHARS * 6);
    let (head, clipped) = clip_chars(&out, SHORT_FORM_CHARS);
    if clipped || !complete {
        format!("{head}…")
    } else {
        out
    }
}

pub(crate) fn clip_chars(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((end, _)) => (s.get(..end).unwrap_or(s), true),
        None => (s, false),
    }
}

/// Characters that would corrupt the terminal or be invisible or
/// indistinguishable from a plain space in a diff.
pub(crate) fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(
            c,
            '\u{a0}'
                | '\u{ad}'
                | '\u{61c}'
                | '\u{1680}'
                | '\u{180e}'
                | '\u{2000}'..='\u{200b}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'..='\u{202f}'
                | '\u{205f}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{3000}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// `base` is the offset of `s` within its line and `trail` where the line's
/// trailing blanks start, so segments of one line can be escaped separately.
pub(crate) fn push_raw_escaped(out: &mut String, s: &str, base: usize, trail: usize) {
    for (i, c) in s.char_indices() {
        let trailing = base + i >= trail;
        match c {
            ' ' if trailing => out.push('·'),
            '\t' if trailing => out.push('→'),
            '\r' => out.push_str("\\r"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// Escapes `s` as the inside of a JSON string literal, additionally escaping
/// hidden characters. Stops once `out` exceeds `limit` bytes.
pub(crate) fn push_json_body(out: &mut String, s: &str, limit: usize) {
    for c in s.chars() {
        if out.len() > limit {
            return;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if is_hidden(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
}

pub(crate) fn push_json_string(out: &mut String, s: &str, limit: usize) {
    out.push('"');
    push_json_body(out, s, limit);
    out.push('"');
}

pub(crate) fn sorted_entries(map: &serde_json::Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut entries: Vec<(&str, &Value)> = map
        .iter()
        .filter(|(k, _)| k.as_str() != CLASS_KEY)
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

/// A container whose elements `compact` is still writing.
pub(crate) enum Open<'a> {
    Array {
        items: &'a [Value],
        next: usize,
    },
    Object {
        entries: Vec<(&'a str, &'a Value)>,
        next: usize,
    },
}

/// One-line JSON with sorted keys and a space after `:` and `,`. Returns
/// false if it stopped because `out` exceeded `limit` bytes.
pub(crate) fn compact(value: &Value, out: &mut String, limit: usize) -> bool {
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut pending = Some(value);
    while out.len() <= limit {
        if let Some(v) = pending.take() {
            match v {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number(n) => out.push_str(&n.to_string()),
                Value::String(s) => push_json_string(out, s, limit),
                _ if as_bare(v).is_some() => out.push_str(as_bare(v).unwrap_or_default()),
                Value::Array(items) if items.is_empty() => out.push_str("[]"),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(Open::Array { items, next: 0 });
                }
                Value::Object(map) => {
                    if let Some(class) = class_of(map) {
                        out.push_str(class);
                        out.push(' ');
                    }
                    let entries = sorted_entries(map);
                    if entries.is_empty() {
                        out.push_str("{}");
                    } else {
                        out.push('{');
                        stack.push(Open::Object { entries, next: 0 });
                    }
                }
            }
            continue;
        }
        let Some(top) = stack.last_mut() else {
            return true;
        };
        let finished = match top {
            Open::Array { items, next } => match items.get(*next) {
                Some(item) => {
                    if *next > 0 {
                        out.push_str(", ");
                    }
                    *next += 1;
                    pending = Some(item);
                    false
                }
                None => {
                    out.push(']');
                    true
                }
            },
            Open::Object { entries, next } => match entries.get(*next) {
                Some(&(key, item)) => {
                    if *next > 0 {
                        out.push_str(", ");
                    }
                    *next += 1;
                    push_json_string(out, key, limit);
                    out.push_str(": ");
                    pending = Some(item);
                    false
                }
                None => {
                    out.push('}');
                    true
                }
            },
        };
        if finished {
            stack.pop();
        }
    }
    false
}

#[derive(Clone, Copy)]
pub(crate) enum PathSeg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

pub(crate) struct PathNode<'a> {
    parent: usize,
    seg: PathSeg<'a>,
}

pub(crate) enum Frame<'a> {
    Object {
        entries: Vec<(&'a str, &'a Value)>,
        next: usize,
        node: usize,
        depth: usize,
    },
    Array {
        items: &'a [Value],
        next: usize,
        node: usize,
        depth: usize,
    },
}

pub(crate) enum Step<'a> {
    Child {
        value: &'a Value,
        key: Option<&'a str>,
        seg: PathSeg<'a>,
        parent: usize,
        depth: usize,
    },
    Close {
        bracket: &'static str,
        node: usize,
        depth: usize,
    },
}

/// Pretty-printed JSON lines plus, for every line, the path of the value it
/// belongs to (stored as a parent-linked tree so paths cost O(1) per line).
pub(crate) struct Pretty<'a> {
    pub(crate) lines: Vec<String>,
    line_node: Vec<usize>,
    nodes: Vec<PathNode<'a>>,
}

impl<'a> Frame<'a> {
    /// What comes next in this object or array: its next child, or its closing bracket.
    fn step(&mut self) -> Step<'a> {
        match self {
            Frame::Object {
                entries,
                next,
                node,
                depth,
            } => match entries.get(*next) {
                Some(&(key, value)) => {
                    *next += 1;
                    Step::Child {
                        value,
                        key: Some(key),
                        seg: PathSeg::Key(key),
                        parent: *node,
                        depth: *depth + 1,
                    }
                }
                None => Step::Close {
                    bracket: "}",
                    node: *node,
                    depth: *depth,
                },
            },
            Frame::Array {
                items,
                next,
                node,
                depth,
            } => match items.get(*next) {
                Some(value) => {
                    *next += 1;
                    Step::Child {
                        value,
                        key: None,
                        seg: PathSeg::Index(*next - 1),
                        parent: *node,
                        depth: *depth + 1,
                    }
                }
                None => Step::Close {
                    bracket: "]",
                    node: *node,
                    depth: *depth,
                },
            },
        }
    }
}

impl<'a> Pretty<'a> {
    pub(crate) fn new(value: &'a Value) -> Self {
        let mut pretty = Self {
            lines: Vec::new(),
            line_node: Vec::new(),
            nodes: vec![PathNode {
                parent: 0,
                seg: PathSeg::Root,
            }],
        };
        let mut stack = Vec::new();
        pretty.open(value, None, 0, 0, &mut stack);
        while let Some(frame) = stack.last_mut() {
            let step = frame.step();
            match step {
                Step::Child {
                    value,
                    key,
                    seg,
                    parent,
                    depth,
                } => {
                    pretty.nodes.push(PathNode { parent, seg });
                    let node = pretty.nodes.len() - 1;
                    pretty.open(value, key, depth, node, &mut stack);
                }
                Step::Close {
                    bracket,
                    node,
                    depth,
                } => {
                    stack.pop();
                    let mut line = indent(depth);
                    line.push_str(bracket);
                    if depth > 0 {
                        line.push(',');
                    }
                    pretty.lines.push(line);
                    pretty.line_node.push(node);
                }
            }
        }
        pretty
    }

    pub(crate) fn open(
        &mut self,
        value: &'a Value,
        key: Option<&'a str>,
        depth: usize,
        node: usize,
        stack: &mut Vec<Frame<'a>>,
    ) {
        let mut line = indent(depth);
        if let Some(key) = key {
            push_json_string(&mut line, key, usize::MAX);
            line.push_str(": ");
        }
        let nested = depth < MAX_PRETTY_DEPTH && as_bare(value).is_none();
        let entries = match value {
            Value::Object(map) if nested => sorted_entries(map),
            _ => Vec::new(),
        };
        match value {
            Value::Object(map) if !entries.is_empty() => {
                if let Some(class) = class_of(map) {
                    line.push_str(class);
                    line.push(' ');
                }
                line.push('{');
                stack.push(Frame::Object {
                    entries,
                    next: 0,
                    node,
                    depth,
                });
            }
            Value::Array(items) if nested && !items.is_empty() => {
                line.push('[');
                stack.push(Frame::Array {
                    items,
                    next: 0,
                    node,
                    depth,
                });
            }
            _ => {
                compact(value, &mut line, usize::MAX);
                if depth > 0 {
                    line.push(',');
                }
            }
        }
        self.lines.push(line);
        self.line_node.push(node);
    }

    pub(crate) fn path_of_line(&self, line: usize) -> String {
        let mut segs = Vec::new();
        let mut node = self.line_node.get(line).copied().unwrap_or(0);
        // Bounded by the node count in case of a malformed tree.
        for _ in 0..self.nodes.len() {
            let Some(current) = self.nodes.get(node) else {
                break;
            };
            if let PathSeg::Root = current.seg {
                break;
            }
            segs.push(current.seg);
            node = current.parent;
        }
        let mut path = String::from("$");
        for seg in segs.iter().rev() {
            match seg {
                PathSeg::Root => {}
                PathSeg::Key(key) if is_identifier(key) => {
                    path.push('.');
                    path.push_str(key);
                }
                PathSeg::Key(key) => {
                    path.push('[');
                    push_json_string(&mut path, key, usize::MAX);
                    path.push(']');
                }
                PathSeg::Index(i) => path.push_str(&format!("[{i}]")),
            }
        }
        path
    }
}

pub(crate) fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

pub(crate) fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}
