//! Issue 39: what `tapline init` detects and writes is each harness's (its room's
//! `init_*` methods), in the registry's init order: the file it writes is pinned whole, so a
//! room's block or the order of the blocks cannot drift.
use crate::util::Project;

/// A Perl distribution with two go modules, a pytest folder the plain run does not walk (one
/// nested in it) and a script of a harness tapline does not follow: every block `init` writes, in the order it writes them.
#[test]
fn issue39_init_writes_each_harness_block_in_the_registry_order() {
    let p = Project::new();
    p.write("Makefile.PL", "use ExtUtils::MakeMaker;\n")
        .write("t/a.t", "")
        .write("test/b.t", "")
        .write("go.mod", "module x\n")
        .write("svc/api/go.mod", "module y\n")
        .write("py/pytest.ini", "[pytest]\n")
        .write("py/a/b/conftest.py", "")
        .write("package.json", r#"{"scripts":{"test":"jasmine --random"}}"#);
    let ran = p.tapline(&["init"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let text = String::from_utf8(p.read("tapline.toml")).expect("utf-8");
    assert_eq!(text, EXPECTED);
}

/// A script a plain run follows is said in `[run]`, and no suite is written for it.
#[test]
fn issue39_init_says_a_followed_script_in_run() {
    let p = Project::new();
    p.write("test/a.js", "")
        .write("tests/.keep", "")
        .write("package.json", r#"{"scripts":{"test":"tape test/*.js"}}"#);
    let ran = p.tapline(&["init"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let text = String::from_utf8(p.read("tapline.toml")).expect("utf-8");
    assert_eq!(text, FOLLOWED);
}

const EXPECTED: &str = r#"# tapline.toml, written by `tapline init`: what a plain `tapline run` runs here.
# Every key is optional; `tapline run --list` shows the files a run takes.

[run]
# A Perl distribution: a plain run walks t/ for *.t with lib/ on @INC, one file at a time, as prove -l.
# test_dirs = ["t"]
# jobs = 4
# timeout = "120s"

# The go module in the root: a plain run tests its packages as `go test ./...`
# selects them, each package an entry (no suite needed).

# The go module in svc/api: `go test -json` is read test by test.
[[suite]]
name = "go-svc-api"
dir = "svc/api"
command = ["go", "test", "-json", "./..."]
format = "go-json"
optional = true                 # no `go` installed: skipped, saying so

# pytest's tests in py (pytest configuration found): run by pytest, read from
# its JUnit report. Python files run one by one print no TAP.
[[suite]]
name = "pytest"
dir = "py"
command = ["python3", "-m", "pytest", "--junitxml=.nogit/pytest.xml"]
format = "junit"
report = ".nogit/pytest.xml"      # relative to dir

# package.json's test script: "jasmine --random"
# tapline does not know how it runs tests; if it prints TAP, run it as a suite:
# [[suite]]
# name = "npm"
# command = ["npm", "test", "--silent"]
"#;

const FOLLOWED: &str = r#"# tapline.toml, written by `tapline init`: what a plain `tapline run` runs here.
# Every key is optional; `tapline run --list` shows the files a run takes.

[run]
# A plain run follows package.json's test script ("tape test/*.js").
# test_dirs = ["test", "tests"]
# jobs = 4
# timeout = "120s"
"#;
