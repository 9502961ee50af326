//! Without esbuild: whether a `.js`/`.mjs` browser file can be served as a native ES module,
//! and which project files it loads (for watch).
//!
//! A browser resolves only URLs: `./x.js`, `../lib/y.mjs`, `/abs.js`, `https://…`. A bare
//! specifier (`import { x } from 'lodash'`) needs a bundler (or an import map tapline does not
//! write), and TypeScript needs compiling: both fail the file before Chromium is asked, saying
//! how to install esbuild, instead of a page that dies on a resolution error.
//!
//! The specifiers are found by a small scanner, not a parser: it skips comments, strings,
//! template literals and regular expression literals, and reads `import … from 'x'`,
//! `import 'x'`, `export … from 'x'` and `import('x')` with a literal argument. Relative
//! imports are followed to the files they name, so every module the page will load is
//! checked. A dynamic `import(expr)` it cannot read is left to the page (its failure is the
//! page's "failed to load").
use crate::util::paths::normalize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why a file cannot be served without a bundler.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum NativeError {
    #[error(
        "{file} is TypeScript, which only a bundler compiles: {}",
        super::bundle::INSTALL_ESBUILD
    )]
    TypeScript { file: String },
    #[error(
        "{file} imports `{specifier}`, a package only a bundler resolves: {}",
        super::bundle::INSTALL_ESBUILD
    )]
    Bare { file: String, specifier: String },
    #[error("failed to read {file}: {reason}")]
    Read { file: String, reason: String },
}

/// The project files `file` loads as native modules (itself first, then what its relative
/// imports reach), or why it cannot be served as one.
pub(crate) fn native_inputs(file: &Path, project_root: &Path) -> Result<Vec<PathBuf>, NativeError> {
    let rel = |p: &Path| super::bundle::rel_of(p, project_root);
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut queue = vec![normalize(file)];
    while let Some(module) = queue.pop() {
        if !seen.insert(module.clone()) {
            continue;
        }
        if is_typescript(&module) {
            return Err(NativeError::TypeScript { file: rel(&module) });
        }
        let text = match std::fs::read_to_string(&module) {
            Ok(text) => text,
            // A relative import of a file that is not there is the page's 404 to report.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !order.is_empty() => continue,
            Err(e) => {
                return Err(NativeError::Read {
                    file: rel(&module),
                    reason: e.to_string(),
                })
            }
        };
        order.push(module.clone());
        let dir = module.parent().unwrap_or(project_root);
        for specifier in specifiers(&text) {
            if let Some(local) = specifier.strip_prefix('/') {
                queue.push(normalize(&project_root.join(local)));
            } else if specifier.starts_with("./") || specifier.starts_with("../") {
                queue.push(normalize(&dir.join(&specifier)));
            } else if !is_url(&specifier) {
                return Err(NativeError::Bare {
                    file: rel(&module),
                    specifier,
                });
            }
        }
    }
    Ok(order
        .into_iter()
        .filter(|p| p.starts_with(project_root))
        .collect())
}

fn is_typescript(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "ts" | "mts" | "cts" | "tsx"))
}

/// A specifier with a scheme (`https:`, `data:`, `blob:`): the browser fetches it itself.
fn is_url(specifier: &str) -> bool {
    specifier.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    })
}

/// A token the scanner tells apart.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Str(String),
    Punct(u8),
}

/// The module specifiers `source` imports statically or with a literal `import('…')`.
pub(crate) fn specifiers(source: &str) -> Vec<String> {
    let tokens = tokens(source);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let is_import = tokens[i] == Token::Word("import".into());
        let is_export = tokens[i] == Token::Word("export".into());
        // `x.import(…)`, `obj.export` are properties, not statements.
        let after_dot = i > 0 && tokens[i - 1] == Token::Punct(b'.');
        if !(is_import || is_export) || after_dot {
            i += 1;
            continue;
        }
        match tokens.get(i + 1) {
            Some(Token::Str(s)) if is_import => found.push(s.clone()),
            Some(Token::Punct(b'(')) if is_import => {
                if let (Some(Token::Str(s)), Some(Token::Punct(b')' | b','))) =
                    (tokens.get(i + 2), tokens.get(i + 3))
                {
                    found.push(s.clone());
                }
            }
            Some(Token::Punct(b'.')) => {} // import.meta
            Some(Token::Word(_) | Token::Punct(b'{' | b'*')) => {
                if let Some(s) = from_clause(&tokens[i + 1..], is_export) {
                    found.push(s);
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The `from 'x'` ending an import or re-export clause, if the clause has one: read up to the
/// first `;`, string, or (for `export`) a clause that is a declaration.
fn from_clause(tokens: &[Token], is_export: bool) -> Option<String> {
    if is_export && !matches!(tokens.first(), Some(Token::Punct(b'{' | b'*'))) {
        return None; // export const / function / default …
    }
    let mut depth = 0;
    for (k, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct(b'{') => depth += 1,
            Token::Punct(b'}') => depth -= 1,
            Token::Punct(b';') | Token::Str(_) => return None,
            Token::Word(w) if w == "from" && depth == 0 => {
                return match tokens.get(k + 1) {
                    Some(Token::Str(s)) => Some(s.clone()),
                    _ => None,
                };
            }
            _ => {}
        }
    }
    None
}

/// Splits `source` into words, string literals and punctuation; comments, template literals
/// and regular expressions are skipped. A template literal's `${…}` holes are skipped with
/// it: an import inside one is not seen.
fn tokens(source: &str) -> Vec<Token> {
    let b = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            b'/' if regex_may_start(out.last()) => i = skip_regex(b, i),
            b'\'' | b'"' => {
                let (text, next) = string(b, i);
                out.push(Token::Str(text));
                i = next;
            }
            b'`' => i = skip_quoted(b, i, b'`'),
            _ if c == b'_' || c == b'$' || c.is_ascii_alphanumeric() || c >= 0x80 => {
                let start = i;
                while i < b.len()
                    && (b[i] == b'_'
                        || b[i] == b'$'
                        || b[i].is_ascii_alphanumeric()
                        || b[i] >= 0x80)
                {
                    i += 1;
                }
                out.push(Token::Word(source[start..i].to_owned()));
            }
            _ if c.is_ascii_whitespace() => i += 1,
            _ => {
                out.push(Token::Punct(c));
                i += 1;
            }
        }
    }
    out
}

/// Whether a `/` after `prev` starts a regular expression rather than a division: after an
/// operator, an opening bracket, or a keyword that ends no expression.
fn regex_may_start(prev: Option<&Token>) -> bool {
    match prev {
        None => true,
        Some(Token::Punct(p)) => !matches!(p, b')' | b']' | b'}'),
        Some(Token::Word(w)) => matches!(
            w.as_str(),
            "return"
                | "typeof"
                | "instanceof"
                | "in"
                | "of"
                | "new"
                | "delete"
                | "void"
                | "throw"
                | "case"
                | "do"
                | "else"
                | "yield"
                | "await"
        ),
        Some(Token::Str(_)) => false,
    }
}

/// Past a regular expression literal starting at `i` (its `[…]` classes may hold a `/`).
fn skip_regex(b: &[u8], mut i: usize) -> usize {
    i += 1;
    let mut class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => return i + 1,
            b'\n' => return i, // not a regex after all; resume on the next line
            _ => {}
        }
        i += 1;
    }
    i
}

/// Past a quoted run starting at `i` (backslash escapes honoured).
fn skip_quoted(b: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < b.len() && b[i] != quote {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// A string literal's text (simple escapes resolved) and where it ends.
fn string(b: &[u8], start: usize) -> (String, usize) {
    let quote = b[start];
    let mut text = Vec::new();
    let mut i = start + 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
        }
        text.push(b[i]);
        i += 1;
    }
    (
        String::from_utf8_lossy(&text).into_owned(),
        (i + 1).min(b.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_static_and_literal_dynamic_import() {
        let src = r#"
import a from './a.js';
import { b, c as d } from "../lib/b.mjs"
import * as ns from '/abs.js';
import def, { e } from './e.js';
import './side.js';
export { x } from './re.js';
export * from './star.js';
export * as all from './all.js';
const m = await import('./dyn.js');
import {
  multi,
  line,
} from './multi.js';
"#;
        assert_eq!(
            specifiers(src),
            [
                "./a.js",
                "../lib/b.mjs",
                "/abs.js",
                "./e.js",
                "./side.js",
                "./re.js",
                "./star.js",
                "./all.js",
                "./dyn.js",
                "./multi.js"
            ]
        );
    }

    #[test]
    fn ignores_what_only_looks_like_an_import() {
        let src = r#"
// import x from 'commented';
/* import y from 'block'; */
const s = "import z from 'in-a-string'";
const t = `import w from 'in-a-template' ${"x"}`;
const r = /import v from 'in-a-regex'/g;
const half = 10 / 2; const other = 'import u from "quoted"' / 1;
export const from = 'not-a-from';
export default function importer() {}
obj.import('method-call');
console.log(import.meta.url);
const lazy = import(variable);
"#;
        assert_eq!(specifiers(src), Vec::<String>::new());
    }

    use crate::harness::browser::test_project as project;

    #[test]
    fn relative_imports_are_followed_to_the_files_they_load() {
        let dir = project(&[
            (
                "test/a.browser.js",
                "import { b } from '../lib/b.js';\nimport 'https://example.test/x.js';\n",
            ),
            (
                "lib/b.js",
                "export * from './c.mjs';\nexport { d } from '/lib/d.js';\nimport './b.js';\n",
            ),
            ("lib/c.mjs", "export const c = 1;\n"),
            ("lib/d.js", "export const d = 1;\nimport './missing.js';\n"),
        ]);
        let root = dir.path();
        let mut got = native_inputs(&root.join("test/a.browser.js"), root).unwrap();
        assert_eq!(
            got[0],
            root.join("test/a.browser.js"),
            "the file itself first"
        );
        got.sort();
        let want: Vec<PathBuf> = ["lib/b.js", "lib/c.mjs", "lib/d.js", "test/a.browser.js"]
            .iter()
            .map(|p| root.join(p))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn bare_imports_and_typescript_need_a_bundler() {
        let dir = project(&[
            ("test/a.browser.js", "import { b } from '../lib/b.js';\n"),
            ("lib/b.js", "import _ from 'lodash';\n"),
            ("test/c.browser.mjs", "import './d.ts';\n"),
            ("test/d.ts", "export {};\n"),
            ("test/e.browser.ts", "export {};\n"),
        ]);
        let root = dir.path();
        let err = native_inputs(&root.join("test/a.browser.js"), root).unwrap_err();
        assert_eq!(
            err.to_string(),
            "lib/b.js imports `lodash`, a package only a bundler resolves: install esbuild (`npm install --save-dev esbuild` in the project) to bundle it"
        );
        let err = native_inputs(&root.join("test/c.browser.mjs"), root).unwrap_err();
        assert_eq!(
            err,
            NativeError::TypeScript {
                file: "test/d.ts".into()
            }
        );
        let err = native_inputs(&root.join("test/e.browser.ts"), root).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "test/e.browser.ts is TypeScript, which only a bundler compiles: install esbuild"
            ),
            "{err}"
        );
    }

    #[test]
    fn scanning_never_panics_on_cut_input() {
        let src = "import a from './a.js'; const r = /[/]x/; `tpl ${ '\\";
        for end in 0..=src.len() {
            let _ = specifiers(&src[..end]);
        }
        assert_eq!(specifiers(src), ["./a.js"]);
    }
}
