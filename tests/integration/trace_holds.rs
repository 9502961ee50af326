//! Issue 25: traces hold on today's runtimes. A CommonJS test that `require()`s an ES module
//! (node 20.19+/22.12+, a package's `module-sync` export, as every tape/ljharb package loads
//! one) or `import()`s one keeps a whole trace; so does an ES-module test that reaches ES
//! modules through such a `require()`. A Perl test declaring a package inline
//! (`$INC{'Foo.pm'} = 1`) keeps its trace. A file that truly has none is named once, after the
//! run, with why.
use crate::util::{require, unmet, Project, Ran};
use std::collections::BTreeMap;
use std::fs;

/// The stored traces: each test file's project files.
fn traces(p: &Project) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(p.join(".nogit/testlogs/traces"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let text = fs::read_to_string(entry.path()).expect("read trace");
        let mut lines = text.lines();
        let test = lines
            .next()
            .and_then(|l| l.strip_prefix("test "))
            .expect("a test line");
        out.insert(test.to_owned(), lines.map(str::to_owned).collect());
    }
    out
}

fn trace_of(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn passes(ran: &Ran) {
    assert_eq!(ran.code, 0, "{}", ran.both());
}

/// The lines of tapline's own note on files without a trace.
fn missing_notes(ran: &Ran) -> Vec<&str> {
    ran.stderr
        .lines()
        .filter(|l| l.contains("left no dependency trace"))
        .collect()
}

/// Whether this node can `require()` an ES module (20.19+, 22.12+).
fn node_requires_esm() -> bool {
    std::process::Command::new("node")
        .args(["-p", "process.features.require_module === true"])
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"true"))
}

/// A package whose `module-sync` export is an ES module importing another, and a project
/// ES module importing a CommonJS one.
fn esm_fixture(p: &Project) {
    p.write(
        "node_modules/esmpkg/package.json",
        r#"{"name":"esmpkg","exports":{".":{"module-sync":"./index.mjs","default":"./index.cjs"}}}"#,
    );
    p.write(
        "node_modules/esmpkg/index.mjs",
        "import { two } from './dep.mjs';\nexport default function three() { return two + 1; }\n",
    );
    p.write("node_modules/esmpkg/dep.mjs", "export const two = 2;\n");
    p.write(
        "node_modules/esmpkg/index.cjs",
        "module.exports = () => 3;\n",
    );
    p.write(
        "lib/util.mjs",
        "import leaf from './leaf.cjs';\nexport const v = leaf + 1;\n",
    );
    p.write("lib/leaf.cjs", "module.exports = 1;\n");
}

#[test]
fn issue25_a_require_of_an_es_module_keeps_the_node_trace_whole() {
    let test = "issue25_a_require_of_an_es_module_keeps_the_node_trace_whole";
    if !require(test, &["node"]) {
        return;
    }
    if !node_requires_esm() {
        unmet(
            test,
            "a node that can require() ES modules (20.19+ or 22.12+)",
        );
        return;
    }
    let p = Project::new();
    esm_fixture(&p);
    p.write(
        "test/req.test.js",
        "const three = require('esmpkg');\nconst { v } = require('../lib/util.mjs');\n\
         console.log('1..1');\nconsole.log(three.default() === 3 && v === 2 ? 'ok 1' : 'not ok 1');\n",
    );
    // An ES-module test reaching ES modules through a CommonJS require().
    p.write(
        "lib/bridge.cjs",
        "module.exports = require('./util.mjs').v;\n",
    );
    p.write(
        "test/esm.test.mjs",
        "import v from '../lib/bridge.cjs';\nconsole.log('1..1');\nconsole.log(v === 2 ? 'ok 1' : 'not ok 1');\n",
    );
    let ran = p.run(&[]);
    passes(&ran);
    assert_eq!(missing_notes(&ran), Vec::<&str>::new(), "{}", ran.both());
    let all = traces(&p);
    assert_eq!(
        all.get("test/req.test.js"),
        Some(&trace_of(&[
            "lib/leaf.cjs",
            "lib/util.mjs",
            "node_modules/esmpkg/dep.mjs",
            "node_modules/esmpkg/index.mjs",
            "test/req.test.js",
        ])),
        "{all:?}"
    );
    assert_eq!(
        all.get("test/esm.test.mjs"),
        Some(&trace_of(&[
            "lib/bridge.cjs",
            "lib/leaf.cjs",
            "lib/util.mjs",
            "test/esm.test.mjs",
        ])),
        "{all:?}"
    );
    let ran = p.run(&["--affected-by", "lib/leaf.cjs"]);
    passes(&ran);
    assert!(
        ran.stderr.contains("test/req.test.js  loaded lib/leaf.cjs")
            && ran
                .stderr
                .contains("test/esm.test.mjs  loaded lib/leaf.cjs")
            && !ran.stderr.contains("no trace"),
        "{}",
        ran.both()
    );
}

#[test]
fn issue25_a_commonjs_test_importing_es_modules_has_a_whole_trace() {
    if !require(
        "issue25_a_commonjs_test_importing_es_modules_has_a_whole_trace",
        &["node"],
    ) {
        return;
    }
    let p = Project::new();
    esm_fixture(&p);
    p.write(
        "test/dyn.test.js",
        "Promise.all([import('../lib/util.mjs'), import('esmpkg')]).then(([m, e]) =>\n  \
         console.log(m.v === 2 && e.default() === 3 ? '1..1\\nok 1' : '1..1\\nnot ok 1'));\n",
    );
    passes(&p.run(&[]));
    assert_eq!(
        traces(&p).get("test/dyn.test.js"),
        Some(&trace_of(&[
            "lib/leaf.cjs",
            "lib/util.mjs",
            "node_modules/esmpkg/dep.mjs",
            "node_modules/esmpkg/index.mjs",
            "test/dyn.test.js",
        ]))
    );
}

#[test]
fn issue25_a_perl_package_declared_inline_keeps_the_trace() {
    if !require(
        "issue25_a_perl_package_declared_inline_keeps_the_trace",
        &["perl"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("lib/Real.pm", "package Real;\nsub one { 1 }\n1;\n");
    p.write(
        "t/inline.t",
        "use strict;\nuse lib 'lib';\nBEGIN {\n  package Foo;\n  sub new { bless {}, shift }\n  \
         $INC{'Foo.pm'} = 1;\n  $INC{'Foo/Bar.pm'} = __FILE__;\n}\nuse Foo;\nuse Real;\n\
         print \"1..1\\n\", (Real::one() && Foo->new ? \"ok 1\\n\" : \"not ok 1\\n\");\n",
    );
    let ran = p.run(&[]);
    passes(&ran);
    assert_eq!(missing_notes(&ran), Vec::<&str>::new(), "{}", ran.both());
    assert_eq!(
        traces(&p).get("t/inline.t"),
        Some(&trace_of(&["lib/Real.pm"]))
    );
}

/// Files that truly have no trace, a perl ended by `POSIX::_exit` and a node that ran ES
/// modules with its inspector out of reach, are named in one note after the run, with why.
#[test]
fn issue25_files_without_a_trace_are_named_once_with_why() {
    if !require(
        "issue25_files_without_a_trace_are_named_once_with_why",
        &["perl", "node"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("lib/leaf.mjs", "export const v = 1;\n");
    p.write(
        "t/exit.t",
        "use POSIX ();\n$| = 1;\nprint \"1..1\\nok 1\\n\";\nPOSIX::_exit(0);\n",
    );
    p.write("t/whole.t", "print \"1..1\\nok 1\\n\";\n");
    p.write(
        "test/hidden.test.js",
        "const Module = require('module');\nconst load = Module._load;\n\
         Module._load = function (name, ...rest) {\n  \
         if (name === 'inspector') throw Object.assign(new Error('hidden'), { code: 'HIDDEN' });\n  \
         return load.call(this, name, ...rest);\n};\n\
         import('../lib/leaf.mjs').then((m) => console.log(m.v === 1 ? '1..1\\nok 1' : '1..1\\nnot ok 1'));\n",
    );
    let ran = p.run(&[]);
    passes(&ran);
    assert_eq!(
        missing_notes(&ran),
        vec![
            "tapline: warning: 2 test files left no dependency trace (they run on any change): \
             test/hidden.test.js: node: no inspector to list the ES modules (HIDDEN); t/exit.t: \
             nothing was written (the hook did not load or could not write, or the test was \
             killed, exec'ed away or ended by _exit)"
        ],
        "{}",
        ran.both()
    );
    assert_eq!(traces(&p).keys().collect::<Vec<_>>(), vec!["t/whole.t"]);
}
