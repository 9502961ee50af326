//! The page for a mixed run with hostile text: structure, escaping and the CSP.
use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;

use super::*;
use crate::event::run::Tally;
use crate::explain::diff::{compute, Budget};

const HOSTILE: &str = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>";

fn point(id: u64, name: &str, status: PointStatus) -> PointView {
    PointView {
        id: Some(id),
        name: name.to_owned(),
        status,
        reason: None,
        duration_ms: None,
    }
}

fn sample_run() -> RunView {
    let diff = compute(
        &json!({"user": {"name": "ada", "roles": ["admin", "dev"]}, "n": 1}),
        &json!({"user": {"name": "bob", "roles": ["dev"]}, "n": 1}),
        &Budget::default(),
        true,
    );
    let text_diff = compute(
        &json!("line one\nline two\nline three"),
        &json!("line one\nline 2\nline three\n"),
        &Budget::default(),
        true,
    );
    RunView {
        ok: false,
        interrupted: false,
        started: Some(UNIX_EPOCH + Duration::from_secs(1_795_421_421)),
        host: Some("ci-runner-7".into()),
        cwd: Some("/home/dev/project".into()),
        command: Some("tapline run -o report.html".into()),
        duration: Duration::from_millis(3_456),
        failures_left_out: 0,
        stability: None,
        coverage: None,
        test_filter: None,
        tests: Tally {
            pass: 7,
            fail: 3,
            skip: 1,
            todo: 1,
            ..Tally::default()
        },
        files: vec![
            FileView {
                rel: "test/users.test.js".into(),
                status: FileStatus::Fail,
                duration: Some(Duration::from_millis(812)),
                tally: Tally {
                    pass: 3,
                    fail: 2,
                    skip: 1,
                    todo: 0,
                    ..Tally::default()
                },
                reasons: vec!["2 failed test points".into()],
                log: Some(".nogit/testlogs/test__users.test.js.log".into()),
                command: Some("node test/users.test.js".into()),
                cases: Vec::new(),
                points: vec![
                    point(1, "creates a user", PointStatus::Pass),
                    point(2, "renames a user", PointStatus::Fail),
                    point(3, "lists users", PointStatus::Pass),
                    PointView {
                        reason: Some("needs a database".into()),
                        ..point(4, "deletes a user", PointStatus::Skip)
                    },
                    point(5, HOSTILE, PointStatus::Fail),
                    point(6, "counts users", PointStatus::Pass),
                ],
                failures: vec![
                    FailureView {
                        id: Some(2),
                        name: "renames a user".into(),
                        location: Some("test/users.test.js:42:7".into()),
                        message: Some("Expected values to be strictly deep-equal".into()),
                        other: vec![("operator".into(), "deepStrictEqual".into())],
                        diff: Some(diff),
                        stack: Some(
                            "AssertionError: Expected values\n    at rename (test/users.test.js:42:7)\n    at run (node:internal/test_runner:1:1)".into(),
                        ),
                        output: vec!["renaming ada…".into(), "\u{1b}[33mwarn\u{1b}[0m cache miss".into()],
                        ..FailureView::default()
                    },
                    FailureView {
                        id: Some(5),
                        name: HOSTILE.into(),
                        message: Some(format!("{HOSTILE} ]]> </script>")),
                        diff: Some(text_diff),
                        output: vec![format!("printed {HOSTILE}\u{7}\u{0}")],
                        ..FailureView::default()
                    },
                ],
                output_tail: Vec::new(),
                stdout: Vec::new(),
                stderr: Vec::new(),
                stream_lines_dropped: (0, 0),
                warnings: Vec::new(),
                points_dropped: 0,
                spooled: Vec::new(),
                failures_left_out: 0,
                attempts: 1,
                flaky: false,
                cached: false,
                earlier_attempts: Vec::new(),
            },
            FileView {
                rel: "test/crash.test.sh".into(),
                status: FileStatus::Fail,
                duration: Some(Duration::from_millis(95)),
                tally: Tally {
                    pass: 1,
                    ..Tally::default()
                },
                reasons: vec!["killed by SIGSEGV".into(), "planned 4, ran 1".into()],
                log: Some(".nogit/testlogs/test__crash.test.sh.log".into()),
                command: Some("bash test/crash.test.sh".into()),
                cases: Vec::new(),
                points: vec![point(1, "starts", PointStatus::Pass)],
                failures: Vec::new(),
                output_tail: vec!["Segmentation fault (core dumped)".into()],
                stdout: Vec::new(),
                stderr: Vec::new(),
                stream_lines_dropped: (0, 0),
                warnings: Vec::new(),
                points_dropped: 0,
                spooled: Vec::new(),
                failures_left_out: 0,
                attempts: 1,
                flaky: false,
                cached: false,
                earlier_attempts: Vec::new(),
            },
            FileView {
                rel: "test/math.test.ts".into(),
                status: FileStatus::Pass,
                duration: Some(Duration::from_millis(1_204)),
                tally: Tally {
                    pass: 3,
                    todo: 1,
                    ..Tally::default()
                },
                reasons: Vec::new(),
                log: Some(".nogit/testlogs/test__math.test.ts.log".into()),
                command: None,
                cases: Vec::new(),
                points: vec![
                    point(1, "adds", PointStatus::Pass),
                    point(2, "subtracts", PointStatus::Pass),
                    point(7, "multiplies", PointStatus::Pass),
                    point(8, "divides by zero", PointStatus::Todo),
                ],
                failures: Vec::new(),
                output_tail: Vec::new(),
                stdout: Vec::new(),
                stderr: Vec::new(),
                stream_lines_dropped: (0, 0),
                warnings: Vec::new(),
                points_dropped: 0,
                spooled: Vec::new(),
                failures_left_out: 0,
                attempts: 2,
                flaky: true,
                cached: false,
                earlier_attempts: Vec::new(),
            },
            FileView {
                rel: "test/later.test.py".into(),
                status: FileStatus::NotRun,
                duration: None,
                tally: Tally::default(),
                reasons: Vec::new(),
                log: None,
                command: None,
                cases: Vec::new(),
                points: Vec::new(),
                failures: Vec::new(),
                output_tail: Vec::new(),
                stdout: Vec::new(),
                stderr: Vec::new(),
                stream_lines_dropped: (0, 0),
                warnings: Vec::new(),
                points_dropped: 0,
                spooled: Vec::new(),
                failures_left_out: 0,
                attempts: 1,
                flaky: false,
                cached: false,
                earlier_attempts: Vec::new(),
            },
        ],
    }
}

fn page(run: &RunView) -> String {
    let mut out = Vec::new();
    write_page(&mut out, run).expect("writing to a Vec cannot fail");
    let page = String::from_utf8(out).expect("the page is UTF-8");
    if let Some(path) = std::env::var_os("TAPLINE_HTML_SAMPLE") {
        std::fs::write(path, &page).expect("write the sample page");
    }
    page
}

#[test]
fn the_page_shows_every_file_and_failure() {
    let html = page(&sample_run());
    for rel in [
        "test/users.test.js",
        "test/crash.test.sh",
        "test/math.test.ts",
        "test/later.test.py",
    ] {
        assert!(html.contains(&format!(">{rel}</a>")), "{rel}");
    }
    assert_eq!(html.matches("<article class=\"failure\"").count(), 3);
    assert!(html.contains("killed by SIGSEGV; planned 4, ran 1"));
    assert!(html.contains("Segmentation fault (core dumped)"));
    assert!(html.contains("<div class=\"at mono\">at test/users.test.js:42:7</div>"));
    assert!(
        html.contains("&quot;name&quot;: &quot;<mark>ada</mark>&quot;,"),
        "{html}"
    );
    assert!(html.contains("log: .nogit/testlogs/test__users.test.js.log"));
    assert!(html.contains("id=\"verdict\">FAILED<"));
    assert!(html.contains("<span>on <b>ci-runner-7</b></span>"));
    assert!(html.contains("2026-11-23 08:10:21 UTC"));
    assert!(html.contains("<span class=\"note\">flaky: passed on attempt 2</span>"));
    // Point numbers follow the TAP ids: 7 after 2 needs an explicit value, 8 follows on.
    assert!(html.contains("<li value=\"7\">multiplies<li class=\"t\">divides by zero"));
}

#[test]
fn nothing_from_the_run_becomes_markup() {
    let html = page(&sample_run());
    // The page's own script is the only one, and it comes last.
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.rfind("<script>") > html.rfind("</footer>"));
    assert!(!html.contains("<img"));
    assert!(html.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"));
    assert!(!html.contains('\u{1b}'));
    assert!(!html.contains('\u{7}'));
    assert!(!html.contains('\u{0}'));
    assert!(
        html.contains("<span class=\"de\">- line two\n</span>")
            || html.contains("line <mark>two</mark>")
    );
    // Attribute values carry the same escaping.
    let keys: Vec<&str> = html.split("data-k=\"").skip(1).collect();
    for key in keys {
        let value = key.split('"').next().unwrap_or_default();
        assert!(!value.contains(['<', '>', '\'']), "{value}");
    }
}

#[test]
fn the_page_is_self_contained_and_locked_down() {
    let html = page(&sample_run());
    assert!(!html.contains("http:"), "no URL that could be fetched");
    assert!(!html.contains("https:"), "no URL that could be fetched");
    let body = html
        .split("</style>")
        .nth(1)
        .and_then(|rest| rest.split("<script>").next())
        .unwrap_or_default();
    for tag in body.split('<').skip(1).filter_map(|t| t.split('>').next()) {
        // Attribute values are escaped text (they hold no `"`); check the markup around them.
        let tag: String = tag.split('"').step_by(2).collect();
        assert!(!tag.contains("src="), "nothing to load: <{tag}>");
        assert!(
            !tag.contains("style="),
            "no style attributes (the CSP forbids them): <{tag}>"
        );
        assert!(!tag.contains(" on"), "no event handler attributes: <{tag}>");
    }
    let csp = csp::policy(styles::CSS, script::JS);
    assert!(html.contains(&format!("content=\"{csp}\"")));
    // The hashes cover exactly what the elements hold.
    assert!(html.contains(&format!("<style>{}</style>", styles::CSS)));
    assert!(html.contains(&format!("<script>{}</script>", script::JS)));
}

#[test]
fn many_points_are_listed_compactly_and_capped_per_file() {
    let mut run = sample_run();
    let points: Vec<PointView> = (1..=(files::LISTED_POINTS as u64 + 10))
        .map(|i| {
            let status = if i == 3 {
                PointStatus::Fail
            } else {
                PointStatus::Pass
            };
            point(i, &format!("case {i}"), status)
        })
        .collect();
    run.files[2].points = points;
    let html = page(&run);
    assert!(
        html.contains("<li value=\"3\" class=\"f\">case 3")
            || html.contains("<li class=\"f\" value=\"3\">case 3")
    );
    assert!(!html.contains(">case 4<"));
    assert!(html.contains(&format!(
        "{} passing (or not selected) points not listed",
        files::LISTED_POINTS + 9
    )));

    run.files[2].points.truncate(1000);
    let html = page(&run);
    assert!(html.contains("<li>case 4<li>case 5<li>"));
}

#[test]
fn an_empty_run_still_makes_a_page() {
    let run = RunView {
        ok: true,
        ..RunView::default()
    };
    let html = page(&run);
    assert!(html.contains("PASSED"));
    assert!(html.contains("No failures."));
    assert!(html.ends_with("</html>\n"));
}
