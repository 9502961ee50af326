//! Headless Chromium for the HTML report tests: the page's DOM after its scripts ran, what
//! its console said, and every network request it made (from Chromium's net log); and the
//! PATH a browser test runs under to go without esbuild.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Long enough for a cold Chromium on a loaded 2-core machine; only a hang gets near it.
const LIMIT: Duration = Duration::from_secs(120);

/// What loading a page showed.
pub(crate) struct Loaded {
    /// The DOM serialized after the load event (scripts have run).
    pub(crate) dom: String,
    /// Chromium's log, including the page's console messages and CSP violations.
    pub(crate) log: String,
    /// URLs the page itself asked the network for (not Chromium's own background requests).
    pub(crate) page_requests: Vec<String>,
    pub(crate) took: Duration,
}

/// Loads `page` (with `#fragment` when not empty) in a fresh headless Chromium profile under
/// `scratch` and returns the DOM after the load event, the log and the page's network
/// requests.
pub(crate) fn load(chromium: &Path, page: &Path, fragment: &str, scratch: &Path) -> Loaded {
    let stem = page
        .file_stem()
        .map_or_else(|| "page".to_owned(), |s| s.to_string_lossy().into_owned());
    let stem = format!("{stem}{}", fragment.len());
    let profile = scratch.join(format!("{stem}.profile"));
    let net_log = scratch.join(format!("{stem}.netlog.json"));
    let out_path = scratch.join(format!("{stem}.dom.html"));
    let err_path = scratch.join(format!("{stem}.chromium.log"));
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--log-net-log={}", net_log.display()));
    cmd.arg("--dump-dom")
        .arg(if fragment.is_empty() {
            format!("file://{}", page.display())
        } else {
            format!("file://{}#{fragment}", page.display())
        })
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).expect("create dom file"))
        .stderr(fs::File::create(&err_path).expect("create log file"));
    let started = Instant::now();
    let mut child = cmd.spawn().expect("start chromium");
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish loading {} in {LIMIT:?}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = started.elapsed();
    let dom = fs::read_to_string(&out_path).expect("read the dumped DOM");
    let log = fs::read_to_string(&err_path).unwrap_or_default();
    let net = fs::read_to_string(&net_log).unwrap_or_default();
    Loaded {
        dom,
        log,
        page_requests: page_requests(&net),
        took,
    }
}

/// The net log holds one event per line. A request's start names its initiator: Chromium's
/// own background requests (update checks, time sync) have none ("not an origin"); anything
/// the page asked for has the page's origin (`null` for a file).
fn page_requests(net_log: &str) -> Vec<String> {
    net_log
        .lines()
        .filter(|line| line.contains("\"initiator\":") && line.contains("\"url\":\""))
        .filter(|line| !line.contains("\"initiator\":\"not an origin\""))
        .filter_map(|line| {
            let start = line.find("\"url\":\"")? + 7;
            let rest = line.get(start..)?;
            Some(rest.get(..rest.find('"')?)?.to_owned())
        })
        .collect()
}

/// The attributes of the first `<tag …>` in `dom`.
pub(crate) fn open_tag<'a>(dom: &'a str, tag: &str) -> &'a str {
    let start = dom
        .find(&format!("<{tag}"))
        .unwrap_or_else(|| panic!("no <{tag}> in the DOM"));
    let rest = dom.get(start..).unwrap_or_default();
    rest.get(..rest.find('>').unwrap_or(rest.len()))
        .unwrap_or_default()
}

/// `PATH` without any folder that holds an esbuild.
pub(crate) fn path_without_esbuild() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("esbuild").exists())
        .collect();
    std::env::join_paths(kept).expect("PATH joins")
}
