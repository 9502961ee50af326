//! The HTML report in a real browser (issue 8): a mixed run (passing, failing with diffs, v2
//! ERROR blocks, crash, timeout, bail out, hostile names and output) written with `-o`,
//! opened in headless Chromium with and without JavaScript. Every file and failure is
//! shown, no script from a child runs, and the page makes no network request.
use std::fs;
use std::net::TcpListener;
use std::path::Path;

use crate::util::browser::{self, open_tag};
use crate::util::{require, tool, Project};

const PASSING: &str = "cat <<'TAP'\nTAP version 14\n1..4\nok 1 - adds\nok 2 - subtracts\n\
ok 3 - multiplies # SKIP no multiplier\nnot ok 4 - divides by zero # TODO later\nTAP\n";

const DIFFS: &str = r#"cat <<'TAP'
TAP version 14
1..3
ok 1 - connects
not ok 2 - returns the user
  ---
  message: should be deeply equal
  wanted: {"name": "ada", "roles": ["admin", "dev"]}
  found: {"name": "bob", "roles": ["dev"]}
  at: test/diffs.sh:12:3
  ...
not ok 3 - greets
  ---
  message: should be equal
  wanted: "Hello, world!\nHow are you?"
  found: "Hello, World!\nHow are you?"
  ...
TAP
"#;

const V2: &str = r#"cat <<'TAP'
⟦TSTEST:PROTOCOL:2.0.0⟧
TAP version 13
1..2
ok 1 - adds numbers ⟦TSTEST:time:3⟧
not ok 2 - builds a config ⟦TSTEST:time:12⟧
⟦TSTEST:META:{"time":12,"file":"test/config.ts","line":42}⟧
⟦TSTEST:ERROR⟧
{"error": {"message": "Expected values to be strictly deep-equal",
  "expected": {"host": "localhost", "tls": false},
  "actual": {"host": "localhost", "tls": true},
  "stack": "AssertionError: Expected values\n    at test/config.ts:42:10"}}
⟦TSTEST:/ERROR⟧
TAP
exit 1
"#;

/// Everything a child could try: markup in names, output, diagnostics and a SKIP reason,
/// attribute breakouts, `</script>`, `]]>`, control bytes and colour codes, and requests to
/// a local canary (`PORT`) that must never be contacted.
const HOSTILE: &str = r#"cat <<'TAP'
TAP version 14
1..4
ok 1 - <script>document.title='pwned'</script>
printed <b>bold</b> & <script>document.body.setAttribute('data-pwned','output')</script>
TAP
printf 'control bytes: \001\007\033[31mred\033[0m ]]> </script></pre>\n'
cat <<'TAP'
not ok 2 - <img src=http://127.0.0.1:PORT/name.png onerror="document.body.setAttribute('data-pwned','name')">
  ---
  message: "</pre><script>document.title='pwned'</script> ]]> <!--"
  wanted: "<b>x</b>"
  found: "<i>x</i>"
  ...
ok 3 - " onmouseover="document.title='pwned'" x="
ok 4 - <link rel=stylesheet href=http://127.0.0.1:PORT/x.css> # SKIP <script>alert(1)</script>
TAP
"#;

const HOSTILE_FILE: &str = "test/we&ird <i>name</i>.sh";

#[test]
fn html_report_in_headless_chromium() {
    if !require("html_report_in_headless_chromium", &["chromium"]) {
        return;
    }
    let chromium = tool("chromium");
    let canary = TcpListener::bind("127.0.0.1:0").expect("bind the canary");
    canary.set_nonblocking(true).expect("non-blocking canary");
    let port = canary
        .local_addr()
        .expect("canary address")
        .port()
        .to_string();

    let p = mixed_project(&port);
    let mut args = RUN_ARGS.to_vec();
    args.extend(["-o", "report.html"]);
    let ran = p.run(&args);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let page = p.join("report.html");
    let html =
        fs::read_to_string(&page).unwrap_or_else(|e| panic!("no report ({e}):\n{}", ran.both()));
    keep(&page);
    assert_static_safety(&html, &port);

    let scratch = tempfile::tempdir().expect("scratch dir");
    let with_js = browser::load(&chromium, &page, "", scratch.path());
    // Without JavaScript: the same page less its one script (`--dump-dom` itself needs
    // scripting, so it cannot simply be turned off).
    let (head, tail) = html
        .split_once("<script>")
        .expect("the page has its script");
    let after = tail.split_once("</script>").expect("the script ends").1;
    let no_js_page = scratch.path().join("no-js.html");
    fs::write(&no_js_page, format!("{head}{after}")).expect("write the page without script");
    let without_js = browser::load(&chromium, &no_js_page, "", scratch.path());
    for (loaded, javascript) in [(&with_js, true), (&without_js, false)] {
        let dom = &loaded.dom;
        let context = format!("javascript: {javascript}, log:\n{}", loaded.log);
        // Every file and every failure. (The DOM serializer writes `"` in text as is.)
        for rel in [
            "test/pass.sh",
            "test/diffs.sh",
            "test/v2.sh",
            "test/crash.sh",
            "test/hang.sh",
            "test/bail.sh",
            "test/we&amp;ird &lt;i&gt;name&lt;/i&gt;.sh",
        ] {
            assert!(
                dom.contains(&format!(">{rel}</a>")),
                "file {rel} missing ({context})"
            );
        }
        assert_eq!(
            dom.matches("<article class=\"failure\"").count(),
            7,
            "4 failing points + crash, timeout, bail out ({context})"
        );
        for shown in [
            "returns the user",
            "\"name\": \"<mark>ada</mark>\"",
            "greets",
            "builds a config",
            "at test/config.ts:42",
            "\"tls\": <mark>",
            "killed by SIGSEGV",
            "timed out after 2s",
            "database is down",
            "&lt;img src=http://127.0.0.1:",
            "]]&gt; &lt;/script&gt;&lt;/pre&gt;",
            "\\u{1}\\u{7}red ]]&gt;",
            "printed &lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;",
            "log: .nogit/testlogs/",
        ] {
            assert!(dom.contains(shown), "missing {shown:?} ({context})\n{dom}");
        }
        // No child's script ran, no element of theirs exists.
        let title = dom
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or_default();
        assert!(
            title.starts_with("tapline: failed"),
            "title {title:?} ({context})"
        );
        assert!(
            !open_tag(dom, "body").contains("pwned"),
            "{}",
            open_tag(dom, "body")
        );
        assert_eq!(
            dom.matches("<script").count(),
            usize::from(javascript),
            "only the report's script ({context})"
        );
        for tag in ["<img", "<link", "<b>bold", "<i>name", "<i>x", "<iframe"] {
            assert!(
                !dom.contains(tag),
                "a child's {tag} became markup ({context})"
            );
        }
        assert!(
            !loaded.log.contains("Content Security Policy"),
            "CSP blocked something ({context})"
        );
        assert!(
            loaded.page_requests.is_empty(),
            "page requests: {:?}",
            loaded.page_requests
        );
    }
    // The script ran under the CSP (its hash is right): the toolbar shows, with its count.
    assert!(!open_tag(&with_js.dom, "div class=\"toolbar\"").contains("hidden"));
    assert!(
        with_js.dom.contains("id=\"shown\">7 of 7 files<"),
        "{}",
        with_js.dom
    );
    // Filters come from the address: failing files whose path or reasons say "diffs".
    let filtered = browser::load(&chromium, &page, "status=fail&q=diffs", scratch.path());
    assert!(
        filtered.dom.contains("id=\"shown\">1 of 7 files<"),
        "{}",
        filtered.dom
    );
    assert!(
        !open_tag(&filtered.dom, "tr data-st=\"fail\" data-k=\"test/diffs.sh").contains("hidden")
    );
    assert!(open_tag(&filtered.dom, "tr data-st=\"pass\"").contains("hidden"));
    assert!(open_tag(&filtered.dom, "tr data-st=\"fail\" data-k=\"test/v2.sh").contains("hidden"));
    // Without JavaScript the filters stay hidden and everything else is there.
    assert!(open_tag(&without_js.dom, "div class=\"toolbar\"").contains("hidden"));
    assert!(
        canary.accept().is_err(),
        "the canary at 127.0.0.1:{port} was contacted"
    );
    println!(
        "chromium loaded the report in {:?} (with JavaScript) and {:?} (without)",
        with_js.took, without_js.took
    );
}

/// A project with one file of each kind the report must show.
fn mixed_project(port: &str) -> Project {
    let p = Project::new();
    p.write("test/pass.sh", PASSING)
        .write("test/diffs.sh", DIFFS)
        .write("test/v2.sh", V2)
        .write(
            "test/crash.sh",
            "ulimit -c 0\necho '1..2'\necho 'ok 1 - before the crash'\nkill -SEGV $$\n",
        )
        .write(
            "test/hang.sh",
            "trap '' TERM\necho '1..1'\nwhile :; do sleep 1; done\n",
        )
        .write(
            "test/bail.sh",
            "echo '1..3'\necho 'ok 1 - connects'\necho 'Bail out! database is down'\n",
        )
        .write(HOSTILE_FILE, HOSTILE.replace("PORT", port));
    p
}

// `--keep-going`: the report shows every file, the one that bails out included.
const RUN_ARGS: [&str; 6] = ["-q", "--timeout", "2s", "--grace", "200ms", "--keep-going"];

#[test]
fn html_report_replayed_equals_live_and_parse_writes_one() {
    let p = mixed_project("9");
    let mut args = RUN_ARGS.to_vec();
    args.extend(["-o", "live.html", "-o", "run.jsonl"]);
    let ran = p.run(&args);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let live = fs::read_to_string(p.join("live.html")).expect("live report");
    let replay = std::process::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .args(["report", "run.jsonl", "-o", "replay.html"])
        .output()
        .expect("tapline report runs");
    assert_eq!(replay.status.code(), Some(1), "{replay:?}");
    let replayed = fs::read_to_string(p.join("replay.html")).expect("replayed report");
    // Byte for byte: the header's time, host, directory and command come from the recording.
    assert_eq!(replayed, live);

    p.write(
        "stream.tap",
        DIFFS
            .lines()
            .skip(1)
            .take_while(|l| *l != "TAP")
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let parsed = std::process::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .args(["parse", "stream.tap", "-o", "parse.html"])
        .output()
        .expect("tapline parse runs");
    assert_eq!(parsed.status.code(), Some(1), "{parsed:?}");
    let page = fs::read_to_string(p.join("parse.html")).expect("parse report");
    assert_eq!(
        page.matches("<article class=\"failure\"").count(),
        2,
        "{page}"
    );
    assert!(page.contains(">stream.tap</a>"), "{page}");
    assert!(
        page.contains("&quot;name&quot;: &quot;<mark>ada</mark>&quot;"),
        "{page}"
    );
}

/// Checks on the file itself: nothing to fetch, no markup from the run.
fn assert_static_safety(html: &str, port: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'")
    );
    // The only URLs are the escaped text of the hostile test, never an attribute value.
    let body = html
        .split("</style>")
        .nth(1)
        .and_then(|rest| rest.split("<script>").next())
        .unwrap_or_default();
    for tag in body.split('<').skip(1).filter_map(|t| t.split('>').next()) {
        let markup: String = tag.split('"').step_by(2).collect();
        for bad in ["src=", "href=http", "style=", " on"] {
            assert!(!markup.contains(bad), "<{tag}> has {bad}");
        }
    }
    assert!(
        html.contains(&format!("127.0.0.1:{port}")),
        "the hostile names are shown"
    );
    for raw in ['\u{1}', '\u{7}', '\u{1b}'] {
        assert!(!html.contains(raw), "raw control byte {raw:?} in the page");
    }
}

/// Keeps the report for a look (`TAPLINE_HTML_KEEP=DIR`), e.g. to take a screenshot.
fn keep(page: &Path) {
    if let Some(dir) = std::env::var_os("TAPLINE_HTML_KEEP") {
        let _ = fs::copy(page, Path::new(&dir).join("report.html"));
    }
}
