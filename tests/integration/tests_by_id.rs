//! Issue 27: tests, not only files: every test point's stable ID (`file > outer > inner`) in
//! `--format jsonl`, `tapline list` (static scan, and what the last run reported), and the
//! two agreeing.
use crate::util::{require, Project};
use serde_json::Value;
use std::collections::BTreeSet;

const PERL_SUBTESTS: &str = "use Test::More;\n\
subtest 'outer' => sub {\n  ok(1, 'inner one');\n  subtest 'deeper' => sub { ok(1, 'leaf') };\n};\n\
ok(1, 'top');\nok(1);\ndone_testing;\n";

/// The `test_id` of every test point in a run's `--format jsonl`.
fn reported_ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tap" && e["event"]["type"] == "assert")
        .map(|e| {
            e["test_id"]
                .as_str()
                .expect("a test point has a test_id")
                .to_owned()
        })
        .collect()
}

#[test]
fn every_test_point_in_jsonl_has_its_stable_id() {
    if !require("every_test_point_in_jsonl_has_its_stable_id", &["perl"]) {
        return;
    }
    let p = Project::new();
    p.write("t/sub.t", PERL_SUBTESTS);
    let ran = p.run(&["--format", "jsonl"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let ids: BTreeSet<String> = reported_ids(&ran.stdout).into_iter().collect();
    let want: BTreeSet<String> = [
        "t/sub.t > outer > inner one",
        "t/sub.t > outer > deeper > leaf",
        "t/sub.t > outer > deeper",
        "t/sub.t > outer",
        "t/sub.t > top",
        "t/sub.t > #3",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(ids, want);
}

/// The polyglot project of issue 27: node:test with subtests, tape, Test::More subtests, bats,
/// a go module and a pytest suite; every test appends its name to `$RAN_LOG` as it runs, and
/// one fails when `$FAIL` is set. (tape is a stand-in module printing tape's TAP: tape itself
/// is not installed here.)
fn polyglot() -> Project {
    let p = Project::new();
    p.write(
        "tapline.toml",
        "[run]\ntest_dirs = [\"t\", \"test\"]\n\n\
         [[suite]]\nname = \"go\"\ndir = \"go\"\ncommand = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n\n\
         [[suite]]\nname = \"pytest\"\ndir = \"python\"\n\
         command = [\"pytest\", \"-q\", \"-p\", \"no:cacheprovider\", \"--junitxml=.nogit/junit.xml\"]\n\
         format = \"junit\"\nreport = \".nogit/junit.xml\"\n",
    );
    p.write(
        "test/calc.test.mjs",
        "import { test, describe, it } from 'node:test';\n\
         import { appendFileSync } from 'node:fs';\n\
         const ran = (n) => appendFileSync(process.env.RAN_LOG, n + '\\n');\n\
         describe('math', () => {\n\
         \x20 it('adds', () => { ran('node adds'); });\n\
         \x20 it('subtracts', () => { ran('node subtracts'); if (process.env.FAIL) throw new Error('boom'); });\n\
         });\n\
         test('top level', () => { ran('node top level'); });\n",
    );
    p.write("node_modules/tape/index.js", TAPE_STAND_IN);
    p.write(
        "test/words.test.js",
        "const test = require('tape');\nconst { appendFileSync } = require('fs');\n\
         const ran = (n) => appendFileSync(process.env.RAN_LOG, n + '\\n');\n\
         test('joins', (t) => { ran('tape joins'); t.ok(['a', 'b'].join('') === 'ab', 'joined'); t.end(); });\n\
         test('splits', (t) => { ran('tape splits'); t.ok('a b'.split(' ').length === 2, 'split'); t.end(); });\n",
    );
    p.write(
        "t/sub.t",
        "use Test::More;\nsub ran { open my $f, '>>', $ENV{RAN_LOG} or die; print $f \"$_[0]\\n\" }\n\
         subtest 'outer' => sub {\n  ran('perl outer');\n  ok(1, 'inner one');\n\
         \x20 subtest 'deeper' => sub { ran('perl deeper'); ok(!$ENV{FAIL}, 'leaf') };\n};\n\
         subtest 'second' => sub { ran('perl second'); ok(1, 'fine') };\ndone_testing;\n",
    );
    p.write(
        "test/shell.bats",
        "@test \"joins words\" {\n  echo 'bats joins words' >> \"$RAN_LOG\"\n}\n\n\
         @test \"splits words\" {\n  echo 'bats splits words' >> \"$RAN_LOG\"\n  [ -z \"$FAIL\" ]\n}\n",
    );
    p.write("go/go.mod", "module example.com/calc\n\ngo 1.18\n");
    p.write(
        "go/calc/calc_test.go",
        "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\n\
         func ran(name string) {\n\tf, _ := os.OpenFile(os.Getenv(\"RAN_LOG\"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)\n\
         \tf.WriteString(name + \"\\n\")\n\tf.Close()\n}\n\n\
         func TestAdd(t *testing.T) { ran(\"go TestAdd\") }\n\n\
         func TestTable(t *testing.T) {\n\tfor _, name := range []string{\"one\", \"two\"} {\n\
         \t\tt.Run(name, func(t *testing.T) {\n\t\t\tran(\"go TestTable/\" + name)\n\
         \t\t\tif name == \"two\" && os.Getenv(\"FAIL\") != \"\" {\n\t\t\t\tt.Fatal(\"boom\")\n\t\t\t}\n\t\t})\n\t}\n}\n",
    );
    p.write(
        "python/test_calc.py",
        "import os\n\ndef ran(name):\n    with open(os.environ['RAN_LOG'], 'a') as f:\n        f.write(name + '\\n')\n\n\
         def test_adds():\n    ran('py test_adds')\n\n\
         class TestWords:\n    def test_upper(self):\n        ran('py test_upper')\n        assert not os.environ.get('FAIL')\n",
    );
    p
}

/// tape's TAP for `test(name, cb)` with `t.ok`/`t.end`, and its exit 1 when one failed: a
/// stand-in for `node_modules/tape/index.js` (tape itself is not installed here).
pub(crate) const TAPE_STAND_IN: &str =
    "// tape's TAP for `test(name, cb)` with t.ok/t.end: a stand-in.\n\
     let n = 0, fails = 0; const queue = [];\n\
     module.exports = (name, cb) => queue.push([name, cb]);\n\
     setImmediate(() => { console.log('TAP version 13');\n\
     \x20 for (const [name, cb] of queue) { console.log('# ' + name);\n\
     \x20   cb({ ok: (v, m) => { n++; if (!v) fails++; console.log((v ? 'ok ' : 'not ok ') + n + ' ' + m); }, end() {} }); }\n\
     \x20 console.log('\\n1..' + n); process.exitCode = fails ? 1 : 0; });\n";

const POLYGLOT_TOOLS: &[&str] = &["node", "perl", "bats", "go", "pytest"];

/// `tapline ARGS` in the project with `$RAN_LOG` set (and `$FAIL` when `fail`); what ran.
fn run_logged(p: &Project, args: &[&str], fail: bool) -> (crate::util::Ran, Vec<String>) {
    let _ = std::fs::remove_file(p.join("ran.txt"));
    let mut cmd = p.command(args);
    cmd.env("RAN_LOG", p.join("ran.txt"));
    if fail {
        cmd.env("FAIL", "1");
    } else {
        cmd.env_remove("FAIL");
    }
    let out = cmd.output().expect("tapline runs");
    let ran = crate::util::Ran::of(out, std::time::Duration::ZERO);
    let log = std::fs::read_to_string(p.join("ran.txt")).unwrap_or_default();
    let mut names: Vec<String> = log.lines().map(str::to_owned).collect();
    names.sort();
    (ran, names)
}

/// `tapline list ARGS --format json`, parsed.
fn listed(p: &Project, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["list", "--format", "json"];
    all.extend(args);
    let ran = p.tapline(&all);
    assert_eq!(ran.code, 0, "{}", ran.both());
    ran.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn ids(entries: &[Value]) -> BTreeSet<String> {
    entries
        .iter()
        .map(|e| e["id"].as_str().expect("an id").to_owned())
        .collect()
}

#[test]
fn list_before_any_run_finds_every_top_level_test_by_static_scan() {
    let p = polyglot();
    let entries = listed(&p, &[]);
    assert!(
        entries.iter().all(|e| e["source"] == "static"),
        "{entries:?}"
    );
    let ids = ids(&entries);
    for want in [
        "test/calc.test.mjs > math",
        "test/calc.test.mjs > math > adds",
        "test/calc.test.mjs > top level",
        "test/words.test.js > joins",
        "test/words.test.js > splits",
        "t/sub.t > outer",
        "t/sub.t > outer > deeper",
        "t/sub.t > second",
        "test/shell.bats > joins words",
        "test/shell.bats > splits words",
        "go > example.com/calc/calc > TestAdd",
        "go > example.com/calc/calc > TestTable",
        "pytest > pytest > test_calc.test_adds",
        "pytest > pytest > test_calc.TestWords.test_upper",
    ] {
        assert!(ids.contains(want), "{want} not in {ids:#?}");
    }
    let adds = entries
        .iter()
        .find(|e| e["id"] == "test/calc.test.mjs > math > adds");
    assert_eq!(adds.expect("listed")["location"], "test/calc.test.mjs:5");
}

#[test]
fn after_a_run_list_has_exactly_the_ids_the_run_reported() {
    if !require(
        "after_a_run_list_has_exactly_the_ids_the_run_reported",
        POLYGLOT_TOOLS,
    ) {
        return;
    }
    let p = polyglot();
    let (ran, _) = run_logged(&p, &["--format", "jsonl"], true);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let reported: BTreeSet<String> = reported_ids(&ran.stdout).into_iter().collect();
    let listed = ids(&listed(&p, &[]));
    assert_eq!(listed, reported);
    for id in [
        "go > example.com/calc/calc > TestTable > two",
        "pytest > pytest > test_calc.TestWords.test_upper",
        "test/words.test.js > joins > joined",
        "t/sub.t > outer > deeper > leaf",
    ] {
        assert!(listed.contains(id), "{id} not in {listed:#?}");
    }
}

#[test]
fn dash_t_runs_only_the_matching_tests_through_each_frameworks_filter() {
    if !require(
        "dash_t_runs_only_the_matching_tests_through_each_frameworks_filter",
        POLYGLOT_TOOLS,
    ) {
        return;
    }
    let p = polyglot();
    let args = [
        "-t",
        "math > adds",
        "-t",
        "test_adds",
        "-t",
        "/^TestAdd$/",
        "-t",
        "joins words",
    ];
    let (ran, names) = run_logged(&p, &args, true);
    // `$FAIL` fails the tests not selected: passing says none of them ran.
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        names,
        [
            "bats joins words",
            "go TestAdd",
            "node adds",
            "py test_adds"
        ],
        "{}",
        ran.both()
    );
    assert!(
        ran.stderr.contains("only tests matching math > adds"),
        "{}",
        ran.both()
    );
    assert!(
        ran.stderr
            .contains("not run (no matching test): t/sub.t, test/words.test.js"),
        "{}",
        ran.both()
    );
    // Subtests known from the last run: go's are anchored level by level.
    run_logged(&p, &[], false);
    let (ran, names) = run_logged(
        &p,
        &["-t", "TestTable > two", "-t", "outer > deeper"],
        false,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        names,
        [
            "go TestTable/two",
            "perl deeper",
            "perl outer",
            "perl second"
        ],
        "{}",
        ran.both()
    );
}

#[test]
fn only_failed_runs_exactly_the_tests_that_failed_last_time() {
    if !require(
        "only_failed_runs_exactly_the_tests_that_failed_last_time",
        POLYGLOT_TOOLS,
    ) {
        return;
    }
    let p = polyglot();
    let (ran, _) = run_logged(&p, &[], true);
    assert_eq!(ran.code, 1, "{}", ran.both());
    // Test::More has no filter: its failed file runs whole.
    let failed = [
        "bats splits words",
        "go TestTable/two",
        "node subtracts",
        "perl deeper",
        "perl outer",
        "perl second",
        "py test_upper",
    ];
    let (ran, names) = run_logged(&p, &["--only-failed"], true);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(names, failed, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("not run (passed or never ran): test/words.test.js"),
        "{}",
        ran.both()
    );
    // Fixed: the same tests run, and pass.
    let (ran, names) = run_logged(&p, &["--only-failed"], false);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(names, failed, "{}", ran.both());
}

/// `tapline list --source runtime`: pytest's and go's own listings, named as a run names the
/// same tests; a file pytest cannot collect keeps its static entries, with a note.
#[test]
fn issue27_runtime_list_names_the_tests_as_the_run_reports_them() {
    if !require(
        "issue27_runtime_list_names_the_tests_as_the_run_reports_them",
        POLYGLOT_TOOLS,
    ) {
        return;
    }
    let p = polyglot();
    p.write(
        "test/test_params.py",
        "import pytest\n\n@pytest.mark.parametrize('x', [1, 2])\ndef test_double(x):\n    assert x * 2 > x\n\n\
         class TestBox:\n    def test_open(self):\n        pass\n",
    );
    let runtime = listed(&p, &["--source", "runtime"]);
    assert!(
        runtime.iter().all(|e| e["source"] == "runtime"),
        "{runtime:?}"
    );
    let listed_ids = ids(&runtime);
    let files: BTreeSet<&str> = runtime.iter().filter_map(|e| e["file"].as_str()).collect();
    assert_eq!(
        files,
        ["go", "pytest", "test/test_params.py"].into(),
        "only the frameworks with a listing"
    );
    let params = runtime
        .iter()
        .find(|e| e["id"] == "test/test_params.py > test_double[2]");
    assert_eq!(params.expect("listed")["location"], "test/test_params.py:4");
    // Before a run, `auto` lists the parameters pytest knows instead of the bare function.
    let auto = ids(&listed(&p, &[]));
    assert!(
        auto.contains("test/test_params.py > test_double[1]"),
        "{auto:#?}"
    );
    assert!(
        !auto.contains("test/test_params.py > test_double"),
        "{auto:#?}"
    );
    assert!(
        auto.contains("test/calc.test.mjs > math > adds"),
        "{auto:#?}"
    );

    let (ran, _) = run_logged(&p, &["--format", "jsonl"], false);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let reported: BTreeSet<String> = reported_ids(&ran.stdout).into_iter().collect();
    let of = |ids: &BTreeSet<String>, prefix: &str, depth: usize| -> BTreeSet<String> {
        (ids.iter())
            .filter(|id| id.starts_with(prefix) && id.split(" > ").count() == depth)
            .cloned()
            .collect()
    };
    // pytest's tests (native and suite) are the same; go's top-level tests are (its subtests
    // only a run knows).
    for (prefix, depth) in [
        ("test/test_params.py >", 2),
        ("pytest > pytest >", 3),
        ("go >", 3),
    ] {
        assert_eq!(
            of(&listed_ids, prefix, depth),
            of(&reported, prefix, depth),
            "{prefix}"
        );
        assert!(!of(&listed_ids, prefix, depth).is_empty(), "{prefix}");
    }

    p.write(
        "test/test_broken.py",
        "import no_such_module\n\ndef test_never():\n    pass\n",
    );
    let broken = p.tapline(&["list", "--source", "runtime", "--format", "json", "test"]);
    assert_eq!(broken.code, 0, "{}", broken.both());
    assert!(
        broken
            .stderr
            .contains("test/test_broken.py: failed to list the tests with `")
            && broken.stderr.contains("no_such_module"),
        "{}",
        broken.both()
    );
    assert!(
        broken.stdout.contains(r#""id":"test/test_broken.py > test_never","file":"test/test_broken.py","name":["test_never"],"source":"static""#),
        "{}",
        broken.both()
    );
    assert!(
        broken
            .stdout
            .contains("test/test_params.py > test_double[1]"),
        "the other file is still listed by pytest: {}",
        broken.both()
    );
}

/// `--retries`: a file whose framework can filter (node:test, pytest, bats) re-runs only the
/// tests that failed, and passing then makes it flaky; Test::More, without a filter, re-runs
/// whole. Each test fails on its first run only (a marker file beside `$RAN_LOG`).
#[test]
fn issue27_retries_rerun_only_the_failed_tests() {
    if !require(
        "issue27_retries_rerun_only_the_failed_tests",
        &["node", "perl", "bats", "pytest"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("tapline.toml", "[run]\ntest_dirs = [\"t\", \"test\"]\n");
    p.write(
        "test/flaky.test.mjs",
        "import { test, describe, it } from 'node:test';\n\
         import { appendFileSync, existsSync, writeFileSync } from 'node:fs';\n\
         import { dirname } from 'node:path';\n\
         const ran = (n) => appendFileSync(process.env.RAN_LOG, n + '\\n');\n\
         const once = (n) => { const m = dirname(process.env.RAN_LOG) + '/once-' + n;\n\
         \x20 if (existsSync(m)) return false; writeFileSync(m, ''); return true; };\n\
         describe('math', () => {\n\
         \x20 it('adds', () => { ran('node adds'); });\n\
         \x20 it('flaky', () => { ran('node flaky'); if (once('node')) throw new Error('first time'); });\n\
         });\n\
         test('top', () => { ran('node top'); });\n",
    );
    p.write(
        "test/test_flaky.py",
        "import os\n\ndef ran(name):\n    with open(os.environ['RAN_LOG'], 'a') as f:\n        f.write(name + '\\n')\n\n\
         def test_a():\n    ran('py a')\n\n\
         def test_b():\n    ran('py b')\n    mark = os.path.join(os.path.dirname(os.environ['RAN_LOG']), 'once-py')\n\
         \x20   if not os.path.exists(mark):\n        open(mark, 'w').close()\n        assert False, 'first time'\n",
    );
    p.write(
        "test/flaky.bats",
        "@test \"steady\" {\n  echo 'bats steady' >> \"$RAN_LOG\"\n}\n\n\
         @test \"wobbly\" {\n  echo 'bats wobbly' >> \"$RAN_LOG\"\n  mark=\"$(dirname \"$RAN_LOG\")/once-bats\"\n\
         \x20 if [ ! -e \"$mark\" ]; then touch \"$mark\"; false; fi\n}\n",
    );
    p.write(
        "t/flaky.t",
        "use Test::More;\nuse File::Basename;\nsub ran { open my $f, '>>', $ENV{RAN_LOG} or die; print $f \"$_[0]\\n\" }\n\
         ran('perl steady'); ok(1, 'steady');\n\
         my $mark = dirname($ENV{RAN_LOG}) . '/once-perl';\n\
         my $first = !-e $mark; if ($first) { open my $m, '>', $mark or die }\n\
         ran('perl wobbly'); ok(!$first, 'wobbly');\ndone_testing;\n",
    );
    let (ran, names) = run_logged(&p, &["--retries", "2", "--format", "jsonl"], false);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        names,
        [
            "bats steady",
            "bats wobbly",
            "bats wobbly",
            "node adds",
            "node flaky",
            "node flaky",
            "node top",
            "perl steady",
            "perl steady",
            "perl wobbly",
            "perl wobbly",
            "py a",
            "py b",
            "py b",
        ],
        "{}",
        ran.both()
    );
    let summary = ran
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "run_finished")
        .expect("the run's end");
    assert_eq!(
        summary["summary"]["flaky"].as_array().map(Vec::len),
        Some(4),
        "{summary}"
    );
    // The retry's command says what it ran.
    assert!(
        ran.stdout.contains("test/test_flaky.py::test_b"),
        "{}",
        ran.both()
    );
}
