//! Issue 26: tape files share a warm node per job (src/run/warm/): each file is still judged
//! alone, and one that ends its process fails alone, the next file getting a fresh worker.
use crate::util::{npm, require, Project};
use serde_json::Value;
use std::fs;
use std::path::PathBuf;

/// tape 5.10.2's `node_modules` for a test (installed once, [`npm::installed`]), or `None`
/// (skipped, or failed under CI).
pub(crate) fn tape_node_modules(test: &str) -> Option<PathBuf> {
    let package = r#"{"name":"tapline-tape-fixture","private":true}"#;
    npm::installed(test, "tape", package, "tape@5.10.2", "tape/package.json")
}

/// A project with tape in its `node_modules`, or `None` (skipped, or failed under CI).
fn tape_project(test: &str) -> Option<Project> {
    let modules = tape_node_modules(test)?;
    let p = Project::new();
    std::os::unix::fs::symlink(&modules, p.join("node_modules")).expect("symlink node_modules");
    Some(p)
}

/// A tape file that writes its process's pid to `pids/<name>` and runs `body` in a test.
fn tape_file(name: &str, body: &str) -> String {
    format!(
        "var test = require('tape');\n\
         require('fs').writeFileSync(__dirname + '/../pids/{name}', String(process.pid));\n\
         test('{name} first', function (t) {{ t.equal(1, 1, 'one is one'); t.end(); }});\n\
         test('{name} second', function (t) {{\n{body}\n}});\n"
    )
}

/// A [`tape_file`] whose second test passes too.
fn passing_tape_file(name: &str) -> String {
    tape_file(name, &format!("t.ok(true, '{name} passes'); t.end();"))
}

/// Each file's verdict, exit, reasons and stream summary from `--format summary`, by path.
fn verdicts(doc: &Value) -> Vec<(String, Value)> {
    let files = doc["files"].as_array().expect("files");
    files
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap_or_default().to_owned();
            let kept = serde_json::json!({
                "ok": f["ok"],
                "exit": f["exit"],
                "timed_out": f["timed_out"],
                "reasons": f["reasons"],
                "summary": f["summary"],
            });
            (path, kept)
        })
        .collect()
}

/// Each file's path and whether it passed, from [`verdicts`].
fn passed(by_file: &[(String, Value)]) -> Vec<(&str, bool)> {
    (by_file.iter())
        .map(|(path, v)| (path.as_str(), v["ok"] == true))
        .collect()
}

/// A tape project with a `pids` folder for [`tape_file`]s, or `None` (skipped, or failed
/// under CI).
fn tape_project_with_pids(test: &str) -> Option<Project> {
    let p = tape_project(test)?;
    fs::create_dir_all(p.join("pids")).expect("mkdir pids");
    Some(p)
}

/// Runs `args` again with `--isolate` and checks each file's verdict, exit, reasons and
/// stream summary are `warm`'s.
fn same_isolated(p: &Project, args: &[&str], warm: &[(String, Value)]) {
    let isolated = p.run(&[args, &["--isolate"]].concat());
    assert_eq!(
        warm,
        verdicts(&isolated.summary_doc()).as_slice(),
        "{}",
        isolated.both()
    );
}

#[test]
fn issue26_a_file_calling_process_exit_in_a_warm_worker_fails_alone() {
    let test = "issue26_a_file_calling_process_exit_in_a_warm_worker_fails_alone";
    let Some(p) = tape_project_with_pids(test) else {
        return;
    };
    p.write("test/a.js", passing_tape_file("a"));
    p.write(
        "test/b.js",
        tape_file("b", "t.ok(true, 'before the exit'); process.exit(3);"),
    );
    p.write(
        "test/c.js",
        tape_file(
            "c",
            "setTimeout(function () { t.ok(true, 'c later'); t.end(); }, 5);",
        ),
    );
    p.write(
        "test/d.js",
        tape_file("d", "t.equal(1, 2, 'd fails'); t.end();"),
    );
    p.write(
        "test/e.js",
        tape_file(
            "e",
            "t.ok(true); t.end(); setInterval(function () {}, 1000);",
        ),
    );
    p.write(
        "test/f.js",
        tape_file("f", "t.ok(true, 'f passes'); t.end();"),
    );
    // Long enough for a node start and tape on a loaded machine; e.js waits it out twice.
    let args = [
        "-j1",
        "--order",
        "declared",
        "--timeout",
        "8s",
        "--format",
        "summary",
    ];
    let warm = p.run(&args);
    let doc = warm.summary_doc();
    let pid = |name: &str| p.read_text(&format!("pids/{name}"));
    // One worker for a and b; b's exit ends it, c and d share the next; e leaks a handle
    // and is timed out, f gets a third.
    assert_eq!(
        pid("a"),
        pid("b"),
        "a and b share a worker\n{}",
        warm.both()
    );
    assert_ne!(pid("b"), pid("c"), "the worker b ended is replaced");
    assert_eq!(pid("c"), pid("d"));
    assert_eq!(pid("d"), pid("e"));
    assert_ne!(pid("e"), pid("f"), "the timed-out worker is replaced");
    let by_file = verdicts(&doc);
    let ok = passed(&by_file);
    assert_eq!(
        ok,
        [
            ("test/a.js", true),
            ("test/b.js", false),
            ("test/c.js", true),
            ("test/d.js", false),
            ("test/e.js", false),
            ("test/f.js", true),
        ],
        "{}",
        warm.both()
    );
    let b = &by_file[1].1;
    assert_eq!(b["exit"]["code"], 3, "{b:#}");
    assert_eq!(b["reasons"][0], "exited with code 3", "{b:#}");
    assert_eq!(by_file[4].1["reasons"][0], "timed out after 8s");
    for name in ["a", "b", "c", "d", "e", "f"] {
        let log = p.read_text(&format!(".nogit/testlogs/test__{name}.log"));
        assert!(
            log.contains(&format!("# {name} first")),
            "{name}'s log: {log}"
        );
        assert!(
            !log.contains("tapline-warm"),
            "no marker in {name}'s log: {log}"
        );
    }
    // The same files each in a process of its own: the same verdicts, exits and streams.
    same_isolated(&p, &args, &by_file);
    let pids: std::collections::BTreeSet<String> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .map(|n| pid(n))
        .collect();
    assert_eq!(pids.len(), 6, "--isolate: a process per file");
}

/// A tape file that requires `lib/{lib}` and checks it loaded.
fn uses_lib(lib: &str) -> String {
    format!(
        "var test = require('tape');\nvar m = require('../lib/{lib}');\n\
         test('uses {lib}', function (t) {{ t.ok(m, 'loaded'); t.end(); }});\n"
    )
}

/// Runs the project's files in one warm worker in declared order, then lists the files a
/// change to `changed` affects by their traces.
fn affected_after_a_warm_run(p: &Project, changed: &str) -> Vec<String> {
    let first = p.run(&["-j1", "--order", "declared"]);
    assert_eq!(first.code, 0, "{}", first.both());
    assert!(
        !first.stderr.contains("left no dependency trace"),
        "{}",
        first.both()
    );
    let affected = p.run(&["--affected-by", changed, "--list"]);
    assert_eq!(affected.code, 0, "{}", affected.both());
    affected.stdout.lines().map(str::to_owned).collect()
}

/// The fast-uri case of issue 25 under a warm worker: tape itself reaches an ES module
/// (`require()` of a `module-sync` package on node 20.19+), which no module lists as a child.
/// Each file's trace still holds what it loaded, so a change selects its files by trace.
#[test]
fn issue26_a_warm_files_trace_holds_when_tape_loads_es_modules() {
    let test = "issue26_a_warm_files_trace_holds_when_tape_loads_es_modules";
    let Some(p) = tape_project(test) else {
        return;
    };
    p.write("lib/util.js", "exports.one = () => 1;\n");
    p.write("lib/other.js", "exports.two = () => 2;\n");
    p.write("test/a.js", uses_lib("util"));
    p.write("test/b.js", uses_lib("util"));
    p.write("test/c.js", uses_lib("other"));
    let listed = affected_after_a_warm_run(&p, "lib/util.js");
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(
        listed.iter().all(|l| l.contains("loaded lib/util.js")),
        "{listed:?}"
    );
    assert!(
        !listed.iter().any(|l| l.contains("test/c.js")),
        "{listed:?}"
    );
}

/// A worker lists what V8 compiled only when a file loads an ES module first (the listing
/// costs about 0.1 s, and every tape file reaches tape's own `.mjs`): a later file that
/// reaches the same project ES module still has its imports in its trace.
#[test]
fn issue26_a_warm_file_reaching_an_es_module_loaded_before_it_keeps_its_imports() {
    let test = "issue26_a_warm_file_reaching_an_es_module_loaded_before_it_keeps_its_imports";
    let Some(p) = tape_project(test) else {
        return;
    };
    p.write("lib/dep.mjs", "export const one = 1;\n");
    p.write(
        "lib/esm.mjs",
        "import { one } from './dep.mjs';\nexport const two = one + 1;\n",
    );
    p.write("lib/other.js", "exports.three = 3;\n");
    p.write("test/a.js", uses_lib("esm.mjs"));
    p.write("test/b.js", uses_lib("esm.mjs"));
    p.write("test/c.js", uses_lib("other.js"));
    // c.js may be listed too: it reaches tape's ES modules, so its trace holds every ES module
    // the worker held (docs/run.md, "Warm workers": more than it loaded, never less).
    let listed = affected_after_a_warm_run(&p, "lib/dep.mjs");
    assert!(
        listed.iter().any(|l| l.starts_with("test/a.js"))
            && listed.iter().any(|l| l.starts_with("test/b.js")),
        "{listed:?}"
    );
}

/// A worker loads tape before its first file and stands its module list in for a listing of
/// what V8 compiled (src/run/warm/tapline-warm.cjs, `preload`): a test file's own ES modules,
/// whether `require()`d or reached by a dynamic `import()` (no module's child), are still in
/// its trace, wherever the file comes in the worker; the first file, which reached no ES
/// module of its own, is not taken for one that did.
#[test]
fn issue26_a_warm_files_own_es_module_imports_stay_in_its_trace() {
    let test = "issue26_a_warm_files_own_es_module_imports_stay_in_its_trace";
    let Some(p) = tape_project(test) else {
        return;
    };
    p.write("lib/dep.mjs", "export const one = 1;\n");
    p.write(
        "lib/dyn.mjs",
        "import { one } from './dep.mjs';\nexport const two = one + 1;\n",
    );
    p.write("lib/own-dep.mjs", "export const three = 3;\n");
    p.write(
        "lib/own.mjs",
        "import { three } from './own-dep.mjs';\nexport const four = three + 1;\n",
    );
    p.write("lib/plain.js", "exports.five = 5;\n");
    p.write("test/a.js", uses_lib("plain.js"));
    p.write(
        "test/b.js",
        "var test = require('tape');\n\
         test('dynamic', function (t) {\n\
           import('../lib/dyn.mjs').then(function (m) { t.equal(m.two, 2); t.end(); });\n\
         });\n",
    );
    p.write("test/c.js", uses_lib("own.mjs"));
    let dynamic = affected_after_a_warm_run(&p, "lib/dep.mjs");
    assert!(
        dynamic.iter().any(|l| l.starts_with("test/b.js")),
        "{dynamic:?}"
    );
    assert!(
        !dynamic.iter().any(|l| l.starts_with("test/a.js")),
        "{dynamic:?}"
    );
    let own = p.run(&["--affected-by", "lib/own-dep.mjs", "--list"]);
    assert_eq!(own.code, 0, "{}", own.both());
    assert!(
        own.stdout.lines().any(|l| l.starts_with("test/c.js")),
        "{}",
        own.both()
    );
}

/// A package in `test/node_modules` whose `main` file exports `value`.
fn installed(p: &Project, name: &str, main: &str, value: &str) {
    p.write(
        &format!("test/node_modules/{name}/package.json"),
        format!(r#"{{"name":"{name}","version":"1.0.0","main":"{main}"}}"#),
    );
    p.write(
        &format!("test/node_modules/{name}/{main}"),
        format!("module.exports = '{value}';\n"),
    );
}

/// A tape file checking that `helper` (an installed package requiring the installed `dep`)
/// hands it `want`.
fn expects_dep(want: &str) -> String {
    format!(
        "var test = require('tape');\n\
         test('dep', function (t) {{ t.equal(require('helper'), '{want}', 'dep is {want}'); t.end(); }});\n"
    )
}

/// The driver's memo files that name `dir` (`memo-*.json` beside each driver version).
fn memos_naming(dir: &std::path::Path) -> Vec<String> {
    let uid = rustix::process::getuid().as_raw();
    let hooks = std::env::temp_dir().join(format!("tapline-trace-{uid}"));
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for version in fs::read_dir(hooks).into_iter().flatten().flatten() {
        for f in fs::read_dir(version.path()).into_iter().flatten().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.starts_with("memo-") && name.ends_with(".json") {
                let text = fs::read_to_string(f.path()).unwrap_or_default();
                if text.contains(&needle) {
                    found.push(text);
                }
            }
        }
    }
    found
}

#[test]
fn issue26_a_warm_worker_remembers_installed_resolutions_until_an_install_changes_them() {
    let test =
        "issue26_a_warm_worker_remembers_installed_resolutions_until_an_install_changes_them";
    let Some(p) = tape_project(test) else {
        return;
    };
    p.write(
        "test/node_modules/helper/package.json",
        r#"{"name":"helper","version":"1.0.0"}"#,
    );
    p.write(
        "test/node_modules/helper/index.js",
        "module.exports = require('dep');\n",
    );
    installed(&p, "dep", "a.js", "a");
    p.write("test/a.js", expects_dep("a"));
    let args = ["-j1", "--format", "summary", "test/a.js"];
    let first = p.run(&args);
    assert_eq!(
        first.summary_doc()["files"][0]["ok"],
        true,
        "{}",
        first.both()
    );
    let root = fs::canonicalize(p.join("test/node_modules")).expect("canonical path");
    let memos = memos_naming(&root);
    assert!(
        memos
            .iter()
            .any(|m| m.contains("helper\\u0000dep") && m.contains("dep/a.js")),
        "the worker wrote down what helper's `require('dep')` found: {memos:?}"
    );

    // An install replaces the package by a version whose `main` moved (its old file still
    // there): the folder holding it changes, and what was remembered of it is dropped.
    fs::remove_dir_all(p.join("test/node_modules/dep")).expect("remove dep");
    installed(&p, "dep", "b.js", "b");
    p.write("test/node_modules/dep/a.js", "module.exports = 'a';\n");
    p.write("test/a.js", expects_dep("b"));
    let second = p.run(&args);
    assert_eq!(
        second.summary_doc()["files"][0]["ok"],
        true,
        "{}",
        second.both()
    );

    // A remembered file that is gone is looked up again, whatever the signatures say.
    p.write(
        "test/node_modules/dep/package.json",
        r#"{"name":"dep","version":"1.0.0","main":"c.js"}"#,
    );
    fs::remove_file(p.join("test/node_modules/dep/b.js")).expect("remove b.js");
    p.write("test/node_modules/dep/c.js", "module.exports = 'c';\n");
    p.write("test/a.js", expects_dep("c"));
    let third = p.run(&args);
    assert_eq!(
        third.summary_doc()["files"][0]["ok"],
        true,
        "{}",
        third.both()
    );
    // And as `--isolate` sees it.
    same_isolated(&p, &args, &verdicts(&third.summary_doc()));
}

#[test]
fn issue26_a_file_that_loads_no_module_runs_in_the_tape_files_worker() {
    let test = "issue26_a_file_that_loads_no_module_runs_in_the_tape_files_worker";
    let Some(p) = tape_project_with_pids(test) else {
        return;
    };
    p.write("test/a.js", passing_tape_file("a"));
    // A data file `tape 'test/**/*.js'` would require beside the tests; it names no module.
    p.write(
        "test/cases.js",
        "'use strict';\nmodule.exports = [1, 2];\nconsole.log('# cases in ' + process.pid);\n",
    );
    let args = ["-j1", "--order", "declared", "--format", "summary"];
    let warm = p.run(&args);
    let doc = warm.summary_doc();
    let by_file = verdicts(&doc);
    assert_eq!(by_file.len(), 2, "{}", warm.both());
    let log = p.read_text(".nogit/testlogs/test__cases.log");
    assert_eq!(
        log.trim(),
        format!("# cases in {}", p.read_text("pids/a").trim()),
        "the data file ran in a.js's worker\n{}",
        warm.both()
    );
    same_isolated(&p, &args, &by_file);
}

#[test]
fn issue26_a_new_workers_start_is_not_its_first_files_time() {
    let test = "issue26_a_new_workers_start_is_not_its_first_files_time";
    let Some(p) = tape_project_with_pids(test) else {
        return;
    };
    p.write("test/a.js", passing_tape_file("a"));
    p.write("test/b.js", passing_tape_file("b"));
    // Every node of the run spends its first 800 ms here, before tape or any file.
    p.write(
        "slow-start.js",
        "const until = Date.now() + 800;\nwhile (Date.now() < until) {}\n",
    );
    let slow = format!(
        "NODE_OPTIONS=--require={}",
        p.join("slow-start.js").display()
    );
    let args = [
        "-j1", "--order", "declared", "--format", "summary", "--env", &slow,
    ];
    let durations = |out: &crate::util::Ran| -> Vec<(String, f64)> {
        let doc = out.summary_doc();
        let files = doc["files"].as_array().cloned().unwrap_or_default();
        files
            .iter()
            .map(|f| {
                let path = f["path"].as_str().unwrap_or_default().to_owned();
                (path, f["duration_ms"].as_f64().unwrap_or(f64::NAN))
            })
            .collect()
    };
    let warm = p.run(&args);
    assert_eq!(
        p.read_text("pids/a"),
        p.read_text("pids/b"),
        "one worker ran both\n{}",
        warm.both()
    );
    let took = durations(&warm);
    assert_eq!(took.len(), 2, "{}", warm.both());
    for (file, ms) in &took {
        assert!(*ms < 800.0, "{file} took {ms} ms warm\n{}", warm.both());
    }
    let isolated = p.run(&[&args[..], &["--isolate"]].concat());
    for (file, ms) in durations(&isolated) {
        assert!(
            ms >= 800.0,
            "{file}: its own node's start is its own time: {ms} ms"
        );
    }
}

/// A tape file that writes what `NODE_EXTRA_CA_CERTS` its node started with and what the test
/// sees to `seen/<name>`, then checks a TLS server whose self-signed certificate only the
/// extra CA file holds is trusted.
fn extra_ca_file(name: &str) -> String {
    format!(
        "var test = require('tape');\n\
         var fs = require('fs'), tls = require('tls'), path = require('path');\n\
         var root = path.join(__dirname, '..');\n\
         var started = fs.readFileSync('/proc/self/environ', 'latin1').split('\\0')\n\
           .filter(function (v) {{ return v.indexOf('NODE_EXTRA_CA_CERTS=') === 0; }});\n\
         fs.writeFileSync(path.join(root, 'seen', '{name}'), JSON.stringify({{\n\
           started: started, env: process.env.NODE_EXTRA_CA_CERTS, pid: process.pid }}));\n\
         test('{name} trusts the extra CA', function (t) {{\n\
           var opts = {{ key: fs.readFileSync(path.join(root, 'key.pem')),\n\
             cert: fs.readFileSync(path.join(root, 'cert.pem')) }};\n\
           var server = tls.createServer(opts, function (s) {{ s.end(); }});\n\
           server.listen(0, '127.0.0.1', function () {{\n\
             var c = tls.connect({{ port: server.address().port, host: '127.0.0.1',\n\
               servername: 'localhost' }}, function () {{\n\
               t.ok(c.authorized, 'the server is trusted'); c.destroy(); server.close(); t.end();\n\
             }});\n\
             c.on('error', function (e) {{ t.fail(e.message); server.close(); t.end(); }});\n\
           }});\n\
         }});\n"
    )
}

#[test]
fn issue26_a_worker_starts_with_only_the_extra_certificates_node_lacks() {
    let test = "issue26_a_worker_starts_with_only_the_extra_certificates_node_lacks";
    if !require(test, &["openssl"]) {
        return;
    }
    let Some(p) = tape_project(test) else {
        return;
    };
    fs::create_dir_all(p.join("seen")).expect("mkdir seen");
    let made = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
        ])
        .args([
            "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ])
        .current_dir(p.path())
        .output()
        .expect("openssl runs");
    assert!(made.status.success(), "{made:?}");
    // The bundle a machine names: three roots node bundles, and the one it does not.
    let bundled = std::process::Command::new("node")
        .args([
            "-p",
            "require('tls').rootCertificates.slice(0, 3).join('\\n')",
        ])
        .output()
        .expect("node runs");
    let cert = p.read_text("cert.pem");
    let bundled = String::from_utf8_lossy(&bundled.stdout).into_owned();
    assert_eq!(bundled.matches("BEGIN CERTIFICATE").count(), 3);
    p.write("bundle.pem", format!("{bundled}\n{cert}"));
    p.write("test/a.js", extra_ca_file("a"));
    p.write("test/b.js", extra_ca_file("b"));
    let bundle = p.join("bundle.pem").display().to_string();
    let named = format!("NODE_EXTRA_CA_CERTS={bundle}");
    let args = [
        "-j1", "--order", "declared", "--format", "summary", "--env", &named,
    ];
    let seen = |name: &str| -> Value {
        serde_json::from_str(&p.read_text(&format!("seen/{name}"))).expect("seen json")
    };
    let passed = |ran: &crate::util::Ran| {
        let doc = ran.summary_doc();
        let by_file = verdicts(&doc);
        assert_eq!(by_file.len(), 2, "{}", ran.both());
        assert!(
            by_file.iter().all(|(_, v)| v["ok"] == true),
            "{}",
            ran.both()
        );
        by_file
    };

    // The first worker starts with the bundle, and writes the reduced file for the next.
    let first = p.run(&args);
    passed(&first);
    assert_eq!(seen("a")["pid"], seen("b")["pid"], "one worker ran both");
    assert_eq!(seen("a")["started"], serde_json::json!([named]));

    let second = p.run(&args);
    let by_file = passed(&second);
    let a = seen("a");
    let started = a["started"][0].as_str().unwrap_or_default();
    let reduced = started
        .strip_prefix("NODE_EXTRA_CA_CERTS=")
        .unwrap_or_default();
    assert!(reduced.ends_with(".pem") && reduced != bundle, "{a}");
    assert_eq!(
        fs::read_to_string(reduced)
            .expect("the reduced file")
            .trim(),
        cert.trim(),
        "only the certificate node does not bundle"
    );
    assert_eq!(
        a["env"],
        bundle.as_str(),
        "the test sees the name it was given"
    );
    same_isolated(&p, &args, &by_file);

    // A bundle of roots node holds already: the worker starts with none named (node then
    // builds no store at its start), and the test still sees the name.
    p.write("roots.pem", &bundled);
    p.write(
        "test/c.js",
        "var test = require('tape');\nvar fs = require('fs'), path = require('path');\n\
         var started = fs.readFileSync('/proc/self/environ', 'latin1').split('\\0')\n\
           .filter(function (v) { return v.indexOf('NODE_EXTRA_CA_CERTS=') === 0; });\n\
         fs.writeFileSync(path.join(__dirname, '..', 'seen', 'c'), JSON.stringify({\n\
           started: started, env: process.env.NODE_EXTRA_CA_CERTS }));\n\
         test('c', function (t) { t.ok(true, 'c ran'); t.end(); });\n",
    );
    let roots = p.join("roots.pem").display().to_string();
    let only_roots = format!("NODE_EXTRA_CA_CERTS={roots}");
    let with_roots = [
        "-j1",
        "--format",
        "summary",
        "--env",
        &only_roots,
        "test/c.js",
    ];
    for _ in 0..2 {
        let ran = p.run(&with_roots);
        assert_eq!(ran.summary_doc()["files"][0]["ok"], true, "{}", ran.both());
    }
    assert_eq!(
        seen("c")["started"],
        serde_json::json!(["NODE_EXTRA_CA_CERTS="])
    );
    assert_eq!(seen("c")["env"], roots.as_str());

    // A certificate node cannot read ends its reading of the file: it is kept whole.
    p.write(
        "broken.pem",
        format!("{bundled}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n{cert}"),
    );
    let broken = format!("NODE_EXTRA_CA_CERTS={}", p.join("broken.pem").display());
    let with_broken = ["-j1", "--format", "summary", "--env", &broken];
    for _ in 0..2 {
        let ran = p.run(&with_broken);
        assert_eq!(
            seen("a")["started"],
            serde_json::json!([broken]),
            "{}",
            ran.both()
        );
    }

    // `--use-openssl-ca` trusts the system's store, not node's: no file is made for it.
    let options = "NODE_OPTIONS=--use-openssl-ca";
    let openssl_ca = [&args[..], &["--env", options]].concat();
    for _ in 0..2 {
        let ran = p.run(&openssl_ca);
        assert_eq!(
            seen("a")["started"],
            serde_json::json!([named]),
            "{}",
            ran.both()
        );
    }
}

/// The paths of the files a `--format summary` run started.
fn files_run(doc: &Value) -> Vec<&str> {
    (doc["files"].as_array().expect("files").iter())
        .filter(|f| f["not_run"] == false)
        .filter_map(|f| f["path"].as_str())
        .collect()
}

/// A worker is sent its next file while it runs one (src/run/warm/mod.rs, `Pool::send_ahead`),
/// and starts it the moment that one ends: a file that then stops the run takes the file sent
/// ahead down with its worker, told as not run; under `--max-fail` nothing is sent ahead, so
/// the file after the failing one never starts.
#[test]
fn issue26_a_file_sent_ahead_is_not_run_when_the_file_before_it_stops_the_run() {
    let test = "issue26_a_file_sent_ahead_is_not_run_when_the_file_before_it_stops_the_run";
    let Some(p) = tape_project_with_pids(test) else {
        return;
    };
    let args = ["-j1", "--order", "declared", "--format", "summary"];
    for name in ["c", "d", "e"] {
        p.write(&format!("test/{name}.js"), passing_tape_file(name));
    }
    p.write("test/a.js", passing_tape_file("a"));
    p.write("test/b.js", passing_tape_file("b"));
    // All five in one worker, each sent ahead of the one before it ends.
    let warm = p.run(&args);
    let pid = |name: &str| p.read_text(&format!("pids/{name}"));
    assert!(
        ["b", "c", "d", "e"].iter().all(|n| pid(n) == pid("a")),
        "{}",
        warm.both()
    );
    same_isolated(&p, &args, &verdicts(&warm.summary_doc()));

    // b fails and --max-fail 1 stops the run: c was not sent ahead, so it never started.
    p.write(
        "test/b.js",
        tape_file("b", "t.equal(1, 2, 'b fails'); t.end();"),
    );
    fs::remove_dir_all(p.join("pids")).expect("rm pids");
    fs::create_dir_all(p.join("pids")).expect("mkdir pids");
    let stopped = p.run(&[&args[..], &["--max-fail", "1"]].concat());
    let doc = stopped.summary_doc();
    let ran = files_run(&doc);
    assert_eq!(ran, ["test/a.js", "test/b.js"], "{}", stopped.both());
    assert!(!p.join("pids/c").exists(), "c never started");
    same_isolated(
        &p,
        &[&args[..], &["--max-fail", "1"]].concat(),
        &verdicts(&doc),
    );

    // b bails out, which stops any run: c, sent ahead, goes with its worker, not run.
    p.write(
        "test/b.js",
        "// require('tape')\nconsole.log('TAP version 13\\nok 1 - first\\nBail out! no database');\n",
    );
    let bailed = p.run(&args);
    let doc = bailed.summary_doc();
    let ran = files_run(&doc);
    assert_eq!(ran, ["test/a.js", "test/b.js"], "{}", bailed.both());
    assert!(
        !p.read_text(".nogit/testlogs/test__b.log")
            .contains("# c first"),
        "c's output is no file's"
    );
    same_isolated(&p, &args, &verdicts(&doc));
}

/// What a file leaves in its worker that would end with its own process and decides how a
/// later file ends is undone at its end (the driver's `undoSince`): a listener for uncaught
/// exceptions or unhandled rejections (which swallowed a later file's crash: a false pass,
/// found running probe files beside browserify/resolve), the working folder. What a module
/// did while it loaded stays: a later file requiring it does not load it again.
#[test]
fn issue26_a_files_crash_listener_does_not_outlive_it_in_its_worker() {
    let test = "issue26_a_files_crash_listener_does_not_outlive_it_in_its_worker";
    let Some(p) = tape_project_with_pids(test) else {
        return;
    };
    let listens = |event: &str| {
        tape_file(
            "l",
            &format!("process.on('{event}', function () {{}}); t.ok(true); t.end();"),
        )
    };
    p.write("test/1_listens.js", listens("uncaughtException"));
    p.write(
        "test/2_throws_late.js",
        tape_file(
            "t",
            "t.ok(true); t.end(); setTimeout(function () { throw new Error('late'); }, 10);",
        ),
    );
    p.write("test/3_listens.js", listens("unhandledRejection"));
    p.write(
        "test/4_rejects.js",
        tape_file(
            "r",
            "t.ok(true); t.end(); Promise.reject(new Error('nobody catches this'));",
        ),
    );
    p.write(
        "lib/guard.js",
        "process.on('unhandledRejection', function (e) { console.log('# guard saw ' + e.message); });\n",
    );
    for name in ["5_guarded.js", "6_guarded_rejects.js"] {
        p.write(
            &format!("test/{name}"),
            tape_file(
                "g",
                "require('../lib/guard'); t.ok(true); t.end(); Promise.reject(new Error('guarded'));",
            ),
        );
    }
    p.write(
        "test/7_moves.js",
        tape_file("m", "process.chdir('/'); t.ok(true); t.end();"),
    );
    p.write(
        "test/8_where.js",
        tape_file(
            "w",
            "var fs = require('fs'), path = require('path');\n\
             t.equal(fs.realpathSync(process.cwd()), fs.realpathSync(path.join(__dirname, '..')));\n\
             t.end();",
        ),
    );
    let args = ["-j1", "--order", "declared", "--format", "summary"];
    let warm = p.run(&args);
    let by_file = verdicts(&warm.summary_doc());
    let ok = passed(&by_file);
    assert_eq!(
        ok,
        [
            ("test/1_listens.js", true),
            ("test/2_throws_late.js", false),
            ("test/3_listens.js", true),
            ("test/4_rejects.js", false),
            ("test/5_guarded.js", true),
            ("test/6_guarded_rejects.js", true),
            ("test/7_moves.js", true),
            ("test/8_where.js", true),
        ],
        "{}",
        warm.both()
    );
    let pid = |name: &str| p.read_text(&format!("pids/{name}"));
    assert_eq!(pid("g"), pid("m"), "the guarded files share a worker");
    assert!(
        p.read_text(".nogit/testlogs/test__6_guarded_rejects.log")
            .contains("# guard saw guarded"),
        "the helper's listener, added as it loaded, still guards the file that finds it loaded"
    );
    same_isolated(&p, &args, &by_file);
}
