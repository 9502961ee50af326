//! Which JavaScript and TypeScript files of a folder are tests, as node's runner, node-tap and
//! tstest name them: what a file-name glob alone cannot say (a folder that makes every
//! JavaScript file in it a test, the runtime a file's name asks for).
use std::ffi::OsStr;
use std::path::{Component, Path};

/// Folders in which node-tap (and node's runner, for `test/`) takes every JavaScript file.
const JS_TEST_FOLDERS: &[&str] = &["test", "tests", "__tests__"];

/// JavaScript's extensions, as node runs them.
const JS_EXTENSIONS: &[&str] = &["js", "mjs", "cjs"];

/// Whether the JavaScript file at `path` (as walked, from the cwd) is a test: node's runner
/// takes `*.test.js`, `*-test.js`, `*_test.js`, `test-*.js`, `test.js` and every file under a
/// `test/` folder; node-tap adds `*.spec.js` and the folders `tests/` and `__tests__/`.
/// `in_test_folder` says the walk started in a folder the user or the project named as a test
/// folder, whose files all count, whatever the folder's name.
pub(crate) fn is_js_test(path: &Path, in_test_folder: bool) -> bool {
    named_as_js_test(path, in_test_folder, JS_EXTENSIONS)
}

/// Whether a TypeScript file is a test as node-tap names them (18 and later run TypeScript
/// through their own loader): as [`is_js_test`] names JavaScript, every file under a `test/`,
/// `tests/` or `__tests__/` folder and `*.test.ts`, `*.spec.ts`…, not tstest's `test*.ts` only.
/// A declaration file (`*.d.ts`) never is one.
pub(crate) fn is_tap_ts_test(path: &Path) -> bool {
    let declaration = path
        .file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|name| name.ends_with(".d.ts"));
    !declaration && named_as_js_test(path, false, &["ts"])
}

fn named_as_js_test(path: &Path, in_test_folder: bool, extensions: &[&str]) -> bool {
    if in_test_folder {
        return true;
    }
    let Some(name) = path.file_name().and_then(OsStr::to_str) else {
        return false;
    };
    let stem = match name.rsplit_once('.') {
        Some((stem, ext)) if extensions.contains(&ext) => stem,
        _ => return false,
    };
    // `a.test.browser.js` is named as `a.test.js` is, for the runtime it asks for.
    let stem = without_runtime(stem);
    let named = stem == "test"
        || stem.starts_with("test-")
        || [".test", "-test", "_test", ".spec"]
            .iter()
            .any(|end| stem.ends_with(end));
    named || in_js_test_folder(path)
}

/// Whether a folder on `path` (not the file itself) is named `test`, `tests` or `__tests__`.
fn in_js_test_folder(path: &Path) -> bool {
    let mut folders = path.components().collect::<Vec<_>>();
    folders.pop();
    folders.iter().any(|c| match c {
        Component::Normal(name) => JS_TEST_FOLDERS.iter().any(|f| name == f),
        _ => false,
    })
}

/// The runtimes a tstest file name may ask for (`test.browser.ts`, `test.node+deno.ts`):
/// those tapline runs (`node`, `both`, `all` in node; `browser`, `chromium`, `chrome`, `both`,
/// `all` in Chromium), and those it does not.
const NODE_RUNTIMES: &[&str] = &["node", "both", "all"];
const BROWSER_RUNTIMES: &[&str] = &["browser", "chromium", "chrome", "both", "all"];
const OTHER_RUNTIMES: &[&str] = &["deno", "bun"];

use crate::harness::api::Hosts as Runtimes;

/// The runtimes the segment before `name`'s extension asks for (a `.nonci` segment is passed
/// over: `test.browser.nonci.ts`); no runtime segment is node. A CommonJS file (`.cjs`)
/// cannot be a browser module: it runs in node. Neither (`test.deno.ts`) is for a runtime
/// tapline does not have: a walk passes it over, and named, it runs as a node file would.
pub(crate) fn runtimes(name: &str) -> Runtimes {
    let node_only = Runtimes {
        process: true,
        page: false,
    };
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return node_only;
    };
    if ext == "cjs" {
        return node_only;
    }
    let Some(segment) = runtime_segment(stem) else {
        return node_only;
    };
    let asks = |set: &[&str]| segment.split('+').any(|r| set.contains(&r));
    Runtimes {
        process: asks(NODE_RUNTIMES),
        page: asks(BROWSER_RUNTIMES),
    }
}

/// The runtime segment at the end of `stem` (`test.browser` → `browser`), skipping `.nonci`.
fn runtime_segment(stem: &str) -> Option<&str> {
    let stem = stem.strip_suffix(".nonci").unwrap_or(stem);
    let (_, last) = stem.rsplit_once('.')?;
    is_runtime(last).then_some(last)
}

/// `stem` without its runtime segment (`a.test.browser` → `a.test`, `test.chromium` → `test`).
fn without_runtime(stem: &str) -> &str {
    let bare = stem.strip_suffix(".nonci").unwrap_or(stem);
    match bare.rsplit_once('.') {
        Some((base, last)) if is_runtime(last) => base,
        _ => bare,
    }
}

/// How a walk takes a TypeScript file, as tstest names its tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TsName {
    /// `test*.ts` or `*.test.ts`, for node (or no runtime named): a test.
    Test,
    /// A test for deno or bun only: tapline runs TypeScript in node and Chromium, so a walk
    /// passes it over.
    OtherRuntime,
    /// Not a test's name (`helpers.ts`, `fixtures.ts`).
    NotATest,
}

/// Reads a TypeScript file name as tstest does: a test is `test*.ts` or `*.test.ts`, and a
/// runtime segment before `.ts` (`.browser`, `.node`, `.both`, `.node+deno`) says where it
/// runs.
pub(crate) fn ts_name(name: &str) -> TsName {
    let Some(stem) = name.strip_suffix(".ts") else {
        return TsName::NotATest;
    };
    if stem.ends_with(".d") {
        return TsName::NotATest;
    }
    let base = without_runtime(stem);
    if !(base.starts_with("test") || base.ends_with(".test")) {
        return TsName::NotATest;
    }
    let runs = |r: &str| NODE_RUNTIMES.contains(&r) || BROWSER_RUNTIMES.contains(&r);
    match runtime_segment(stem) {
        Some(runtimes) if !runtimes.split('+').any(runs) => TsName::OtherRuntime,
        _ => TsName::Test,
    }
}

fn is_runtime(segment: &str) -> bool {
    !segment.is_empty()
        && segment.split('+').all(|r| {
            NODE_RUNTIMES.contains(&r)
                || BROWSER_RUNTIMES.contains(&r)
                || OTHER_RUNTIMES.contains(&r)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javascript_as_node_and_node_tap_name_it() {
        let js = |path: &str| is_js_test(Path::new(path), false);
        for test in [
            "test/helpers.js",
            "src/a.test.js",
            "src/a-test.mjs",
            "src/a_test.cjs",
            "src/test-a.js",
            "src/test.js",
            "lib/a.spec.js",
            "tests/deep/x.js",
            "pkg/__tests__/x.js",
            "t/test-app.js",
        ] {
            assert!(js(test), "{test} is a test");
        }
        for not in [
            "t/static/app.js",
            "t/lib/helper.js",
            "src/testing.js",
            "src/contest.js",
            "test/a.json",
            "t/test.ts",
        ] {
            assert!(!js(not), "{not} is not a test");
        }
        assert!(is_js_test(Path::new("spec/anything.js"), true));
    }

    #[test]
    fn typescript_as_node_tap_names_it() {
        for test in [
            "test/basic.ts",
            "test/sub/deep.ts",
            "src/a.test.ts",
            "x.spec.ts",
            "__tests__/a.ts",
        ] {
            assert!(is_tap_ts_test(Path::new(test)), "{test}");
        }
        for not in [
            "src/index.ts",
            "test/types.d.ts",
            "test/a.js",
            "testUtils.ts",
        ] {
            assert!(!is_tap_ts_test(Path::new(not)), "{not}");
        }
    }

    #[test]
    fn typescript_as_tstest_names_it() {
        use TsName::*;
        for (name, expected) in [
            ("test.ts", Test),
            ("test.basic.ts", Test),
            ("test.node.ts", Test),
            ("test.both.ts", Test),
            ("test.node+deno.ts", Test),
            ("math.test.ts", Test),
            ("math.test.node.ts", Test),
            ("testing-utils.ts", Test),
            ("test.browser.ts", Test),
            ("test.chrome.ts", Test),
            ("test.chromium.ts", Test),
            ("test.browser.nonci.ts", Test),
            ("test.deno.ts", OtherRuntime),
            ("math.test.bun.ts", OtherRuntime),
            ("helpers.ts", NotATest),
            ("fixtures.ts", NotATest),
            ("test.d.ts", NotATest),
            ("index.node.ts", NotATest),
            ("test.js", NotATest),
        ] {
            assert_eq!(ts_name(name), expected, "{name}");
        }
    }

    #[test]
    fn runtimes_as_the_name_asks() {
        let r = |name: &str| {
            let r = runtimes(name);
            (r.process, r.page)
        };
        assert_eq!(r("test.ts"), (true, false));
        assert_eq!(r("a.test.js"), (true, false));
        assert_eq!(r("test.node.ts"), (true, false));
        assert_eq!(r("test.browser.ts"), (false, true));
        assert_eq!(r("a.test.browser.mjs"), (false, true));
        assert_eq!(r("test.chromium.js"), (false, true));
        assert_eq!(r("test.chrome.js"), (false, true));
        assert_eq!(r("test.both.ts"), (true, true));
        assert_eq!(r("test.all.mjs"), (true, true));
        assert_eq!(r("test.node+chromium.js"), (true, true));
        assert_eq!(r("test.browser.nonci.ts"), (false, true));
        assert_eq!(r("test.browser.cjs"), (true, false));
        assert_eq!(r("test.deno.ts"), (false, false));
        assert!(is_js_test(Path::new("src/a.test.browser.js"), false));
        assert!(is_js_test(Path::new("src/test.both.mjs"), false));
        assert!(!is_js_test(Path::new("src/app.browser.js"), false));
    }
}
