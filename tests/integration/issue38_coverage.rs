//! Issue 38, item 8: `run --coverage` never changes a verdict and counts what coverage.py's
//! own `coverage report` counts. A pytest project with a virtualenv in its root (`.venv`, a
//! package in its site-packages the tests import), a `[tool.coverage.run] omit =` config, and
//! a source that cannot be analysed (a module a test writes, imports and deletes): tapline's
//! Python total equals `python3 -m coverage report`'s on the same project, nothing of the
//! virtualenv is measured, the source is left out alone with a note naming it, and the
//! analysis of a large source never counts against the file's `--timeout`.
use crate::util::{require, tool, Project, Ran};
use std::ffi::OsString;
use std::path::Path;

const TOOLS: &[&str] = &["python3", "pytest", "python3-coverage"];

const PYPROJECT: &str = r#"[tool.pytest.ini_options]
pythonpath = ["src"]

[tool.coverage.run]
omit = ["src/calc/vendored.py"]

[tool.coverage.report]
ignore_errors = true
"#;

const OPS: &str = "def add(a, b):\n    return a + b\n\n\ndef unused(a):\n    if a:\n        return 1\n    return 2\n";

const VENDORED: &str = "def twice(a):\n    return 2 * a\n\n\ndef never(a):\n    return a\n";

const TEST_OPS: &str = "import slowpkg\nfrom calc.ops import add\nfrom calc.vendored import twice\n\n\ndef test_add():\n    assert add(1, 2) == 3\n    assert twice(2) == 4\n    assert slowpkg.spin() > 0\n";

/// Writes, imports and deletes a module: coverage.py measured it, but has no source left
/// to analyse.
const TEST_GEN: &str = "import importlib\nimport pathlib\n\n\ndef test_generated():\n    path = pathlib.Path(__file__).parent.parent / \"src\" / \"calc\" / \"gen.py\"\n    path.write_text(\"VALUE = 3\\n\")\n    importlib.invalidate_caches()\n    gen = importlib.import_module(\"calc.gen\")\n    path.unlink()\n    assert gen.VALUE == 3\n";

/// A package of the virtualenv's: slow to trace, and large to analyse.
fn slow_package() -> String {
    let mut text = String::from(
        "def spin():\n    n = 0\n    for i in range(300000):\n        n += i % 7\n    return n\n\n\n",
    );
    for i in 0..5000 {
        text.push_str(&format!("def f{i}(x):\n    return x + {i}\n\n\n"));
    }
    text
}

/// The python coverage.py is installed for (Debian's `python3-coverage` names it first).
fn coverage_python() -> String {
    let script = std::fs::read_to_string(tool("python3-coverage")).expect("read python3-coverage");
    script
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("#!"))
        .and_then(|l| l.split_whitespace().next())
        .expect("python3-coverage starts with #!python")
        .to_owned()
}

/// The project, with a virtualenv of that python in `.venv` (system packages visible, so it
/// has pytest and coverage.py) whose `bin/pytest` tapline runs, as a project's own.
fn project() -> (Project, OsString) {
    let p = Project::new();
    p.write("pyproject.toml", PYPROJECT)
        .write("src/calc/__init__.py", "")
        .write("src/calc/ops.py", OPS)
        .write("src/calc/vendored.py", VENDORED)
        .write("tests/test_ops.py", TEST_OPS)
        .write("tests/test_gen.py", TEST_GEN);
    let python = coverage_python();
    let made = std::process::Command::new(&python)
        .args([
            "-m",
            "venv",
            "--without-pip",
            "--system-site-packages",
            ".venv",
        ])
        .current_dir(p.path())
        .status()
        .expect("python3 -m venv runs");
    assert!(made.success(), "failed to make the virtualenv");
    let lib = std::fs::read_dir(p.join(".venv/lib"))
        .expect("read .venv/lib")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("python"))
        .expect("a .venv/lib/pythonX.Y")
        .path();
    let site = lib.join("site-packages/slowpkg");
    std::fs::create_dir_all(&site).expect("mkdir slowpkg");
    std::fs::write(site.join("__init__.py"), slow_package()).expect("write slowpkg");
    let venv_python = p.join(".venv/bin/python");
    p.script(
        ".venv/bin/pytest",
        &format!(
            "#!{}\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n",
            venv_python.display()
        ),
    );
    let mut path = OsString::from(p.join(".venv/bin").as_os_str());
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    (p, path)
}

fn run(p: &Project, path: &std::ffi::OsStr, args: &[&str]) -> Ran {
    p.run_env(args, &[("PATH", path)])
}

/// `coverage run -m pytest; coverage report` in `dir`, by the venv's python: the TOTAL
/// line's statements and missed statements, of the files under `dir` (tapline's rule; the
/// report is told so because coverage.py 6.5, in a `--system-site-packages` virtualenv, also
/// counts the system's dist-packages, pytest's own code).
fn coverage_report(dir: &Path) -> (u64, u64) {
    let python = dir.join(".venv/bin/python");
    let ran = std::process::Command::new(&python)
        .args([
            "-m",
            "coverage",
            "run",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .current_dir(dir)
        .output()
        .expect("coverage run");
    assert!(
        ran.status.success(),
        "coverage run -m pytest failed: {}",
        String::from_utf8_lossy(&ran.stdout)
    );
    let report = std::process::Command::new(&python)
        .args(["-m", "coverage", "report"])
        .arg(format!("--include={}/*", dir.display()))
        .current_dir(dir)
        .output()
        .expect("coverage report");
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(report.status.success(), "coverage report failed: {text}");
    let total = text
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .unwrap_or_else(|| panic!("no TOTAL in {text}"));
    let words: Vec<&str> = total.split_whitespace().collect();
    (
        words[1].parse().expect("statements"),
        words[2].parse().expect("missed"),
    )
}

/// The run's verdict and counts, and each file's verdict.
fn verdicts(doc: &serde_json::Value) -> serde_json::Value {
    let files: Vec<serde_json::Value> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| serde_json::json!([f["path"], f["ok"], f["timed_out"]]))
        .collect();
    serde_json::json!([doc["ok"], doc["run"]["tests"], files])
}

/// The summary document.
fn summary(ran: &Ran) -> serde_json::Value {
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("summary JSON: {e}\n{}\n{}", ran.stdout, ran.stderr))
}

#[test]
fn issue38_coverage_counts_what_coverage_report_counts_and_never_a_virtualenv() {
    if !require(
        "issue38_coverage_counts_what_coverage_report_counts_and_never_a_virtualenv",
        TOOLS,
    ) {
        return;
    }
    let (p, path) = project();
    let plain = run(&p, &path, &["--format", "summary"]);
    let measured = run(&p, &path, &["--coverage", "--format", "summary"]);
    let (plain, measured_doc) = (summary(&plain), summary(&measured));
    assert_eq!(measured.code, 0, "{}", measured.stderr);
    assert_eq!(
        verdicts(&measured_doc),
        verdicts(&plain),
        "--coverage changed a verdict"
    );
    let cov = &measured_doc["coverage"];
    let files: Vec<&str> = cov["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(
        !files.iter().any(|f| f.starts_with(".venv/")),
        "the virtualenv was measured: {files:?}"
    );
    assert!(
        !files.contains(&"src/calc/vendored.py"),
        "omit = ignored: {files:?}"
    );
    assert!(files.contains(&"src/calc/ops.py"), "{files:?}");
    let notes = cov["missing_engines"].to_string();
    assert!(
        notes.contains("src/calc/gen.py is left out"),
        "no note names the source left out: {notes}"
    );
    let (statements, missed) = coverage_report(p.path());
    assert_eq!(
        (cov["lines"].as_u64(), cov["hit"].as_u64()),
        (Some(statements), Some(statements - missed)),
        "tapline's total is not coverage report's: {cov}"
    );
}

#[test]
fn issue38_coverage_adds_nothing_to_a_files_timeout() {
    if !require("issue38_coverage_adds_nothing_to_a_files_timeout", TOOLS) {
        return;
    }
    let (p, path) = project();
    // The project's own large module: quick to import, slow for coverage.py to analyse.
    let mut big = String::new();
    for i in 0..80000 {
        big.push_str(&format!(
            "def g{i}(x):\n    if x > {i}:\n        return x - {i}\n    return x + {i}\n"
        ));
    }
    p.write("src/calc/big.py", big).write(
        "tests/test_big.py",
        "from calc import big\n\n\ndef test_big():\n    assert big.g3(5) == 2\n",
    );
    std::fs::remove_file(p.join("tests/test_ops.py")).expect("rm test_ops.py");
    std::fs::remove_file(p.join("tests/test_gen.py")).expect("rm test_gen.py");
    // A first run compiles big.py; the timeout is three times what the second takes, well
    // below what analysing big.py takes. Both run the file in a pytest of its own
    // (`--isolate`), as a run with coverage does: a warm worker's file time leaves out
    // pytest's start (issue 40).
    let compiled = run(&p, &path, &["--isolate", "--format", "summary"]);
    assert_eq!(compiled.code, 0, "{}", compiled.stderr);
    let warm = run(&p, &path, &["--isolate", "--format", "summary"]);
    let took = summary(&warm)["files"][0]["duration_ms"]
        .as_u64()
        .expect("duration_ms");
    let timeout = format!("{}ms", (took * 3).max(3000));
    let measured = run(
        &p,
        &path,
        &["--coverage", "--timeout", &timeout, "--format", "summary"],
    );
    let doc = summary(&measured);
    assert_eq!(measured.code, 0, "{}", measured.stderr);
    assert_eq!(doc["ok"], true, "{}", measured.stderr);
    let files = doc["coverage"]["files"].to_string();
    assert!(files.contains("src/calc/big.py"), "{files}");
}
