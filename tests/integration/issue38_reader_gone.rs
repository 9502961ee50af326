//! #38: the exit code is the verdict's, whatever became of stdout or stderr. A reader that
//! goes away (`| head -1` under `set -o pipefail`) stops the output, never the run.
use crate::util::Project;
use std::process::Command;

/// A file that prints one point, pauses so the reader can take its first line and go, then
/// prints far more than a pipe holds, one point failing when `fail` is set.
fn project(fail: bool) -> Project {
    let p = Project::new();
    let last = if fail { "not ok" } else { "ok" };
    p.script(
        "t/many.t",
        &format!(
            "#!/bin/sh\necho 1..3002\necho 'ok 1 - first'\nsleep 0.3\n\
             i=2; while [ $i -le 3001 ]; do echo \"ok $i - point number $i of many\"; \
             i=$((i+1)); done\necho '{last} 3002 - the last'\n"
        ),
    );
    p
}

/// `tapline ARGS | READER` in bash: the pipeline's status under `set -o pipefail`, and
/// tapline's own.
fn piped(p: &Project, args: &str, reader: &str) -> (i32, i32) {
    let bin = env!("CARGO_BIN_EXE_tapline");
    let script = format!("'{bin}' {args} | {reader} >/dev/null; echo \"${{PIPESTATUS[@]}}\"");
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let codes: Vec<i32> = text
        .split_whitespace()
        .map(|c| c.parse().expect("a code"))
        .collect();
    let [tapline, reader] = codes[..] else {
        panic!("two statuses, got {text:?}");
    };
    // `set -o pipefail`: the last command that failed, else 0.
    let pipeline = if reader != 0 { reader } else { tapline };
    (pipeline, tapline)
}

#[test]
fn issue38_run_jsonl_into_head_keeps_a_failing_verdict() {
    let p = project(true);
    assert_eq!(
        piped(&p, "run --format jsonl 2>/dev/null", "head -1"),
        (1, 1)
    );
    let p = project(false);
    assert_eq!(
        piped(&p, "run --format jsonl 2>/dev/null", "head -1"),
        (0, 0)
    );
}

#[test]
fn issue38_run_summary_and_the_terminal_into_head_keep_the_verdict() {
    let p = project(true);
    assert_eq!(
        piped(&p, "run --format summary 2>/dev/null", "head -c 1"),
        (1, 1)
    );
    // The terminal report on stderr, its reader gone: no panic, the verdict stands.
    assert_eq!(piped(&p, "run -v 2>&1", "head -1"), (1, 1));
    let p = project(false);
    assert_eq!(piped(&p, "run -v 2>&1", "head -1"), (0, 0));
}

#[test]
fn issue38_parse_jsonl_into_head_keeps_a_failing_verdict() {
    let p = Project::new();
    let mut tap = String::from("1..3001\n");
    for i in 1..=3000 {
        tap.push_str(&format!("ok {i} - point number {i} of many\n"));
    }
    tap.push_str("not ok 3001 - the last\n");
    p.write("big.tap", &tap);
    assert_eq!(piped(&p, "parse --format jsonl big.tap", "head -1"), (1, 1));
    assert_eq!(piped(&p, "parse big.tap", "head -1"), (1, 1));
    p.write("big.tap", tap.replace("not ok 3001", "ok 3001"));
    assert_eq!(piped(&p, "parse --format jsonl big.tap", "head -1"), (0, 0));
}

/// tapline's own stderr lines go through `say!` (`report::reader_gone`): `eprintln!` panics
/// once stderr's reader has gone (`tapline run 2>&1 | head -1` exited 101).
#[test]
fn issue38_no_eprintln_in_the_sources() {
    let src = crate::util::repo().join("src");
    let offenders: Vec<String> = crate::util::files_with_ext(&src, "rs")
        .into_iter()
        .filter(|p| !p.ends_with("report/reader_gone.rs"))
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let lines: Vec<String> = (text.lines().enumerate())
                .filter(|(_, l)| l.contains("eprintln!(") || l.contains("eprint!("))
                .map(|(i, _)| format!("{}:{}", p.display(), i + 1))
                .collect();
            (!lines.is_empty()).then(|| lines.join(", "))
        })
        .collect();
    assert!(offenders.is_empty(), "use tapline::say!: {offenders:?}");
}
