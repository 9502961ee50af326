//! The static scan of go test files.
use crate::harness::scan::{extension, ident, Found};

/// Whether a file named `path` is read as go.
pub(crate) fn reads(path: &str) -> bool {
    extension(path) == Some("go")
}

/// go: `func TestX(t *testing.T)` (not `TestMain`).
pub(crate) fn scan(src: &str) -> Vec<Found> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_tests_by_their_declarations() {
        let go = "package calc\n\nfunc TestAdd(t *testing.T) {}\nfunc TestMain(m *testing.M) {}\n\
                  func Testify(t *testing.T) {}\nfunc helper() {}\n";
        let got: Vec<_> = scan(go)
            .into_iter()
            .map(|f| (f.name, f.line, f.dynamic))
            .collect();
        assert_eq!(got, [(vec!["TestAdd".to_owned()], 3, false)]);
    }
}
