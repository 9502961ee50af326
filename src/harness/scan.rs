//! The static scan's shared parts: a test the scan found ([`Found`]), the small tokenizer the
//! rooms whose languages nest tests in calls read a source with ([`tokens`]: it skips comments
//! and strings and follows bracket depth, so nesting is read from the source's structure, not
//! its indentation), and the little helpers the line-based scanners share. Each room says
//! which files it reads and how ([`super::Harness::scanner`]).
//!
//! A name it cannot know without running (a template string with `${…}`, a variable, a call
//! inside a loop or a `.forEach`, `test.each`) is reported `dynamic`, with its source text.

/// How a room reads a source text's tests.
pub(crate) type Scanner = fn(&str) -> Vec<Found>;

/// One test the scan found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// Its names, outermost first.
    pub(crate) name: Vec<String>,
    /// Its line, from 1.
    pub(crate) line: usize,
    /// A name that is only known at run time (shown as its source text).
    pub(crate) dynamic: bool,
}

/// The extension of a file named `path` (after its last `.`).
pub(crate) fn extension(path: &str) -> Option<&str> {
    path.rsplit_once('.').map(|(_, e)| e)
}

/// The tests of `src`, read by the shared tokenizer as `syntax` says.
pub(crate) fn tokens(src: &str, syntax: Syntax) -> Vec<Found> {
    Tokens::new(src, syntax).tests()
}

/// What the shared tokenizer needs to know of a language.
pub(crate) struct Syntax {
    /// Line comments start with `#` (Perl) rather than `//` and `/* */` (JavaScript).
    pub(crate) hash_comments: bool,
    /// The callee names that declare a test.
    pub(crate) callees: fn(&str) -> Callee,
    /// Method names whose callback runs once per element (`.forEach`, `.map`).
    pub(crate) loops: &'static [&'static str],
    /// Whether a test's name may follow the callee without parentheses (`subtest 'x' => …`).
    pub(crate) bare_args: bool,
}

/// What an identifier chain followed by its arguments is.
#[derive(PartialEq)]
pub(crate) enum Callee {
    No,
    Test,
    /// `test.each(table)(name, …)`: one test per row.
    Each,
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
                b'#' if self.syntax.hash_comments && !self.sigil_hash() => self.skip_line(),
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

    /// A `#` right after a `$` (`$#array`, the last index) starts no comment.
    fn sigil_hash(&self) -> bool {
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
pub(crate) fn unescape(raw: &str) -> String {
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

/// The identifier at the start of `s`.
pub(crate) fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// What `scan` finds in `src`, as a scanner's test writes it: (name path, line, dynamic).
#[cfg(test)]
pub(crate) fn names(scan: Scanner, src: &str) -> Vec<(String, usize, bool)> {
    scan(src)
        .into_iter()
        .map(|f| (f.name.join(" > "), f.line, f.dynamic))
        .collect()
}

/// [`names`]' answer written as a test writes it.
#[cfg(test)]
pub(crate) fn owned(want: &[(&str, usize, bool)]) -> Vec<(String, usize, bool)> {
    want.iter().map(|&(n, l, d)| (n.to_owned(), l, d)).collect()
}
