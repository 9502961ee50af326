//! #41, item 4: a JUnit failure is plain text: the message attribute is the failure's
//! message; the body the message, the expected/actual diff, the location, then the test's
//! own output after a blank line, with no terminal gutter or heading, tabs kept and ANSI
//! escapes made visible (docs/reports.md, "Failure bodies"). Known answers from recorded
//! streams of the real producers (`test-data/producers/`).
use crate::util::{repo, Project};

/// The JUnit document `tapline parse` writes for a recorded stream.
fn junit_of(recording: &str) -> String {
    let p = Project::new();
    let bytes = std::fs::read(repo().join("test-data/producers").join(recording))
        .unwrap_or_else(|e| panic!("read {recording}: {e}"));
    p.write(recording, bytes);
    let ran = p.tapline(&["parse", recording, "-o", "r.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let xml = p.read_text("r.xml");
    well_formed(&xml);
    xml
}

/// Every `<failure …>…</failure>` element of `xml`, in order.
fn failures(xml: &str) -> Vec<&str> {
    xml.match_indices("<failure ")
        .map(|(at, _)| {
            let len = xml[at..].find("</failure>").expect("a closed failure") + "</failure>".len();
            &xml[at..at + len]
        })
        .collect()
}

/// What an XML reader reads of `xml`: it parses to its end.
fn well_formed(xml: &str) {
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed XML: {e}\n{xml}"),
        }
    }
}

/// The text a reader gets from a failure element's body.
fn body_text(failure: &str) -> String {
    let start = failure.find('>').expect("a start tag") + 1;
    let end = failure.rfind("</failure>").expect("an end tag");
    quick_xml::escape::unescape(&failure[start..end])
        .expect("well-formed references")
        .into_owned()
}

#[test]
fn issue41_junit_test_more_is_shows_its_diff_then_its_location() {
    let xml = junit_of("perl-values.tap");
    let got = failures(&xml);
    assert_eq!(got.len(), 6, "{xml}");
    // `is()` says no message of its own: the test's name stands for it.
    assert_eq!(
        got[2],
        "<failure message=\"a trailing tab\">- Expected\n+ Received\n\n\
         - &quot;tab&quot;\n+ &quot;tab\\t &quot;\n\n\
         at test-data/producers/src/perl/values.t:15</failure>"
    );
    assert_eq!(
        got[1],
        "<failure message=\"undef against a string\">- Expected: &quot;undef&quot;\n\
         + Received: undef\n\nat test-data/producers/src/perl/values.t:14</failure>"
    );
}

#[test]
fn issue41_junit_node_test_deep_equal_reads_message_diff_location_stack() {
    let xml = junit_of("node-test-values.tap");
    let got = failures(&xml);
    assert_eq!(got.len(), 7, "{xml}");
    assert_eq!(
        got[0],
        "<failure message=\"Expected values to be strictly deep-equal:\">\
         Expected values to be strictly deep-equal:\n\
         operator deepStrictEqual · AssertionError [ERR_ASSERTION]\n\n\
         - Expected\n+ Received\n\n  {\n\
         -   &quot;d&quot;: &quot;1970-01-01T00:00:00.000Z&quot;,\n\
         +   &quot;d&quot;: 1970-01-01T00:00:00.000Z,\n  }\n\n\
         at /work/wt/values/test-data/producers/src/node-test/values.test.mjs:23:10\n\
         TestContext.&lt;anonymous&gt; (file:///work/wt/values/test-data/producers/src/node-test/values.test.mjs:23:10)\n\
         Test.runInAsyncScope (node:async_hooks:206:9)\n\
         Test.run (node:internal/test_runner/test:796:25)\n\
         Test.processPendingSubtests (node:internal/test_runner/test:526:18)\n\
         node:internal/test_runner/harness:255:12\n\
         node:internal/process/task_queues:140:7\n\
         AsyncResource.runInAsyncScope (node:async_hooks:206:9)\n\
         AsyncResource.runMicrotask (node:internal/process/task_queues:137:8)</failure>"
    );
}

#[test]
fn issue41_junit_pytest_assert_reads_message_values_location_then_output() {
    let xml = junit_of("pytest-tap-explain.tap");
    let got = failures(&xml);
    assert_eq!(got.len(), 3, "{xml}");
    assert_eq!(
        got[0],
        "<failure message=\"assert 3 == 4\">assert 3 == 4\n+  where 3 = add(1, 2)\n\n\
         - Expected: 4\n+ Received: 3\n\n\
         at test-data/producers/src/pytest-tap/test_explain.py:13\n\n\
         # def test_add():\n# &gt;       assert add(1, 2) == 4</failure>"
    );
}

#[test]
fn issue41_junit_output_keeps_its_tabs_with_no_gutter_or_heading() {
    let xml = junit_of("perl-junit-output.tap");
    let got = failures(&xml);
    assert_eq!(got.len(), 2, "{xml}");
    assert_eq!(
        got[1],
        "<failure message=\"tab-indented output\">- Expected\n+ Received\n\n\
         - &quot;3&quot;\n+ &quot;2&quot;\n\n\
         at test-data/producers/src/perl/junit-output.t:16\n\n\
         \tindented by a tab\n\t\ttwo tabs\tand one inside</failure>"
    );
    // What a JUnit reader reads back: the lines as perl printed them.
    assert!(
        body_text(got[1]).ends_with("\n\n\tindented by a tab\n\t\ttwo tabs\tand one inside"),
        "{}",
        got[1]
    );
    // `<system-out>`, the file's output, keeps its tabs and shows its colour as the bodies do.
    assert!(
        xml.contains(
            "<system-out>\\u{1b}[34mblue\\u{1b}[0m and \\u{1b}[4munderlined\\u{1b}[0m\n\
             \tindented by a tab\n\t\ttwo tabs\tand one inside</system-out>"
        ),
        "{xml}"
    );
}

#[test]
fn issue41_junit_output_in_ansi_colour_shows_its_escapes() {
    let xml = junit_of("perl-junit-output.tap");
    let got = failures(&xml);
    assert_eq!(got.len(), 2, "{xml}");
    assert_eq!(
        got[0],
        "<failure message=\"ANSI colour in output\">- Expected\n+ Received\n\n\
         - &quot;want&quot;\n+ &quot;got&quot;\n\n\
         at test-data/producers/src/perl/junit-output.t:10\n\n\
         \\u{1b}[34mblue\\u{1b}[0m and \\u{1b}[4munderlined\\u{1b}[0m</failure>"
    );
}
