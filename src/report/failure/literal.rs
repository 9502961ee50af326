//! Values printed as code rather than data: JavaScript's `util.inspect` (tape's `expected:`
//! and `actual:`, `{ a: 1, b: [ 1, 3 ] }`) and Python's `repr` (pytest's `assert [1, 2] ==
//! [1, 3]`), read into JSON values so the diff can compare them structurally.
//!
//! The grammar is the common part of both: objects/dicts with bare, quoted or numeric keys,
//! arrays/lists and tuples, `'…'` and `"…"` strings with backslash escapes, numbers,
//! `true`/`True`, `false`/`False`, `null`/`None`, and `undefined`, `Infinity`, `NaN`, `inf`,
//! `nan` as bare words. Anything else (`<object at 0x…>`, `[Function]`, `...`) is no value:
//! the caller keeps the producer's text.
use crate::report::diff;
use serde_json::{Map, Number, Value};

/// Nesting deeper than this is not read (the parser recurses).
const MAX_DEPTH: usize = 64;

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

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => self.object(depth),
            b'[' => self.list(b']', depth),
            b'(' => self.list(b')', depth),
            b'\'' | b'"' => self.string().map(Value::String),
            _ => self.word(),
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            self.ws();
            let key = match self.s.get(self.i)? {
                b'\'' | b'"' => self.string()?,
                _ => {
                    let start = self.i;
                    while self.s.get(self.i).is_some_and(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-')
                    }) {
                        self.i += 1;
                    }
                    self.text
                        .get(start..self.i)
                        .filter(|k| !k.is_empty())?
                        .to_owned()
                }
            };
            if !self.eat(b':') {
                return None;
            }
            map.insert(key, self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(b'}').then_some(Value::Object(map));
            }
        }
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
                '\\' => {
                    let (_, e) = chars.next()?;
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        'x' | 'u' => {
                            let len = if e == 'x' { 2 } else { 4 };
                            let mut hex = String::new();
                            for _ in 0..len {
                                hex.push(chars.next()?.1);
                            }
                            out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                        }
                        other => out.push(other),
                    }
                }
                c => out.push(c),
            }
        }
        None
    }

    fn word(&mut self) -> Option<Value> {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+'))
        {
            self.i += 1;
        }
        let w = self.text.get(start..self.i)?;
        Some(match w {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            "null" | "None" => Value::Null,
            "undefined" => diff::bare("undefined"),
            "Infinity" | "inf" => diff::bare("Infinity"),
            "-Infinity" | "-inf" => diff::bare("-Infinity"),
            "NaN" | "nan" => diff::bare("NaN"),
            _ => Value::Number(number(w)?),
        })
    }
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
    use serde_json::json;

    #[test]
    fn javascript_inspect_output() {
        assert_eq!(
            parse("{ a: 1, b: [ 1, 3 ], 'c d': 'x\\'y', e: undefined }"),
            Some(json!({"a": 1, "b": [1, 3], "c d": "x'y", "e": diff::bare("undefined")}))
        );
        assert_eq!(parse("-Infinity"), Some(diff::bare("-Infinity")));
    }

    #[test]
    fn python_repr_output() {
        assert_eq!(
            parse("{'a': 1, 'b': [1, (2.5, None)], 1: True, 'n': nan}"),
            Some(json!({"a": 1, "b": [1, [2.5, null]], "1": true, "n": diff::bare("NaN")}))
        );
        assert_eq!(parse("\"it's\""), Some(json!("it's")));
    }

    #[test]
    fn anything_else_is_no_value() {
        for text in [
            "<object at 0x7f>",
            "[Function: f]",
            "{'a': 1, ...}",
            "[1, 2",
            "1 2",
            "abc",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
        assert_eq!(parse_container("42"), None);
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(parse(&deep), None);
    }
}
