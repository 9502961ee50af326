//! #39 item 2: node's runner under tsx, as real projects' scripts run it: `tsx --test`, fed by
//! `find … | xargs` or `glob -c "tsx --test" PATTERN` (coderbyheart/testing-with-node: before,
//! "no test folder here", exit 2).
use crate::util::{require, Project};

fn project(script: &str) -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        serde_json::json!({"name": "x", "type": "module", "scripts": {"test": script}}).to_string(),
    );
    p.write(
        "sum.spec.ts",
        "import { test } from 'node:test'\nimport assert from 'node:assert'\n\
         const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 1)\n\
         test('sums', () => { assert.equal(sum([1, 2]), 3) })\n\
         test('empty', () => { assert.ok(true) })\n",
    );
    p.write(
        "deep/ok.spec.ts",
        "import { test } from 'node:test'\ntest('fine', () => {})\n",
    );
    p.write("helper.ts", "export const x: number = 1\n");
    p
}

#[test]
fn issue39_tsx_test_fed_by_find_runs_the_files_find_lists() {
    if !require(
        "issue39_tsx_test_fed_by_find_runs_the_files_find_lists",
        &["node", "tsx"],
    ) {
        return;
    }
    let p =
        project("find ./ -type f -name \\*.spec.ts | xargs npx tsx --test --test-reporter spec");
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    let files: Vec<&str> = (listed.stdout.lines())
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        files,
        ["deep/ok.spec.ts", "sum.spec.ts"],
        "{}",
        listed.both()
    );
    let ran = p.run(&["--no-history"]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "{out}");
    assert!(
        out.contains("1 of 2 files failed · 1 failed, 2 passed"),
        "{out}"
    );
}

#[test]
fn issue39_glob_c_tsx_test_runs_the_pattern() {
    if !require("issue39_glob_c_tsx_test_runs_the_pattern", &["node", "tsx"]) {
        return;
    }
    let p = project("glob -c \"tsx --test\" \"deep/**/*.spec.ts\"");
    let ran = p.run(&["--no-history"]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(out.contains("1 file · 1 passed"), "{out}");
}
