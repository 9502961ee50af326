//! Watch-mode latency: from a file write to the start of the child the re-run spawns.
//!
//! Drives a real `tapline run --watch` session in a temp project. Every test file runs this
//! very binary (`--exec '<self> --child'`), which as a child only appends the wall-clock time
//! it started at to a file and prints a passing TAP stream; so the figure is the write → child
//! `main` latency, with the debounce, discovery, log rotation and the spawn in it. Each edit
//! waits for the previous run to end, then a varying pause spreads the write's phase against
//! the debouncer's tick.
//!
//!     cargo bench --bench watch_latency
//!
//! It prints, per scenario: min / median / p90 / max, and whether the max stays within the
//! debounce plus 50 ms. Figures are recorded in `benches/README.md`.
use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TEST_FILES: usize = 20;
const SLACK_MS: f64 = 50.0;

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos()
}

/// As a test file's command: note the start time, pass.
fn child() {
    let started = now_ns();
    if let Some(out) = std::env::var_os("LATENCY_OUT") {
        if let Ok(mut f) = OpenOptions::new().append(true).create(true).open(out) {
            let _ = writeln!(f, "{started}");
        }
    }
    println!("1..1\nok 1 - started");
}

struct Scenario {
    name: &'static str,
    debounce_ms: u64,
    /// The edited path, relative to the project.
    edit: &'static str,
    edits: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        child();
        return;
    }
    let filter = args.iter().skip(1).find(|a| !a.starts_with("--")).cloned();
    let scenarios = [
        Scenario {
            name: "test file edited, 300 ms debounce (default)",
            debounce_ms: 300,
            edit: "test/t05.t",
            edits: 60,
        },
        Scenario {
            name: "other file edited (all 20 re-run), 300 ms debounce",
            debounce_ms: 300,
            edit: "lib/helper.txt",
            edits: 30,
        },
        Scenario {
            name: "test file edited, 100 ms debounce",
            debounce_ms: 100,
            edit: "test/t05.t",
            edits: 60,
        },
        Scenario {
            name: "test file edited, 20 ms debounce",
            debounce_ms: 20,
            edit: "test/t05.t",
            edits: 60,
        },
    ];
    println!(
        "watch latency: file write → re-run child start ({} test files, {} cores)",
        TEST_FILES,
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    for s in &scenarios {
        if filter
            .as_ref()
            .is_some_and(|f| !s.name.contains(f.as_str()))
        {
            continue;
        }
        let mut ms = measure(s);
        report(s, &mut ms);
    }
}

fn measure(s: &Scenario) -> Vec<f64> {
    let project = tempfile::TempDir::new().expect("temp dir");
    let aux = tempfile::TempDir::new().expect("temp dir");
    let root = project.path();
    fs::write(root.join("tapline.toml"), "").expect("write");
    fs::create_dir_all(root.join("test")).expect("mkdir");
    fs::create_dir_all(root.join("lib")).expect("mkdir");
    for i in 0..TEST_FILES {
        fs::write(root.join(format!("test/t{i:02}.t")), "# test\n").expect("write");
    }
    fs::write(root.join("lib/helper.txt"), "helper\n").expect("write");
    let out_file = aux.path().join("starts");
    let exe = std::env::current_exe().expect("own path");
    let mut tapline = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["run", "--watch", "--format", "jsonl", "--color", "never"])
        .args(["--debounce", &format!("{}ms", s.debounce_ms)])
        .args(["--exec", &format!("{} --child", exe.display())])
        .current_dir(root)
        .env("LATENCY_OUT", &out_file)
        .env_remove("CI")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tapline starts");
    // Run numbers as runs finish.
    let (tx, finished) = mpsc::channel::<u64>();
    let stdout = tapline.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: serde_json::Value = serde_json::from_str(&line).expect("JSON line");
            if v["type"] == "run_finished" {
                let _ = tx.send(v["run"].as_u64().unwrap_or(0));
            }
        }
    });
    let wait_run = |run: u64| loop {
        match finished.recv_timeout(Duration::from_secs(60)) {
            Ok(n) if n >= run => return,
            Ok(_) => {}
            Err(e) => panic!("run {run} did not finish: {e}"),
        }
    };
    wait_run(1);
    let mut latencies = Vec::with_capacity(s.edits);
    let edited = root.join(s.edit);
    for i in 0..s.edits {
        // Vary the write's phase against the debouncer's tick.
        std::thread::sleep(Duration::from_millis(60 + (i as u64 * 37) % 90));
        let _ = fs::remove_file(&out_file);
        let t0 = now_ns();
        append(&edited, i);
        wait_run(i as u64 + 2);
        let first = first_start(&out_file).expect("a child started");
        latencies.push((first.saturating_sub(t0)) as f64 / 1e6);
    }
    drop(tapline.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(30);
    while tapline.try_wait().expect("try_wait").is_none() {
        assert!(Instant::now() < deadline, "tapline did not quit");
        std::thread::sleep(Duration::from_millis(20));
    }
    latencies
}

fn append(path: &Path, i: usize) {
    // One write(2): one change, as an editor's save is.
    let mut f = OpenOptions::new().append(true).open(path).expect("open");
    f.write_all(format!("# edit {i}\n").as_bytes())
        .expect("append");
}

fn first_start(file: &PathBuf) -> Option<u128> {
    fs::read_to_string(file)
        .ok()?
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .min()
}

fn report(s: &Scenario, ms: &mut [f64]) {
    ms.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    let max = ms[ms.len() - 1];
    let budget = s.debounce_ms as f64 + SLACK_MS;
    println!(
        "  {:<52} n={:<3} min {:>6.1}  median {:>6.1}  p90 {:>6.1}  max {:>6.1} ms  \
         (max − debounce {:+.1} ms; within debounce + 50 ms: {})",
        s.name,
        ms.len(),
        ms[0],
        pct(0.5),
        pct(0.9),
        max,
        max - s.debounce_ms as f64,
        if max <= budget { "yes" } else { "NO" }
    );
}
