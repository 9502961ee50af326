//! Which stack frames are the runtime's or the test framework's own, and are left out of a
//! failure unless `-v`: they are the same in every failure and push the test's frames away.
//!
//! A frame is internal when it is in
//! * node's built-in modules: `node:internal/…`, `node:events`, any `(node:…)` location, and
//!   node < 16's bare `internal/…` paths;
//! * a JavaScript TAP framework's own code: `node_modules/mocha/`, `node_modules/ava/`,
//!   `node_modules/tape/`, `node_modules/tap/`,
//!   `node_modules/@tapjs/`, tapbundle's `node_modules/@push.rocks/tapbundle/` and the
//!   `expect` it ships, `node_modules/@push.rocks/smartexpect/` (or unscoped, as older
//!   releases were; its frames sit above the test's own in every failed expectation);
//! * Python's standard library: a `File "…/lib/pythonX.Y/…"` frame outside `site-packages` /
//!   `dist-packages` (with the source line under it), as in unittest's tracebacks.
//!
//! * V8's frames that name no file: `at async Promise.all (index 1)`, `(native)` (with or
//!   without the `at `, which node:test's YAML leaves off), and an `(<anonymous>)` one right
//!   after a frame left out (`new Promise (<anonymous>)` among node's test runner's frames).
//! * tapline's own hooks and warm driver, in its temp folder (`…/tapline-trace-UID/…/
//!   tapline-warm.cjs`): a warm file's `exit` listeners (tape's "test exited without
//!   ending") run from the driver, where under `node FILE` they run from node's own code.
//!
//! Anything else is kept: the test's code, its libraries, and lines that are no frame at all
//! (`Error: message` at the top of a JavaScript stack).

/// Node's built-ins, by how the frame's location starts.
const NODE_BUILTINS: [&str; 2] = ["node:", "internal/"];
/// The JS TAP frameworks' own files, by a folder in the frame's location (`/`-separated).
const FRAMEWORKS: [&str; 8] = [
    "/node_modules/mocha/",
    "/node_modules/ava/",
    "/node_modules/tape/",
    "/node_modules/tap/",
    "/node_modules/@tapjs/",
    "/node_modules/@push.rocks/tapbundle/",
    "/node_modules/@push.rocks/smartexpect/",
    "/node_modules/smartexpect/",
];

/// The stack's lines worth showing, and how many internal frames were left out. `verbose`
/// keeps them all.
pub(crate) fn frames(stack: &str, verbose: bool) -> (Vec<&str>, usize) {
    let lines: Vec<&str> = stack.lines().filter(|l| !l.trim().is_empty()).collect();
    if verbose {
        return (lines, 0);
    }
    let mut kept = Vec::with_capacity(lines.len());
    let mut dropped = 0;
    // The indentation of a dropped Python frame: the source lines under it (more indented)
    // go with it.
    let mut python_frame: Option<usize> = None;
    let mut previous_internal = false;
    for line in lines {
        let indent = line.len() - line.trim_start().len();
        if python_frame.is_some_and(|frame| indent > frame) {
            continue;
        }
        python_frame = None;
        if is_internal(line) || (previous_internal && is_anonymous(line)) {
            previous_internal = true;
            dropped += 1;
            // A Python frame's source lines and a Rust frame's `at` line go with it.
            if line.trim_start().starts_with("File \"") || rust_frame(line).is_some() {
                python_frame = Some(indent);
            }
        } else {
            previous_internal = false;
            kept.push(line);
        }
    }
    (kept, dropped)
}

/// Whether one line of a stack is a runtime or framework frame.
pub(super) fn is_internal(line: &str) -> bool {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("File \"") {
        let path = rest.split('"').next().unwrap_or_default();
        return is_python_stdlib(path);
    }
    if let Some(symbol) = rust_frame(line) {
        return is_rust_runtime(symbol);
    }
    let frame = t.strip_prefix("at ");
    let t = frame.unwrap_or(t);
    let t = t.strip_prefix("async ").unwrap_or(t);
    // `Fn (where)` or a bare `where`.
    let (location, in_parens) = match (t.rfind('('), t.ends_with(')')) {
        (Some(open), true) => (t.get(open + 1..t.len() - 1).unwrap_or(t), true),
        _ => (t, false),
    };
    // V8's frames without a file: `Promise.all (index 1)`, `Array.map (native)`,
    // `JSON.parse (<anonymous>)`; node:test's YAML writes its frames without the `at `, so a
    // line whose part before the parenthesis is a function's name (no spaces but `async`'s and
    // `new`'s, no `:`) is a frame too.
    let index = location
        .strip_prefix("index ")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let function_like = || {
        let callee = t.get(..t.rfind('(').unwrap_or(0)).unwrap_or("").trim();
        let callee = callee.strip_prefix("new ").unwrap_or(callee);
        !callee.is_empty() && !callee.contains([' ', ':'])
    };
    let no_file = location == "native" || index;
    if in_parens && no_file && (frame.is_some() || function_like()) {
        return true;
    }
    let location = location.replace('\\', "/");
    NODE_BUILTINS.iter().any(|p| location.starts_with(p))
        || FRAMEWORKS.iter().any(|f| location.contains(f))
        || is_tapline_own(&location)
}

/// A frame of a Rust backtrace, `  3: core::panicking::assert_failed` (with `RUST_BACKTRACE=full`
/// `  3:     0x55ab… - core[c1f1…]::panicking::assert_failed`): its symbol. The frame's
/// `at src/lib.rs:17:9` follows on a line of its own, more indented.
fn rust_frame(line: &str) -> Option<&str> {
    let (n, rest) = line.trim_start().split_once(": ")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start();
    Some(match rest.strip_prefix("0x") {
        Some(addr) => addr.split_once(" - ").map_or(rest, |(_, s)| s),
        None => rest,
    })
}

/// Whether a Rust frame's symbol is the standard library's, the panic machinery's or
/// libtest's (the same in every failure: the test's own frames and its crates' stay), or the
/// thread's start below them all.
fn is_rust_runtime(symbol: &str) -> bool {
    // `std[e282…]::…` in a full backtrace is `std::…`.
    let crate_name = symbol
        .split("::")
        .next()
        .unwrap_or_default()
        .split('[')
        .next()
        .unwrap_or_default();
    let trait_impl = symbol.starts_with('<')
        && [
            " as core::ops::function::",
            " as core[",
            " as std::",
            " as std[",
        ]
        .iter()
        .any(|t| symbol.contains(t));
    matches!(
        crate_name,
        "std" | "core" | "alloc" | "test" | "__rustc" | "<std" | "<core" | "<alloc" | "<test"
    ) || trait_impl
        || matches!(
            symbol,
            "start_thread" | "clone3" | "clone" | "<unknown>" | "__libc_start_main" | "_start"
        )
        || symbol.starts_with("__libc_start_call_main")
}

/// A V8 frame of no file, `new Promise (<anonymous>)`, `Array.map (<anonymous>)`: the
/// runtime's own when it sits among the runtime's frames (node:test's runner builds its
/// promises so), where it is left out with them; at the top of a stack, or after the test's
/// frame, it says where an error came from (`JSON.parse (<anonymous>)`) and stays.
fn is_anonymous(line: &str) -> bool {
    line.trim_end().ends_with(" (<anonymous>)")
}

/// Whether a frame's location (`/tmp/tapline-trace-0/warm-…/tapline-warm.cjs:353:32`) is in
/// one of tapline's own hooks (in the folder `run::trace::hooks_dir` names): never the test's
/// place.
pub(super) fn is_tapline_own(location: &str) -> bool {
    let location = location.strip_prefix("file://").unwrap_or(location);
    location.contains("/tapline-trace-")
        && (location.rsplit('/').next()).is_some_and(|file| file.starts_with("tapline-"))
}

fn is_python_stdlib(path: &str) -> bool {
    let in_lib = path
        .split('/')
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0] == "lib" && w[1].starts_with("python"));
    in_lib && !path.contains("/site-packages/") && !path.contains("/dist-packages/")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODE: &str = "TestContext.<anonymous> (file:///w/t.mjs:12:10)
Test.runInAsyncScope (node:async_hooks:206:9)
Test.run (node:internal/test_runner/test:796:25)
async Test.processPendingSubtests (node:internal/test_runner/test:526:7)";

    #[test]
    fn rusts_runtime_frames_go_with_their_at_lines() {
        let stack = "   0: __rustc::rust_begin_unwind
             at /rustc/5980/library/std/src/panicking.rs:689:5
   1: core::panicking::assert_failed
   2: strsim::tests::hamming_unequal_length
             at ./src/lib.rs:817:9
   3: <fn() -> core::result::Result<(), alloc::string::String> as core::ops::function::FnOnce<()>>::call_once
             at /rustc/5980/library/core/src/ops/function.rs:250:5
  19:     0x55ab7f990c29 - <double::Bomb as core::ops::drop::Drop>::drop::h44c9b1351376d1b7
                               at /w/tests/double.rs:2:43
  20:     0x55ab7f990bfa - core[c1f1]::ptr::drop_in_place<double::Bomb>
  44:     0x7faa6f5ca1f5 - start_thread";
        let (kept, dropped) = frames(stack, false);
        assert_eq!(
            kept,
            [
                "   2: strsim::tests::hamming_unequal_length",
                "             at ./src/lib.rs:817:9",
                "  19:     0x55ab7f990c29 - <double::Bomb as core::ops::drop::Drop>::drop::h44c9b1351376d1b7",
                "                               at /w/tests/double.rs:2:43",
            ]
        );
        assert_eq!(dropped, 5);
    }

    #[test]
    fn taplines_warm_driver_goes_as_node_would_have_run_the_listener() {
        let stack = "Test.<anonymous> (/w/test/a.js:3:5)\n\
            at emulateExit (/tmp/tapline-trace-0/warm-d788e5e24bd011b3/tapline-warm.cjs:353:32)\n\
            at finish (/tmp/tapline-trace-0/warm-d788e5e24bd011b3/tapline-warm.cjs:470:18)\n\
            at process.<anonymous> (/tmp/tapline-trace-0/warm-d788e5e24bd011b3/tapline-warm.cjs:495:18)\n\
            at helper (/w/tapline-trace-notes/lib.js:1:1)\n\
            at load (/w/tapline-tools/tapline-x.js:1:1)";
        let (kept, dropped) = frames(stack, false);
        assert_eq!(dropped, 3);
        assert_eq!(
            kept.len(),
            3,
            "a project's own files stay, however named: {kept:?}"
        );
    }

    #[test]
    fn node_builtins_go_unless_verbose() {
        let (kept, dropped) = frames(NODE, false);
        assert_eq!(kept, ["TestContext.<anonymous> (file:///w/t.mjs:12:10)"]);
        assert_eq!(dropped, 3);
        let (kept, dropped) = frames(NODE, true);
        assert_eq!((kept.len(), dropped), (4, 0));
    }

    #[test]
    fn framework_frames_and_old_node_paths_go_messages_stay() {
        let stack = "Error: deep objects differ
    at Test.assert [as _assert] (/p/node_modules/tape/lib/test.js:548:48)
    at Test.<anonymous> (/w/test/a.js:14:5)
    at process.processImmediate (node:internal/timers:483:21)
    at processTicksAndRejections (internal/process/task_queues.js:97:5)
    at Object.<anonymous> (/w/node_modules/lodash/x.js:1:1)";
        let (kept, dropped) = frames(stack, false);
        assert_eq!(
            kept,
            [
                "Error: deep objects differ",
                "    at Test.<anonymous> (/w/test/a.js:14:5)",
                "    at Object.<anonymous> (/w/node_modules/lodash/x.js:1:1)",
            ]
        );
        assert_eq!(dropped, 3);
    }

    #[test]
    fn tapbundle_and_its_expect_and_fileless_v8_frames_go() {
        let stack = "at <anonymous> (/w/node_modules/@push.rocks/smartexpect/ts/a.ts:207:15)
at TapTest.testFunction (/w/test/mixed.ts:12:25)
at TapTest.run (/w/node_modules/@push.rocks/tapbundle/ts/tapbundle.classes.taptest.ts:53:42)
at async Promise.all (index 1)
at Array.map (native)
at <anonymous> (/w/test/mixed.ts:30:1)";
        let (kept, dropped) = frames(stack, false);
        assert_eq!(
            kept,
            [
                "at TapTest.testFunction (/w/test/mixed.ts:12:25)",
                "at <anonymous> (/w/test/mixed.ts:30:1)",
            ]
        );
        assert_eq!(dropped, 4);
    }

    #[test]
    fn python_stdlib_frames_go_with_their_source_lines() {
        let tb = r#"Traceback (most recent call last):
  File "/usr/lib/python3.11/unittest/case.py", line 579, in _callTestMethod
    if method() is not None:
       ^^^^^^^^
  File "/w/test_a.py", line 43, in test_raises
    raise RuntimeError("boom")
  File "/v/lib/python3.11/site-packages/lib.py", line 1, in f
    g()
RuntimeError: boom"#;
        let (kept, dropped) = frames(tb, false);
        assert_eq!(
            kept,
            [
                "Traceback (most recent call last):",
                r#"  File "/w/test_a.py", line 43, in test_raises"#,
                r#"    raise RuntimeError("boom")"#,
                r#"  File "/v/lib/python3.11/site-packages/lib.py", line 1, in f"#,
                "    g()",
                "RuntimeError: boom",
            ]
        );
        assert_eq!(dropped, 1);
    }
}
