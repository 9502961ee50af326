//! Issue 28: `run --coverage` in every language into one report. On
//! test-data/suites/coverage (a JS, Perl, Python and go library, each with a function the
//! tests call and one they never reach), lcov and Cobertura mark each reached line hit and each
//! unreached line 0, with the figures each language's own tool gives alone (node's
//! `--experimental-test-coverage`, Devel::Cover's `cover -report text`, coverage.py, go's
//! profile); two shards merged equal the whole run; `--coverage-min` fails the run (the merge,
//! never a shard); `coverage who` names the test file.
use crate::util::{copy_dir, repo, require, tool, Project, Ran};
use std::collections::BTreeMap;
use std::path::PathBuf;

const TOOLS: &[&str] = &["node", "perl", "python3", "go", "cover", "python3-coverage"];

type Lines = BTreeMap<u32, u64>;

/// The fixture as a fresh project, with a PATH whose `python3` is the one coverage.py is
/// installed for (Debian's `python3-coverage` names it in its first line).
fn fixture() -> (Project, std::ffi::OsString) {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/coverage"), p.path());
    let script = std::fs::read_to_string(tool("python3-coverage")).expect("read python3-coverage");
    let python = script
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("#!"))
        .and_then(|l| l.split_whitespace().next())
        .expect("python3-coverage starts with #!python");
    let bin = p.join(".nogit/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(python, bin.join("python3")).expect("symlink python3");
    let mut path = std::ffi::OsString::from(bin.as_os_str());
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    (p, path)
}

fn run(p: &Project, path: &std::ffi::OsStr, args: &[&str]) -> Ran {
    p.run_env(args, &[("PATH", path)])
}

/// lcov's records summed per source file, and the test files (`TN:`) of each.
fn lcov(text: &str) -> (BTreeMap<String, Lines>, BTreeMap<String, Vec<String>>) {
    let (mut lines, mut tests) = (BTreeMap::<String, Lines>::new(), BTreeMap::new());
    let (mut test, mut source) = (String::new(), String::new());
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("TN:") {
            test = t.to_owned();
        } else if let Some(s) = line.strip_prefix("SF:") {
            source = s.to_owned();
            tests
                .entry(source.clone())
                .or_insert_with(Vec::new)
                .push(test.clone());
        } else if let Some(da) = line.strip_prefix("DA:") {
            let (n, hits) = da.split_once(',').expect("DA:line,hits");
            let entry = lines.entry(source.clone()).or_default();
            *entry.entry(n.parse().expect("line")).or_insert(0) +=
                hits.parse::<u64>().expect("hits");
        }
    }
    (lines, tests)
}

/// Cobertura's `<line>`s per class `filename`.
fn cobertura(xml: &str) -> BTreeMap<String, Lines> {
    let mut out = BTreeMap::<String, Lines>::new();
    let mut class = String::new();
    let attr = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        let at = tag.find(&key).expect("attribute") + key.len();
        tag[at..].split('"').next().expect("value").to_owned()
    };
    for line in xml.lines().map(str::trim) {
        if line.starts_with("<class ") {
            class = attr(line, "filename");
        } else if line.starts_with("<line ") {
            let n = attr(line, "number").parse().expect("number");
            let hits = attr(line, "hits").parse().expect("hits");
            out.entry(class.clone()).or_default().insert(n, hits);
        }
    }
    out
}

fn lines(list: &[(u32, u64)]) -> Lines {
    list.iter().copied().collect()
}

/// What each language's own tool says alone on the fixture, line for line (the closing note
/// of issue 28 shows the runs): node's `--experimental-test-coverage` counts every line, an
/// empty one as run unless an unreached function holds it; `cover -report text`'s statement
/// column; coverage.py's statements (a docstring is none); go's profile blocks as lines.
fn expected() -> BTreeMap<String, Lines> {
    BTreeMap::from([
        (
            "gosrc/calc.go".into(),
            lines(&[(4, 1), (5, 1), (6, 1), (9, 0), (10, 0), (11, 0), (12, 0)]),
        ),
        (
            "lib/Calc.pm".into(),
            lines(&[(2, 1), (3, 1), (6, 1), (7, 1), (11, 0), (12, 0), (13, 0)]),
        ),
        (
            "lib/calc.js".into(),
            lines(&[
                (1, 1),
                (2, 1),
                (3, 1),
                (4, 1),
                (5, 1),
                (6, 0),
                (7, 0),
                (8, 0),
                (9, 0),
                (10, 1),
                (11, 1),
            ]),
        ),
        (
            "lib/calc.py".into(),
            lines(&[(4, 1), (5, 1), (8, 1), (9, 0), (10, 0)]),
        ),
    ])
}

#[test]
fn issue28_every_language_in_one_lcov_and_cobertura_report_and_coverage_who_names_the_test() {
    if !require(
        "issue28_every_language_in_one_lcov_and_cobertura_report_and_coverage_who_names_the_test",
        TOOLS,
    ) {
        return;
    }
    let (p, path) = fixture();
    let ran = run(
        &p,
        &path,
        &[
            "--coverage",
            "-o",
            "cov.lcov",
            "-o",
            "cov.cobertura.xml",
            "-o",
            "run.json",
            "-o",
            "r.md",
            "-o",
            "r.html",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    let (hits, tests) = lcov(&p.read_text("cov.lcov"));
    assert_eq!(hits, expected());
    assert_eq!(cobertura(&p.read_text("cov.cobertura.xml")), expected());
    // Each record names the test file that reached it; the tests themselves are not measured.
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(tests["lib/calc.js"], names(&["t/calc.test.js"]));
    assert_eq!(tests["lib/Calc.pm"], names(&["t/calc.t"]));
    assert_eq!(tests["lib/calc.py"], names(&["t/test_calc.py"]));
    assert_eq!(tests["gosrc/calc.go"], names(&["go"]));
    // The terminal's section and the summary document: per language, per file, what no test reaches.
    assert!(
        ran.stderr
            .contains("coverage: 17 of 30 lines reached (56.7%)"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("lib/Calc.pm: 4/7 (57.1%), not reached: 11-13"),
        "{}",
        ran.stderr
    );
    let doc: serde_json::Value = serde_json::from_str(&p.read_text("run.json")).expect("json");
    assert_eq!(doc["coverage"]["hit"], 17);
    assert_eq!(doc["coverage"]["languages"]["python"]["lines"], 5);
    // Markdown and HTML: per language, per file, the lines no test reaches.
    let md = p.read_text("r.md");
    assert!(
        md.contains("### Coverage\n\n17 of 30 lines reached (56.7%)"),
        "{md}"
    );
    assert!(
        md.contains("| perl | `lib/Calc.pm` | 7 | 4 (57.1%) | 11-13 |"),
        "{md}"
    );
    let html = p.read_text("r.html");
    assert!(html.contains("<section id=\"coverage\"><h2>Coverage <span class=\"n\">56.7%</span>"));
    assert!(html.contains("<span class=\"mono\">lib/calc.js</span></td><td class=\"num\">11</td><td class=\"num\">7</td>"));
    // `coverage who`: the test file that reached the line; none for a line no test reaches.
    for (at, test) in [
        ("lib/calc.js:3", "t/calc.test.js\n"),
        ("lib/Calc.pm:7", "t/calc.t\n"),
        ("lib/calc.py:5", "t/test_calc.py\n"),
        ("gosrc/calc.go:5", "go\n"),
    ] {
        let who = p.tapline(&["coverage", "who", at]);
        assert_eq!(
            (who.code, who.stdout.as_str()),
            (0, test),
            "{at}: {}",
            who.both()
        );
        assert!(who.took.as_millis() < 1000, "{at} took {:?}", who.took);
    }
    let never = p.tapline(&["coverage", "who", "lib/calc.py:9"]);
    assert_eq!(
        (never.code, never.stdout.as_str()),
        (1, ""),
        "{}",
        never.both()
    );
    assert!(
        never.stderr.contains("no test reached lib/calc.py:9"),
        "{}",
        never.stderr
    );
    let no_code = p.tapline(&["coverage", "who", "lib/calc.py:1"]);
    assert_eq!(no_code.code, 2, "{}", no_code.both());
}

#[test]
fn issue28_two_shards_merged_equal_the_whole_run_and_only_the_merge_is_gated() {
    if !require(
        "issue28_two_shards_merged_equal_the_whole_run_and_only_the_merge_is_gated",
        TOOLS,
    ) {
        return;
    }
    let (p, path) = fixture();
    let whole = run(
        &p,
        &path,
        &["--coverage", "--coverage-min", "90", "-o", "whole.lcov"],
    );
    assert_eq!(whole.code, 1, "{}", whole.both());
    assert!(
        whole.stderr.contains("coverage 56.7% is 33.3 points below the minimum 90% (17 of 30 lines reached)\n  gosrc/calc.go: 42.9%, not reached: 9-12"),
        "{}",
        whole.stderr
    );
    for shard in ["1", "2"] {
        let part = format!("slice:{shard}/2");
        let out = format!("shards/{shard}.jsonl");
        let ran = run(
            &p,
            &path,
            &[
                "--coverage",
                "--coverage-min",
                "90",
                "--partition",
                &part,
                "-o",
                &out,
            ],
        );
        // A shard is never judged on its own coverage.
        assert_eq!(ran.code, 0, "shard {shard}: {}", ran.both());
    }
    let merged = p.tapline(&[
        "report",
        "merge",
        "shards/1.jsonl",
        "shards/2.jsonl",
        "-o",
        "merged.lcov",
        "--coverage-min",
        "90",
    ]);
    assert_eq!(merged.code, 1, "{}", merged.both());
    assert!(
        merged.stderr.contains("33.3 points below the minimum 90%"),
        "{}",
        merged.stderr
    );
    let (merged_hits, _) = lcov(&p.read_text("merged.lcov"));
    assert_eq!(merged_hits, lcov(&p.read_text("whole.lcov")).0);
    assert_eq!(merged_hits, expected());
    let lower = p.tapline(&[
        "report",
        "merge",
        "shards/1.jsonl",
        "shards/2.jsonl",
        "--coverage-min",
        "50",
    ]);
    assert_eq!(lower.code, 0, "{}", lower.both());
    // A missing shard still fails the merge: coverage is never silently lower.
    let missing = p.tapline(&["report", "merge", "shards/1.jsonl", "-o", "part.lcov"]);
    assert_eq!(missing.code, 2, "{}", missing.both());
}

#[test]
fn issue28_coverage_needs_no_engine_to_pass_and_says_once_what_is_missing() {
    if !require(
        "issue28_coverage_needs_no_engine_to_pass_and_says_once_what_is_missing",
        &["python3"],
    ) {
        return;
    }
    let p = Project::new();
    copy_dir(
        &repo().join("test-data/suites/coverage/lib"),
        &p.join("lib"),
    );
    copy_dir(&repo().join("test-data/suites/coverage/t"), &p.join("t"));
    for name in ["calc.t", "calc.test.js"] {
        std::fs::remove_file(p.join(&format!("t/{name}"))).expect("rm");
    }
    p.write("t/test_again.py", p.read("t/test_calc.py"));
    // A python whose coverage.py cannot be imported: a `coverage` package that fails.
    p.write(
        "shadow/coverage/__init__.py",
        "raise ImportError('no coverage here')\n",
    );
    let shadow: PathBuf = p.join("shadow");
    let ran = {
        let out = p
            .command(&["--coverage", "-o", "cov.lcov"])
            .env("PYTHONPATH", &shadow)
            .output()
            .expect("tapline runs");
        String::from_utf8_lossy(&out.stderr).into_owned()
            + &format!("\nexit {:?}", out.status.code())
    };
    assert!(ran.ends_with("exit Some(0)"), "{ran}");
    assert_eq!(
        ran.matches("python: coverage.py is not installed").count(),
        1,
        "{ran}"
    );
    assert_eq!(p.read_text("cov.lcov"), "");
}

#[test]
fn issue28_changed_with_coverage_names_the_changed_lines_no_test_reaches() {
    let mut tools = TOOLS.to_vec();
    tools.push("git");
    if !require(
        "issue28_changed_with_coverage_names_the_changed_lines_no_test_reaches",
        &tools,
    ) {
        return;
    }
    let (p, path) = fixture();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args(args)
            .current_dir(p.path())
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    p.write(".gitignore", ".nogit/\n");
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "base"]);
    // One changed line in the function no test calls, two in the one they call.
    let perl = p.read_text("lib/Calc.pm").replace("$a * 2", "$a * 3");
    p.write("lib/Calc.pm", perl);
    let js = p
        .read_text("lib/calc.js")
        .replace("  return a + b;", "  const sum = a + b;\n  return sum;");
    p.write("lib/calc.js", js);
    let ran = run(&p, &path, &["--changed", "HEAD", "--coverage"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("patch coverage since HEAD: 2 of 3 changed lines reached (66.7%)\n  lib/Calc.pm: not reached: 12\n"),
        "{}",
        ran.stderr
    );
}

/// The browser and TypeScript fixture (test-data/suites/coverage-web) as a fresh project.
fn web_fixture() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/coverage-web"), p.path());
    p
}

/// `path` with the folder of the npm tool `name` first (`.ci/run` installs them into
/// target/ci-tools, where `require` finds them).
fn with_npm_tools(name: &str, path: std::ffi::OsString) -> std::ffi::OsString {
    let bin = tool(name).parent().expect("a folder").to_path_buf();
    let dirs = std::iter::once(bin).chain(std::env::split_paths(&path));
    std::env::join_paths(dirs).expect("PATH joins")
}

/// Lines 1-12 of lib/calc.ts run (the type lines included, as c8 counts), 13-15 never.
#[test]
fn issue28_typescript_under_tsx_is_counted_in_its_source_line_for_line_as_c8_counts_it() {
    let name =
        "issue28_typescript_under_tsx_is_counted_in_its_source_line_for_line_as_c8_counts_it";
    if !require(name, &["node", "tsx", "c8"]) {
        return;
    }
    let p = web_fixture();
    let path = with_npm_tools("tsx", std::env::var_os("PATH").unwrap_or_default());
    let args = ["--coverage", "-o", "cov.lcov", "-o", "cov.cobertura.xml"];
    let ran = run(&p, &path, &[&args[..], &["t/calc.test.ts"]].concat());
    assert_eq!(ran.code, 0, "{}", ran.both());
    // c8 alone on the same test, as its users run it.
    let c8 = std::process::Command::new(tool("c8"))
        .args(["--reporter=lcovonly", "--report-dir=c8"])
        .arg(tool("tsx"))
        .arg("t/calc.test.ts")
        .current_dir(p.path())
        .env("PATH", &path)
        .output()
        .expect("c8 runs");
    assert!(c8.status.success(), "{c8:?}");
    let (theirs, _) = lcov(&p.read_text("c8/lcov.info"));
    let (ours, tests) = lcov(&p.read_text("cov.lcov"));
    let ts = &ours["lib/calc.ts"];
    assert_eq!(ts, &theirs["lib/calc.ts"], "tapline against c8");
    assert_eq!(
        cobertura(&p.read_text("cov.cobertura.xml"))["lib/calc.ts"],
        *ts
    );
    // The reached function's body is hit, the unreached one's is 0, in the TypeScript's lines.
    assert_eq!((ts[&8], ts[&9]), (1, 1), "{ts:?}");
    assert_eq!((ts[&13], ts[&14], ts[&15]), (0, 0, 0), "{ts:?}");
    assert_eq!(
        ts.len(),
        15,
        "every line of the .ts file, none of tsx's JavaScript"
    );
    assert_eq!(tests["lib/calc.ts"], ["t/calc.test.ts".to_owned()]);
    assert!(
        !ours.contains_key("t/calc.test.ts"),
        "the test is not measured"
    );
}

/// A page's figures for lib/dom.js, bundled by esbuild or served as it is, are V8's as node
/// counts them on the same module (`node --test --experimental-test-coverage`): one engine,
/// one rule, so the page's must be the same line for line.
#[test]
fn issue28_a_browser_pages_coverage_agrees_with_v8_in_node_bundled_or_served_as_it_is() {
    let name = "issue28_a_browser_pages_coverage_agrees_with_v8_in_node_bundled_or_served_as_it_is";
    if !require(name, &["node", "chromium", "esbuild"]) {
        return;
    }
    let p = web_fixture();
    let reference = std::process::Command::new("node")
        .args([
            "--test",
            "--experimental-test-coverage",
            "--test-reporter=lcov",
            "--test-reporter-destination=reference.lcov",
            "reference/dom.test.mjs",
        ])
        .current_dir(p.path())
        .output()
        .expect("node runs");
    assert!(reference.status.success(), "{reference:?}");
    let (node, _) = lcov(&p.read_text("reference.lcov"));
    let expected = &node["lib/dom.js"];
    assert_eq!(
        expected,
        &lines(&[
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (7, 1),
            (8, 0),
            (9, 0),
            (10, 0)
        ])
    );
    let bundled = with_npm_tools("esbuild", std::env::var_os("PATH").unwrap_or_default());
    let native = crate::util::browser::path_without_esbuild();
    for (how, path) in [("bundled", bundled), ("native", native)] {
        let (lcov_out, xml_out) = (format!("{how}.lcov"), format!("{how}.cobertura.xml"));
        let args = [
            "--coverage",
            "-o",
            &lcov_out,
            "-o",
            &xml_out,
            "t/dom.browser.js",
        ];
        let ran = run(&p, &path, &args);
        assert_eq!(ran.code, 0, "{how}: {}", ran.both());
        let (ours, tests) = lcov(&p.read_text(&lcov_out));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            ["lib/dom.js"],
            "{how}: only the library"
        );
        assert_eq!(&ours["lib/dom.js"], expected, "{how}");
        assert_eq!(
            &cobertura(&p.read_text(&xml_out))["lib/dom.js"],
            expected,
            "{how}"
        );
        assert_eq!(
            tests["lib/dom.js"],
            ["t/dom.browser.js".to_owned()],
            "{how}"
        );
        assert!(
            ran.stderr.contains(
                "  browser: 7 of 10 lines (70.0%)\n    lib/dom.js: 7/10 (70.0%), not reached: 8-10"
            ),
            "{how}: {}",
            ran.stderr
        );
        assert!(
            !ran.stderr.contains("not measured"),
            "{how}: {}",
            ran.stderr
        );
    }
}

/// A page stuck in a loop cannot give its coverage: the file fails as it would without
/// `--coverage` (its timeout), its lines are left out, and the summary says why once.
#[test]
fn issue28_a_page_that_never_answers_fails_by_its_timeout_alone_and_the_summary_says_once_why() {
    let name =
        "issue28_a_page_that_never_answers_fails_by_its_timeout_alone_and_the_summary_says_once_why";
    if !require(name, &["chromium"]) {
        return;
    }
    let p = web_fixture();
    let path = crate::util::browser::path_without_esbuild();
    let args = [
        "--coverage",
        "--timeout",
        "4s",
        "-o",
        "cov.lcov",
        "hung/spin.browser.js",
    ];
    let ran = run(&p, &path, &args);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("timed out after 4s"), "{}", ran.stderr);
    let note = "browser pages: failed to take the coverage: the page did not answer";
    assert_eq!(ran.stderr.matches(note).count(), 1, "{}", ran.stderr);
    let log = p.read_text(".nogit/testlogs/hung__spin.browser.log");
    assert!(
        !log.contains("coverage"),
        "nothing added to the page's output: {log}"
    );
    assert!(
        !p.read_text("cov.lcov").contains("SF:"),
        "no lines of the page"
    );
}
