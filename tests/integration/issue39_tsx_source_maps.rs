//! #39, node:test under `node --import tsx/esm` (typicode/lowdb's script, tsx 4.7): a
//! failure is placed in the TypeScript source, as node places a JavaScript test's, not at
//! the transpiled `1:…` (tsx before 4.7.2 writes no source map on node 20.12+, tsx#506; the
//! node room turns on node's `--enable-source-maps` and lets tsx write its map). The fixture
//! is test-data/suites/tsx-import, installed from npm's registry once.
use crate::util::{file_doc, npm};

#[test]
fn issue39_node_import_tsx_places_a_failure_in_the_typescript_source() {
    let test = "issue39_node_import_tsx_places_a_failure_in_the_typescript_source";
    let Some(fixture) = npm::suite(test, "tsx-import", &["tsx/package.json"]) else {
        return;
    };
    let p = npm::copy_of(&fixture, Some(&fixture.join("node_modules")));
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let file = file_doc(&doc, "src/sum.test.ts");
    assert_eq!(file["tests"]["fail"], 1, "{file:#}");
    assert_eq!(file["tests"]["pass"], 1, "{file:#}");
    let failure = &file["failures"][0];
    // The assertion's line in the source, the stack's first frame in the project (#41; node's
    // `location:`, the test's call, is `src/sum.test.ts:10:1`); was `src/sum.test.ts:1:123`.
    assert_eq!(failure["location"], "src/sum.test.ts:12:12", "{failure:#}");
    // The stack too names the source's line: the assertion.
    let stack = failure["stack"].as_str().unwrap_or("");
    assert!(stack.contains("src/sum.test.ts:12:12)"), "{failure:#}");
}

#[test]
fn issue39_node_import_tsx_keeps_the_users_node_options() {
    let test = "issue39_node_import_tsx_keeps_the_users_node_options";
    let Some(fixture) = npm::suite(test, "tsx-import", &["tsx/package.json"]) else {
        return;
    };
    let p = npm::copy_of(&fixture, Some(&fixture.join("node_modules")));
    p.write(
        "src/options.test.ts",
        "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\n\
         test('options', () => {\n  \
         assert.match(process.env.NODE_OPTIONS ?? '', /--title=mine/)\n  \
         assert.equal(process.title, 'mine')\n})\n",
    );
    let ran = p.run(&[
        "--no-history",
        "--format",
        "summary",
        "--env",
        "NODE_OPTIONS=--title=mine",
        "src/options.test.ts",
    ]);
    assert_eq!(ran.code, 0, "{}", ran.both());
}
