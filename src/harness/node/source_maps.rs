//! Source-mapped places for TypeScript run by a node loader: node's own `--enable-source-maps`
//! maps a failure's stack and node:test's `location:` through the map the loader hands node,
//! so a failure names the line the user wrote (`src/core/Low.test.ts:41:7`), not the
//! transpiled one (`:1:856`, past the end of line 1). tsx before 4.7.2 hands none on node
//! 20.12+ (tsx#506): `hooks/tapline-source-maps.cjs` lets it. Both go in `NODE_OPTIONS`, which
//! node reads before the loader's own `--import`, and which reaches the processes a test
//! starts. A `--require`, not an `--import`: node runs the main file of a process given an
//! `--import` as an ES module, which ts-node's `.ts` is not.
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const HOOK: (&str, &str) = (
    "tapline-source-maps.cjs",
    include_str!("hooks/tapline-source-maps.cjs"),
);

/// The hook's folder, written once per process (`None`: it could not be written, or its
/// path holds white space, which `NODE_OPTIONS` would split).
pub(crate) fn hook_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = crate::harness::hooks::versioned_hooks("source-maps", &[HOOK]).ok()?;
        (!dir
            .as_os_str()
            .to_string_lossy()
            .contains(char::is_whitespace))
        .then_some(dir)
    })
    .as_deref()
}

/// The words for `NODE_OPTIONS`: node's flag, and the hook in `dir` when there is one.
fn words(dir: Option<&Path>) -> String {
    match dir {
        Some(dir) => format!(
            "--enable-source-maps --require {}",
            dir.join(HOOK.0).display()
        ),
        None => "--enable-source-maps".to_owned(),
    }
}

/// `NODE_OPTIONS` as a file run by the TypeScript runner gets it: what `vars` (the run's) or
/// else tapline's own environment holds, then the words unless already there.
pub(crate) fn env(vars: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let before = vars
        .iter()
        .rev()
        .find(|(k, _)| k == "NODE_OPTIONS")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var_os("NODE_OPTIONS"));
    let value = with_words(before, &words(hook_dir()));
    vec![("NODE_OPTIONS".into(), value)]
}

fn with_words(before: Option<OsString>, words: &str) -> OsString {
    match before.filter(|b| !b.is_empty()) {
        Some(b) if b.to_string_lossy().contains(words) => b,
        Some(mut b) => {
            b.push(" ");
            b.push(words);
            b
        }
        None => words.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_follow_what_node_options_held_once() {
        let w = words(Some(Path::new("/h")));
        assert_eq!(
            w,
            "--enable-source-maps --require /h/tapline-source-maps.cjs"
        );
        assert_eq!(words(None), "--enable-source-maps");
        assert_eq!(with_words(None, &w), OsString::from(&w));
        assert_eq!(with_words(Some("".into()), &w), OsString::from(&w));
        let held = with_words(Some("--max-old-space-size=512".into()), &w);
        assert_eq!(
            held,
            OsString::from(format!("--max-old-space-size=512 {w}"))
        );
        assert_eq!(with_words(Some(held.clone()), &w), held);
    }

    #[test]
    fn the_run_s_node_options_come_first() {
        let vars = vec![("NODE_OPTIONS".into(), OsString::from("--require /t/t.cjs"))];
        let got = env(&vars);
        let value = got[0].1.to_string_lossy().into_owned();
        assert!(
            value.starts_with("--require /t/t.cjs --enable-source-maps"),
            "{value}"
        );
    }
}
