//! The static scan: a test file's tests read from its source without running it. JavaScript
//! and TypeScript (node:test, tape, node-tap, tapbundle: `test(…)`, `describe(…)`, `it(…)`,
//! `suite(…)`, `t.test(…)`, with `.skip`/`.only`/`.todo`), Perl (`subtest 'name'`), pytest
//! (`def test_*`, `class Test*` methods), go (`func TestX(t *testing.T)`) and bats
//! (`@test "name"`).
//!
//! A name it cannot know without running (a template string with `${…}`, a variable, a call
//! inside a loop or a `.forEach`, `test.each`) is reported `dynamic`, with its source text.
//! JavaScript and Perl share one small tokenizer that skips comments and strings and follows
//! bracket depth, so nesting is read from the source's structure, not its indentation.

/// One test the scan found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Its names, outermost first.
    pub name: Vec<String>,
    /// Its line, from 1.
    pub line: usize,
    /// A name that is only known at run time (shown as its source text).
    pub dynamic: bool,
}

/// The source language a file's tests are read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Js,
    Perl,
    Python,
    Go,
    Bats,
}

impl Lang {
    /// By the file's name.
    pub fn of(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => Lang::Js,
            "t" | "pl" => Lang::Perl,
            "py" => Lang::Python,
            "go" => Lang::Go,
            "bats" => Lang::Bats,
            _ => return None,
        })
    }
}

/// The tests of a source text in `lang`.
pub fn scan(lang: Lang, src: &str) -> Vec<Found> {
    match lang {
        Lang::Js => Tokens::new(src, Syntax::JS).tests(),
        Lang::Perl => Tokens::new(src, Syntax::PERL).tests(),
        Lang::Python => python(src),
        Lang::Go => go(src),
        Lang::Bats => bats(src),
    }
}

/// What the shared tokenizer needs to know of a language.
struct Syntax {
    /// Line comments start with `#` (Perl) rather than `//` and `/* */` (JavaScript).
    hash_comments: bool,
    /// The callee names that declare a test.
    callees: fn(&str) -> Callee,
    /// Method names whose callback runs once per element (`.forEach`, `.map`).
    loops: &'static [&'static str],
    /// Whether a test's name may follow the callee without parentheses (`subtest 'x' => …`).
    bare_args: bool,
}

impl Syntax {
    const JS: Syntax = Syntax {
        hash_comments: false,
        callees: js_callee,
        loops: &["forEach", "map", "flatMap"],
        bare_args: false,
    };
    const PERL: Syntax = Syntax {
        hash_comments: true,
        callees: perl_callee,
        loops: &[],
        bare_args: true,
    };
}

/// What an identifier chain followed by its arguments is.
#[derive(PartialEq)]
enum Callee {
    No,
    Test,
    /// `test.each(table)(name, …)`: one test per row.
    Each,
}

fn js_callee(chain: &str) -> Callee {
    let mut segs: Vec<&str> = chain.split('.').collect();
    let each = segs.last() == Some(&"each");
    while matches!(
        segs.last(),
        Some(&("skip" | "only" | "todo" | "each" | "concurrent"))
    ) {
        segs.pop();
    }
    let base = match segs.as_slice() {
        [base] => *base,
        // `t.test`, `st.test`, `tap.test`, `t.describe`: a test's own subtests.
        [owner, base] if owner.len() <= 3 || *owner == "tap" => *base,
        _ => return Callee::No,
    };
    match (base, each) {
        ("test" | "it" | "describe" | "suite" | "context" | "subtest", false) => Callee::Test,
        ("test" | "it" | "describe", true) => Callee::Each,
        _ => Callee::No,
    }
}

fn perl_callee(chain: &str) -> Callee {
    match chain {
        "subtest" => Callee::Test,
        _ => Callee::No,
    }
}

/// A scope the tokenizer is inside of.
enum Scope {
    /// A test's arguments (its callback): its name, the depth it opened at, a name known only
    /// at run time.
    Test {
        name: String,
        depth: i32,
        dynamic: bool,
    },
    /// A `for`/`while` loop, or a `.forEach(…)`-like call, opened at `depth`; `braced`: its
    /// body is a block (a loop header's parentheses close before it).
    Loop { depth: i32, header: bool },
}

struct Tokens<'s> {
    src: &'s [u8],
    text: &'s str,
    i: usize,
    line: usize,
    depth: i32,
    syntax: Syntax,
    scopes: Vec<Scope>,
    found: Vec<Found>,
}

impl<'s> Tokens<'s> {
    fn new(text: &'s str, syntax: Syntax) -> Self {
        Tokens {
            src: text.as_bytes(),
            text,
            i: 0,
            line: 1,
            depth: 0,
            syntax,
            scopes: Vec::new(),
            found: Vec::new(),
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.i + ahead).copied().unwrap_or(0)
    }

    fn bump(&mut self) {
        if self.peek(0) == b'\n' {
            self.line += 1;
        }
        self.i += 1;
    }

    fn tests(mut self) -> Vec<Found> {
        while self.i < self.src.len() {
            let c = self.peek(0);
            match c {
                b'/' if !self.syntax.hash_comments && self.peek(1) == b'/' => self.skip_line(),
                b'/' if !self.syntax.hash_comments && self.peek(1) == b'*' => self.block_comment(),
                b'#' if self.syntax.hash_comments && !self.perl_sigil_hash() => self.skip_line(),
                b'\'' | b'"' | b'`' => {
                    self.string();
                }
                b'(' | b'[' | b'{' => {
                    self.depth += 1;
                    self.bump();
                }
                b')' | b']' | b'}' => {
                    self.depth -= 1;
                    self.bump();
                    self.closed(c);
                }
                b';' => {
                    self.bump();
                    self.statement_end();
                }
                c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => self.word(),
                _ => self.bump(),
            }
        }
        self.found
    }

    /// `$#array` in Perl is no comment.
    fn perl_sigil_hash(&self) -> bool {
        self.i > 0 && self.src[self.i - 1] == b'$'
    }

    fn skip_line(&mut self) {
        while self.i < self.src.len() && self.peek(0) != b'\n' {
            self.bump();
        }
    }

    fn block_comment(&mut self) {
        self.i += 2;
        while self.i < self.src.len() && !(self.peek(0) == b'*' && self.peek(1) == b'/') {
            self.bump();
        }
        self.i += 2;
    }

    /// Skips a string literal; returns its text and whether it interpolates (`${…}` in a
    /// template, `$`/`@` in a Perl double-quoted string).
    fn string(&mut self) -> (String, bool) {
        let quote = self.peek(0);
        self.bump();
        let start = self.i;
        let mut interpolates = false;
        while self.i < self.src.len() && self.peek(0) != quote {
            match self.peek(0) {
                b'\\' => {
                    self.bump();
                }
                b'$' if quote == b'`' && self.peek(1) == b'{' => interpolates = true,
                b'$' | b'@' if quote == b'"' && self.syntax.hash_comments => interpolates = true,
                b'\n' if quote != b'`' && !self.syntax.hash_comments => break,
                _ => {}
            }
            self.bump();
        }
        let raw = self.text.get(start..self.i).unwrap_or_default();
        self.bump();
        (unescape(raw), interpolates)
    }

    /// An identifier chain (`t.test`, `describe.skip`, `for`).
    fn word(&mut self) {
        let start = self.i;
        while self.i < self.src.len() {
            let c = self.peek(0);
            if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$') {
                break;
            }
            self.i += 1;
        }
        let chain = self.text.get(start..self.i).unwrap_or_default();
        let last = chain.rsplit('.').next().unwrap_or(chain);
        let after_dot = start > 0 && self.src[start - 1] == b'.';
        if (after_dot || chain.contains('.')) && self.syntax.loops.contains(&last) {
            let depth = self.depth;
            self.scopes.push(Scope::Loop {
                depth,
                header: false,
            });
            return;
        }
        // `x.test(…)` on a value (`/re/.test(s)`) is no test.
        if after_dot {
            return;
        }
        if matches!(chain, "for" | "foreach" | "while") {
            let depth = self.depth;
            self.scopes.push(Scope::Loop {
                depth,
                header: true,
            });
            return;
        }
        match (self.syntax.callees)(chain) {
            Callee::No => {}
            Callee::Each => self.call(Some(chain)),
            Callee::Test => self.call(None),
        }
    }

    /// A test's call: its name from its first argument; `each`: a `test.each(table)` chain,
    /// named by it.
    fn call(&mut self, each: Option<&str>) {
        let line = self.line;
        let save = (self.i, self.line);
        self.space();
        let paren = self.peek(0) == b'(';
        if !paren && !self.syntax.bare_args {
            (self.i, self.line) = save;
            return;
        }
        let depth = self.depth;
        if paren {
            self.depth += 1;
            self.bump();
            self.space();
        }
        let (name, interpolates) = match (each, self.peek(0)) {
            (Some(chain), _) => (chain.to_owned(), true),
            (None, b'\'' | b'"' | b'`') => self.string(),
            (None, _) => (self.expression(), true),
        };
        let in_loop = self.scopes.iter().any(|s| match s {
            Scope::Loop { .. } => true,
            Scope::Test { dynamic, .. } => *dynamic,
        });
        let dynamic = interpolates || in_loop;
        let mut path: Vec<String> = (self.scopes.iter())
            .filter_map(|s| match s {
                Scope::Test { name, .. } => Some(name.clone()),
                Scope::Loop { .. } => None,
            })
            .collect();
        path.push(name.clone());
        self.found.push(Found {
            name: path,
            line,
            dynamic,
        });
        self.scopes.push(Scope::Test {
            name,
            depth,
            dynamic,
        });
    }

    /// The source text of a first argument that is no string literal.
    fn expression(&mut self) -> String {
        let start = self.i;
        // Brackets are left to the tokenizer, which counts them.
        let stops = |c: u8| {
            matches!(
                c,
                b',' | b';' | b'\n' | b'(' | b')' | b'[' | b']' | b'{' | b'}'
            )
        };
        while self.i < self.src.len() && !stops(self.peek(0)) {
            self.i += 1;
        }
        let text = self.text.get(start..self.i).unwrap_or_default().trim();
        text.chars().take(60).collect()
    }

    fn space(&mut self) {
        while self.peek(0).is_ascii_whitespace() {
            self.bump();
        }
    }

    /// A bracket closed: the scopes it ends.
    fn closed(&mut self, c: u8) {
        while let Some(scope) = self.scopes.last_mut() {
            match scope {
                Scope::Test { depth, .. } if self.depth <= *depth => {}
                Scope::Loop { depth, header } if self.depth <= *depth => {
                    // A loop's header closed: its body follows.
                    if *header && c == b')' && self.depth == *depth {
                        *header = false;
                        return;
                    }
                }
                _ => return,
            }
            self.scopes.pop();
        }
    }

    /// A `;`: a loop without a block, or a Perl `subtest … ;`, ends at its own depth.
    fn statement_end(&mut self) {
        while let Some(scope) = self.scopes.last() {
            match scope {
                Scope::Test { depth, .. }
                | Scope::Loop {
                    depth,
                    header: false,
                } if self.depth <= *depth => {
                    self.scopes.pop();
                }
                _ => return,
            }
        }
    }
}

/// The common escapes of a string literal's text.
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// pytest: `def test_*` at the top, and `def test_*` methods of `class Test*` (one level).
fn python(src: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut class: Option<(String, usize)> = None;
    for (n, text) in src.lines().enumerate() {
        let indent = text.len() - text.trim_start().len();
        let t = text.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if class.as_ref().is_some_and(|(_, i)| indent <= *i) {
            class = None;
        }
        if let Some(rest) = t.strip_prefix("class ") {
            let name = ident(rest);
            if name.starts_with("Test") {
                class = Some((name.to_owned(), indent));
            }
            continue;
        }
        let def = t
            .strip_prefix("async def ")
            .or_else(|| t.strip_prefix("def "));
        let Some(name) = def.map(ident).filter(|n| n.starts_with("test")) else {
            continue;
        };
        let name = match (&class, indent) {
            (None, 0) => vec![name.to_owned()],
            (Some((c, i)), _) if indent > *i => vec![c.clone(), name.to_owned()],
            _ => continue,
        };
        found.push(Found {
            name,
            line: n + 1,
            dynamic: false,
        });
    }
    found
}

/// go: `func TestX(t *testing.T)` (not `TestMain`).
fn go(src: &str) -> Vec<Found> {
    let mut found = Vec::new();
    for (n, text) in src.lines().enumerate() {
        let Some(rest) = text.strip_prefix("func Test") else {
            continue;
        };
        let name = format!("Test{}", ident(rest));
        let takes_t = rest.contains("*testing.T)");
        if name != "TestMain" && takes_t && !rest.starts_with(|c: char| c.is_lowercase()) {
            found.push(Found {
                name: vec![name],
                line: n + 1,
                dynamic: false,
            });
        }
    }
    found
}

/// bats: `@test "name" {`.
fn bats(src: &str) -> Vec<Found> {
    let mut found = Vec::new();
    for (n, text) in src.lines().enumerate() {
        let Some(rest) = text.trim_start().strip_prefix("@test ") else {
            continue;
        };
        let rest = rest.trim();
        let rest = rest.strip_suffix('{').unwrap_or(rest).trim_end();
        let (name, dynamic) = match rest.as_bytes().first() {
            Some(q @ (b'"' | b'\'')) => {
                let inner = rest[1..].strip_suffix(*q as char).unwrap_or(&rest[1..]);
                (unescape(inner), *q == b'"' && inner.contains('$'))
            }
            _ => (rest.to_owned(), rest.contains('$')),
        };
        found.push(Found {
            name: vec![name],
            line: n + 1,
            dynamic,
        });
    }
    found
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lang: Lang, src: &str) -> Vec<(String, usize, bool)> {
        scan(lang, src)
            .into_iter()
            .map(|f| (f.name.join(" > "), f.line, f.dynamic))
            .collect()
    }

    /// `names`' answer as a test writes it: (name path, line, dynamic).
    fn owned(want: &[(&str, usize, bool)]) -> Vec<(String, usize, bool)> {
        want.iter().map(|&(n, l, d)| (n.to_owned(), l, d)).collect()
    }

    #[test]
    fn javascript_tests_nest_by_their_calls() {
        let src = r#"
const test = require('node:test');
// test('commented out', () => {});
describe('group', () => {
  it("inner adds", () => { assert.ok(/x/.test('x')) });
  describe.skip('deeper', () => { test('leaf', t => {}) });
});
test(`plain template`, async (t) => {
  await t.test('sub', () => {});
});
for (const n of [1, 2]) {
  test(`case ${n}`, () => {});
}
test('after the loop', () => {});
[1, 2].forEach((n) => test('row', () => {}));
test(name, () => {});
test.each([[1]])('each %s', () => {});
"#;
        let got = names(Lang::Js, src);
        let want = [
            ("group", 4, false),
            ("group > inner adds", 5, false),
            ("group > deeper", 6, false),
            ("group > deeper > leaf", 6, false),
            ("plain template", 8, false),
            ("plain template > sub", 9, false),
            ("case ${n}", 12, true),
            ("after the loop", 14, false),
            ("row", 15, true),
            ("name", 16, true),
            ("test.each", 17, true),
        ];
        assert_eq!(got, owned(&want));
    }

    #[test]
    fn perl_subtests_nest_by_their_blocks() {
        let src = "use Test::More;\n# subtest 'no';\nsubtest 'outer' => sub {\n  ok(1, 'x');\n  \
                   subtest \"inner\", sub { ok($#a) };\n};\nsubtest 'next' => sub { ok 1 };\n\
                   for my $n (1..2) { subtest \"n $n\" => sub { ok 1 } }\ndone_testing;\n";
        let got = names(Lang::Perl, src);
        let want = [
            ("outer", 3, false),
            ("outer > inner", 5, false),
            ("next", 7, false),
            ("n $n", 8, true),
        ];
        assert_eq!(got, owned(&want));
    }

    #[test]
    fn pytest_go_and_bats_tests_by_their_declarations() {
        let py = "import pytest\n\ndef test_adds():\n    pass\n\ndef helper():\n    pass\n\n\
                  class TestCalc:\n    def test_sub(self):\n        pass\n    def other(self):\n        \
                  pass\n\nclass Helper:\n    def test_not(self):\n        pass\n";
        assert_eq!(
            names(Lang::Python, py),
            [
                ("test_adds".into(), 3, false),
                ("TestCalc > test_sub".into(), 10, false)
            ]
        );
        let go = "package calc\n\nfunc TestAdd(t *testing.T) {}\nfunc TestMain(m *testing.M) {}\n\
                  func Testify(t *testing.T) {}\nfunc helper() {}\n";
        assert_eq!(names(Lang::Go, go), [("TestAdd".into(), 3, false)]);
        let bats = "#!/usr/bin/env bats\n@test \"adds two\" {\n  true\n}\n@test \"uses $X\" {\n}\n";
        assert_eq!(
            names(Lang::Bats, bats),
            [("adds two".into(), 2, false), ("uses $X".into(), 5, true)]
        );
    }
}
