//! Issue 25: a browser file ends as node would end its process. The page counts what is
//! pending (timers, intervals, animation frames, fetch/XHR); the file ends when its plan is
//! complete, or when nothing is pending any more (judged as an exited process), or at
//! `--timeout` as a timeout: a page kept busy, by a loop or an interval, times out.
use crate::util::browser::path_without_esbuild;
use crate::util::{require, tool};
use serde_json::Value;
use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

/// Each browser file's result (`file_finished`), by its path.
fn results(stdout: &str) -> Vec<(String, Value)> {
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    events
        .iter()
        .filter(|e| e["type"] == "file_finished")
        .filter_map(|done| {
            let started = events
                .iter()
                .find(|e| e["type"] == "file_started" && e["file"]["index"] == done["file"])?;
            let rel = started["file"]["rel"].as_str()?.to_owned();
            Some((rel, done["result"].clone()))
        })
        .collect()
}

#[test]
fn issue25_browser_files_end_when_nothing_is_pending_and_a_busy_page_times_out() {
    if !require(
        "issue25_browser_files_end_when_nothing_is_pending_and_a_busy_page_times_out",
        &["chromium", "esbuild"],
    ) {
        return;
    }
    let dir = tempfile::TempDir::new().expect("temp dir");
    let files = [
        (
            "test/wait.browser.ts",
            "console.log('1..2');\nconsole.log('ok 1 - before the timer');\n\
             setTimeout(() => console.log('ok 2 - after 3.5 s'), 3500);\n",
        ),
        (
            "test/frames.browser.ts",
            "console.log('1..2');\nconsole.log('ok 1 - first');\nlet n = 0;\n\
             const step = () => (++n < 30 ? requestAnimationFrame(step) : console.log('ok 2 - after 30 frames'));\n\
             requestAnimationFrame(step);\n",
        ),
        // Nothing pending after its timer: ends there, short of its plan, as node would.
        (
            "test/short.browser.ts",
            "console.log('1..2');\nconsole.log('ok 1 - the only one');\nsetTimeout(() => {}, 300);\n",
        ),
        (
            "test/busy.browser.ts",
            "console.log('1..2');\nconsole.log('ok 1 - first');\nsetTimeout(() => { for (;;) {} }, 10);\n",
        ),
        (
            "test/interval.browser.ts",
            "console.log('1..2');\nconsole.log('ok 1 - first');\nsetInterval(() => {}, 50);\n",
        ),
    ];
    fs::write(dir.path().join("tapline.toml"), "").expect("write");
    for (rel, text) in files {
        let path = dir.path().join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }
    let esbuild = tool("esbuild");
    let mut path = std::ffi::OsString::from(esbuild.parent().expect("esbuild's folder"));
    path.push(":");
    path.push(path_without_esbuild());
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["run", "--format", "jsonl", "--color", "never"])
        .args(["-j", "5", "--timeout", "10s", "--grace", "2s"])
        .args(files.map(|(rel, _)| rel))
        .current_dir(dir.path())
        .env("PATH", path)
        .env("TAPLINE_CHROMIUM", tool("chromium"))
        .env_remove("CI")
        .output()
        .expect("tapline runs");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let results = results(&stdout);
    let result = |rel: &str| {
        results
            .iter()
            .find(|(r, _)| r == rel)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no result for {rel}\n{text}"))
    };
    let reasons = |rel: &str| result(rel)["reasons"].to_string();
    assert_eq!(results.len(), 5, "{text}");
    for rel in ["test/wait.browser.ts", "test/frames.browser.ts"] {
        assert_eq!(result(rel)["ok"], true, "{rel}\n{text}");
    }
    let short = reasons("test/short.browser.ts");
    assert!(
        short.contains("planned 2, ran 1") && !short.contains("timed out"),
        "{short}\n{text}"
    );
    for rel in ["test/busy.browser.ts", "test/interval.browser.ts"] {
        assert_eq!(result(rel)["ok"], false, "{rel}\n{text}");
        assert!(
            reasons(rel).contains("timed out after 10s"),
            "{rel}\n{text}"
        );
    }
    // The busy page's renderer is stuck: closing it may take the grace and a new Chromium,
    // never much more than the timeout.
    assert!(took < Duration::from_secs(60), "{took:?}\n{text}");
}
