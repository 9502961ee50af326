//! Values printed as code rather than data: JavaScript's `util.inspect` (node's assertion
//! errors), tape's object-inspect (`{ a: 1, b: [ 1, 3 ] }`, `'uri://a/'`) and Python's `repr`
//! (pytest's `assert [1, 2] == [1, 3]`), read into the values they denote so the diff compares
//! them as the test did.
//!
//! The grammar is the common part of all three: objects/dicts with bare, quoted, numeric or
//! `[Symbol(k)]` keys, arrays/lists and tuples, `'…'`, `"…"` and `` `…` `` strings with
//! backslash escapes, numbers, `true`, `false`, `null`, and `Infinity` and `NaN` as number
//! words. What JSON has no value for, or spells otherwise than the producer, is kept as
//! written, with its type ([`diff::typed`]): Python's `None`, `True`, `False`, `inf`, `nan`,
//! `undefined`, `10n`, `-0`, `Symbol(x)`, `/re/g`, Dates (node's
//! `1970-01-01T00:00:00.000Z`, object-inspect's `Thu Jan 01 1970 …`), `[Function: f]`,
//! `[class A]`, Python's `b'x'`, a constructor's repr (`Decimal('1.0')`, `Map(1) {…}`,
//! `Uint8Array(2) [ 1, 2 ]`); a class instance (`Foo { a: 1 }`) is its fields under its class
//! ([`diff::instance`]).
//!
//! [`parse`] reads a whole text or nothing: what it does not know (`<object at 0x…>`, `...`)
//! and what util.inspect cut short (`[Object]`, `[Array]`) is no value, and the caller keeps
//! the producer's words. [`read`] is for text that is a printed value by contract (tape's
//! `expected:`): what [`parse`] does not read is a bare literal shown verbatim.
use crate::explain::diff;
use serde_json::{Map, Number, Value};

/// Nesting deeper than this is not read (the parser recurses).
const MAX_DEPTH: usize = 64;
/// Names util.inspect prints in brackets (`[Function: f]`, `[class A]`, `[Getter]`), with
/// the type each denotes (`None`: a word with no type of its own).
const BRACKET_WORDS: [(&str, Option<&str>); 9] = [
    ("Function", Some("function")),
    ("AsyncFunction", Some("function")),
    ("GeneratorFunction", Some("function")),
    ("AsyncGeneratorFunction", Some("function")),
    ("class", Some("function")),
    ("Circular", None),
    ("Getter", None),
    ("Setter", None),
    ("Getter/Setter", None),
];
/// Collections whose entries no JSON value holds (`Map(1) { 'a' => 1 }`): kept as written.
const COLLECTIONS: [&str; 4] = ["Map", "Set", "WeakMap", "WeakSet"];
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The whole of `text` as one value, or `None`.
pub(super) fn parse(text: &str) -> Option<Value> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

/// Like [`parse`], only for an object or array: what a printed structure looks like.
pub(super) fn parse_container(text: &str) -> Option<Value> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[') || t.starts_with('(')) {
        return None;
    }
    parse(t).filter(|v| v.is_object() || v.is_array())
}

/// A text that is a printed value by contract: the value, or the text itself as a bare
/// literal (its lines joined by spaces, as util.inspect would print it on one).
pub(super) fn read(text: &str) -> Value {
    parse(text).unwrap_or_else(|| diff::bare(&one_line(text.trim())))
}

/// A printed value's lines on one line: each line's indentation becomes one space.
fn one_line(text: &str) -> String {
    let mut lines = text.lines();
    let mut out = lines.next().unwrap_or_default().to_owned();
    for l in lines {
        let l = l.trim_start();
        if !(out.ends_with(['{', '[', '(']) && l.is_empty()) {
            out.push(' ');
        }
        out.push_str(l);
    }
    out
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn rest(&self) -> &str {
        self.text.get(self.i..).unwrap_or_default()
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => self.object(depth),
            b'[' => self.bracket(depth),
            b'(' => self.list(b')', depth),
            b'\'' | b'"' | b'`' => self.string().map(Value::String),
            b'/' => self.regex(),
            b'<' => self.angle(depth),
            _ => self.word(depth),
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            let key = self.key(depth)?;
            if !self.eat(b':') {
                return None;
            }
            map.insert(key, self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(b'}').then_some(Value::Object(map));
            }
        }
    }

    /// A key: quoted, a bare word or number, a symbol (`[Symbol(k)]`), or any value Python
    /// allows as a dict key (`(1, 2)`), as written.
    fn key(&mut self, depth: usize) -> Option<String> {
        self.ws();
        match *self.s.get(self.i)? {
            b'\'' | b'"' | b'`' => return self.string(),
            b'[' => return self.balanced().map(str::to_owned),
            _ => {}
        }
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-'))
        {
            self.i += 1;
        }
        let word_end = self.i;
        self.ws();
        if word_end > start && self.s.get(self.i) == Some(&b':') {
            return self.text.get(start..word_end).map(str::to_owned);
        }
        self.i = start;
        self.value(depth + 1)?;
        self.text.get(start..self.i).map(|k| k.trim().to_owned())
    }

    fn list(&mut self, close: u8, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(close).then_some(Value::Array(items));
            }
        }
    }

    /// `[…]`: a list, or a word util.inspect prints in brackets (`[Function: f]`), or the
    /// class of the object after it (`[Object: null prototype] { a: 1 }`).
    fn bracket(&mut self, depth: usize) -> Option<Value> {
        let inner = self.rest().get(1..).unwrap_or_default();
        let name_end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '/'))
            .unwrap_or(inner.len());
        let name = inner.get(..name_end).unwrap_or_default();
        if name == "Object" && inner.get(name_end..)?.starts_with(':') {
            let start = self.i;
            self.balanced()?;
            self.ws();
            return self.classed(start, depth);
        }
        let Some((_, kind)) = BRACKET_WORDS.iter().find(|(w, _)| *w == name) else {
            return self.list(b']', depth);
        };
        let word = self.balanced()?;
        Some(match kind {
            Some(kind) => diff::typed(word, kind),
            None => diff::bare(word),
        })
    }

    /// `<ref *1>` before a value that refers to itself, node YAML's `<Circular>`; anything else
    /// in angle brackets (Python's `<object at 0x…>`) is no value.
    fn angle(&mut self, depth: usize) -> Option<Value> {
        let rest = self.rest();
        if rest.starts_with("<Circular>") {
            self.i += "<Circular>".len();
            return Some(diff::bare("<Circular>"));
        }
        let close = rest.find('>')?;
        let tag = rest.get(1..close)?;
        if !tag
            .strip_prefix("ref *")?
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        self.i += close + 1;
        self.value(depth)
    }

    /// What a word starts: a keyword, a number, a Date, a string's prefix (`b'x'`), a
    /// constructor's repr (`Symbol(x)`, `Decimal('1')`) or an instance (`Foo { a: 1 }`).
    fn word(&mut self, depth: usize) -> Option<Value> {
        if let Some(date) = self.date() {
            return Some(date);
        }
        let start = self.i;
        while self.s.get(self.i).is_some_and(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-' | b'+')
        }) {
            self.i += 1;
        }
        let w = self.text.get(start..self.i)?;
        if w == "b" && matches!(self.s.get(self.i), Some(b'\'' | b'"')) {
            self.string()?;
            return Some(diff::typed(self.text.get(start..self.i)?, "bytes"));
        }
        if is_identifier(w) && matches!(self.s.get(self.i), Some(b'(' | b' ')) {
            if let Some(v) = self.constructed(start, w, depth) {
                return Some(v);
            }
            self.i = start + w.len();
        }
        keyword(w)
    }

    /// After a constructor's name: its arguments (`Symbol(x)`, `Map(1)`), and the object or
    /// list it prints (`Map(1) {…}`, `Foo { a: 1 }`, `Foo [Bar] {}`).
    fn constructed(&mut self, start: usize, name: &str, depth: usize) -> Option<Value> {
        let called = self.s.get(self.i) == Some(&b'(');
        if called {
            self.balanced()?;
        }
        let after_call = self.i;
        self.ws();
        if self.s.get(self.i) == Some(&b'(') {
            // object-inspect's size: `Map (1) {…}`.
            self.balanced()?;
        }
        if self.rest().starts_with("[") && self.i > after_call {
            // A toStringTag: `Foo [bar] {}`; a list right after a space is an array subclass.
            let save = self.i;
            self.balanced()?;
            self.ws();
            if !self.rest().starts_with('{') {
                self.i = save;
            }
        }
        self.ws();
        let opens = matches!(self.s.get(self.i), Some(b'{' | b'['));
        if opens && (called || self.i > after_call) {
            return self.classed(start, depth);
        }
        if !called {
            return None;
        }
        self.i = after_call;
        let kind = if name == "Symbol" { "symbol" } else { name };
        Some(diff::typed(self.text.get(start..after_call)?, kind))
    }

    /// The object or list at the cursor, printed after its class (the text from `start`): an
    /// instance when its fields read, else the whole kept as written.
    fn classed(&mut self, start: usize, depth: usize) -> Option<Value> {
        let class = self.text.get(start..self.i)?.trim_end();
        let name = class.split(['(', ' ', '[']).next().unwrap_or(class);
        let name = if name.is_empty() { class } else { name };
        let open = self.i;
        if self.s.get(self.i) == Some(&b'{') && !COLLECTIONS.contains(&name) {
            if let Some(Value::Object(fields)) = self.object(depth + 1) {
                return Some(diff::instance(class, fields));
            }
            self.i = open;
        }
        self.balanced()?;
        let whole = one_line(self.text.get(start..self.i)?);
        Some(diff::typed(&whole, name))
    }

    /// The bracketed text at the cursor (`(…)`, `[…]`, `{…}`), strings inside skipped whole.
    fn balanced(&mut self) -> Option<&str> {
        let start = self.i;
        let mut open = Vec::new();
        while let Some(&b) = self.s.get(self.i) {
            match b {
                b'(' | b'[' | b'{' => open.push(b),
                b')' | b']' | b'}' => {
                    let want = match open.pop()? {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    };
                    if b != want {
                        return None;
                    }
                }
                b'\'' | b'"' | b'`' => {
                    self.string()?;
                    continue;
                }
                _ => {}
            }
            self.i += 1;
            if open.is_empty() {
                return self.text.get(start..self.i);
            }
            if open.len() > MAX_DEPTH {
                return None;
            }
        }
        None
    }

    /// `/ab+c/gi`: a RegExp, kept as written.
    fn regex(&mut self) -> Option<Value> {
        let start = self.i;
        self.i += 1;
        let mut class = false;
        loop {
            match *self.s.get(self.i)? {
                b'\\' => self.i += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => break,
                b'\n' => return None,
                _ => {}
            }
            self.i += 1;
        }
        self.i += 1;
        while self.s.get(self.i).is_some_and(u8::is_ascii_alphabetic) {
            self.i += 1;
        }
        Some(diff::typed(self.text.get(start..self.i)?, "RegExp"))
    }

    /// A Date as node prints it (`1970-01-01T00:00:00.000Z`) or as object-inspect does
    /// (`Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)`, `Invalid Date`).
    fn date(&mut self) -> Option<Value> {
        let rest = self.rest();
        let len = iso_date_len(rest)
            .or_else(|| date_string_len(rest))
            .or_else(|| {
                rest.starts_with("Invalid Date")
                    .then_some("Invalid Date".len())
            })?;
        let date = diff::typed(rest.get(..len)?, "Date");
        self.i += len;
        Some(date)
    }

    fn string(&mut self) -> Option<String> {
        let quote = *self.s.get(self.i)?;
        self.i += 1;
        let mut out = String::new();
        let mut chars = self.text.get(self.i..)?.char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                c if c as u32 == u32::from(quote) => {
                    self.i += k + 1;
                    return Some(out);
                }
                '\\' => escape(&mut chars, &mut out)?,
                c => out.push(c),
            }
        }
        None
    }
}

/// The character after a backslash (and its digits), as JavaScript and Python read it.
fn escape(chars: &mut std::str::CharIndices<'_>, out: &mut String) -> Option<()> {
    let (_, e) = chars.next()?;
    let c = match e {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        'a' => '\u{7}',
        '0' => '\0',
        'x' => char::from_u32(hex(chars, 2)?)?,
        'U' => char::from_u32(hex(chars, 8)?)?,
        'u' => {
            let mut copy = chars.clone();
            if copy.next().map(|(_, c)| c) == Some('{') {
                let digits: String = copy
                    .by_ref()
                    .map(|(_, c)| c)
                    .take_while(|c| *c != '}')
                    .collect();
                *chars = copy;
                char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?
            } else {
                // A lone surrogate (util.inspect escapes those) has no char: U+FFFD stands in.
                char::from_u32(hex(chars, 4)?).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
        }
        other => other,
    };
    out.push(c);
    Some(())
}

/// `len` hex digits as a number.
fn hex(chars: &mut std::str::CharIndices<'_>, len: usize) -> Option<u32> {
    let digits: String = (0..len)
        .map(|_| chars.next().map(|(_, c)| c))
        .collect::<Option<_>>()?;
    u32::from_str_radix(&digits, 16).ok()
}

/// The length of an ISO 8601 instant at the start of `s` (`1970-01-01T00:00:00.000Z`).
fn iso_date_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shape = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && b.get(10) == Some(&b'T')
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16);
    if !shape {
        return None;
    }
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | ':' | '.' | 'T' | 'Z' | '+')))
        .unwrap_or(s.len());
    Some(end)
}

/// The length of `Date.prototype.toString`'s text at the start of `s`.
fn date_string_len(s: &str) -> Option<usize> {
    let (day, rest) = s.split_at_checked(3)?;
    let (month, _) = rest.get(1..)?.split_at_checked(3)?;
    if !WEEKDAYS.contains(&day) || !MONTHS.contains(&month) || !rest.starts_with(' ') {
        return None;
    }
    // `Thu Jan 01 1970 00:00:00` is 24 characters.
    let gmt = 24;
    if s.get(gmt..gmt + 4)? != " GMT" {
        return None;
    }
    let after = s.get(gmt + 4..)?;
    let zone_len = after
        .find(|c: char| !(c.is_ascii_digit() || c == '+' || c == '-'))
        .unwrap_or(after.len());
    let mut end = gmt + 4 + zone_len;
    if let Some(name) = s.get(end..).and_then(|r| r.strip_prefix(" (")) {
        end += 2 + name.find(')')? + 1;
    }
    Some(end)
}

fn is_identifier(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
}

fn keyword(w: &str) -> Option<Value> {
    Some(match w {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        "undefined" => diff::typed("undefined", "undefined"),
        "Infinity" => diff::bare("Infinity"),
        "-Infinity" => diff::bare("-Infinity"),
        "NaN" => diff::bare("NaN"),
        // Python's words, spelled as a Python reader wrote and reads them.
        "None" => diff::typed("None", "None"),
        "True" | "False" => diff::typed(w, "boolean"),
        "inf" | "-inf" | "nan" => diff::typed(w, "number"),
        "-0" => diff::typed("-0", "number"),
        _ => match w.strip_suffix('n') {
            Some(digits) if number(digits).is_some_and(|n| n.is_i64() || n.is_u64()) => {
                diff::typed(w, "bigint")
            }
            _ => Value::Number(number(w)?),
        },
    })
}

fn number(w: &str) -> Option<Number> {
    let plain = w.trim_start_matches('-');
    if plain.is_empty() || !plain.bytes().next()?.is_ascii_digit() {
        return None;
    }
    if let Ok(i) = w.parse::<i64>() {
        return Some(i.into());
    }
    Number::from_f64(w.parse::<f64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn javascript_inspect_output() {
        assert_eq!(
            parse("{ a: 1, b: [ 1, 3 ], 'c d': 'x\\'y', e: undefined }"),
            Some(
                json!({"a": 1, "b": [1, 3], "c d": "x'y", "e": diff::typed("undefined", "undefined")})
            )
        );
        assert_eq!(parse("-Infinity"), Some(diff::bare("-Infinity")));
    }

    #[test]
    fn python_repr_output() {
        assert_eq!(
            parse("{'a': 1, 'b': [1, (2.5, None)], 1: True, 'n': nan}"),
            Some(json!({
                "a": 1,
                "b": [1, [2.5, diff::typed("None", "None")]],
                "1": diff::typed("True", "boolean"),
                "n": diff::typed("nan", "number"),
            }))
        );
        assert_eq!(parse("\"it's\""), Some(json!("it's")));
    }

    #[test]
    fn object_inspect_literals_as_tape_5_10_2_prints_them() {
        // object-inspect 1.14.0, tape's `expected:`/`actual:`.
        let cases = [
            ("'uri://a/'", json!("uri://a/")),
            ("'it\\'s'", json!("it's")),
            ("'it\"s'", json!("it\"s")),
            ("'a\\nb'", json!("a\nb")),
            ("'tab\\t '", json!("tab\t ")),
            ("{ a: 1, b: [ 2, 'x' ] }", json!({"a": 1, "b": [2, "x"]})),
            ("null", json!(null)),
            ("undefined", diff::typed("undefined", "undefined")),
            ("10n", diff::typed("10n", "bigint")),
            ("-0", diff::typed("-0", "number")),
            ("Symbol(x)", diff::typed("Symbol(x)", "symbol")),
            ("/ab+c/gi", diff::typed("/ab+c/gi", "RegExp")),
            ("[Function: f]", diff::typed("[Function: f]", "function")),
            ("[class Foo]", diff::typed("[class Foo]", "function")),
            (
                "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)",
                diff::typed(
                    "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)",
                    "Date",
                ),
            ),
            (
                "Map (1) {'a' => 2}",
                diff::typed("Map (1) {'a' => 2}", "Map"),
            ),
        ];
        for (text, value) in cases {
            assert_eq!(parse(text), Some(value), "{text}");
        }
        let mut fields = Map::new();
        fields.insert("a".to_owned(), json!(1));
        assert_eq!(parse("Foo { a: 1 }"), Some(diff::instance("Foo", fields)));
    }

    #[test]
    fn util_inspect_literals_as_node_20_prints_them() {
        assert_eq!(
            parse("1970-01-01T00:00:00.000Z"),
            Some(diff::typed("1970-01-01T00:00:00.000Z", "Date"))
        );
        // compact: false, as node's assertion diff prints values.
        assert_eq!(
            parse("Map(1) {\n  'a' => 1\n}"),
            Some(diff::typed("Map(1) { 'a' => 1 }", "Map"))
        );
        assert_eq!(
            parse("Uint8Array(2) [\n  1,\n  2\n]"),
            Some(diff::typed("Uint8Array(2) [ 1, 2 ]", "Uint8Array"))
        );
        assert_eq!(parse("`it's \"x\"`"), Some(json!("it's \"x\"")));
        assert_eq!(
            parse("<ref *1> { a: [Circular *1], [Symbol(k)]: [Getter] }"),
            Some(json!({"a": diff::bare("[Circular *1]"), "[Symbol(k)]": diff::bare("[Getter]")}))
        );
        let mut fields = Map::new();
        fields.insert("a".to_owned(), json!(1));
        assert_eq!(
            parse("[Object: null prototype] {\n  a: 1\n}"),
            Some(diff::instance("[Object: null prototype]", fields.clone()))
        );
        assert_eq!(
            parse("{\n  x: Foo {\n    a: 1\n  }\n}"),
            Some(json!({"x": diff::instance("Foo", fields)}))
        );
        assert_eq!(parse("'\\u{1F600}\\x41'"), Some(json!("😀A")));
    }

    #[test]
    fn python_reprs_as_python_3_11_prints_them() {
        assert_eq!(parse("b'x'"), Some(diff::typed("b'x'", "bytes")));
        assert_eq!(
            parse("[b\"it's\", None]"),
            Some(json!([
                diff::typed("b\"it's\"", "bytes"),
                diff::typed("None", "None")
            ]))
        );
        assert_eq!(
            parse("Decimal('1.0')"),
            Some(diff::typed("Decimal('1.0')", "Decimal"))
        );
        assert_eq!(
            parse("{(1, 2): datetime.date(2020, 1, 1)}"),
            Some(json!({"(1, 2)": diff::typed("datetime.date(2020, 1, 1)", "datetime.date")}))
        );
        assert_eq!(parse("'\\U0001f600'"), Some(json!("😀")));
    }

    #[test]
    fn read_keeps_what_it_cannot_parse_verbatim() {
        assert_eq!(read("'x'"), json!("x"));
        assert_eq!(read("{ a: [Object] }"), diff::bare("{ a: [Object] }"));
        assert_eq!(read("<Foo>\n  more"), diff::bare("<Foo> more"));
    }

    /// `v` as util.inspect would print it: keys and strings single-quoted, escapes as
    /// JavaScript writes them.
    fn inspect(v: &Value) -> String {
        let quote = |s: &str| {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c if c.is_control() => out.push_str(&format!("\\x{:02X}", u32::from(c))),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        };
        match v {
            Value::String(s) => quote(s),
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(inspect).collect();
                format!("[ {} ]", items.join(", "))
            }
            Value::Object(map) => {
                let fields: Vec<String> = map
                    .iter()
                    .map(|(k, v)| format!("{}: {}", quote(k), inspect(v)))
                    .collect();
                format!("{{ {} }}", fields.join(", "))
            }
            other => other.to_string(),
        }
    }

    fn a_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(|n| json!(n)),
            "[ -~\\n\\t\u{1}é👩'\"`\\\\]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z'\" ]{0,5}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

        #[test]
        fn what_inspect_prints_reads_back(v in a_value()) {
            prop_assert_eq!(parse(&inspect(&v)), Some(v));
        }

        #[test]
        fn no_text_panics_or_reads_as_an_unbounded_value(
            text in "[{}\\[\\]()'\"`/ a-zA-Z0-9:,.+=<>*\\\\\n-]{0,60}"
        ) {
            let _ = parse(&text);
            let _ = read(&text);
            let _ = parse_container(&text);
        }
    }

    #[test]
    fn anything_else_is_no_value() {
        for text in [
            "<object at 0x7f>",
            "[Object]",
            "{ a: [Array] }",
            "{'a': 1, ...}",
            "[1, 2",
            "1 2",
            "abc",
            "Foo",
            "Foo bar",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
        assert_eq!(parse_container("42"), None);
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(parse(&deep), None);
    }
}
