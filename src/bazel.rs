//! tapline as the program of a Bazel test (`sh_test`): Bazel's test protocol mapped onto
//! `run`'s options, so `bazel test` shards, collects JUnit and keeps outputs as it does for
//! its own test runners. Applies when Bazel's variables say a test is running
//! (`TEST_TARGET` and `TEST_SRCDIR`), whatever the flags:
//! - `TEST_TOTAL_SHARDS`/`TEST_SHARD_INDEX`: `--partition auto` (Bazel's 0-based index), and
//!   `TEST_SHARD_STATUS_FILE` touched to tell Bazel tapline shards;
//! - `XML_OUTPUT_FILE`: JUnit written there (Bazel's test.xml);
//! - `TEST_UNDECLARED_OUTPUTS_DIR`: the logs and the run's `tapline.jsonl` (for
//!   `tapline report merge`) written there, nothing into the read-only runfiles tree, and no
//!   history (each Bazel test action is hermetic);
//! - `TEST_TMPDIR`: the tests' `TMPDIR`;
//! - `TESTBRIDGE_TEST_ONLY` (`--test_filter`): only the files whose path contains it, or that
//!   a glob in it matches.
use crate::cli::RunArgs;
use std::path::PathBuf;

/// `args` as Bazel's variables adjust them, and the `--test_filter`, when run by Bazel.
pub(crate) fn adapt(
    args: &RunArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<(RunArgs, Option<String>)>, String> {
    if env("TEST_TARGET").is_none() || env("TEST_SRCDIR").is_none() {
        return Ok(None);
    }
    let mut a = args.clone();
    let sharded = env("TEST_TOTAL_SHARDS").is_some_and(|n| n.trim() != "1" && !n.is_empty());
    if sharded && a.partition.is_none() {
        a.partition = Some("auto".to_owned());
    }
    if let Some(status) = env("TEST_SHARD_STATUS_FILE") {
        std::fs::write(&status, b"")
            .map_err(|e| format!("failed to touch TEST_SHARD_STATUS_FILE {status}: {e}"))?;
    }
    if let Some(xml) = env("XML_OUTPUT_FILE") {
        a.output.push(PathBuf::from(xml));
    }
    if let Some(dir) = env("TEST_UNDECLARED_OUTPUTS_DIR").map(PathBuf::from) {
        a.log_dir.get_or_insert_with(|| dir.join("testlogs"));
        a.output.push(dir.join("tapline.jsonl"));
    }
    a.no_history = true;
    if let Some(tmp) = env("TEST_TMPDIR") {
        if !a.env.iter().any(|e| e.starts_with("TMPDIR=")) {
            a.env.push(format!("TMPDIR={tmp}"));
        }
    }
    let filter = env("TESTBRIDGE_TEST_ONLY").filter(|f| !f.is_empty());
    Ok(Some((a, filter)))
}

/// Whether `--test_filter`'s text selects the file at `rel`.
pub(crate) fn selects(filter: &str, rel: &str) -> bool {
    if filter.contains(['*', '?', '[']) {
        globset::Glob::new(filter).is_ok_and(|g| g.compile_matcher().is_match(rel))
    } else {
        rel.contains(filter)
    }
}
