//! Issue 8's reports end to end over the mixed suite in `test-data/suites/reports` (passing,
//! failing with diffs, a subtest, v2 ERROR blocks, a crash, a timeout, a bail out, a leak, and
//! hostile names and output): `-o` by extension for `run`, `parse` and `report` (replay),
//! JUnit parsed back by a real XML parser and checked test for test against the summary,
//! Markdown and GitHub annotations snapshot-tested, `--max-fail`, the step summary,
//! completions, the man page and the colour environment.
use crate::util::{repo, require, Project, Ran};
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command as StdCommand;
use tapline::event::run::RunEvent;
use tapline::report::junit;
use tapline::report::record::{Collector, Meta};
use tapline::report::sink::{Explaining, RunSink};

/// `hostile.sh` runs under this name: markup, `&`, a quote, and GitHub's property separators.
const HOSTILE_FILE: &str = "test/<hostile> \"&\" 50%, a:b.sh";
/// Files of the suite, in the order a run lists them (by path).
const FILES: usize = 9;

/// The suite copied into a fresh project under `test/`.
fn mixed_project() -> Project {
    let p = Project::new();
    let suite = repo().join("test-data/suites/reports");
    for entry in fs::read_dir(&suite).expect("read the suite") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "sh") {
            continue;
        }
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let rel = if name == "hostile.sh" {
            HOSTILE_FILE.to_owned()
        } else {
            format!("test/{name}")
        };
        let text = fs::read_to_string(&path).expect("read a suite file");
        p.script(&rel, &text);
    }
    p
}

/// `tapline <args>` in the project, with no CI or colour variables from the outside.
fn tapline(p: &Project, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"));
    cmd.current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .args(args)
        .timeout(std::time::Duration::from_secs(120));
    cmd
}

fn ran(cmd: &mut assert_cmd::Command) -> Ran {
    let started = std::time::Instant::now();
    let out = cmd.output().expect("tapline runs");
    Ran::of(out, started.elapsed())
}

/// `tapline run test --timeout 2s --no-history` plus `extra`.
fn run_mixed(p: &Project, extra: &[&str]) -> Ran {
    // --keep-going: bail.sh's `Bail out!` would otherwise stop the run (as it stops prove).
    let mut args = vec![
        "run",
        "test",
        "--timeout",
        "2s",
        "--no-history",
        "--keep-going",
    ];
    args.extend_from_slice(extra);
    ran(&mut tapline(p, &args))
}

fn read_text(p: &Project, rel: &str) -> String {
    String::from_utf8(p.read(rel)).unwrap_or_else(|e| panic!("{rel} is not UTF-8: {e}"))
}

fn json(p: &Project, rel: &str) -> Value {
    serde_json::from_slice(&p.read(rel)).unwrap_or_else(|e| panic!("{rel} is not JSON: {e}"))
}

// ------------------------------------------------------------------------------ JUnit

/// The JUnit file as a real XML parser (Python's expat, which refuses every character XML 1.0
/// forbids) reads it: per suite its attributes and test cases, each case's outcome; `None`
/// when `test` cannot go on without python3 (`require`).
fn parse_junit(test: &str, path: &Path) -> Option<Value> {
    const SCRIPT: &str = r#"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = []
for s in root.findall("testsuite"):
    cases = []
    for c in s.findall("testcase"):
        kinds = [k.tag for k in c if k.tag in ("failure", "error", "skipped")]
        assert len(kinds) <= 1, kinds
        kind = kinds[0] if kinds else "pass"
        node = c.find(kind) if kinds else None
        cases.append({"name": c.get("name"), "classname": c.get("classname"), "kind": kind,
                      "message": node.get("message") if node is not None else None})
    suites.append({"name": s.get("name"), "tests": int(s.get("tests")),
                   "failures": int(s.get("failures")), "errors": int(s.get("errors")),
                   "skipped": int(s.get("skipped")), "cases": cases,
                   "out": (s.findtext("system-out") or ""), "err": (s.findtext("system-err") or "")})
print(json.dumps({"tests": int(root.get("tests")), "failures": int(root.get("failures")),
                  "errors": int(root.get("errors")), "skipped": int(root.get("skipped")),
                  "suites": suites}))
"#;
    if !require(&format!("{test}: the JUnit file read back"), &["python3"]) {
        return None;
    }
    let out = StdCommand::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(path)
        .output()
        .expect("python3 starts");
    assert!(
        out.status.success(),
        "the JUnit file is not well-formed XML:\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        fs::read_to_string(path).unwrap_or_default()
    );
    Some(serde_json::from_slice(&out.stdout).expect("the parse script prints JSON"))
}

/// What a name becomes in XML: terminal escape sequences and C0 controls removed.
fn xml_clean(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for n in chars.by_ref() {
                if ('@'..='~').contains(&n) {
                    break;
                }
            }
        } else if !c.is_control() || matches!(c, '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

/// The test cases the summary document says a file has, as (name, kind).
fn expected_cases(file: &Value) -> Vec<(String, &'static str)> {
    if file["not_run"] == true {
        return vec![("(file)".to_owned(), "skipped")];
    }
    // The subtests whose own failure the run explained (not only their children's).
    let explained: Vec<String> = file["failures"]
        .as_array()
        .map(|f| f.iter().map(|e| path_of(&e["path"])).collect())
        .unwrap_or_default();
    let mut cases = Vec::new();
    leaf_cases(&file["summary"], "", &explained, &mut cases);
    let failing_point = cases.iter().any(|(_, k)| *k == "failure");
    if file["ok"] == false && !failing_point {
        cases.push(("(file)".to_owned(), "error"));
    }
    cases
}

/// An explanation's name path as JUnit names a case (`parent > child`).
fn path_of(path: &Value) -> String {
    let names: Vec<&str> = path
        .as_array()
        .expect("a path")
        .iter()
        .map(|n| n.as_str().expect("a name"))
        .collect();
    names.join(" > ")
}

/// A parse summary's test cases in stream order: its leaf points at every depth, named by
/// their subtest path, and the subtests whose own failure is in `explained`.
fn leaf_cases(
    summary: &Value,
    prefix: &str,
    explained: &[String],
    cases: &mut Vec<(String, &'static str)>,
) {
    for a in summary["asserts"].as_array().expect("asserts") {
        let name = a["name"].as_str().unwrap_or_default();
        let path = format!("{prefix}{name}");
        let kind = if !a["skip"].is_null() || !a["todo"].is_null() {
            "skipped"
        } else if a["ok"] == true {
            "pass"
        } else {
            "failure"
        };
        let children = a["subtest"]["asserts"]
            .as_array()
            .is_some_and(|c| !c.is_empty());
        if children {
            leaf_cases(&a["subtest"], &format!("{path} > "), explained, cases);
            if kind != "failure" || !explained.contains(&path) {
                continue;
            }
        }
        let shown = match name.is_empty() {
            true => format!("{prefix}#{}", a["id"]),
            false => xml_clean(&path),
        };
        cases.push((shown, kind));
    }
}

#[test]
fn junit_is_well_formed_and_agrees_with_the_summary_test_for_test() {
    let p = mixed_project();
    let ran = run_mixed(&p, &["-o", "r.xml", "-o", "r.json"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let raw = p.read("r.xml");
    let text = String::from_utf8(raw).expect("JUnit is UTF-8");
    let forbidden: Vec<char> = text
        .chars()
        .filter(|&c| {
            (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}')
        })
        .collect();
    assert!(
        forbidden.is_empty(),
        "XML 1.0 forbids {forbidden:?}:\n{text}"
    );
    let Some(junit) = parse_junit(
        "junit_is_well_formed_and_agrees_with_the_summary_test_for_test",
        &p.join("r.xml"),
    ) else {
        return;
    };
    let summary = json(&p, "r.json");
    let files = summary["files"].as_array().expect("files");
    let suites = junit["suites"].as_array().expect("suites");
    assert_eq!(files.len(), FILES, "{summary:#}");
    assert_eq!(suites.len(), files.len(), "one <testsuite> per file");
    let mut totals = (0, 0, 0, 0);
    for (file, suite) in files.iter().zip(suites) {
        let path = file["path"].as_str().expect("path");
        assert_eq!(suite["name"], xml_clean(path), "suites in file order");
        let expected = expected_cases(file);
        let got: Vec<(String, &str)> = suite["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| {
                assert_eq!(c["classname"], suite["name"], "classname is the file");
                (
                    c["name"].as_str().expect("name").to_owned(),
                    c["kind"].as_str().expect("kind"),
                )
            })
            .collect();
        assert_eq!(got, expected, "test cases of {path}");
        let count = |k: &str| expected.iter().filter(|(_, x)| *x == k).count() as u64;
        assert_eq!(suite["tests"], expected.len() as u64, "{path}");
        assert_eq!(suite["failures"], count("failure"), "{path}");
        assert_eq!(suite["errors"], count("error"), "{path}");
        assert_eq!(suite["skipped"], count("skipped"), "{path}");
        totals.0 += expected.len() as u64;
        totals.1 += count("failure");
        totals.2 += count("error");
        totals.3 += count("skipped");
    }
    assert_eq!(
        (
            &junit["tests"],
            &junit["failures"],
            &junit["errors"],
            &junit["skipped"]
        ),
        (
            &Value::from(totals.0),
            &Value::from(totals.1),
            &Value::from(totals.2),
            &Value::from(totals.3)
        )
    );
    let suite = |rel: &str| {
        suites
            .iter()
            .find(|s| s["name"] == xml_clean(rel))
            .unwrap_or_else(|| panic!("no suite {rel}"))
    };
    let case = |rel: &str, name: &str| {
        suite(rel)["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no case {name} in {rel}"))
            .clone()
    };
    // Why each file failed, where it has no failing point.
    let error = |rel: &str| {
        case(rel, "(file)")["message"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    assert!(error("test/crash.sh").contains("SIGSEGV"), "{junit:#}");
    assert!(error("test/hang.sh").contains("timed out"), "{junit:#}");
    assert!(
        error("test/bail.sh").contains("database unreachable"),
        "{junit:#}"
    );
    assert_eq!(
        case("test/pass.sh", "divides by zero")["message"],
        "TODO: decide what infinity is"
    );
    assert_eq!(
        case("test/v2.sh", "builds a config")["message"],
        "Expected values to be strictly deep-equal"
    );
    // The hostile file's output survives as text, markup and `]]>` included, controls made visible.
    let hostile = suite(HOSTILE_FILE);
    let out = hostile["out"].as_str().expect("system-out");
    assert!(
        out.contains("output <b>bold</b> ]]> </system-out> | pipe `tick` 50% a:b,c"),
        "{out:?}"
    );
    assert!(
        out.contains(r"NUL[\u{0}] BEL[\u{7}] VT[\u{b}] ESC[\u{1b}[31mred\u{1b}[0m]"),
        "control bytes shown as the failures' bodies show them: {out:?}"
    );
    let err = hostile["err"].as_str().expect("system-err");
    assert!(err.contains("stderr <err> ]]> </system-err>"), "{err:?}");
    assert!(
        case(
            HOSTILE_FILE,
            "pipes | and `ticks` 50% a:b,c ::error::forged"
        )["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("</failure>]]><script>")),
        "{hostile:#}"
    );
    // The failure's text carries the message, the diff, then the location, without colour.
    assert!(
        text.contains(">should be deeply equal\n\n- Expected\n"),
        "{text}"
    );
    assert!(text.contains("\n\nat test/diffs.sh:12:3"), "{text}");
    assert!(
        text.contains("-   &quot;name&quot;: &quot;ada&quot;,"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text}");
}

// ------------------------------------------------------------------ Markdown, annotations

/// Durations (`2.0s`, `14ms`, `4.2ms`, `2m 03s`) as `<t>`, so snapshots hold across runs.
fn without_durations(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
            j += 1;
        }
        let unit = if text[j..].starts_with("ms") {
            2
        } else if text[j..].starts_with('s') {
            1
        } else if text[j..].starts_with("m ") {
            // `2m 03s`
            let k = j + 2;
            let end = text[k..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(text.len(), |n| k + n);
            if text[end..].starts_with('s') && end > k {
                end + 1 - j
            } else {
                0
            }
        } else {
            0
        };
        let end = j + unit;
        if unit > 0 && !b.get(end).is_some_and(u8::is_ascii_alphanumeric) {
            out.push_str(&text[copied..i]);
            out.push_str("<t>");
            copied = end;
        }
        i = end.max(i + 1);
    }
    out.push_str(&text[copied..]);
    out
}

/// The Markdown report without its table of slowest files (their order depends on timing).
fn markdown_for_snapshot(md: &str) -> String {
    let start = md.find("\n<details><summary>Slowest files");
    let md = match start.and_then(|s| md[s..].find("</details>\n").map(|e| (s, s + e + 11))) {
        Some((s, e)) => format!("{}{}", &md[..s], &md[e..]),
        None => md.to_owned(),
    };
    without_durations(&md)
}

#[test]
fn durations_are_normalised_for_snapshots() {
    assert_eq!(
        without_durations("took 2.0s, 14ms and 4.2ms; 2m 03s; after 2s; test2s 3 files"),
        "took <t>, <t> and <t>; <t>; after <t>; test2s 3 files"
    );
}

#[test]
fn markdown_and_github_annotations_snapshots() {
    let p = mixed_project();
    let summary_file = p.join("step-summary.md");
    fs::write(&summary_file, "## Earlier step\n").expect("write");
    let ran = ran(tapline(
        &p,
        &[
            "run",
            "test",
            "--timeout",
            "2s",
            "--no-history",
            "--keep-going",
            "-o",
            "r.md",
            "-o",
            "r.xml",
        ],
    )
    .env("GITHUB_ACTIONS", "true")
    .env("GITHUB_STEP_SUMMARY", &summary_file));
    assert_eq!(ran.code, 1, "{}", ran.both());
    let md = read_text(&p, "r.md");
    insta::assert_snapshot!("reports_markdown", markdown_for_snapshot(&md));
    // Annotations go to stdout beside the human report; nothing else is on stdout.
    let annotations: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        annotations.iter().all(|l| l.starts_with("::")),
        "{}",
        ran.both()
    );
    assert!(
        !ran.stderr.lines().any(|l| l.starts_with("::")),
        "{}",
        ran.both()
    );
    insta::assert_snapshot!("reports_github_annotations", ran.stdout);
    // The step summary is appended to, not replaced.
    let step = fs::read_to_string(&summary_file).expect("step summary");
    assert!(step.starts_with("## Earlier step\n## ❌ Failed"), "{step}");
    assert!(step.contains("### Failures"), "{step}");
}

#[test]
fn annotations_go_to_stderr_when_stdout_carries_machine_output() {
    let p = Project::new();
    p.script(
        "test/fail.sh",
        "echo '1..1'\necho 'not ok 1 - breaks'\necho '  ---'\necho '  at: test/fail.sh:3'\necho '  ...'\n",
    );
    for format in ["jsonl", "summary"] {
        let r = ran(&mut tapline(
            &p,
            &["run", "--annotations", "github", "--format", format],
        ));
        assert_eq!(r.code, 1, "{}", r.both());
        assert!(!r.stdout.contains("::error"), "{format}: {}", r.both());
        assert!(
            r.stderr
                .contains("::error file=test/fail.sh,line=3,title=breaks::"),
            "{format}: {}",
            r.both()
        );
    }
    let r = ran(&mut tapline(&p, &["run", "--annotations", "github"]));
    assert!(
        r.stdout.starts_with("::error file=test/fail.sh"),
        "{}",
        r.both()
    );
    // GITHUB_ACTIONS=true turns them on; --annotations none off again.
    let r = ran(tapline(&p, &["run"]).env("GITHUB_ACTIONS", "true"));
    assert!(r.stdout.contains("::error"), "{}", r.both());
    let r = ran(tapline(&p, &["run", "--annotations", "none"]).env("GITHUB_ACTIONS", "true"));
    assert!(!r.stdout.contains("::error"), "{}", r.both());
}

#[test]
fn annotations_stop_at_fifty_and_say_how_many_more() {
    let p = Project::new();
    let mut script = String::from("echo '1..60'\n");
    for n in 1..=60 {
        script.push_str(&format!("echo 'not ok {n} - case {n}'\n"));
    }
    p.script("test/many.sh", &script);
    let r = ran(&mut tapline(&p, &["run", "--annotations", "github"]));
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 51, "{}", r.both());
    assert!(lines[..50].iter().all(|l| l.starts_with("::error ")));
    assert!(lines[50].contains("10 more annotations"), "{}", lines[50]);
}

/// The `.xml` a run writes (each file's `<testsuite>` serialized as the file ends, then
/// joined) is, byte for byte, the document quick-junit makes of the whole recorded run: for
/// the mixed suite, and with retries and files left unrun by `--max-fail`.
#[test]
fn junit_written_file_by_file_is_the_whole_document() {
    let retried: &[&str] = &["-j1", "--retries", "1", "--max-fail", "3"];
    for extra in [&[][..], retried] {
        let p = mixed_project();
        let mut args = vec!["-o", "r.jsonl", "-o", "r.xml"];
        args.extend_from_slice(extra);
        let ran = run_mixed(&p, &args);
        assert_eq!(ran.code, 1, "{}", ran.both());
        let mut record = Explaining::new(Collector::new(Meta::default()));
        for line in read_text(&p, "r.jsonl").lines() {
            let ev = RunEvent::from_recorded(line).expect("an event of the run");
            if let Some(ev) = ev {
                record.on_owned(ev).expect("a collector cannot fail");
            }
        }
        let mut whole = Vec::new();
        junit::write(&mut whole, record.inner().view()).expect("serialized");
        let whole = String::from_utf8(whole).expect("UTF-8");
        let live = read_text(&p, "r.xml");
        if extra.is_empty() {
            assert!(live.contains("<failure"), "{live}");
        } else {
            assert!(live.contains("message=\"attempt 1: "), "{live}");
            assert!(live.contains("<skipped message=\"not run\"/>"), "{live}");
        }
        assert_eq!(live, whole, "with {extra:?}");
    }
}

// ------------------------------------------------------------------------- --max-fail

#[test]
fn max_fail_one_with_one_job_runs_exactly_one_failing_file() {
    let p = mixed_project();
    let ran = run_mixed(
        &p,
        &[
            "-j1",
            "--max-fail",
            "1",
            "-o",
            "r.json",
            "-o",
            "r.xml",
            "-o",
            "r.md",
        ],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = json(&p, "r.json");
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), FILES, "every file is listed: {doc:#}");
    let started: Vec<&Value> = files.iter().filter(|f| f["not_run"] == false).collect();
    assert_eq!(started.len(), 1, "{doc:#}");
    assert_eq!(started[0]["ok"], false, "the one file run failed: {doc:#}");
    assert_eq!(doc["run"]["files_not_run"], FILES - 1, "{doc:#}");
    // Only that file ever started: one log.
    let logs = crate::util::files_with_ext(&p.join(".nogit/testlogs"), "log");
    assert_eq!(logs.len(), 1, "{logs:?}");
    let xml = read_text(&p, "r.xml");
    assert_eq!(
        xml.matches("<skipped message=\"not run\"/>").count(),
        FILES - 1,
        "{xml}"
    );
    let md = read_text(&p, "r.md");
    assert!(md.contains(&format!("### Not run ({})", FILES - 1)), "{md}");
}

// --------------------------------------------------------------------------- replay

#[test]
fn replay_equals_live() {
    let p = mixed_project();
    let all = ["r.jsonl", "r.json", "r.xml", "r.md", "r.html"];
    let mut args = Vec::new();
    for f in all {
        args.extend(["-o", f]);
    }
    let live = run_mixed(&p, &args);
    assert_eq!(live.code, 1, "{}", live.both());
    fs::create_dir(p.join("replay")).expect("mkdir");
    let mut args = vec!["report", "r.jsonl"];
    let replayed: Vec<String> = all.iter().map(|f| format!("replay/{f}")).collect();
    for f in &replayed {
        args.extend(["-o", f.as_str()]);
    }
    let r = ran(&mut tapline(&p, &args));
    assert_eq!(r.code, 1, "the recorded run failed: {}", r.both());
    // RunStarted records when, where and how the run started: every format byte for byte.
    for f in all {
        assert_eq!(
            read_text(&p, f),
            read_text(&p, &format!("replay/{f}")),
            "{f} replayed differs from live"
        );
    }
    // With no -o, the terminal report of the recorded run.
    let r = ran(&mut tapline(&p, &["report", "r.jsonl"]));
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(r.stdout.contains("✗ test/diffs.sh"), "{}", r.both());
    assert!(r.stdout.contains("- Hello, world!"), "{}", r.both());
    // Not a run's events: a one-line error, exit 2.
    p.write("bad.jsonl", "{\"type\":\"nonsense\"}\n");
    let r = ran(&mut tapline(&p, &["report", "bad.jsonl"]));
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("bad.jsonl line 1"), "{}", r.both());
}

/// Issue 16: `assert_begin` announces a point for live displays only: every report (and the
/// terminal report) of a recorded run is the same byte for byte without those events.
#[test]
fn reports_are_the_same_without_the_points_announcements() {
    let p = mixed_project();
    let live = run_mixed(&p, &["-o", "r.jsonl"]);
    assert_eq!(live.code, 1, "{}", live.both());
    let recorded = read_text(&p, "r.jsonl");
    let announced = |l: &&str| l.contains("\"event\":{\"type\":\"assert_begin\"");
    let begun = recorded.lines().filter(announced).count();
    let points = recorded
        .lines()
        .filter(|l| l.contains("\"event\":{\"type\":\"assert\""))
        .count();
    assert!(
        begun > 10 && begun >= points - 1,
        "{begun} announced, {points} points"
    );
    let without: String = recorded
        .lines()
        .filter(|l| !announced(l))
        .map(|l| format!("{l}\n"))
        .collect();
    p.write("without.jsonl", &without);
    let formats = ["json", "xml", "md", "html"];
    for (input, prefix) in [("r.jsonl", "with"), ("without.jsonl", "without")] {
        let mut args = vec!["report".to_owned(), input.to_owned()];
        for ext in formats {
            args.extend(["-o".to_owned(), format!("{prefix}.{ext}")]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = ran(&mut tapline(&p, &args));
        assert_eq!(r.code, 1, "{}", r.both());
    }
    for ext in formats {
        assert_eq!(
            read_text(&p, &format!("with.{ext}")),
            read_text(&p, &format!("without.{ext}")),
            ".{ext} differs"
        );
    }
    let terminal = |input| ran(&mut tapline(&p, &["report", input])).stdout;
    assert_eq!(terminal("r.jsonl"), terminal("without.jsonl"));
}

#[test]
fn jsonl_report_is_what_format_jsonl_prints() {
    let p = Project::new();
    p.script("test/one.sh", "echo '1..1'\necho 'ok 1 - fine'\n");
    let r = ran(&mut tapline(
        &p,
        &["run", "--no-history", "--format", "jsonl", "-o", "r.jsonl"],
    ));
    assert_eq!(r.code, 0, "{}", r.both());
    assert_eq!(r.stdout, read_text(&p, "r.jsonl"));
}

#[test]
fn json_report_is_what_format_summary_prints_after_a_run_and_after_a_series() {
    let p = Project::new();
    p.script(
        "test/ok.sh",
        "echo '1..2'\necho 'ok 1 - one'\necho 'ok 2 - two # SKIP later'\n",
    )
    .script("test/bad.sh", "echo '1..1'\necho 'not ok 1 - never'\n");
    for series in [&[][..], &["--runs", "2"][..]] {
        let mut args = vec!["run", "--no-history", "--format", "summary", "-o", "r.json"];
        args.extend(series);
        let r = ran(&mut tapline(&p, &args));
        assert_eq!(r.code, 1, "{}", r.both());
        assert!(r.stdout.contains("\"name\": \"never\""), "{}", r.stdout);
        assert_eq!(r.stdout, read_text(&p, "r.json"), "{series:?}");
    }
    assert!(read_text(&p, "r.json").contains("\"stability\""));
}

// ---------------------------------------------------------------------- -o checks, parse

#[test]
fn unknown_output_extension_is_a_usage_error_before_anything_runs() {
    let p = Project::new();
    p.script("test/touch.sh", "touch ran\necho '1..1'\necho 'ok 1'\n");
    // A folder under a file cannot be created.
    for bad in ["r.txt", "report", "test/touch.sh/r.xml"] {
        let r = ran(&mut tapline(&p, &["run", "-o", "r.json", "-o", bad]));
        assert_eq!(r.code, 2, "{bad}: {}", r.both());
        assert_eq!(r.stderr.lines().count(), 1, "one line: {}", r.both());
        assert!(r.stderr.contains(bad), "{}", r.both());
        assert!(!p.join("ran").exists(), "{bad}: a test ran");
        assert!(!p.join("r.json").exists(), "{bad}: a report was written");
    }
    let r = ran(tapline(&p, &["parse", "-o", "r.yaml"]).write_stdin("1..0\n"));
    assert_eq!(r.code, 2, "{}", r.both());
    // A missing folder is created, as CI steps expect of `-o reports/junit.xml`.
    let r = ran(&mut tapline(&p, &["run", "-o", "reports/ci/junit.xml"]));
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(p.join("reports/ci/junit.xml").is_file());
}

#[test]
fn parse_writes_every_format() {
    let p = Project::new();
    let stream = fs::read(repo().join("test-data/suites/reports/diffs.sh")).expect("read");
    // The TAP inside the script's heredoc.
    let text = String::from_utf8(stream).expect("utf-8");
    let tap: String = text
        .split("<<'TAP'\n")
        .nth(1)
        .and_then(|t| t.split("\nTAP\n").next())
        .expect("a heredoc")
        .to_owned()
        + "\n";
    p.write("diffs.tap", &tap);
    let mut args = vec!["parse", "diffs.tap"];
    for f in ["p.jsonl", "p.json", "p.xml", "p.md", "p.html"] {
        args.extend(["-o", f]);
    }
    let r = ran(&mut tapline(&p, &args));
    assert_eq!(r.code, 1, "{}", r.both());
    let summary = ran(&mut tapline(
        &p,
        &["parse", "diffs.tap", "--format", "summary"],
    ));
    assert_eq!(
        read_text(&p, "p.json"),
        summary.stdout,
        "-o .json is --format summary"
    );
    let jsonl = ran(&mut tapline(
        &p,
        &["parse", "diffs.tap", "--format", "jsonl"],
    ));
    assert!(!read_text(&p, "p.jsonl").is_empty());
    assert!(!jsonl.stdout.is_empty());
    if let Some(junit) = parse_junit("parse_writes_every_format", &p.join("p.xml")) {
        let cases = &junit["suites"][0]["cases"];
        assert_eq!(cases[0]["kind"], "pass", "{junit:#}");
        assert_eq!(cases[1]["kind"], "failure", "{junit:#}");
        assert_eq!(cases[1]["name"], "returns the user", "{junit:#}");
        assert_eq!(cases[2]["message"], "should be equal", "{junit:#}");
    }
    let md = read_text(&p, "p.md");
    // Expected reads green in a ```diff block: its sign is `+` there (#43).
    assert!(md.contains("```diff\n+ Expected\n- Received"), "{md}");
    let html = read_text(&p, "p.html");
    assert!(html.contains("returns the user"), "{html}");
}

#[test]
fn reports_of_an_interrupted_run_say_so() {
    let p = Project::new();
    p.script("test/a_quick.sh", "echo '1..1'\necho 'ok 1 - quick'\n");
    p.script(
        "test/b_hang.sh",
        "echo '1..2'\necho 'ok 1 - first'\ntouch started\nexec sleep 60\n",
    );
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .args([
            "run",
            "-j1",
            "--no-history",
            "-o",
            "r.json",
            "-o",
            "r.md",
            "-o",
            "r.xml",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !p.join("started").exists() {
        assert!(
            std::time::Instant::now() < until,
            "the hanging file never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid =
        rustix::process::Pid::from_raw(i32::try_from(child.id()).expect("pid")).expect("a pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    let doc = json(&p, "r.json");
    assert_eq!(doc["run"]["interrupted"], true, "{doc:#}");
    let md = read_text(&p, "r.md");
    assert!(md.starts_with("## ⚠️ Interrupted"), "{md}");
    let xml = read_text(&p, "r.xml");
    assert!(xml.contains("<testsuite name=\"test/a_quick.sh\""), "{xml}");
}

// --------------------------------------------------------------- completions, man, colour

#[test]
fn completions_and_man_page_come_from_the_cli_definitions() {
    let p = Project::new();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef tapline"),
        ("fish", "complete -c tapline"),
    ] {
        let r = ran(&mut tapline(&p, &["completions", shell]));
        assert_eq!(r.code, 0, "{shell}: {}", r.both());
        assert!(r.stdout.contains(marker), "{shell}: {}", r.stdout);
        assert!(r.stdout.contains("max-fail"), "{shell}: options are listed");
    }
    let r = ran(&mut tapline(&p, &["completions", "tcsh"]));
    assert_eq!(r.code, 2, "{}", r.both());
    let r = ran(&mut tapline(&p, &["man"]));
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(
        r.stdout.starts_with(".ie") || r.stdout.contains(".TH tapline"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(".TH tapline"), "{}", r.stdout);
}

#[test]
fn colour_follows_flags_then_no_color_then_force_variables() {
    let p = Project::new();
    p.script("test/fail.sh", "echo '1..1'\necho 'not ok 1 - breaks'\n");
    // stderr is a pipe here: no colour unless forced.
    let coloured = |envs: &[(&str, &str)], extra: &[&str]| {
        let mut args = vec!["run", "--no-history"];
        args.extend_from_slice(extra);
        let mut cmd = tapline(&p, &args);
        cmd.env_remove("NO_COLOR");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let r = ran(&mut cmd);
        assert_eq!(r.code, 1, "{}", r.both());
        r.stderr.contains('\u{1b}')
    };
    assert!(!coloured(&[], &[]));
    assert!(coloured(&[("FORCE_COLOR", "1")], &[]));
    assert!(coloured(&[("CLICOLOR_FORCE", "1")], &[]));
    assert!(!coloured(&[("FORCE_COLOR", "0")], &[]));
    assert!(!coloured(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")], &[]));
    assert!(!coloured(&[("FORCE_COLOR", "1")], &["--color", "never"]));
    assert!(coloured(&[("NO_COLOR", "1")], &["--color", "always"]));
}
