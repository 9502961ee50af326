//! The static scan of Python test files as pytest collects them.
use crate::harness::scan::{extension, ident, Found};

/// Whether a file named `path` is read as Python.
pub(crate) fn reads(path: &str) -> bool {
    extension(path) == Some("py")
}

/// pytest: `def test_*` at the top, and `def test_*` methods of `class Test*` (one level).
pub(crate) fn scan(src: &str) -> Vec<Found> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<(String, usize, bool)> {
        crate::harness::scan::names(scan, src)
    }

    #[test]
    fn pytest_tests_by_their_declarations() {
        let py = "import pytest\n\ndef test_adds():\n    pass\n\ndef helper():\n    pass\n\n\
                  class TestCalc:\n    def test_sub(self):\n        pass\n    def other(self):\n        \
                  pass\n\nclass Helper:\n    def test_not(self):\n        pass\n";
        assert_eq!(
            names(py),
            [
                ("test_adds".into(), 3, false),
                ("TestCalc > test_sub".into(), 10, false)
            ]
        );
    }
}
