//! #39: a project whose test script runs node-tap 16 (no `tap list`: its files are tapline's
//! walk) starts each JavaScript file as tap 16's runner spawns it: the `node-arg`s of
//! `.taprc` and package.json `tap` (and the script's `--node-arg`) before the file, its
//! `test-arg`s after, its `test-env` in the environment. Before, each ran as `node FILE`.
use crate::util::{require, Project};

/// A tap 16 project (tap's `package.json` only: the files print their own TAP) whose test
/// checks what tap 16 gives it.
fn tap16_project() -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"t","private":true,"scripts":{"test":"tap --test-arg=--from-script"},"tap":{"test-env":["TAPLINE_FROM_TAP=yes"]}}"#,
    );
    p.write(".taprc", "node-arg:\n  - --expose-gc\n");
    p.write(
        "node_modules/tap/package.json",
        r#"{"name":"tap","version":"16.3.10"}"#,
    );
    p.write(
        "test/a.js",
        "const checks = [\n  typeof globalThis.gc === 'function',\n  process.env.TAPLINE_FROM_TAP === 'yes',\n  process.argv.includes('--from-script'),\n]\nconsole.log('TAP version 13')\nchecks.forEach((ok, i) => console.log(`${ok ? 'ok' : 'not ok'} ${i + 1} - check ${i + 1}`))\nconsole.log(`1..${checks.length}`)\nprocess.exitCode = checks.every(Boolean) ? 0 : 1\n",
    );
    p
}

#[test]
fn issue39_a_tap_16_file_gets_tap_16s_node_arg_test_env_and_test_arg() {
    if !require(
        "issue39_a_tap_16_file_gets_tap_16s_node_arg_test_env_and_test_arg",
        &["node"],
    ) {
        return;
    }
    let p = tap16_project();
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed
            .stdout
            .contains("--expose-gc test/a.js --from-script"),
        "{}",
        listed.both()
    );
    let ran = p.run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(out.contains("✓ test/a.js  3 passed"), "{out}");
}
