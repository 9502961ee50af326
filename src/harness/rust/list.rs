//! libtest's own listing of a binary's tests: its entry's `cargo test` command with
//! `-- --list --format terse` (`tests::adds: test`, a doc test `src/lib.rs - add (line 5):
//! test`), which builds the binary first, as a run would.
use crate::harness::list::{output, Listable, Lister, Listing, Scanned};
use crate::harness::scan::Found;
use crate::harness::Harness;
use crate::protocol::InputFormat;
use std::path::Path;

/// The listing of a suite read as libtest's output whose command runs cargo.
pub(super) fn lister(file: &Listable<'_>) -> Option<Lister> {
    let command = file.command?;
    let is_cargo = |w: &std::ffi::OsString| Path::new(w).file_name().is_some_and(|n| n == "cargo");
    (file.suite && file.format == InputFormat::Libtest && command.iter().any(is_cargo)).then(|| {
        Lister {
            harness: super::CARGO.id(),
            batch: None,
            refines: true,
        }
    })
}

/// What is known of a test binary's tests without building it: nothing by name, so one
/// entry known only at run time stands for them all, and `-t` runs the binary with libtest's
/// own filter (a static scan of Rust's modules, macros and `mod` files would guess).
pub(super) fn suite_tests(file: &Listable<'_>) -> Option<Vec<Scanned>> {
    lister(file)?;
    Some(vec![Scanned {
        source: file.rel.to_owned(),
        found: Found {
            name: vec!["(its tests, as libtest names them once built)".to_owned()],
            line: 1,
            dynamic: true,
        },
    }])
}

/// Lists each suite of `files` into `out`.
pub(super) fn list(files: &[&Listable<'_>], out: &mut Listing) {
    for file in files {
        let Some(command) = file.command else {
            continue;
        };
        let listed = match nextest_list(command) {
            Some(argv) => output(&argv, &file.dir, &[0]).map(|text| oneline(&text)),
            None => {
                let mut argv = command.to_vec();
                if !argv.iter().any(|w| w == "--") {
                    argv.push("--".into());
                }
                argv.extend(["--list".into(), "--format".into(), "terse".into()]);
                output(&argv, &file.dir, &[0]).map(|text| terse(&text))
            }
        };
        out.take(file.rel, listed);
    }
}

/// A nextest entry's listing: `cargo nextest list --message-format oneline` with the
/// entry's package and target words (`None`: not nextest's).
fn nextest_list(command: &[std::ffi::OsString]) -> Option<Vec<std::ffi::OsString>> {
    let words: Vec<String> = command
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let prefix = super::targets::NEXTEST;
    if words.len() < prefix.len() || words[..prefix.len()] != prefix[..] {
        return None;
    }
    let mut argv: Vec<std::ffi::OsString> =
        ["cargo", "nextest", "list", "--message-format", "oneline"]
            .iter()
            .map(Into::into)
            .collect();
    argv.extend(command[prefix.len()..].iter().cloned());
    Some(argv)
}

/// `binary-id test-name` lines, each a test.
fn oneline(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter_map(|l| l.split_once(' ').map(|(_, name)| name.trim()))
        .filter(|name| !name.is_empty())
        .map(|name| vec![name.to_owned()])
        .collect()
}

/// `NAME: test` lines (benches say `NAME: bench`), each a test.
pub(super) fn terse(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter_map(|l| {
            l.strip_suffix(": test")
                .or_else(|| l.strip_suffix(": bench"))
        })
        .map(|name| vec![plain_name(name).to_owned()])
        .collect()
}

/// A name as a run reports it (without ` - should panic`, ` - compile fail`).
fn plain_name(name: &str) -> &str {
    [" - should panic", " - compile fail", " - compile"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terse_lines_are_tests() {
        let text = "tests::adds: test\nsrc/lib.rs - add (line 5): test\nsrc/lib.rs - x (line 9) - compile fail: test\nb: bench\n\n1 test, 0 benchmarks\n";
        let names: Vec<String> = terse(text).into_iter().flatten().collect();
        assert_eq!(
            names,
            [
                "tests::adds",
                "src/lib.rs - add (line 5)",
                "src/lib.rs - x (line 9)",
                "b"
            ]
        );
    }
}
