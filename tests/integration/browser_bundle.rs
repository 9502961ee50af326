//! Browser files bundled with esbuild for real headless Chromium: TypeScript and package
//! imports, an esbuild error, the stack of an uncaught error mapped back to the sources, the
//! native-module path without esbuild, and tapbundle tests as their author wrote them.
//! Each test `require`s Chromium and esbuild (and npm, for tapbundle).
use crate::util::browser::path_without_esbuild;
use crate::util::{npm, require, tool, unmet};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

pub(crate) fn project(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new().expect("temp dir");
    fs::write(dir.path().join("tapline.toml"), "").expect("write");
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }
    dir
}

struct Ran {
    code: i32,
    /// Each file's `file_started` and `file_finished` events.
    files: Vec<(Value, Value)>,
    stderr: String,
}

impl Ran {
    fn find(&self, rel: &str) -> &(Value, Value) {
        self.files
            .iter()
            .find(|(started, _)| started["file"]["rel"] == rel)
            .unwrap_or_else(|| panic!("no file_finished for {rel}:\n{}", self.stderr))
    }

    fn reasons(&self, rel: &str) -> Vec<String> {
        self.find(rel).1["result"]["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| r.as_str().expect("a reason").to_owned())
            .collect()
    }

    fn ok(&self, rel: &str) -> bool {
        self.find(rel).1["result"]["ok"] == true
    }

    fn log(&self, rel: &str) -> String {
        let log = self.find(rel).0["file"]["log"].as_str().expect("a log");
        fs::read_to_string(log).expect("read the log")
    }
}

/// `tapline run --format jsonl FILES` in `dir`, with `esbuild`'s folder first on `PATH` (or
/// no esbuild at all).
fn run(dir: &Path, chromium: &Path, esbuild: Option<&Path>, files: &[&str]) -> Ran {
    let mut path = std::ffi::OsString::new();
    if let Some(e) = esbuild {
        path.push(e.parent().expect("esbuild's folder"));
        path.push(":");
    }
    path.push(path_without_esbuild());
    let out = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args([
            "run",
            "--format",
            "jsonl",
            "--color",
            "never",
            "--timeout",
            "60s",
        ])
        .args(files)
        .current_dir(dir)
        .env("PATH", path)
        .env("TAPLINE_CHROMIUM", chromium)
        .env_remove("CI")
        .output()
        .expect("tapline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let files = events
        .iter()
        .filter(|e| e["type"] == "file_finished")
        .filter_map(|done| {
            let started = events
                .iter()
                .find(|e| e["type"] == "file_started" && e["file"]["index"] == done["file"])?;
            Some((started.clone(), done.clone()))
        })
        .collect();
    Ran {
        code: out.status.code().unwrap_or(-1),
        files,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

const LIB: &str = "export function check(n: number): number {\n  if (n > 1) throw new Error(\"boom from lib\");\n  return n;\n}\n";

#[test]
fn typescript_is_bundled_and_an_uncaught_errors_stack_names_the_sources() {
    if !require(
        "typescript_is_bundled_and_an_uncaught_errors_stack_names_the_sources",
        &["chromium", "esbuild"],
    ) {
        return;
    }
    let (chromium, esbuild) = (tool("chromium"), tool("esbuild"));
    let p = project(&[
        ("lib/check.ts", LIB),
        // A package by name: only a bundler resolves it.
        ("node_modules/greet/package.json", r#"{"name":"greet","type":"module","main":"index.js"}"#),
        ("node_modules/greet/index.js", "export const greet = (who) => `hello ${who}`;\n"),
        (
            "test/pass.browser.ts",
            "import { greet } from 'greet';\nimport { check } from '../lib/check';\nconst n: number = check(1);\nconsole.log('1..1');\nconsole.log(`ok ${n} - ${greet('ts')}`);\n",
        ),
        (
            "test/throws.browser.ts",
            "import { check } from '../lib/check';\n\nconsole.log('1..1');\nconsole.log('ok 1 - before the throw');\nsetTimeout(() => {\n  check(5);\n}, 0);\n",
        ),
        (
            "test/rejects.browser.ts",
            "console.log('1..1');\nconsole.log('ok 1 - before the rejection');\nasync function later(): Promise<void> {\n  throw new TypeError('rejected here');\n}\nlater();\n",
        ),
    ]);
    let ran = run(
        p.path(),
        &chromium,
        Some(&esbuild),
        &[
            "test/pass.browser.ts",
            "test/throws.browser.ts",
            "test/rejects.browser.ts",
        ],
    );
    assert!(
        ran.ok("test/pass.browser.ts"),
        "{:?}\n{}",
        ran.reasons("test/pass.browser.ts"),
        ran.stderr
    );
    assert!(ran.log("test/pass.browser.ts").contains("ok 1 - hello ts"));

    assert!(!ran.ok("test/throws.browser.ts"));
    assert!(
        ran.reasons("test/throws.browser.ts")
            .contains(&"uncaught exception: Error: boom from lib (lib/check.ts:2:20)".to_owned()),
        "{:?}",
        ran.reasons("test/throws.browser.ts")
    );
    let log = ran.log("test/throws.browser.ts");
    assert!(log.contains("    at check (lib/check.ts:2:20)\n"), "{log}");
    assert!(
        log.contains("test/throws.browser.ts:6:3"),
        "the caller's frame too:\n{log}"
    );
    assert!(
        !log.contains("http://127.0.0.1"),
        "no bundle frame is left:\n{log}"
    );

    assert!(!ran.ok("test/rejects.browser.ts"));
    assert!(
        ran.reasons("test/rejects.browser.ts")
            .iter()
            .any(|r| r
                == "unhandled rejection: TypeError: rejected here (test/rejects.browser.ts:4:9)"),
        "{:?}",
        ran.reasons("test/rejects.browser.ts")
    );
    assert_eq!(ran.code, 1);
}

#[test]
fn an_esbuild_error_fails_that_file_with_esbuilds_message() {
    if !require(
        "an_esbuild_error_fails_that_file_with_esbuilds_message",
        &["chromium", "esbuild"],
    ) {
        return;
    }
    let (chromium, esbuild) = (tool("chromium"), tool("esbuild"));
    let p = project(&[
        (
            "test/bad.browser.ts",
            "import { nothing } from './missing';\nconsole.log(nothing);\n",
        ),
        ("test/syntax.browser.js", "console.log('1..1';\n"),
        (
            "test/good.browser.js",
            "console.log('1..1');\nconsole.log('ok 1 - fine');\n",
        ),
    ]);
    let ran = run(
        p.path(),
        &chromium,
        Some(&esbuild),
        &[
            "test/bad.browser.ts",
            "test/syntax.browser.js",
            "test/good.browser.js",
        ],
    );
    assert!(
        ran.ok("test/good.browser.js"),
        "{:?}",
        ran.reasons("test/good.browser.js")
    );
    assert!(!ran.ok("test/bad.browser.ts"));
    assert_eq!(
        ran.reasons("test/bad.browser.ts")[0],
        "esbuild could not bundle test/bad.browser.ts: Could not resolve \"./missing\" (test/bad.browser.ts:1:24)"
    );
    let log = ran.log("test/bad.browser.ts");
    assert!(
        log.contains("✘ [ERROR] Could not resolve \"./missing\""),
        "the whole message:\n{log}"
    );
    assert!(
        log.contains("1 │ import { nothing } from './missing';"),
        "{log}"
    );
    assert!(
        ran.reasons("test/syntax.browser.js")[0].starts_with(
            "esbuild could not bundle test/syntax.browser.js: Expected \")\" but found \";\" (test/syntax.browser.js:1:"
        ),
        "{:?}",
        ran.reasons("test/syntax.browser.js")
    );
    assert_eq!(ran.code, 1);
}

#[test]
fn without_esbuild_native_modules_run_and_the_rest_say_how_to_install_it() {
    if !require(
        "without_esbuild_native_modules_run_and_the_rest_say_how_to_install_it",
        &["chromium"],
    ) {
        return;
    }
    let chromium = tool("chromium");
    let p = project(&[
        ("lib/n.mjs", "export const n = 1;\n"),
        (
            "test/native.browser.mjs",
            "import { n } from '../lib/n.mjs';\nconsole.log('1..1');\nconsole.log(`ok ${n} - native`);\n",
        ),
        ("test/bare.browser.js", "import { greet } from 'greet';\nconsole.log(greet);\n"),
        ("test/typed.browser.ts", "const n: number = 1;\nconsole.log(n);\n"),
    ]);
    let ran = run(
        p.path(),
        &chromium,
        None,
        &[
            "test/native.browser.mjs",
            "test/bare.browser.js",
            "test/typed.browser.ts",
        ],
    );
    assert!(
        ran.ok("test/native.browser.mjs"),
        "{:?}\n{}",
        ran.reasons("test/native.browser.mjs"),
        ran.stderr
    );
    assert_eq!(
        ran.reasons("test/bare.browser.js")[0],
        "test/bare.browser.js imports `greet`, a package only a bundler resolves: install esbuild (`npm install --save-dev esbuild` in the project) to bundle it"
    );
    assert_eq!(
        ran.reasons("test/typed.browser.ts")[0],
        "test/typed.browser.ts is TypeScript, which only a bundler compiles: install esbuild (`npm install --save-dev esbuild` in the project) to bundle it"
    );
}

/// Pins of packages tapbundle 5.6.3's dependency ranges ask for newer versions of than some
/// registries hold: the recording scripts' list (its test API uses none of them).
const TAPBUNDLE_PACKAGE_JSON: &str = include_str!("../../scripts/tapbundle-package.json");

/// `node_modules` holding `@push.rocks/tapbundle` (installed once, [`npm::fixture`]).
fn tapbundle_modules() -> Result<PathBuf, String> {
    npm::fixture(
        "tapbundle",
        TAPBUNDLE_PACKAGE_JSON,
        "@push.rocks/tapbundle@5.6.3",
        "@push.rocks/tapbundle/package.json",
    )
}

#[test]
fn tapbundle_browser_tests_pass_and_fail_as_their_author_expects() {
    let test = "tapbundle_browser_tests_pass_and_fail_as_their_author_expects";
    if !require(test, &["chromium", "esbuild", "npm"]) {
        return;
    }
    let (chromium, esbuild) = (tool("chromium"), tool("esbuild"));
    let modules = match tapbundle_modules() {
        Ok(modules) => modules,
        Err(why) => {
            // The registry is outside too: offline, the test skips, or under CI fails.
            unmet(test, &format!("@push.rocks/tapbundle could not be installed ({why}); CI installs it from npm's registry, as .ci/run does esbuild"));
            return;
        }
    };
    let p = project(&[
        (
            "test/passing.browser.ts",
            r#"import { tap, expect } from '@push.rocks/tapbundle';

tap.test('adds numbers', async () => {
  expect(1 + 1).toEqual(2);
});

tap.test('runs in a page', async (tools) => {
  await tools.delayFor(20);
  expect(typeof window.document).toEqual('object');
  console.log(`location: ${window.location.protocol}`);
});

export default tap.start();
"#,
        ),
        (
            "test/failing.browser.ts",
            r#"import { tap, expect } from '@push.rocks/tapbundle';

tap.test('passes first', async () => {
  expect([1, 2]).toEqual([1, 2]);
});

tap.test('compares strings', async () => {
  expect('hello world').toEqual('hello there');
});

tap.test('passes after the failure', async () => {
  expect(true).toBeTrue();
});

export default tap.start();
"#,
        ),
    ]);
    std::os::unix::fs::symlink(&modules, p.path().join("node_modules")).expect("link node_modules");
    let ran = run(
        p.path(),
        &chromium,
        Some(&esbuild),
        &["test/passing.browser.ts", "test/failing.browser.ts"],
    );
    let passing = &ran.find("test/passing.browser.ts").1["result"];
    assert_eq!(
        passing["ok"],
        true,
        "{passing}\n{}",
        ran.log("test/passing.browser.ts")
    );
    assert_eq!(passing["tally"]["pass"], 2, "{passing}");
    assert!(ran
        .log("test/passing.browser.ts")
        .contains("location: http:"));

    let failing = &ran.find("test/failing.browser.ts").1["result"];
    assert_eq!(failing["ok"], false, "{failing}");
    assert_eq!(failing["tally"]["pass"], 2, "{failing}");
    assert_eq!(failing["tally"]["fail"], 1, "{failing}");
    let log = ran.log("test/failing.browser.ts");
    assert!(log.contains("not ok 2 - compares strings"), "{log}");
    assert!(
        log.contains("hello there"),
        "tapbundle's message reaches the log:\n{log}"
    );
    assert_eq!(ran.code, 1);
}
