//! Issue 41's libtest reader on a real crate (rapidfuzz/strsim-rs @ 43d4443, a bug planted) and
//! on test binaries that crash under libtest's parallel threads.
//!
//! - `assert_eq!(left, right)` means neither side as the expected one: strsim writes
//!   `assert_eq!(Err(DifferentLengthArgs), hamming(a, b))`, the expected value on the left, where
//!   others write it on the right. The diff calls the sides as Rust prints them, `- left` /
//!   `+ right`, never `Expected`/`Received` (which read the function's `Ok(0)` as expected).
//! - A backtrace (`RUST_BACKTRACE=1`) shows the test's frames: the panic machinery's, the
//!   standard library's and libtest's are counted, as node's and Python's are.
//! - A binary that aborts while several tests run names them: libtest prints a test's name
//!   only when it ends, so the tests started and not ended are asked of the binary's own
//!   listing; a stack overflow names its thread, and the runtime's last words come first.
use crate::util::{parse_cli, require, Project};

/// What `cargo test` printed for strsim's unit tests with `Err(DifferentLengthArgs)` planted
/// as `Ok(count)` (Rust 1.95, `RUST_BACKTRACE=1`), cut to the failure.
const STRSIM: &str = "running 3 tests
test tests::hamming_empty ... ok
test tests::hamming_unequal_length ... FAILED
test tests::hamming_same ... ok

failures:

---- tests::hamming_unequal_length stdout ----

thread 'tests::hamming_unequal_length' (23052) panicked at src/lib.rs:817:9:
assertion `left == right` failed
  left: Err(DifferentLengthArgs)
 right: Ok(0)
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:80:14
   2: core::panicking::assert_failed_inner
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:439:17
   3: core::panicking::assert_failed
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:394:5
   4: strsim::tests::hamming_unequal_length
             at ./src/lib.rs:817:9
   5: strsim::tests::hamming_unequal_length::{{closure}}
             at ./src/lib.rs:816:32
   6: core::ops::function::FnOnce::call_once
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5
   7: <fn() -> core::result::Result<(), alloc::string::String> as core::ops::function::FnOnce<()>>::call_once
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.


failures:
    tests::hamming_unequal_length

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.66s
";

#[test]
fn issue41_libtest_sides_are_left_and_right_as_rust_prints_them() {
    let (_, stdout, stderr) = parse_cli(
        &["--color", "never", "--input-format", "libtest"],
        STRSIM.as_bytes(),
    );
    let out = format!("{stdout}{stderr}");
    assert!(
        out.contains("- left: Err(DifferentLengthArgs)\n    + right: Ok(0)"),
        "{out}"
    );
    assert!(
        !out.contains("Expected") && !out.contains("Received"),
        "{out}"
    );
    // The test's frames, not the panic machinery's.
    assert!(
        out.contains("4: strsim::tests::hamming_unequal_length"),
        "{out}"
    );
    assert!(out.contains("at ./src/lib.rs:817:9"), "{out}");
    assert!(!out.contains("rust_begin_unwind"), "{out}");
    assert!(!out.contains("assert_failed_inner"), "{out}");
    assert!(out.contains("runtime frames hidden"), "{out}");
}

const ABORTS: &str = "use std::time::Duration;
#[test]
fn a_fine() {}
#[test]
fn b_aborts() { std::thread::sleep(Duration::from_millis(300)); std::process::abort(); }
#[test]
fn c_slow() { std::thread::sleep(Duration::from_secs(5)); }
#[test]
fn d_later() {}
";

// Two tests, two threads: nothing of libtest's is written while the runtime writes its
// words in pieces.
const OVERFLOWS: &str = "#[allow(unconditional_recursion)]
fn deeper(n: u64) -> u64 { let x = [n; 64]; deeper(x[3] + 1) + x[1] }
#[test]
fn a_overflows() { deeper(0); }
#[test]
fn b_slow() { std::thread::sleep(std::time::Duration::from_secs(5)); }
";

#[test]
fn issue41_libtest_a_crash_under_threads_names_the_running_tests() {
    if !require(
        "issue41_libtest_a_crash_under_threads_names_the_running_tests",
        &["cargo"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "Cargo.toml",
        "[package]\nname = \"crashy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .write("src/lib.rs", "")
    .write("tests/aborts.rs", ABORTS)
    .write("tests/overflows.rs", OVERFLOWS);
    let out = p
        .command(&[
            "--no-cache",
            "--color",
            "never",
            "tests/",
            "-o",
            "out.xml",
            "-o",
            "out.md",
        ])
        .env("RUST_BACKTRACE", "0")
        .env("RUST_TEST_THREADS", "2")
        .env("CARGO_TARGET_DIR", p.join("target"))
        .output()
        .expect("tapline runs");
    let terminal = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{terminal}");
    let xml = crate::util::unxml(&p.read_text("out.xml"));
    let md = crate::util::unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [("terminal", &terminal), ("JUnit", &xml), ("Markdown", &md)] {
        // Two threads: `a_fine` ended, so `b_aborts` and `c_slow` were running.
        assert!(
            text.contains(r#"while running one of "b_aborts", "c_slow""#),
            "{sink}:\n{text}"
        );
        // The overflow named its thread: that test failed, the runtime's words first.
        assert!(
            text.contains("✗ a_overflows") || text.contains("a_overflows"),
            "{sink}:\n{text}"
        );
        let fatal = text.find("fatal runtime error: stack overflow");
        let ended = text.find("the test binary ended while this test ran");
        assert!(
            fatal.is_some() && ended.is_some() && fatal < ended,
            "{sink}:\n{text}"
        );
        assert!(text.contains("has overflowed its stack"), "{sink}:\n{text}");
    }
    assert!(
        !terminal.contains("--test-threads=1 to see which"),
        "{terminal}"
    );
}
