//! #39: a project whose test script runs node-tap 18 or later has its files listed by
//! `tap list` and each run as tap's own runner spawns it (tapline's driver,
//! `src/harness/tap/`): node with the loaders of the project's tap plugins (TypeScript) and
//! `.taprc`'s `node-arg`. Before, each `.js` ran under plain node (no `node-arg`) and each
//! `.ts` under tsx, not tap's own loader.
use crate::util::{npm, repo, require, Project};
use std::path::PathBuf;

/// `node_modules` holding the fixture's tap (installed once, [`npm::installed`]).
fn tap_modules(test: &str) -> Option<PathBuf> {
    let package = r#"{"name":"tapline-tap-fixture","private":true}"#;
    npm::installed(test, "tap", package, "tap@21.0.1", "tap/package.json")
}

/// `test-data/suites/tap-basic` (a `.taprc` with `node-arg`, a TypeScript test with a planted
/// failure) in a project of its own, with tap installed; `None`: skipped.
fn tap_basic(test: &str) -> Option<Project> {
    let modules = tap_modules(test)?;
    Some(npm::copy_of(
        &repo().join("test-data/suites/tap-basic"),
        Some(&modules),
    ))
}

#[test]
fn issue39_tap_lists_with_tap_list_and_runs_each_file_through_tap() {
    let Some(p) = tap_basic("issue39_tap_lists_with_tap_list_and_runs_each_file_through_tap")
    else {
        return;
    };
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    let files: Vec<&str> = (listed.stdout.lines())
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        files,
        ["test/gc.test.js", "test/math.test.ts"],
        "{}",
        listed.both()
    );
    assert!(
        listed
            .stdout
            .contains("tapline-tap.mjs run test/math.test.ts --"),
        "each file runs alone through tap's driver: {}",
        listed.both()
    );

    let ran = p.run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "{out}");
    // `.taprc`'s node-arg reached the file: under plain node `gc` is not defined.
    assert!(
        out.contains("✓ test/gc.test.js  1 passed"),
        "tap's node-arg applies: {out}"
    );
    assert!(
        out.contains("✗ test/math.test.ts  1 failed, 1 passed"),
        "{out}"
    );
    assert!(
        out.contains("1 of 2 files failed · 1 failed, 2 passed"),
        "{out}"
    );
    // The failure's place is the TypeScript line tap prints (through its source maps).
    assert!(
        out.contains("test/math.test.ts:12:5 › subtracts > should be equal"),
        "{out}"
    );
}

#[test]
fn issue39_tap_16_or_absent_still_walks_with_tapline_naming() {
    if !require(
        "issue39_tap_16_or_absent_still_walks_with_tapline_naming",
        &["node"],
    ) {
        return;
    }
    // No tap installed (nor a tap 16 one, which has no `tap list`): the files are tapline's
    // walk of the script's folder, each run under node, as before.
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"t","private":true,"scripts":{"test":"tap"},"tap":{"exclude":["test/slow.js"]}}"#,
    );
    p.write(
        "test/a.js",
        "console.log('TAP version 14\\n1..1\\nok 1 - a')\n",
    );
    p.write(
        "test/slow.js",
        "console.log('TAP version 14\\n1..1\\nok 1 - slow')\n",
    );
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed.stdout.contains("test/a.js\tnode test/a.js"),
        "{}",
        listed.both()
    );
    assert!(
        !listed.stdout.contains("test/slow.js\t"),
        "{}",
        listed.both()
    );
}
