//! Browser tests (issue 18) end to end: `*.browser.*` files run in a real headless Chromium,
//! their console parsed as any child's output. Each test `require`s Chromium (`.ci/run`
//! installs the Debian package). Every run's temporary folder is inside
//! its project (TMPDIR), so a test can find that run's Chromium processes in /proc and prove
//! none is left.
use crate::util::{require, unmet, Project};
use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A project whose runs keep their temporary files (Chromium's profile among them) in `tmp/`.
fn project() -> Project {
    let p = Project::new();
    fs::create_dir_all(p.join("tmp")).expect("mkdir tmp");
    p
}

/// `tapline run ARGS` with TMPDIR inside the project; output into files of the project.
fn spawn(p: &Project, args: &[&str]) -> Child {
    let out = fs::File::create(p.join("stdout.txt")).expect("create");
    let err = fs::File::create(p.join("stderr.txt")).expect("create");
    Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env("TMPDIR", p.join("tmp"))
        // These files load as native modules (a missing import is the page's 404): bundling
        // is tests/integration/browser_bundle.rs's.
        .env("PATH", crate::util::browser::path_without_esbuild())
        .arg("run")
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("spawn tapline")
}

/// Runs to the end (at most two minutes); exit code and both streams.
fn run(p: &Project, args: &[&str]) -> (i32, String) {
    let mut child = spawn(p, args);
    let code = wait(&mut child, Duration::from_secs(120)).expect("tapline ends");
    let text = format!(
        "exit {code}\n--- stdout\n{}--- stderr\n{}",
        p.read_text("stdout.txt"),
        p.read_text("stderr.txt")
    );
    (code, text)
}

fn wait(child: &mut Child, limit: Duration) -> Option<i32> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status.code().unwrap_or(-1));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Live (not zombie) processes whose command line or environment names `dir`: every process
/// of a Chromium started with its TMPDIR and profile there (crashpad's handlers, which leave
/// the process group, included).
fn processes_under(dir: &Path) -> Vec<(i32, String)> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.trim_start().chars().next());
        if matches!(state, None | Some('Z' | 'X')) {
            continue;
        }
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let environ = fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(&needle) || String::from_utf8_lossy(&environ).contains(&needle) {
            // Named by what runs: Debian's `chromium` is a shell script, whose subshells
            // carry the browser's command line for a moment.
            let exe = fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
            let exe = exe
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // `pid (comm) state ppid pgrp …`
            let pgrp = stat
                .rsplit_once(')')
                .and_then(|(_, r)| r.split_whitespace().nth(2))
                .unwrap_or("?");
            found.push((pid, format!("[{exe} pgrp={pgrp}] {text}")));
        }
    }
    found
}

/// Chromium browsers among `processes`: their profiles. Every process a browser starts (its
/// zygotes, GPU, utilities, renderers) carries the browser's `--user-data-dir`, and a helper
/// between fork and exec still wears the browser's command line, so processes alone would
/// count it twice; nor is the process group enough: under load a forked helper was seen in a
/// group of its own with the browser's profile. The group counts only for a process without a
/// profile. Crashpad's handlers are not browsers.
fn browsers(processes: &[(i32, String)]) -> usize {
    let browsers: std::collections::BTreeSet<&str> = processes
        .iter()
        .filter(|(_, cmd)| {
            let exe = cmd.split(']').next().unwrap_or("");
            exe.contains("chrom") && !exe.contains("crashpad")
        })
        .filter_map(|(_, cmd)| match cmd.split("--user-data-dir=").nth(1) {
            Some(rest) => rest.split(' ').next(),
            None => cmd.split("pgrp=").nth(1)?.split(']').next(),
        })
        .collect();
    browsers.len()
}

/// Starts a run of pages that say `# ready` and never end (`test/NAME.browser.js` each), and
/// waits until every one has said it.
fn start_hanging(p: &Project, names: &[&str], args: &[&str]) -> Child {
    for name in names {
        p.write(
            &format!("test/{name}.browser.js"),
            "console.log('1..1');\nconsole.log('# ready');\nawait new Promise(() => {});\n",
        );
    }
    let child = spawn(p, args);
    let ready = poll(Duration::from_secs(60), || {
        names.iter().all(|name| {
            fs::read_to_string(p.join(&format!(".nogit/testlogs/test__{name}.browser.log")))
                .is_ok_and(|l| l.contains("# ready"))
        })
    });
    assert!(ready, "the pages never said they were ready");
    child
}

fn poll(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// No process of the run is left, and its temporary files are gone.
fn assert_clean(p: &Project, text: &str) {
    let tmp = p.join("tmp");
    let gone = poll(Duration::from_secs(10), || processes_under(&tmp).is_empty());
    assert!(
        gone,
        "Chromium processes left: {:?}\n{text}",
        processes_under(&tmp)
    );
    let left: Vec<_> = fs::read_dir(&tmp)
        .expect("tmp")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}\n{text}");
}

const PASSING: &str = r#"console.log("TAP version 14");
console.log("1..2");
console.log("ok 1 - runs in", navigator.userAgent.includes("Chrome") ? "chromium" : "something else");
await new Promise((r) => setTimeout(r, 10));
console.log("ok 2 - after a timer");
"#;

#[test]
fn a_browser_file_passes_in_chromium() {
    if !require("a_browser_file_passes_in_chromium", &["chromium"]) {
        return;
    }
    let p = project();
    p.write("test/a.browser.js", PASSING);
    let (code, text) = run(&p, &["-v"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("runs in chromium"), "{text}");
    assert!(
        text.contains("1 file") && text.contains("2 passed"),
        "{text}"
    );
    let log = p.read_text(".nogit/testlogs/test__a.browser.log");
    assert_eq!(
        log,
        "TAP version 14\n1..2\nok 1 - runs in chromium\nok 2 - after a timer\n"
    );
    assert_clean(&p, &text);
}

#[test]
fn a_both_file_runs_twice_with_two_verdicts() {
    if !require(
        "a_both_file_runs_twice_with_two_verdicts",
        &["chromium", "node"],
    ) {
        return;
    }
    let p = project();
    p.write(
        "test/b.both.mjs",
        "console.log('1..1');\nconsole.log(typeof window === 'object' ? 'ok 1 - has a window' : 'not ok 1 - has a window');\n",
    );
    let (code, text) = run(&p, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("✓ test/b.both.mjs (chromium)"), "{text}");
    assert!(text.contains("✗ test/b.both.mjs (node)"), "{text}");
    assert!(
        text.contains("2 files") || text.contains("1 of 2 files failed"),
        "{text}"
    );
    assert_eq!(
        p.read_text(".nogit/testlogs/test__b.both.chromium.log"),
        "1..1\nok 1 - has a window\n"
    );
    assert_eq!(
        p.read_text(".nogit/testlogs/test__b.both.node.log"),
        "1..1\nnot ok 1 - has a window\n"
    );
}

#[test]
fn a_v2_error_block_shows_its_diff() {
    if !require("a_v2_error_block_shows_its_diff", &["chromium"]) {
        return;
    }
    let p = project();
    p.write(
        "test/v2.browser.mjs",
        r#"const error = { error: { message: "Expected values to be strictly deep-equal",
  expected: { host: "localhost", tls: false }, actual: { host: "localhost", tls: true } } };
for (const line of ["⟦TSTEST:PROTOCOL:2.0.0⟧", "TAP version 13", "1..2",
  "ok 1 - adds numbers ⟦TSTEST:time:3⟧", "not ok 2 - builds a config ⟦TSTEST:time:12⟧",
  "⟦TSTEST:ERROR⟧", JSON.stringify(error, null, 2), "⟦TSTEST:/ERROR⟧"]) console.log(line);
"#,
    );
    let (code, text) = run(&p, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("Expected values to be strictly deep-equal"),
        "{text}"
    );
    assert!(
        text.contains("-   \"tls\": false,") && text.contains("+   \"tls\": true,"),
        "{text}"
    );
}

/// An exception after the plan, an unhandled rejection, a top-level throw, `alert()` and an
/// import that is not there: each fails its file with its own reason, in one run.
#[test]
fn page_errors_fail_their_file_with_reasons() {
    if !require("page_errors_fail_their_file_with_reasons", &["chromium"]) {
        return;
    }
    let p = project();
    let ok = "console.log('1..1'); console.log('ok 1 - fine');\n";
    p.write(
        "test/late.browser.js",
        format!("{ok}setTimeout(() => {{ throw new Error('late boom'); }}, 0);\n"),
    );
    p.write(
        "test/reject.browser.js",
        format!("{ok}Promise.reject(new Error('nobody caught me'));\n"),
    );
    p.write(
        "test/top.browser.js",
        "console.log('1..1');\nthrow new TypeError('top-level throw');\n",
    );
    p.write(
        "test/alert.browser.js",
        "console.log('1..1');\nalert('hello there');\nconsole.log('ok 1 - after the alert');\n",
    );
    p.write(
        "test/missing.browser.js",
        "import { x } from './not-there.js';\nconsole.log('1..1'); console.log('ok 1', x);\n",
    );
    p.write("test/fine.browser.js", ok);
    let (code, text) = run(&p, &["-j", "3", "--timeout", "60s"]);
    assert_eq!(code, 1, "{text}");
    for (file, reason) in [
        ("late", "uncaught exception: Error: late boom"),
        ("reject", "unhandled rejection: Error: nobody caught me"),
        ("top", "uncaught exception: TypeError: top-level throw"),
        (
            "alert",
            "alert(\"hello there\") dismissed: a test page cannot answer dialogs",
        ),
        ("missing", "failed to load test/not-there.js: 404"),
    ] {
        let line = format!("✗ test/{file}.browser.js");
        let at = text.lines().find(|l| l.contains(&line) && l.contains('—'));
        assert!(
            at.is_some_and(|l| l.contains(reason)),
            "{file}: {reason}\n{text}"
        );
    }
    assert!(text.contains("✓ test/fine.browser.js"), "{text}");
    assert!(text.contains("5 of 6 files failed"), "{text}");
    let log = p.read_text(".nogit/testlogs/test__late.browser.log");
    assert!(
        log.starts_with(
            "1..1\nok 1 - fine\nUncaught Error: late boom\n    at test/late.browser.js:2:"
        ),
        "{log}"
    );
    assert_clean(&p, &text);
}

/// A page that never ends and one stuck in a busy loop time out; the others pass, in the same
/// Chromium or a restarted one.
#[test]
fn endless_and_busy_pages_time_out_and_the_others_pass() {
    if !require(
        "endless_and_busy_pages_time_out_and_the_others_pass",
        &["chromium"],
    ) {
        return;
    }
    let p = project();
    p.write("test/a.browser.js", PASSING);
    p.write(
        "test/b.browser.js",
        "console.log('1..2'); console.log('ok 1 - first');\nawait new Promise(() => {});\n",
    );
    p.write(
        "test/c.browser.js",
        "console.log('1..1');\nwhile (true) {}\n",
    );
    p.write("test/d.browser.js", PASSING);
    p.write("test/e.browser.js", PASSING);
    let (code, text) = run(&p, &["-j", "2", "--timeout", "6s", "--grace", "2s"]);
    assert_eq!(code, 1, "{text}");
    for file in ["b", "c"] {
        let line = format!("✗ test/{file}.browser.js");
        let at = text.lines().find(|l| l.contains(&line) && l.contains('—'));
        assert!(
            at.is_some_and(|l| l.contains("timed out after 6s")),
            "{file}\n{text}"
        );
    }
    for file in ["a", "d", "e"] {
        assert!(
            text.contains(&format!("✓ test/{file}.browser.js")),
            "{file}\n{text}"
        );
    }
    assert_clean(&p, &text);
}

/// A renderer that dies (killed here, as an out-of-memory kill would) fails its file at once
/// with `page crashed`; the run goes on.
#[test]
fn a_crashed_page_fails_its_file() {
    if !require("a_crashed_page_fails_its_file", &["chromium"]) {
        return;
    }
    let p = project();
    let mut child = start_hanging(&p, &["crash"], &["--timeout", "100s"]);
    let tmp = p.join("tmp");
    // Every page renderer of this run's Chromium (a spare one included).
    for (pid, cmd) in processes_under(&tmp) {
        if cmd.contains("--type=renderer") && !cmd.contains("--top-chrome-webui") {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
    let code = wait(&mut child, Duration::from_secs(60)).expect("tapline ends after the crash");
    let text = format!("{}{}", p.read_text("stdout.txt"), p.read_text("stderr.txt"));
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("page crashed"), "{text}");
    assert!(!text.contains("timed out"), "{text}");
    assert_clean(&p, &text);
}

/// Chromium itself dying fails the files in flight, naming it; tapline does not hang.
#[test]
fn chromium_dying_fails_the_files_in_flight() {
    if !require("chromium_dying_fails_the_files_in_flight", &["chromium"]) {
        return;
    }
    let p = project();
    let mut child = start_hanging(&p, &["a", "b"], &["-j", "2", "--timeout", "100s"]);
    let tmp = p.join("tmp");
    for (pid, cmd) in processes_under(&tmp) {
        if cmd.contains("--remote-debugging-pipe") && !cmd.contains("--type=") {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
    let code = wait(&mut child, Duration::from_secs(60)).expect("tapline ends after Chromium died");
    let text = format!("{}{}", p.read_text("stdout.txt"), p.read_text("stderr.txt"));
    assert_eq!(code, 1, "{text}");
    let named = text
        .matches("Chromium exited while the page ran (killed by SIGKILL)")
        .count();
    assert!(named >= 2, "{text}");
    assert_clean(&p, &text);
}

#[test]
fn a_hundred_thousand_console_lines_arrive_in_order() {
    if !require(
        "a_hundred_thousand_console_lines_arrive_in_order",
        &["chromium"],
    ) {
        return;
    }
    let p = project();
    p.write(
        "test/many.browser.js",
        "console.log('1..1');\nfor (let i = 0; i < 100000; i++) console.log('# line ' + i);\nconsole.log('ok 1 - many');\n",
    );
    let (code, text) = run(&p, &["--timeout", "100s"]);
    assert_eq!(code, 0, "{text}");
    let log = p.read_text(".nogit/testlogs/test__many.browser.log");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 100_002);
    assert_eq!((lines[0], lines[100_001]), ("1..1", "ok 1 - many"));
    for (i, line) in lines[1..100_001].iter().enumerate() {
        assert_eq!(*line, format!("# line {i}"));
    }
}

#[test]
fn console_arguments_join_as_node_prints_them() {
    if !require("console_arguments_join_as_node_prints_them", &["chromium"]) {
        return;
    }
    let p = project();
    p.write(
        "test/args.browser.js",
        r##"console.log("1..1");
console.log("#", "several", 3, true, null, undefined, { a: 1, b: "x" }, [1, "two"]);
console.log("# %s is %d%%", "progress", 42.5);
console.log("# first\n# second");
console.group("# group");
console.log("# inside\n# too");
console.groupEnd();
console.info("# info");
console.debug("# debug");
console.warn("warned", 1);
console.error(new Error("to stderr"));
console.log("ok 1 - args");
"##,
    );
    let (code, text) = run(&p, &["--timeout", "60s"]);
    assert_eq!(code, 0, "{text}");
    let log = p.read_text(".nogit/testlogs/test__args.browser.log");
    let expected_start = "1..1\n# several 3 true null undefined { a: 1, b: 'x' } [ 1, 'two' ]\n# progress is 42%\n# first\n# second\n# group\n  # inside\n  # too\n# info\n# debug\nwarned 1\nError: to stderr\n    at test/args.browser.js:";
    assert!(log.starts_with(expected_start), "{log}");
    assert!(log.ends_with("ok 1 - args\n"), "{log}");
    // warn and error went to stderr: shown as the file's stderr, not parsed as TAP.
    let jsonl = p.tapline(&["run", "--format", "jsonl", "test/args.browser.js"]);
    let stderr: Vec<&str> = jsonl
        .stdout
        .lines()
        .filter(|l| l.starts_with("{\"type\":\"stderr\""))
        .collect();
    assert!(
        stderr.iter().any(|l| l.contains("\"text\":\"warned 1\"")),
        "{}",
        jsonl.both()
    );
    assert!(
        stderr
            .iter()
            .any(|l| l.contains("\"text\":\"Error: to stderr\"")),
        "{}",
        jsonl.both()
    );
    assert!(
        !stderr.iter().any(|l| l.contains("# info")),
        "{}",
        jsonl.both()
    );
}

/// `-j4` over 8 files: one Chromium for all of them, never more, and none afterwards.
#[test]
fn eight_files_four_at_a_time_share_one_chromium() {
    if !require(
        "eight_files_four_at_a_time_share_one_chromium",
        &["chromium"],
    ) {
        return;
    }
    let p = project();
    for i in 0..8 {
        p.write(
            &format!("test/f{i}.browser.js"),
            "console.log('1..1');\nawait new Promise((r) => setTimeout(r, 700));\nconsole.log('ok 1 - waited');\n",
        );
    }
    let mut child = spawn(&p, &["-j", "4", "--timeout", "100s"]);
    let tmp = p.join("tmp");
    let mut most = 0;
    let mut seen = 0;
    let mut at_most = Vec::new();
    let code = loop {
        let processes = processes_under(&tmp);
        let now = browsers(&processes);
        if now > most {
            at_most = processes;
        }
        most = most.max(now);
        seen += usize::from(now > 0);
        if let Ok(Some(status)) = child.try_wait() {
            break status.code().unwrap_or(-1);
        }
        std::thread::sleep(Duration::from_millis(30));
    };
    let text = format!("{}{}", p.read_text("stdout.txt"), p.read_text("stderr.txt"));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("8 files") && text.contains("8 passed"),
        "{text}"
    );
    assert!(seen > 0, "never saw the run's Chromium\n{text}");
    assert_eq!(
        most, 1,
        "more than one Chromium at once: {at_most:#?}\n{text}"
    );
    assert_clean(&p, &text);
}

/// Ctrl-C mid-run: tapline stops with 130 and no Chromium process of the run is left.
#[test]
fn ctrl_c_leaves_no_chromium_behind() {
    if !require("ctrl_c_leaves_no_chromium_behind", &["chromium"]) {
        return;
    }
    let p = project();
    let mut child = start_hanging(&p, &["a", "b"], &["-j", "2", "--timeout", "100s"]);
    let tmp = p.join("tmp");
    assert!(
        browsers(&processes_under(&tmp)) == 1,
        "{:?}",
        processes_under(&tmp)
    );
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    let code = wait(&mut child, Duration::from_secs(60)).expect("tapline stops");
    let text = format!("{}{}", p.read_text("stdout.txt"), p.read_text("stderr.txt"));
    assert_eq!(code, 130, "{text}");
    assert_clean(&p, &text);
}

/// tapline killed outright (no chance to clean up): PR_SET_PDEATHSIG takes Chromium down.
#[test]
fn tapline_killed_takes_chromium_with_it() {
    if !require("tapline_killed_takes_chromium_with_it", &["chromium"]) {
        return;
    }
    let p = project();
    let mut child = start_hanging(&p, &["a"], &["--timeout", "100s"]);
    let tmp = p.join("tmp");
    child.kill().expect("SIGKILL tapline");
    let _ = child.wait();
    let gone = poll(Duration::from_secs(20), || {
        browsers(&processes_under(&tmp)) == 0
    });
    assert!(
        gone,
        "Chromium outlived tapline: {:?}",
        processes_under(&tmp)
    );
    let all_gone = poll(Duration::from_secs(20), || processes_under(&tmp).is_empty());
    assert!(
        all_gone,
        "helpers outlived tapline: {:?}",
        processes_under(&tmp)
    );
}

/// No Chromium: browser files fail saying how to install it; the node files still run.
#[test]
fn without_chromium_browser_files_fail_and_the_rest_runs() {
    let p = project();
    p.write("test/a.browser.js", PASSING);
    p.write(
        "test/b.test.js",
        "console.log('1..1'); console.log('ok 1 - node');\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env("TAPLINE_CHROMIUM", "/no/such/chromium")
        .args(["run"])
        .output()
        .expect("tapline runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("✓ test/b.test.js"), "{text}");
    assert!(
        text.contains("/no/such/chromium") && text.contains("apt-get install chromium"),
        "{text}"
    );
}

/// `--list` says which browser runs a browser file, and `--no-sandbox` when running as root.
#[test]
fn list_names_the_browser_and_its_sandbox() {
    if !require("list_names_the_browser_and_its_sandbox", &["chromium"]) {
        return;
    }
    let p = project();
    p.write("test/a.browser.js", PASSING);
    let ran = p.run(&["--list"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let line = ran
        .stdout
        .lines()
        .find(|l| l.starts_with("test/a.browser.js\t"))
        .expect("listed");
    assert!(
        line.contains("chrom") && line.contains("--headless=new"),
        "{line}"
    );
    let root = rustix::process::geteuid().is_root();
    assert_eq!(line.contains("--no-sandbox"), root, "{line}");
}

/// `.nonci.` files are skipped under CI, as tstest skips them, and run elsewhere.
#[test]
fn nonci_files_skip_under_ci() {
    let p = project();
    p.write(
        "test/a.nonci.test.js",
        "console.log('1..1'); console.log('ok 1 - local only');\n",
    );
    p.write(
        "test/b.test.js",
        "console.log('1..1'); console.log('ok 1 - always');\n",
    );
    let ci = p.run(&["--format", "jsonl"]);
    assert_eq!(ci.code, 0, "{}", ci.both());
    assert!(!ci.stdout.contains("local only"), "{}", ci.both());
    assert!(
        ci.stdout.contains("a .nonci. file does not run under CI"),
        "{}",
        ci.both()
    );
    let local = p
        .command(&["--format", "jsonl"])
        .env_remove("CI")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&local.stdout);
    assert!(text.contains("local only"), "{text}");
}

/// `--max-output` holds for a page's console as for a child's output.
#[test]
fn max_output_stops_a_chatty_page() {
    if !require("max_output_stops_a_chatty_page", &["chromium"]) {
        return;
    }
    let p = project();
    p.write(
        "test/chatty.browser.js",
        "console.log('1..1');\nfor (;;) { console.log('# ' + 'x'.repeat(100)); await null; }\n",
    );
    let (code, text) = run(&p, &["--max-output", "64K", "--timeout", "60s"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("exceeded output limit 64 KiB (stopped; the log keeps what it wrote)"),
        "{text}"
    );
    assert!(!text.contains("timed out"), "{text}");
    assert_clean(&p, &text);
}

/// Without esbuild a TypeScript browser file fails saying how to get it, before any Chromium
/// starts; a JavaScript one beside it runs.
#[test]
fn a_typescript_browser_file_without_esbuild_says_how_to_get_it() {
    let test = "a_typescript_browser_file_without_esbuild_says_how_to_get_it";
    if !require(test, &["chromium"]) {
        return;
    }
    let path = "/usr/bin:/bin";
    if std::env::split_paths(path).any(|d| d.join("esbuild").exists()) {
        unmet(
            test,
            &format!(
                "a PATH without esbuild: it is installed in {path} (CI's is in target/ci-tools)"
            ),
        );
        return;
    }
    let p = project();
    p.write(
        "test/test.browser.ts",
        "console.log('1..1'); console.log('ok 1');\n",
    );
    p.write("test/a.browser.js", PASSING);
    let out = p
        .command(&[])
        .env("PATH", path)
        .env("TMPDIR", p.join("tmp"))
        .output()
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("✓ test/a.browser.js"), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("✗ test/test.browser.ts") && l.contains('—'));
    assert!(
        line.is_some_and(|l| l.contains("npm install --save-dev esbuild")),
        "{text}"
    );
}

/// `--sandbox` wraps the node files in bubblewrap and leaves the browser files to Chromium
/// (docs/browser.md: why); both kinds run.
#[test]
fn sandbox_runs_node_files_in_bwrap_and_browser_files_in_chromium() {
    if !require(
        "sandbox_runs_node_files_in_bwrap_and_browser_files_in_chromium",
        &["chromium", "bwrap", "node"],
    ) {
        return;
    }
    let p = project();
    p.write("test/a.browser.js", PASSING);
    p.write(
        "test/b.test.js",
        "console.log('1..1'); console.log('ok 1 - node');\n",
    );
    let (code, text) = run(&p, &["--sandbox", "--timeout", "60s"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("✓ test/a.browser.js") && text.contains("✓ test/b.test.js"),
        "{text}"
    );
}

/// The two ends without the harness's word or with it too early: a page whose plan is
/// complete ends after a quiet moment though its module never settles; a module that settled
/// short of its plan ends once nothing is pending (issue 25: no timer left), and the plan says
/// what is missing. Neither waits for the timeout.
#[test]
fn a_page_ends_by_its_plan_or_its_silence() {
    if !require("a_page_ends_by_its_plan_or_its_silence", &["chromium"]) {
        return;
    }
    let p = project();
    p.write(
        "test/open.browser.js",
        "console.log('1..1'); console.log('ok 1 - done, but a handle stays open');\nawait new Promise(() => {});\n",
    );
    p.write(
        "test/short.browser.js",
        "console.log('1..2'); console.log('ok 1 - the only one');\n",
    );
    p.write(
        "test/later.browser.js",
        "console.log('1..1');\nsetTimeout(() => console.log('ok 1 - from a timer after the module settled'), 300);\n",
    );
    let (code, text) = run(&p, &["-j", "3", "--timeout", "90s"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("✓ test/open.browser.js"), "{text}");
    assert!(text.contains("✓ test/later.browser.js"), "{text}");
    let short = text
        .lines()
        .find(|l| l.contains("✗ test/short.browser.js") && l.contains('—'));
    assert!(
        short.is_some_and(|l| l.contains("planned 2, ran 1")),
        "{text}"
    );
    assert!(!text.contains("timed out"), "{text}");
}

/// The fake Chromium of test-data/fake-chromium (a stand-in speaking DevTools over the pipe).
fn fake_chromium() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/fake-chromium/fake-chromium")
}

/// A page that will not close within the grace: the files left run in a new Chromium, the
/// file's log says so, and both Chromiums are gone after the run. Chromium shows this only by
/// accident, so a stand-in that never answers `Target.closeTarget` plays it.
#[test]
fn a_page_that_will_not_close_restarts_chromium_for_the_files_left() {
    if !require(
        "a_page_that_will_not_close_restarts_chromium_for_the_files_left",
        &["python3"],
    ) {
        return;
    }
    let p = project();
    for f in ["a", "b", "c"] {
        p.write(
            &format!("test/{f}.browser.js"),
            "// the fake prints its own TAP\n",
        );
    }
    let out = p
        .command(&["-j", "1", "--order", "declared", "--grace", "300ms"])
        .env("TAPLINE_CHROMIUM", fake_chromium())
        .env("FAKE_CHROMIUM_HANG_CLOSE", "1")
        .env("TMPDIR", p.join("tmp"))
        .output()
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("3 files") && text.contains("3 passed"),
        "{text}"
    );
    let log = p.read_text(".nogit/testlogs/test__a.browser.log");
    assert_eq!(
        log,
        "1..1\nok 1 - from the fake\ntapline: the page did not close within the grace; Chromium is restarted for the files left\n"
    );
    assert_eq!(
        p.read_text(".nogit/testlogs/test__b.browser.log"),
        "1..1\nok 1 - from the fake\n"
    );
    let instances = p.read_text("fake-instances.txt");
    let pids: Vec<&str> = instances.lines().collect();
    assert_eq!(
        pids.len(),
        2,
        "one restart, then the one Chromium for b and c: {pids:?}"
    );
    assert_clean(&p, &text);
}

/// Issue 19's browser part: a browser file's trace is what its page loaded (its modules under
/// the project), kept beside the other traces, so `--affected-by` picks it by its modules.
#[test]
fn issue19_a_browser_files_trace_is_what_its_page_loaded() {
    if !require(
        "issue19_a_browser_files_trace_is_what_its_page_loaded",
        &["chromium"],
    ) {
        return;
    }
    let p = project();
    p.write("lib/x.js", "export const x = 1;\n");
    p.write("lib/y.js", "export const y = 2;\n");
    for (name, module) in [("a", "x"), ("b", "y")] {
        p.write(
            &format!("test/{name}.browser.js"),
            &format!(
                "import {{ {module} }} from '../lib/{module}.js';\nconsole.log('1..1');\nconsole.log('ok 1 - ' + {module});\n"
            ),
        );
    }
    let (code, text) = run(&p, &["-j", "2"]);
    assert_eq!(code, 0, "{text}");
    let trace = p.read_text(".nogit/testlogs/traces/test%2Fa.browser.js.trace");
    assert!(
        trace.contains("lib/x.js") && !trace.contains("lib/y.js"),
        "{trace}"
    );
    let (code, text) = run(&p, &["--affected-by", "lib/x.js"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("test/a.browser.js"), "{text}");
    assert!(
        !text.contains("✓ test/b.browser.js"),
        "b does not load lib/x.js:\n{text}"
    );
    assert!(text.contains("1 file"), "{text}");
}
