//! A browser page's line coverage (`tapline run --coverage`): Chromium's own precise coverage,
//! read through DevTools and written where node's would be, so that one reader counts both
//! (the run's `coverage::v8`).
//!
//! - Before the harness loads: `Profiler.enable`, then `Profiler.startPreciseCoverage` with
//!   `callCount` and `detailed` (block coverage, as node's `NODE_V8_COVERAGE` gives), so the
//!   module's first statement is counted.
//! - Once the page has ended, before it is rested for the next file or closed:
//!   `Profiler.takePreciseCoverage`, then the profiler is stopped (the next file starts its own).
//!   Its scripts served from the page's mount are named by the file served (the project's
//!   own file when it is served natively); the harness page and other origins are left out.
//!   A bundle's script carries its esbuild source map and line lengths as node's
//!   `source-map-cache` does, so its sources get the hits, counted as c8 counts them
//!   (the run's `coverage::remap`), and nothing needs the bundle once the page is gone.
//! - The whole is written as `browser-<n>.json` into the test file's coverage folder, in the
//!   form of a `NODE_V8_COVERAGE` file marked `"tapline-lang": "browser"`.
//!
//! Nothing here fails the page or writes to its output: a call Chromium refuses, or a page
//! that does not answer within the grace (a renderer stuck in a loop), leaves the page's lines
//! out, and [`NOTE`] in the folder says why, which the run's summary shows once.
use super::cdp::Cdp;
use super::prepare::Prepared;
use crate::util::paths::from_file_url;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file in the coverage folder saying why a page's lines are missing.
pub(crate) const NOTE: &str = "tapline-browser-note.txt";

/// Starts precise coverage in the page of `session` (before anything runs in it).
pub(crate) async fn start(cdp: &Cdp, session: &str, out: &Path, bound: Duration) {
    let calls = async {
        cdp.call(session, "Profiler.enable", json!({})).await?;
        let params = json!({ "callCount": true, "detailed": true });
        cdp.call(session, "Profiler.startPreciseCoverage", params)
            .await
    };
    match tokio::time::timeout(bound, calls).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => note(out, &format!("failed to start the coverage: {e}")),
        Err(_) => note(out, "failed to start the coverage: Chromium did not answer"),
    }
}

/// Stops the page's coverage, so that the next file in the page starts its own; `false` when
/// Chromium refused or did not answer within `bound` (the page is then not used again).
pub(crate) async fn stop(cdp: &Cdp, session: &str, bound: Duration) -> bool {
    let calls = async {
        cdp.call(session, "Profiler.stopPreciseCoverage", json!({}))
            .await?;
        cdp.call(session, "Profiler.disable", json!({})).await
    };
    matches!(tokio::time::timeout(bound, calls).await, Ok(Ok(_)))
}

/// Takes the page's coverage and writes it into `out`; `origin` is the URL prefix of the
/// page's mount (`http://127.0.0.1:PORT/KEY/`), served from `prepared.serve_root`.
pub(crate) async fn take(
    cdp: &Cdp,
    session: &str,
    out: &Path,
    origin: &str,
    prepared: &Prepared,
    bound: Duration,
) {
    let call = cdp.call(session, "Profiler.takePreciseCoverage", json!({}));
    let taken = match tokio::time::timeout(bound, call).await {
        Ok(Ok(taken)) => taken,
        Ok(Err(e)) => return note(out, &format!("failed to take the coverage: {e}")),
        Err(_) => {
            let why = "failed to take the coverage: the page did not answer within the grace";
            return note(out, why);
        }
    };
    let file = as_node_writes(&taken, origin, prepared);
    if let Err(e) = write(out, &file) {
        note(
            out,
            &format!("failed to write the coverage into {}: {e}", out.display()),
        );
    }
}

/// Chromium's answer as a `NODE_V8_COVERAGE` file: the mount's scripts named by `file://`
/// URLs of what was served, a bundle's map beside it.
fn as_node_writes(taken: &Value, origin: &str, prepared: &Prepared) -> Value {
    let scripts = taken.get("result").and_then(Value::as_array);
    let mut result = Vec::new();
    let mut maps = Map::new();
    for script in scripts.into_iter().flatten() {
        let url = script.get("url").and_then(Value::as_str).unwrap_or("");
        let Some(rest) = url.strip_prefix(origin) else {
            continue;
        };
        let rest = rest.split(['?', '#']).next().unwrap_or("");
        if rest.starts_with("__tapline__/") {
            continue;
        }
        // `rest` is %-escaped already: the root's own `%`s are escaped to match.
        let root = prepared.serve_root.to_string_lossy().replace('%', "%25");
        let file_url = format!("file://{}/{rest}", root.trim_end_matches('/'));
        let is_bundle = (prepared.bundle.as_ref()).is_some_and(|b| b.entry == rest);
        let served = from_file_url(&file_url);
        if let (true, Some(bundle), Some(served)) = (is_bundle, &prepared.bundle, served) {
            if let Some(cached) = cached_map(&served, bundle.map_path()) {
                maps.insert(file_url.clone(), cached);
            }
        }
        let functions = script.get("functions").cloned().unwrap_or(json!([]));
        result.push(json!({ "url": file_url, "functions": functions }));
    }
    json!({
        "result": result,
        "source-map-cache": maps,
        "tapline-lang": "browser",
    })
}

/// A bundle's `source-map-cache` entry as node writes one: the generated lines' lengths in
/// UTF-16 units (what V8's offsets count) and the map.
fn cached_map(bundle: &Path, map: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(bundle).ok()?;
    let data: Value = serde_json::from_slice(&std::fs::read(map).ok()?).ok()?;
    let lengths: Vec<usize> = (text.split('\n'))
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .map(|l| l.chars().map(char::len_utf16).sum())
        .collect();
    Some(json!({ "lineLengths": lengths, "data": data }))
}

fn write(out: &Path, file: &Value) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join(numbered(out)), serde_json::to_vec(file)?)
}

/// `browser-<n>.json`, the first `n` not taken (a `.both` file's two halves write apart).
fn numbered(out: &Path) -> PathBuf {
    (0..)
        .map(|n| PathBuf::from(format!("browser-{n}.json")))
        .find(|name| !out.join(name).exists())
        .unwrap_or_default()
}

fn note(out: &Path, why: &str) {
    let _ = std::fs::create_dir_all(out);
    let _ = std::fs::write(out.join(NOTE), why);
}

/// Why a page's lines are missing, if a page of the test file said.
pub(crate) fn read_note(out: &Path) -> Option<String> {
    let why = std::fs::read_to_string(out.join(NOTE)).ok()?;
    Some(format!("browser pages: {}", why.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_mounts_scripts_become_files_and_a_bundle_brings_its_map() {
        let dir = crate::harness::browser::test_project(&[
            (
                "bundle/test/a.browser.ts.js",
                "let a = 1;\r\nconsole.log(\"é\");\n",
            ),
            (
                "bundle/test/a.browser.ts.js.map",
                r#"{"version":3,"sources":["../../p/a.ts"],"mappings":"AAAA"}"#,
            ),
        ]);
        let serve_root = dir.path().join("bundle");
        let native = Prepared {
            serve_root: serve_root.clone(),
            entry: "test/a.browser.ts.js".into(),
            inputs: Vec::new(),
            bundle: None,
        };
        let taken = json!({ "result": [
            { "url": "http://127.0.0.1:9/k/test/a%20b.js?x=1", "functions": [{ "ranges": [] }] },
            { "url": "http://127.0.0.1:9/k/__tapline__/harness.html", "functions": [] },
            { "url": "http://elsewhere/k/x.js", "functions": [] },
        ]});
        let file = as_node_writes(&taken, "http://127.0.0.1:9/k/", &native);
        let url = format!("file://{}/test/a%20b.js", serve_root.display());
        assert_eq!(
            file["result"],
            json!([{ "url": url, "functions": [{ "ranges": [] }] }])
        );
        assert_eq!(file["tapline-lang"], "browser");
        let bundled = crate::harness::browser::bundle::tests::bundle_for_test(
            &serve_root,
            "test/a.browser.ts.js",
            &serve_root.join("test/a.browser.ts.js.map"),
        );
        let prepared = Prepared {
            bundle: Some(Arc::new(bundled)),
            ..native
        };
        let taken = json!({ "result": [
            { "url": "http://127.0.0.1:9/k/test/a.browser.ts.js", "functions": [] },
        ]});
        let file = as_node_writes(&taken, "http://127.0.0.1:9/k/", &prepared);
        let url = format!("file://{}/test/a.browser.ts.js", serve_root.display());
        let cached = &file["source-map-cache"][&url];
        assert_eq!(
            cached["lineLengths"],
            json!([10, 17, 0]),
            "UTF-16 units, no \\r"
        );
        assert_eq!(cached["data"]["sources"], json!(["../../p/a.ts"]));
    }

    #[test]
    fn a_note_says_why_once_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("3.v8");
        assert_eq!(read_note(&out), None);
        note(
            &out,
            "failed to take the coverage: the page did not answer within the grace",
        );
        assert_eq!(
            read_note(&out).as_deref(),
            Some("browser pages: failed to take the coverage: the page did not answer within the grace")
        );
        assert_eq!(numbered(&out), PathBuf::from("browser-0.json"));
        std::fs::write(out.join("browser-0.json"), "{}").expect("write");
        assert_eq!(numbered(&out), PathBuf::from("browser-1.json"));
    }
}
