//! The static scan of bats test files.
use crate::harness::scan::{extension, unescape, Found};

/// Whether a file named `path` is read as bats.
pub(crate) fn reads(path: &str) -> bool {
    extension(path) == Some("bats")
}

/// bats: `@test "name" {`.
pub(crate) fn scan(src: &str) -> Vec<Found> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bats_tests_by_their_declarations() {
        let bats = "#!/usr/bin/env bats\n@test \"adds two\" {\n  true\n}\n@test \"uses $X\" {\n}\n";
        let got: Vec<_> = (scan(bats).into_iter())
            .map(|f| (f.name.join(" > "), f.line, f.dynamic))
            .collect();
        assert_eq!(
            got,
            [("adds two".into(), 2, false), ("uses $X".into(), 5, true)]
        );
    }
}
