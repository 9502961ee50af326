//! `.busted`, busted's configuration (a Lua file returning a table of tasks), read as data:
//! the `default` task over `_all`, as busted merges them, for the options that say which files
//! run (`ROOT`, `pattern`, `exclude-pattern`, `recursive`). Only literal values are read (the
//! file is not run): a value computed by Lua code is taken as not given, and busted's default
//! applies.
use std::path::Path;

/// Which files busted runs in a project.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Selection {
    /// Files or folders, relative to the project (busted's `ROOT`; default `spec`).
    pub(crate) roots: Vec<String>,
    /// Lua patterns a file's base name must match one of (default `_spec`).
    pub(crate) patterns: Vec<String>,
    /// Lua patterns a file's base name must match none of.
    pub(crate) excludes: Vec<String>,
    /// Into subfolders (default yes).
    pub(crate) recursive: bool,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            roots: vec!["spec".to_owned()],
            patterns: vec!["_spec".to_owned()],
            excludes: Vec::new(),
            recursive: true,
        }
    }
}

/// The selection `.busted` in `dir` gives (busted's defaults without one).
pub(crate) fn selection(dir: &Path) -> Selection {
    let text = std::fs::read_to_string(dir.join(".busted")).unwrap_or_default();
    selection_of(&text)
}

pub(crate) fn selection_of(text: &str) -> Selection {
    let mut s = Selection::default();
    let Some(Lua::Table(tasks)) = read(text) else {
        return s;
    };
    // `_all` first, then the `default` task over it.
    for task in ["_all", "default"] {
        let Some(Lua::Table(opts)) = field(&tasks, task) else {
            continue;
        };
        if let Some(roots) = field(opts, "ROOT").and_then(Lua::strings) {
            s.roots = roots;
        }
        if let Some(p) = field(opts, "pattern").and_then(Lua::strings) {
            s.patterns = p;
        }
        if let Some(p) = field(opts, "exclude-pattern").and_then(Lua::strings) {
            s.excludes = p;
        }
        if let Some(Lua::Bool(r)) = field(opts, "recursive") {
            s.recursive = *r;
        }
    }
    s
}

/// A Lua value as far as a literal says it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lua {
    Str(String),
    Bool(bool),
    /// A number, `nil`, or an expression not read.
    Other,
    Table(Vec<(Option<String>, Lua)>),
}

impl Lua {
    /// A string, or a list of strings.
    fn strings(&self) -> Option<Vec<String>> {
        match self {
            Lua::Str(s) => Some(vec![s.clone()]),
            Lua::Table(items) => items
                .iter()
                .map(|(_, v)| match v {
                    Lua::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
}

fn field<'a>(table: &'a [(Option<String>, Lua)], key: &str) -> Option<&'a Lua> {
    table
        .iter()
        .rev()
        .find(|(k, _)| k.as_deref() == Some(key))
        .map(|(_, v)| v)
}

/// The value a chunk `return`s, when it is a literal: the last `return` (a chunk's own is its
/// last statement; functions before it may return too).
pub(crate) fn read(text: &str) -> Option<Lua> {
    let tokens = tokens(text);
    let at = tokens
        .iter()
        .rposition(|t| *t == Token::Word("return".into()))?;
    let mut p = Reader {
        tokens: &tokens[at + 1..],
        i: 0,
    };
    Some(p.value())
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Str(String),
    Word(String),
    Punct(char),
}

/// Lua's tokens as far as a literal table needs them; comments left out.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'-') {
            i += 2;
            match long_bracket(&chars, i) {
                Some((_, end)) => i = end,
                None => {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                }
            }
        } else if c == '"' || c == '\'' {
            let (s, end) = quoted(&chars, i);
            out.push(Token::Str(s));
            i = end;
        } else if c == '[' && matches!(chars.get(i + 1), Some('[' | '=')) {
            match long_bracket(&chars, i) {
                Some((s, end)) => {
                    out.push(Token::Str(s));
                    i = end;
                }
                None => {
                    out.push(Token::Punct(c));
                    i += 1;
                }
            }
        } else if c.is_alphanumeric() || c == '_' || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            out.push(Token::Word(chars[start..i].iter().collect()));
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// A quoted string from `start` (its quote); its text and the index after it.
fn quoted(chars: &[char], start: usize) -> (String, usize) {
    let quote = chars[start];
    let mut s = String::new();
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote {
        if chars[i] == '\\' && i + 1 < chars.len() {
            i += 1;
            s.push(match chars[i] {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
        } else {
            s.push(chars[i]);
        }
        i += 1;
    }
    (s, i + 1)
}

/// `[[…]]` or `[==[…]==]` from `start`: its text and the index after it.
fn long_bracket(chars: &[char], start: usize) -> Option<(String, usize)> {
    if chars.get(start) != Some(&'[') {
        return None;
    }
    let mut level = 0;
    let mut i = start + 1;
    while chars.get(i) == Some(&'=') {
        level += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'[') {
        return None;
    }
    let body = i + 1;
    let close: Vec<char> = std::iter::once(']')
        .chain(std::iter::repeat_n('=', level))
        .chain(std::iter::once(']'))
        .collect();
    let end = (body..chars.len()).find(|&j| chars[j..].starts_with(&close))?;
    let text: String = chars[body..end].iter().collect();
    Some((
        text.strip_prefix('\n').unwrap_or(&text).to_owned(),
        end + close.len(),
    ))
}

struct Reader<'t> {
    tokens: &'t [Token],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self, k: usize) -> Option<&Token> {
        self.tokens.get(self.i + k)
    }

    fn value(&mut self) -> Lua {
        match self.peek(0).cloned() {
            Some(Token::Punct('{')) => {
                self.i += 1;
                self.table()
            }
            Some(Token::Str(s)) if self.ends_value(1) => {
                self.i += 1;
                Lua::Str(s)
            }
            Some(Token::Word(w)) if (w == "true" || w == "false") && self.ends_value(1) => {
                self.i += 1;
                Lua::Bool(w == "true")
            }
            _ => {
                self.skip_expression();
                Lua::Other
            }
        }
    }

    /// Whether the value ends before token `k` (a separator, the table's end, or nothing).
    fn ends_value(&self, k: usize) -> bool {
        matches!(self.peek(k), None | Some(Token::Punct(',' | ';' | '}')))
    }

    /// Passes an expression over: up to a separator or a `}` outside brackets.
    fn skip_expression(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek(0) {
            match t {
                Token::Punct('{' | '(' | '[') => depth += 1,
                Token::Punct('}' | ')' | ']') if depth == 0 => return,
                Token::Punct('}' | ')' | ']') => depth -= 1,
                Token::Punct(',' | ';') if depth == 0 => return,
                _ => {}
            }
            self.i += 1;
        }
    }

    /// A table's fields, after its `{`, up to and past its `}`.
    fn table(&mut self) -> Lua {
        let mut fields = Vec::new();
        loop {
            match self.peek(0).cloned() {
                None => break,
                Some(Token::Punct('}')) => {
                    self.i += 1;
                    break;
                }
                Some(Token::Punct(',' | ';')) => self.i += 1,
                Some(Token::Word(key)) if self.peek(1) == Some(&Token::Punct('=')) => {
                    self.i += 2;
                    fields.push((Some(key), self.value()));
                }
                Some(Token::Punct('['))
                    if matches!(self.peek(1), Some(Token::Str(_)))
                        && self.peek(2) == Some(&Token::Punct(']'))
                        && self.peek(3) == Some(&Token::Punct('=')) =>
                {
                    let key = match self.peek(1) {
                        Some(Token::Str(k)) => k.clone(),
                        _ => String::new(),
                    };
                    self.i += 4;
                    fields.push((Some(key), self.value()));
                }
                Some(_) => {
                    let before = self.i;
                    let v = self.value();
                    fields.push((None, v));
                    if self.i == before {
                        // Nothing read: step over it, whatever it is.
                        self.i += 1;
                    }
                }
            }
        }
        Lua::Table(fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_task_over_all_and_busteds_defaults() {
        let s = selection_of(
            r#"-- comment
return {
  _all = { coverage = false, pattern = "_test" },
  default = {
    verbose = true,
    ROOT = {"spec", 'more'},
    ["exclude-pattern"] = "slow_spec",
    lpath = "src/?.lua;" .. os.getenv("X"),
    recursive = false,
  },
  other = { ROOT = {"nope"} },
}"#,
        );
        assert_eq!(s.roots, ["spec", "more"]);
        assert_eq!(s.patterns, ["_test"], "from _all");
        assert_eq!(s.excludes, ["slow_spec"]);
        assert!(!s.recursive);
        assert_eq!(selection_of(""), Selection::default());
        assert_eq!(selection_of("return 42"), Selection::default());
        let computed = selection_of("return { default = { ROOT = roots() } }");
        assert_eq!(computed.roots, ["spec"], "a computed value is not read");
        let code = selection_of(
            "local function f(t)\n  return false\nend\nrawset(_G, 'f', f)\nreturn {\n  _all = { ROOT = { \"tests\" }, pattern = \"%.test%.lua$\" },\n}\n",
        );
        assert_eq!(
            (code.roots, code.patterns),
            (vec!["tests".to_owned()], vec!["%.test%.lua$".to_owned()]),
            "helpers before the table"
        );
        let long = selection_of(
            "--[[ block\n comment ]]\nreturn { default = { pattern = [[_spec%.lua$]] } }",
        );
        assert_eq!(long.patterns, ["_spec%.lua$"]);
    }

    #[test]
    fn malformed_text_reads_as_far_as_it_can() {
        for text in [
            "return {",
            "return { default = { ROOT = {",
            "return }",
            "return { [ = }",
        ] {
            let _ = selection_of(text);
        }
        let s = selection_of("return { default = { ROOT = 'spec/unit' ");
        assert_eq!(s.roots, ["spec/unit"]);
    }
}
