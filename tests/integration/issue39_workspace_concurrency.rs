//! #39 item 3: a monorepo whose root runs its packages' tests one package at a time (`turbo
//! run test --concurrency=1`, `lerna run test --concurrency 1`, `pnpm -r
//! --workspace-concurrency=1`: the packages share a port or a database) runs one file at a
//! time under a bare `tapline run` too. Before, every package's files ran side by side and a
//! suite that passes under turbo failed under tapline only.
use crate::util::{require, Project};

/// A workspace of four node:test packages, each holding the root's lock folder a while, with
/// `script` as the root's test script.
fn workspace(script: &str) -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        serde_json::json!({
            "name": "root", "private": true, "workspaces": ["packages/*"],
            "scripts": {"test": script}
        })
        .to_string(),
    );
    for name in ["a", "b", "c", "d"] {
        p.write(
            &format!("packages/{name}/package.json"),
            serde_json::json!({"name": name, "scripts": {"test": "node --test"}}).to_string(),
        );
        p.write(
            &format!("packages/{name}/test/hold.test.js"),
            "const { test } = require('node:test')\nconst fs = require('node:fs')\n\
             const path = require('node:path')\n\
             const lock = path.join(__dirname, '..', '..', '..', '.lock')\n\
             test('holds the shared lock alone', async () => {\n  \
             fs.mkdirSync(lock)\n  \
             await new Promise((done) => setTimeout(done, 1500))\n  \
             fs.rmdirSync(lock)\n})\n",
        );
    }
    p
}

#[test]
fn issue39_turbo_concurrency_1_runs_one_package_at_a_time() {
    let test = "issue39_turbo_concurrency_1_runs_one_package_at_a_time";
    if !require(test, &["node"]) {
        return;
    }
    let p = workspace("turbo run test --concurrency=1");
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stderr
            .contains("-j1: `turbo run test --concurrency=1` runs one package at a time"),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.both().contains("4 files · 4 passed"), "{}", ran.both());
}

#[test]
fn issue39_lerna_concurrency_1_runs_one_package_at_a_time_and_turbo_alone_side_by_side() {
    let test =
        "issue39_lerna_concurrency_1_runs_one_package_at_a_time_and_turbo_alone_side_by_side";
    if !require(test, &["node"]) {
        return;
    }
    let p = workspace("lerna run test --stream --concurrency 1");
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stderr
            .contains("-j1: `lerna run test --concurrency 1` runs one package at a time"),
        "{}",
        listed.both()
    );
    let p = workspace("turbo run test");
    let listed = p.run(&["--list"]);
    assert!(!listed.stderr.contains("-j1"), "{}", listed.both());
}
