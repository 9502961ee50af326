//! Issue 42: `--format summary` of a file of many points streams each running file's parse
//! summary to a spool file past 1 MiB and copies it into the document at the end: the
//! document is the parser's summary of the stream, every point in order, and the run's
//! memory does not grow with it.
use crate::util::{parse_cli, require, Project};

/// Points in the file: a summary of about 30 MB, far past the 1 MiB a running file keeps.
const POINTS: u32 = 100_000;

/// The stream: every point passes but 40,000 (got 41, wanted 42); every 1000th is a SKIP.
fn stream() -> String {
    let mut tap = format!("TAP version 13\n1..{POINTS}\n");
    for k in 1..=POINTS {
        let line = match k {
            40_000 => "not ok 40000 - values\n  ---\n  found: 41\n  wanted: 42\n  ...\n".to_owned(),
            k if k % 1000 == 0 => format!("ok {k} - skipped # SKIP later\n"),
            k => format!("ok {k} - case {k}\n"),
        };
        tap.push_str(&line);
    }
    tap
}

#[test]
fn issue42_summary_spool_a_big_file_s_document_is_the_parse_summary_in_bounded_memory() {
    if !require(
        "issue42_summary_spool_a_big_file_s_document_is_the_parse_summary_in_bounded_memory",
        &["python3"],
    ) {
        return;
    }
    let p = Project::new();
    let tap = stream();
    p.write("big.tap", &tap);
    p.script("test/big.sh", "#!/bin/sh\ncat big.tap\n");
    let tmp = p.join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    // The run's peak memory, as its parent sees it (ru_maxrss of the waited-for child, KiB).
    let measure = "import resource, subprocess, sys\n\
                   with open('doc.json', 'wb') as out:\n    \
                       code = subprocess.run(sys.argv[1:], stdout=out).returncode\n\
                   print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
                   sys.exit(code)\n";
    let out = std::process::Command::new("python3")
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env("TMPDIR", &tmp)
        .args(["-c", measure, env!("CARGO_BIN_EXE_tapline"), "run", "-q"])
        .args(["--no-history", "--format", "summary", "test/big.sh"])
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let peak_kib: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("ru_maxrss ({e}): {stderr}"));
    eprintln!("peak: {peak_kib} KiB");
    let doc = p.read("doc.json");
    let doc: serde_json::Value = serde_json::from_slice(&doc).expect("the document is JSON");
    // The file's summary is what `tapline parse --format summary` says of the same stream.
    let (code, parsed, _) = parse_cli(&["--format", "summary"], tap.as_bytes());
    assert_eq!(code, 1);
    let parsed: serde_json::Value = serde_json::from_str(&parsed).expect("parse's summary");
    let summary = &doc["files"][0]["summary"];
    let asserts = summary["asserts"].as_array().expect("asserts");
    assert_eq!(asserts.len(), POINTS as usize);
    assert_eq!(asserts[39_999]["name"], "values");
    assert_eq!(
        asserts[POINTS as usize - 2]["name"],
        format!("case {}", POINTS - 1)
    );
    assert!(
        *summary == parsed,
        "the document's summary differs from parse's"
    );
    assert_eq!(
        doc["files"][0]["failures"].as_array().map(Vec::len),
        Some(1)
    );
    // Held in memory, the summary alone (~30 MB) and its copies came to 90 MiB and more.
    assert!(
        peak_kib < 48 << 10,
        "peak {peak_kib} KiB for a {} MB summary",
        doc.to_string().len() >> 20
    );
    // The spool is unnamed: nothing of it in the temporary directory after the run.
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("tmp").collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}
