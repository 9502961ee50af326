//! Issue 26: browser files share one Chromium, and nothing of one file's page may reach the
//! next: the guard any cheaper page (a reused context, a page opened ahead) must pass.
use crate::util::browser::path_without_esbuild;
use crate::util::{require, Project};
use std::path::Path;

/// What a file checks on arrival (nothing an earlier file left: a global, web storage, a
/// cookie, an IndexedDB database) and then leaves for the next one, with a timer that names
/// its file.
const LEAVES_STATE: &str = r#"console.log('1..6');
const say = (ok, what) => console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
say(globalThis.leaked === undefined, 'no global of an earlier file');
say(localStorage.getItem('leaked') === null, 'no localStorage of an earlier file');
say(sessionStorage.getItem('leaked') === null, 'no sessionStorage of an earlier file');
say(!document.cookie.includes('leaked'), 'no cookie of an earlier file');
const dbs = await indexedDB.databases();
say(!dbs.some((d) => d.name === 'leaked'), 'no IndexedDB database of an earlier file');
globalThis.leaked = 1;
localStorage.setItem('leaked', '1');
sessionStorage.setItem('leaked', '1');
document.cookie = 'leaked=1; max-age=3600; path=/';
await new Promise((done) => { const open = indexedDB.open('leaked'); open.onsuccess = open.onerror = done; });
// Pending when the plan completes: it may fire in its own page (a loaded machine), never in
// another file's.
const me = import.meta.url.split('/').pop();
setTimeout(() => console.log(`# a timer set by ${me}`), 50);
// What runs as the page is left, or from a popup or another file on the same channel, must
// not reach the next file either.
const leave = () => {
  document.cookie = 'leaked=1; max-age=3600; path=/';
  localStorage.setItem('leaked', '1');
  sessionStorage.setItem('leaked', '1');
};
for (const event of ['pagehide', 'unload', 'beforeunload', 'visibilitychange', 'freeze']) {
  addEventListener(event, leave);
  document.addEventListener(event, leave);
}
const channel = new BroadcastChannel('leaked');
channel.onmessage = (m) => console.log(`not ok - a message from another file: ${m.data}`);
channel.postMessage(me);
const popup = window.open('about:blank');
if (popup) popup.setTimeout(() => { popup.document.cookie = 'leaked=1; max-age=3600; path=/'; }, 100);
history.pushState({}, '', '?pushed');
say(localStorage.getItem('leaked') === '1', 'what it stored, it reads back');
"#;

#[test]
fn issue26_pages_share_nothing_between_files() {
    let test = "issue26_pages_share_nothing_between_files";
    if !require(test, &["chromium"]) {
        return;
    }
    let p = Project::new();
    for i in 0..6 {
        p.write(&format!("test/f{i}.browser.js"), LEAVES_STATE);
    }
    // One at a time (each file's page opened while the one before ran), and then two at once.
    for jobs in ["1", "2"] {
        let out = p
            .command(&["-j", jobs, "--timeout", "100s"])
            .env("PATH", path_without_esbuild())
            .output()
            .expect("tapline runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "-j{jobs}:\n{text}");
        assert!(
            text.contains("6 files") && text.contains("36 passed"),
            "-j{jobs}:\n{text}"
        );
        for i in 0..6 {
            let log = p.read_text(&format!(".nogit/testlogs/test__f{i}.browser.log"));
            assert!(!log.contains("not ok"), "-j{jobs} f{i}:\n{log}");
            let timers = log.lines().filter(|l| l.starts_with("# a timer set by "));
            for line in timers {
                assert!(
                    line.ends_with(&format!(" f{i}.browser.js")),
                    "-j{jobs}: a timer of another file fired in f{i}'s page:\n{log}"
                );
            }
        }
    }
}

/// What makes a page cheap: one browser context and page per job, navigated afresh for each
/// file and rested between files, not a context (a renderer process) a file. Counted on the
/// stand-in Chromium of test-data/fake-chromium, which logs the calls it gets.
#[test]
fn issue26_a_page_serves_file_after_file_in_one_context_per_job() {
    if !require(
        "issue26_a_page_serves_file_after_file_in_one_context_per_job",
        &["python3"],
    ) {
        return;
    }
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/fake-chromium/fake-chromium");
    for (jobs, contexts) in [("1", 1), ("2", 2)] {
        let p = Project::new();
        for i in 0..6 {
            p.write(
                &format!("test/f{i}.browser.js"),
                "// the fake prints its own TAP\n",
            );
        }
        let out = p
            .command(&["-j", jobs])
            .env("TAPLINE_CHROMIUM", &fake)
            .output()
            .expect("tapline runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "-j{jobs}:\n{text}");
        let calls = p.read_text("fake-calls.txt");
        let count = |method: &str| calls.lines().filter(|l| *l == method).count();
        assert!(
            (1..=contexts).contains(&count("Target.createBrowserContext")),
            "-j{jobs}: {} contexts for 6 files:\n{calls}",
            count("Target.createBrowserContext")
        );
        assert_eq!(count("Page.navigate"), 6, "-j{jobs}:\n{calls}");
        assert_eq!(
            count("Page.setWebLifecycleState"),
            6,
            "-j{jobs}: each page rested:\n{calls}"
        );
        assert_eq!(count("Storage.clearDataForOrigin"), 6, "-j{jobs}:\n{calls}");
        assert_eq!(
            count("Runtime.enable"),
            count("Target.createBrowserContext")
        );
    }
}
