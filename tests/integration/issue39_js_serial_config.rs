//! #39, vitest and ava: a project whose configuration (not its script's flags) runs files one
//! after another — vitest's `fileParallelism: false` (`maxWorkers: 1`,
//! `poolOptions.forks.singleFork`), ava's `serial: true` / `concurrency: 1` — has them run one
//! at a time under tapline too, as each harness resolves its configuration (asked through the
//! room's driver). Before, only the flags were read: two files sharing one resource (a port, a
//! database; here a lock folder) ran side by side and one failed under tapline only.
use crate::util::{npm, Project};

/// A test file holding the lock folder `.lock` for a while: it fails when another holds it.
fn holder(import: &str, test: &str) -> String {
    format!(
        "{import}\nimport fs from 'node:fs'\n\
         {test}('holds the lock alone', async (t) => {{\n  \
         fs.mkdirSync('.lock')\n  \
         await new Promise((done) => setTimeout(done, 3000))\n  \
         fs.rmdirSync('.lock')\n  \
         {pass}\n}})\n",
        pass = if test == "test" && import.contains("ava") {
            "t.pass()"
        } else {
            ""
        }
    )
}

fn vitest_project(test: &str, config: &str) -> Option<Project> {
    let dir = npm::suite(test, "vitest-basic", &["vitest/package.json"])?;
    let p = npm::copy_of(&dir, Some(&dir.join("node_modules")));
    for f in ["test/math.test.ts", "test/strings.test.ts"] {
        std::fs::remove_file(p.join(f)).expect("rm");
    }
    let file = holder("import { test } from 'vitest'", "test");
    for name in ["a", "b", "c", "d"] {
        p.write(&format!("test/{name}.test.ts"), &file);
    }
    p.write(
        "vitest.config.ts",
        format!(
            "import {{ defineConfig }} from 'vitest/config'\n\
             export default defineConfig({{ test: {{ include: ['test/**/*.test.ts'], {config} }} }})\n"
        ),
    );
    Some(p)
}

fn ava_project(test: &str, ava: serde_json::Value) -> Option<Project> {
    let dir = npm::suite(test, "ava-basic", &["ava/package.json"])?;
    let p = npm::copy_of(&dir, Some(&dir.join("node_modules")));
    for f in ["test/math.test.js", "test/strings.test.js"] {
        std::fs::remove_file(p.join(f)).expect("rm");
    }
    let file = holder("import test from 'ava'", "test");
    for name in ["a", "b", "c", "d"] {
        p.write(&format!("test/{name}.test.js"), &file);
    }
    let mut package: serde_json::Value =
        serde_json::from_slice(&p.read("package.json")).expect("package.json");
    package["ava"] = ava;
    p.write("package.json", package.to_string());
    Some(p)
}

/// `--list` says why files go one at a time, and the run of the four holders passes (side by
/// side, three of them fail).
fn assert_one_at_a_time(p: &Project, why: &str) {
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed.stderr.contains(&format!("-j1: {why}")),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(
        ran.code,
        0,
        "one file at a time holds the lock alone\n{}",
        ran.both()
    );
    assert!(ran.both().contains("4 files · 4 passed"), "{}", ran.both());
}

#[test]
fn issue39_vitest_file_parallelism_false_runs_files_one_at_a_time() {
    let test = "issue39_vitest_file_parallelism_false_runs_files_one_at_a_time";
    let Some(p) = vitest_project(test, "fileParallelism: false") else {
        return;
    };
    assert_one_at_a_time(
        &p,
        "vitest's configuration runs files one after another (fileParallelism: false)",
    );
}

#[test]
fn issue39_vitest_max_workers_1_runs_files_one_at_a_time_and_2_side_by_side() {
    let test = "issue39_vitest_max_workers_1_runs_files_one_at_a_time_and_2_side_by_side";
    let Some(p) = vitest_project(test, "maxWorkers: 1") else {
        return;
    };
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stderr
            .contains("-j1: vitest's configuration runs files one after another (maxWorkers: 1)"),
        "{}",
        listed.both()
    );
    let Some(p) = vitest_project(test, "maxWorkers: 2") else {
        return;
    };
    let listed = p.run(&["--list"]);
    assert!(!listed.stderr.contains("-j1"), "{}", listed.both());
}

#[test]
fn issue39_ava_serial_in_package_json_runs_files_one_at_a_time() {
    let test = "issue39_ava_serial_in_package_json_runs_files_one_at_a_time";
    let ava = serde_json::json!({"files": ["test/**/*.test.js"], "serial": true});
    let Some(p) = ava_project(test, ava) else {
        return;
    };
    assert_one_at_a_time(
        &p,
        "ava's configuration runs files one after another (serial: true)",
    );
}

#[test]
fn issue39_ava_concurrency_1_in_ava_config_runs_files_one_at_a_time() {
    let test = "issue39_ava_concurrency_1_in_ava_config_runs_files_one_at_a_time";
    let Some(p) = ava_project(test, serde_json::Value::Null) else {
        return;
    };
    let mut package: serde_json::Value =
        serde_json::from_slice(&p.read("package.json")).expect("package.json");
    package.as_object_mut().map(|o| o.remove("ava"));
    p.write("package.json", package.to_string());
    p.write(
        "ava.config.js",
        "export default { files: ['test/**/*.test.js'], concurrency: 1 }\n",
    );
    assert_one_at_a_time(
        &p,
        "ava's configuration runs files one after another (concurrency: 1)",
    );
}
