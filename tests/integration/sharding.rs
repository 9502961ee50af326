//! Issue 17, runs past one machine: `run --partition` on each strategy, shards side by side,
//! `report merge` into every report, the CI engines' variables, Bazel's test protocol (faked,
//! and for real, `require`ing `bazel`), `history import`.
use crate::util::{require, Project};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// Every engine variable `--partition auto` reads: cleared, so the machine's own never leak in.
const ENGINE_VARS: [&str; 16] = [
    "TAPLINE_PARTITION",
    "TAPLINE_PARTITION_TOTAL",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB",
    "BUILDKITE_PARALLEL_JOB_COUNT",
    "JOB_COMPLETION_INDEX",
    "TEST_SHARD_INDEX",
    "TEST_TOTAL_SHARDS",
    "TEST_TARGET",
    "TEST_SRCDIR",
    "XML_OUTPUT_FILE",
    "TEST_UNDECLARED_OUTPUTS_DIR",
    "TESTBRIDGE_TEST_ONLY",
];

/// A project of `n` small files with skewed durations (file 3 fails, so verdicts are merged
/// too); the seeded pattern makes a few long and many short.
fn suite(n: usize) -> Project {
    let p = Project::new();
    for i in 0..n {
        let ms = if i % 7 == 0 { 300 } else { 20 + (i * 37 % 50) };
        let third = if i == 3 { "not ok" } else { "ok" };
        p.write(
            &format!("test/f{i:02}.sh"),
            format!(
                "echo 1..3\necho 'ok 1 - starts {i}'\nsleep {}\necho 'ok 2 - middle'\necho '{third} 3 - ends {i}'\n",
                ms as f64 / 1000.0
            ),
        );
    }
    p
}

/// `tapline ARGS` in the project with `vars` set and every other engine variable cleared.
fn tapline(p: &Project, args: &[&str], vars: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tapline"));
    cmd.current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for v in ENGINE_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd
}

fn output(mut cmd: Command) -> (i32, String, String) {
    let o = cmd.output().expect("tapline runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The files a run's `.jsonl` record finished, by path.
fn finished_files(jsonl: &Path) -> Vec<String> {
    let text = fs::read_to_string(jsonl).unwrap_or_else(|e| panic!("{}: {e}", jsonl.display()));
    let mut rels = BTreeMap::new();
    let mut done = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("jsonl");
        match v["type"].as_str() {
            Some("file_started") => {
                rels.insert(
                    v["file"]["index"].as_u64(),
                    v["file"]["rel"].as_str().map(String::from),
                );
            }
            Some("file_finished") => {
                if let Some(Some(rel)) = rels.get(&v["file"].as_u64()) {
                    done.push(rel.clone());
                }
            }
            _ => {}
        }
    }
    done
}

/// The summary document without what differs between one machine and four: times,
/// durations, hosts, places and log paths.
fn normalised_json(path: &Path) -> Value {
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(path).expect("report")).expect("json");
    for f in doc["files"].as_array_mut().expect("files") {
        for k in ["duration_ms", "log"] {
            f.as_object_mut().map(|o| o.remove(k));
        }
    }
    if let Some(run) = doc["run"].as_object_mut() {
        for k in [
            "duration_ms",
            "duration",
            "started_ms",
            "host",
            "cwd",
            "command",
            "slowest",
            "jobs",
        ] {
            run.remove(k);
        }
    }
    doc
}

fn normalised_xml(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("report");
    // Attribute values that are times, dates or hosts (`time="0.012"`, …) emptied.
    let re_like = |s: &str, attr: &str| -> String {
        let mut result = String::new();
        let mut rest = s;
        let needle = format!("{attr}=\"");
        while let Some(i) = rest.find(&needle) {
            result.push_str(&rest[..i + needle.len()]);
            rest = &rest[i + needle.len()..];
            let end = rest.find('"').unwrap_or(rest.len());
            rest = &rest[end..];
        }
        result.push_str(rest);
        result
    };
    let mut s = text;
    for attr in ["time", "timestamp", "hostname"] {
        s = re_like(&s, attr);
    }
    s
}

/// Markdown with its duration cells blanked and without the slowest-files rows (which files
/// are slowest is a matter of timing).
fn normalised_md(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("report");
    let mut out = Vec::new();
    let mut slowest = false;
    for line in text.lines() {
        if line.contains("Slowest files") {
            slowest = true;
        } else if line.contains("</details>") {
            slowest = false;
        }
        if slowest && line.starts_with("| ") && !line.starts_with("| File") {
            continue;
        }
        let cells: Vec<String> = line
            .split('|')
            .map(|cell| {
                let t = cell.trim();
                let number = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                let unit = &t[number.len()..];
                let is_duration = !number.is_empty()
                    && number.chars().all(|c| c.is_ascii_digit() || c == '.')
                    && matches!(unit, "ms" | "s" | "m" | "µs");
                if is_duration {
                    " T ".to_owned()
                } else {
                    cell.to_owned()
                }
            })
            .collect();
        out.push(cells.join("|"));
    }
    out.join("\n")
}

#[test]
fn four_shards_side_by_side_cover_every_file_once_and_merge_into_the_unsharded_reports() {
    let p = suite(12);
    let (code, _, err) = output(tapline(
        &p,
        &[
            "run",
            "-o",
            "full.json",
            "-o",
            "full.xml",
            "-o",
            "full.md",
            "-o",
            "full.jsonl",
        ],
        &[],
    ));
    assert_eq!(code, 1, "{err}");
    let all: Vec<String> = (0..12).map(|i| format!("test/f{i:02}.sh")).collect();
    for strategy in ["slice", "hash", "time"] {
        let shards: Vec<_> = (1..=4)
            .map(|m| {
                let partition = format!("{strategy}:{m}/4");
                let out = format!("{strategy}-{m}.jsonl");
                tapline(&p, &["run", "--partition", &partition, "-o", &out], &[])
                    .spawn()
                    .expect("spawn a shard")
            })
            .collect();
        for s in shards {
            let o = s.wait_with_output().expect("shard ends");
            assert!(
                matches!(o.status.code(), Some(0 | 1)),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let mut ran: Vec<String> = (1..=4)
            .flat_map(|m| finished_files(&p.join(&format!("{strategy}-{m}.jsonl"))))
            .collect();
        ran.sort();
        assert_eq!(ran, all, "{strategy}: every file exactly once");
        let merged = |ext: &str| format!("merged-{strategy}.{ext}");
        let (code, _, err) = output(tapline(
            &p,
            &[
                "report",
                "merge",
                &format!("{strategy}-*.jsonl"),
                "-o",
                &merged("json"),
                "-o",
                &merged("xml"),
                "-o",
                &merged("md"),
            ],
            &[],
        ));
        assert_eq!(
            code, 1,
            "{strategy}: the run's exit code (file 3 fails): {err}"
        );
        assert_eq!(
            normalised_json(&p.join(&merged("json"))),
            normalised_json(&p.join("full.json")),
            "{strategy}"
        );
        assert_eq!(
            normalised_xml(&p.join(&merged("xml"))),
            normalised_xml(&p.join("full.xml")),
            "{strategy}"
        );
        let md = normalised_md(&p.join(&merged("md")));
        assert!(md.contains("| 12 | 36 |"), "the counts are compared: {md}");
        assert_eq!(md, normalised_md(&p.join("full.md")), "{strategy}");
    }
}

#[test]
fn merge_refuses_missing_duplicated_and_mismatched_shards() {
    let p = suite(6);
    for m in 1..=3 {
        let part = format!("slice:{m}/3");
        let (code, _, err) = output(tapline(
            &p,
            &["run", "--partition", &part, "-o", &format!("s{m}.jsonl")],
            &[],
        ));
        assert!(matches!(code, 0 | 1), "{err}");
    }
    let refused = |args: &[&str], says: &str| {
        let mut full = vec!["report", "merge"];
        full.extend_from_slice(args);
        let (code, _, err) = output(tapline(&p, &full, &[]));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    refused(&["s1.jsonl", "s3.jsonl"], "shard 2 of 3 missing");
    fs::copy(p.join("s2.jsonl"), p.join("again.jsonl")).expect("copy");
    refused(
        &["s1.jsonl", "s2.jsonl", "again.jsonl", "s3.jsonl"],
        "shard 2 is given twice",
    );
    // Another selection: one file more when shard 3 was planned.
    p.write("test/f99.sh", "echo 1..1; echo ok 1\n");
    let (code, _, err) = output(tapline(
        &p,
        &["run", "--partition", "slice:3/3", "-o", "other.jsonl"],
        &[],
    ));
    assert!(matches!(code, 0 | 1), "{err}");
    refused(
        &["s1.jsonl", "s2.jsonl", "other.jsonl"],
        "another selection",
    );
    refused(&["full.json"], "failed to open");
    // --allow-missing: the missing shard's files are not run, and the run fails.
    let (code, _, err) = output(tapline(
        &p,
        &[
            "report",
            "merge",
            "s1.jsonl",
            "s3.jsonl",
            "--allow-missing",
            "-o",
            "m.json",
        ],
        &[],
    ));
    assert_eq!(code, 1, "{err}");
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(p.join("m.json")).expect("m.json")).expect("json");
    let not_run: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter(|f| f["not_run"] == true)
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(not_run, ["test/f01.sh", "test/f04.sh"], "{doc:#}");
}

#[test]
fn partition_auto_reads_each_engine() {
    let p = suite(4);
    let engines: [(&[(&str, &str)], &str); 6] = [
        (&[("TAPLINE_PARTITION", "2/4")], "shard 2 of 4"),
        (
            &[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "4")],
            "shard 2 of 4",
        ),
        (
            &[("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "4")],
            "shard 2 of 4",
        ),
        (
            &[
                ("BUILDKITE_PARALLEL_JOB", "1"),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "4"),
            ],
            "shard 2 of 4",
        ),
        (
            &[
                ("JOB_COMPLETION_INDEX", "1"),
                ("TAPLINE_PARTITION_TOTAL", "4"),
            ],
            "shard 2 of 4",
        ),
        (&[], "no CI engine names a shard"),
    ];
    for (vars, says) in engines {
        let (code, _, err) = output(tapline(
            &p,
            &["run", "--partition", "auto", "--no-history"],
            vars,
        ));
        assert!(matches!(code, 0 | 1), "{vars:?}: {err}");
        assert!(err.contains(says), "{vars:?}: {err}");
    }
    // Without history `auto` deals by slice; `auto:hash` by hash; with history, by time.
    let (_, _, err) = output(tapline(
        &p,
        &["run", "--partition", "auto", "--no-history"],
        &engines[0].0,
    ));
    assert!(err.contains("(slice)"), "{err}");
    let (_, _, err) = output(tapline(
        &p,
        &["run", "--partition", "auto:hash"],
        &engines[0].0,
    ));
    assert!(err.contains("(hash)"), "{err}");
    output(tapline(&p, &["run"], &[]));
    let (_, _, err) = output(tapline(&p, &["run", "--partition", "auto"], &engines[0].0));
    assert!(err.contains("(time)"), "{err}");
    // A wrong engine value is a one-line usage error.
    let (code, _, err) = output(tapline(
        &p,
        &["run", "--partition", "auto"],
        &[("CI_NODE_INDEX", "9"), ("CI_NODE_TOTAL", "4")],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("CI_NODE_INDEX=9"), "{err}");
}

#[test]
fn an_empty_shard_passes_and_joins_the_merge() {
    let p = suite(2);
    for m in 1..=3 {
        let part = format!("slice:{m}/3");
        let (code, _, err) = output(tapline(
            &p,
            &["run", "--partition", &part, "-o", &format!("e{m}.jsonl")],
            &[],
        ));
        if m == 3 {
            assert_eq!(code, 0, "{err}");
            assert!(err.contains("nothing to run here"), "{err}");
        }
    }
    let (code, _, err) = output(tapline(
        &p,
        &["report", "merge", "e1.jsonl", "e2.jsonl", "e3.jsonl"],
        &[],
    ));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn list_shows_the_shard_with_weights() {
    let p = suite(6);
    let (_, out, err) = output(tapline(
        &p,
        &[
            "run",
            "--list",
            "--partition",
            "time:1/2",
            "--time-default",
            "2s",
        ],
        &[],
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}{err}");
    assert!(
        lines
            .iter()
            .all(|l| l.ends_with("(weight 2.0s)") || l.ends_with("(weight 2s)")),
        "{out}"
    );
}

#[test]
fn the_bazel_test_protocol_is_honoured() {
    let p = suite(8);
    let outputs = p.join("undeclared");
    fs::create_dir_all(&outputs).expect("mkdir");
    let tmp = p.join("bazel-tmp");
    fs::create_dir_all(&tmp).expect("mkdir");
    let (xml, status) = (p.join("test.xml"), p.join("shard.status"));
    let vars = [
        ("TEST_TARGET", "//:suite"),
        ("TEST_SRCDIR", "/nonexistent"),
        ("TEST_TOTAL_SHARDS", "4"),
        ("TEST_SHARD_INDEX", "1"),
        ("TEST_SHARD_STATUS_FILE", status.to_str().expect("utf-8")),
        ("XML_OUTPUT_FILE", xml.to_str().expect("utf-8")),
        (
            "TEST_UNDECLARED_OUTPUTS_DIR",
            outputs.to_str().expect("utf-8"),
        ),
        ("TEST_TMPDIR", tmp.to_str().expect("utf-8")),
    ];
    p.write(
        "test/tmpdir.sh",
        "echo 1..1; echo \"ok 1 - tmp is $TMPDIR\"\n",
    );
    let (code, _, err) = output(tapline(&p, &["run"], &vars));
    assert!(matches!(code, 0 | 1), "{err}");
    assert!(err.contains("shard 2 of 4 (slice)"), "{err}");
    assert!(status.exists(), "TEST_SHARD_STATUS_FILE touched");
    let junit = fs::read_to_string(&xml).expect("JUnit at XML_OUTPUT_FILE");
    assert!(junit.contains("<testsuites"), "{junit}");
    let jsonl = outputs.join("tapline.jsonl");
    let first = fs::read_to_string(&jsonl).expect("tapline.jsonl");
    assert!(first.starts_with(r#"{"type":"shard""#), "{first}");
    assert!(
        outputs.join("testlogs").is_dir(),
        "logs under TEST_UNDECLARED_OUTPUTS_DIR"
    );
    assert!(
        !p.join(".nogit/testlogs/history.jsonl").exists(),
        "no history"
    );
    // --test_filter: only the matching files.
    let mut filtered = vars.to_vec();
    filtered.retain(|(k, _)| !k.starts_with("TEST_SHARD") && *k != "TEST_TOTAL_SHARDS");
    filtered.push(("TESTBRIDGE_TEST_ONLY", "tmpdir"));
    let (code, _, err) = output(tapline(&p, &["run", "--format", "summary"], &filtered));
    assert_eq!(code, 0, "{err}");
    let ran = finished_files(&jsonl);
    assert_eq!(ran, ["test/tmpdir.sh"]);
    let log = fs::read_to_string(outputs.join("testlogs/test__tmpdir.log")).expect("log");
    assert!(log.contains(&format!("tmp is {}", tmp.display())), "{log}");
}

#[test]
fn a_real_bazel_runs_the_example_in_four_shards() {
    if !require("a_real_bazel_runs_the_example_in_four_shards", &["bazel"]) {
        return;
    }
    let work = tempfile::tempdir().expect("tempdir");
    let example = crate::util::repo().join("examples/bazel");
    let ws = work.path().join("ws");
    copy_dir(&example, &ws);
    let o = Command::new("bazel")
        .current_dir(&ws)
        .arg("--batch")
        .arg(format!(
            "--output_user_root={}",
            work.path().join("root").display()
        ))
        .args(["test", "//:suite", "--test_output=errors"])
        .arg(format!(
            "--test_env=TAPLINE_BIN={}",
            env!("CARGO_BIN_EXE_tapline")
        ))
        .output()
        .expect("bazel runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let mut suites = Vec::new();
    for m in 1..=4 {
        let dir = ws.join(format!("bazel-testlogs/suite/shard_{m}_of_4"));
        let xml = fs::read_to_string(dir.join("test.xml")).expect("each shard's test.xml");
        let log = fs::read_to_string(dir.join("test.log")).expect("each shard's test.log");
        assert!(log.contains(&format!("shard {m} of 4")), "{log}");
        for piece in xml.split("<testsuite ").skip(1) {
            if let Some(name) = piece
                .split("name=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
            {
                suites.push(name.to_owned());
            }
        }
    }
    suites.sort();
    let all: Vec<String> = (1..=8).map(|i| format!("t/t{i}.sh")).collect();
    assert_eq!(suites, all, "each file in exactly one shard");
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for e in fs::read_dir(from).expect("read_dir").filter_map(Result::ok) {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).expect("copy");
        }
    }
}

#[test]
fn history_import_records_what_the_run_recorded() {
    let p = suite(4);
    let (code, _, err) = output(tapline(&p, &["run", "-o", "run.jsonl"], &[]));
    assert_eq!(code, 1, "{err}");
    let live = fs::read_to_string(p.join(".nogit/testlogs/history.jsonl")).expect("history");
    let (code, _, err) = output(tapline(
        &p,
        &["history", "import", "run.jsonl", "--log-dir", "imported"],
        &[],
    ));
    assert_eq!(code, 0, "{err}");
    let imported = fs::read_to_string(p.join("imported/history.jsonl")).expect("imported");
    let key = |text: &str| -> Vec<Value> {
        let mut rows: Vec<Value> = text
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).expect("record");
                for k in ["run", "start", "commit"] {
                    v.as_object_mut().map(|o| o.remove(k));
                }
                v
            })
            .collect();
        rows.sort_by_key(|v| v["path"].to_string());
        rows
    };
    assert_eq!(key(&imported), key(&live));
}

/// `sh -c SCRIPT` in the project, with the tapline under test first on PATH and `vars` set.
fn shell(p: &Project, script: &str, vars: &[(&str, String)]) -> (i32, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_tapline"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .current_dir(p.path())
        .env("PATH", path)
        .env("NO_COLOR", "1");
    for v in ENGINE_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("sh runs");
    let text = format!(
        "{script}\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

fn yaml(name: &str) -> Value {
    let path = crate::util::repo().join("examples/ci").join(name);
    let text = fs::read_to_string(&path).expect("example readable");
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{name} is not YAML: {e}"))
}

#[test]
fn the_github_actions_example_parses_and_its_commands_run() {
    let wf = yaml("github-actions.yml");
    let steps = |job: &str| {
        wf["jobs"][job]["steps"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let step = |job: &str, name: &str| -> String {
        steps(job)
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["run"].as_str())
            .unwrap_or_else(|| panic!("{job}: no step {name}"))
            .to_owned()
    };
    let shards = wf["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        .as_array()
        .expect("a matrix of shards")
        .clone();
    assert_eq!(shards.len(), 4);
    let p = suite(8);
    fs::create_dir_all(p.join("shards")).expect("mkdir");
    for shard in &shards {
        let n = shard.as_u64().expect("a number").to_string();
        let run = step("shard", "Run one shard").replace("${{ matrix.shard }}", &n);
        let (code, out) = shell(&p, &run, &[]);
        assert!(matches!(code, 0 | 1), "{out}");
        // What upload-artifact and download-artifact with merge-multiple do.
        let file = format!("shard-{n}.jsonl");
        fs::rename(p.join(&file), p.join("shards").join(&file)).expect("move");
    }
    let (code, out) = shell(&p, &step("merge", "Merge the shards"), &[]);
    assert_eq!(code, 1, "the merged run fails as the suite does: {out}");
    for report in ["report.xml", "report.html", "report.md"] {
        assert!(p.join(report).is_file(), "{report}: {out}");
    }
    assert!(
        p.join(".nogit/testlogs/history.jsonl").is_file(),
        "history for next time"
    );
}

#[test]
fn the_gitlab_example_parses_and_its_commands_run() {
    let ci = yaml("gitlab-ci.yml");
    assert_eq!(ci["tests"]["parallel"], 4);
    let script = |job: &str| ci[job]["script"][0].as_str().expect("a script").to_owned();
    let p = suite(8);
    for n in 1..=4 {
        let vars = [
            ("CI_NODE_INDEX", n.to_string()),
            ("CI_NODE_TOTAL", "4".to_owned()),
        ];
        let (code, out) = shell(&p, &script("tests"), &vars);
        assert!(matches!(code, 0 | 1), "{out}");
        assert!(out.contains(&format!("shard {n} of 4")), "{out}");
    }
    let (code, out) = shell(&p, &script("report"), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        p.join("report.xml").is_file() && p.join("report.md").is_file(),
        "{out}"
    );
}

#[test]
fn the_kubernetes_example_parses_and_its_commands_run() {
    let job = yaml("kubernetes-indexed-job.yaml");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let completions = job["spec"]["completions"].as_u64().expect("completions");
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let total = container["env"]
        .as_array()
        .and_then(|env| env.iter().find(|e| e["name"] == "TAPLINE_PARTITION_TOTAL"))
        .and_then(|e| e["value"].as_str())
        .expect("TAPLINE_PARTITION_TOTAL")
        .to_owned();
    assert_eq!(total, completions.to_string());
    let p = suite(8);
    let results = p.join("results");
    fs::create_dir_all(&results).expect("mkdir");
    let args = container["args"][0]
        .as_str()
        .expect("args")
        .replace("/results", &results.display().to_string());
    for index in 0..completions {
        let vars = [
            ("JOB_COMPLETION_INDEX", index.to_string()),
            ("TAPLINE_PARTITION_TOTAL", total.clone()),
        ];
        let (code, out) = shell(&p, &args, &vars);
        assert!(matches!(code, 0 | 1), "{out}");
    }
    let merge = format!("tapline report merge {} -o merged.json", results.display());
    let (code, out) = shell(&p, &merge, &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn shards_run_one_after_another_in_one_checkout_deal_alike() {
    let p = suite(10);
    // History from one whole run: `time` deals by it.
    output(tapline(&p, &["run"], &[]));
    let history = fs::read_to_string(p.join(".nogit/testlogs/history.jsonl")).expect("history");
    for m in 1..=4 {
        let part = format!("time:{m}/4");
        let (code, _, err) = output(tapline(
            &p,
            &["run", "--partition", &part, "-o", &format!("t{m}.jsonl")],
            &[],
        ));
        assert!(matches!(code, 0 | 1), "{err}");
    }
    let after = fs::read_to_string(p.join(".nogit/testlogs/history.jsonl")).expect("history");
    assert_eq!(history, after, "a shard never appends to history");
    let mut ran: Vec<String> = (1..=4)
        .flat_map(|m| finished_files(&p.join(&format!("t{m}.jsonl"))))
        .collect();
    ran.sort();
    let all: Vec<String> = (0..10).map(|i| format!("test/f{i:02}.sh")).collect();
    assert_eq!(ran, all);
    let (code, _, err) = output(tapline(
        &p,
        &[
            "report",
            "merge",
            "t1.jsonl",
            "t2.jsonl",
            "t3.jsonl",
            "t4.jsonl",
            "--history",
        ],
        &[],
    ));
    assert_eq!(code, 1, "{err}");
    let merged = fs::read_to_string(p.join(".nogit/testlogs/history.jsonl")).expect("history");
    assert_eq!(
        merged.lines().count(),
        history.lines().count() + 10,
        "the merged run enters it once"
    );
}
