//! Issue 23: a failure reads the same in every report. Each recorded real producer's stream
//! (test-data/producers/, see its README for versions) is run as a one-file run through the
//! stage that explains failures and every report of a run: the terminal (plain and in colour),
//! `parse`'s report, JUnit, Markdown, HTML, GitHub annotations, the JSON lines and the summary
//! document. For every failing point the run explained, each report shows its name, its
//! location and its expected/actual diff as the explanation has them, and each counts the same
//! failures.
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use crate::util::{one_file_run, repo};
use serde_json::Value;
use tapline::event::run::RunEvent;
use tapline::event::Event;
use tapline::explain::diff::{DiffLine, Sign};
use tapline::explain::{Explained, Explanation};
use tapline::protocol::AnyParser;
use tapline::report::human::HumanReport;
use tapline::report::record::{Collector, Meta};
use tapline::report::sink::{Explaining, Fanout, JsonlRun, RunSink, SummaryRun};
use tapline::report::style::Style;
use tapline::report::terminal::{TerminalOptions, TerminalReporter, Verbosity};
use tapline::report::{github, html, junit, markdown};

const REL: &str = "t/recorded";

/// Every recording of a real producer with failures: TAP streams, `go test -json`, JUnit XML.
fn recordings() -> Vec<String> {
    let dir = repo().join("test-data/producers");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("test-data/producers")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".tap") || n.ends_with(".jsonl") || n.ends_with(".junit.xml"))
        .collect();
    names.sort();
    names
}

/// The recording's events, from whichever format it is in.
fn events_of(recording: &str) -> Vec<Event<'static>> {
    let bytes = std::fs::read(repo().join("test-data/producers").join(recording))
        .expect("recording readable");
    let mut p = AnyParser::new(Vec::<Event<'static>>::new(), None);
    p.feed(&bytes);
    p.finish()
}

/// Keeps the explanations the run's stage hands the sinks.
#[derive(Default, Clone)]
struct Captured(Arc<Mutex<Vec<Explanation>>>);

impl RunSink for Captured {
    fn on(&mut self, ev: &RunEvent) -> std::io::Result<()> {
        if let RunEvent::Explained { explained, .. } = ev {
            if let Explained::Failure(e) = &**explained {
                if e.full && !e.by_children {
                    self.0.lock().expect("not poisoned").push(e.clone());
                }
            }
        }
        Ok(())
    }
}

/// What every report said of one recording.
struct Reports {
    failures: Vec<Explanation>,
    plain: String,
    colour: String,
    human: String,
    junit: String,
    markdown: String,
    html: String,
    github: String,
    jsonl: String,
    summary: Value,
}

fn terminal(colour: bool) -> TerminalReporter<Vec<u8>> {
    TerminalReporter::new(
        Vec::new(),
        TerminalOptions {
            style: if colour {
                Style::on()
            } else {
                Style::default()
            },
            live: false,
            verbosity: Verbosity::Normal,
            width: 100,
        },
    )
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).expect("UTF-8 report")
}

fn reports(recording: &str) -> Reports {
    let events = events_of(recording);
    let captured = Captured::default();
    let (mut plain, mut colour) = (terminal(false), terminal(true));
    let mut record = Collector::new(Meta::default());
    let mut jsonl = JsonlRun::new(Vec::new());
    let mut summary = SummaryRun::new(Vec::new());
    let mut capture = captured.clone();
    {
        let sinks: Vec<&mut dyn RunSink> = vec![
            &mut capture,
            &mut plain,
            &mut colour,
            &mut record,
            &mut jsonl,
            &mut summary,
        ];
        let mut run = Explaining::new(Fanout(sinks));
        for ev in one_file_run(&events, REL, "recorded") {
            run.on_owned(ev).expect("writing to memory");
        }
    }
    let mut human = HumanReport::new(Vec::new(), Style::default());
    for ev in &events {
        tapline::event::Sink::event(&mut human, ev);
    }
    let view = record.view();
    let render = |f: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
        let mut out = Vec::new();
        f(&mut out).expect("writing to memory");
        text(out)
    };
    let failures = captured.0.lock().expect("not poisoned").clone();
    Reports {
        failures,
        plain: text(plain.finish().expect("writing to memory")),
        colour: text(colour.finish().expect("writing to memory")),
        human: text(human.finish().expect("writing to memory")),
        junit: render(&|o| junit::write(o, view)),
        markdown: render(&|o| markdown::write(o, view, &markdown::Options::default())),
        html: render(&|o| html::write_page(o, view)),
        github: render(&|o| github::write(o, view)),
        jsonl: text(jsonl.into_inner()),
        summary: serde_json::from_slice(summary.out_mut()).expect("a summary document"),
    }
}

/// The diff's own lines (`- …`, `+ …`, context) as the plain terminal shows them.
fn diff_lines(e: &Explanation) -> Vec<String> {
    e.diff
        .iter()
        .flat_map(|d| &d.lines)
        .filter(|l| matches!(l, DiffLine::Line { sign, .. } if *sign != Sign::Context))
        .map(DiffLine::plain_text)
        .collect()
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Markup's text: tags dropped, the five entities (and numeric ones) read back.
fn html_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    unescape(&out)
}

/// The XML/HTML entities the reports write read back (a page's script may hold a bare `&`).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest.find(';').map(|end| (&rest[1..end], end));
        let read = entity.and_then(|(name, end)| {
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                n if n.starts_with("#x") => char::from_u32(u32::from_str_radix(&n[2..], 16).ok()?)?,
                n if n.starts_with('#') => char::from_u32(n[1..].parse().ok()?)?,
                _ => return None,
            };
            Some((c, end))
        });
        match read {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Markdown's inline escapes read back.
fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    unescape(&out).replace('\u{2cb}', "`")
}

fn github_text(s: &str) -> String {
    s.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Whether `report` says `needle`, each of its lines (a multi-line name reads as one line in a
/// title).
fn says(report: &str, needle: &str) -> bool {
    report.contains(needle) || report.contains(&needle.replace('\n', " "))
}

#[test]
fn issue23_every_report_explains_each_failure_as_the_run_did() {
    let mut checked = 0;
    for recording in recordings() {
        let r = reports(&recording);
        // Colour adds paint and nothing else: not a character more or less. (A child's own
        // escapes, in its output, are in both: `perl-junit-output.tap`.)
        assert_eq!(
            strip_ansi(&r.colour),
            strip_ansi(&r.plain),
            "{recording}: colour vs plain"
        );
        let junit = unescape(&r.junit);
        let markdown = markdown_text(&r.markdown);
        let html = html_text(&r.html);
        let github = github_text(&r.github);
        let explained: Vec<Value> = r
            .jsonl
            .lines()
            .filter(|l| l.starts_with("{\"type\":\"explained\""))
            .map(|l| {
                let mut e = serde_json::from_str::<Value>(l).expect("JSON")["explained"].take();
                if let Some(e) = e.as_object_mut() {
                    e.remove("kind");
                }
                e
            })
            .filter(|e| e["full"] == true && e["by_children"].is_null())
            .collect();
        assert_eq!(explained.len(), r.failures.len(), "{recording}: JSON lines");
        let documented = r.summary["files"][0]["failures"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            documented.iter().filter(|e| e["full"] == true).count(),
            r.failures.len(),
            "{recording}: summary document"
        );
        for (n, e) in r.failures.iter().enumerate() {
            let name = e.shown_name();
            let what = format!("{recording}: failure {n} ({name})");
            let json = serde_json::to_value(e).expect("serializable");
            assert_eq!(explained[n], json, "{what}: JSON lines");
            assert_eq!(documented[n], json, "{what}: summary document");
            assert!(
                says(&r.plain, &format!("✗ {name}")),
                "{what}: terminal\n{}",
                r.plain
            );
            assert!(says(&r.human, e.own_name()), "{what}: parse\n{}", r.human);
            assert!(says(&markdown, &name), "{what}: Markdown\n{}", r.markdown);
            // JUnit's case is the failing test, named as the terminal names it.
            assert!(
                junit.contains(&format!("<testcase name=\"{name}\"")),
                "{what}: JUnit names no case so\n{junit}"
            );
            assert!(says(&html, &name), "{what}: HTML");
            assert!(
                github.contains(&format!("title={}", name.replace('\n', " ")))
                    || github.contains(&format!("title={name}")),
                "{what}: annotations\n{github}"
            );
            if let Some(at) = &e.location {
                let at = format!("at {at}");
                for (report, text) in [
                    ("terminal", &r.plain),
                    ("parse", &r.human),
                    ("JUnit", &junit),
                    ("HTML", &html),
                ] {
                    assert!(says(text, &at), "{what}: {report} lacks {at:?}\n{text}");
                }
                assert!(
                    says(
                        &markdown,
                        &format!("at `{}`", e.location.as_deref().unwrap_or(""))
                    ),
                    "{what}: Markdown lacks {at:?}"
                );
            }
            for line in diff_lines(e) {
                // Markdown's ```diff block swaps the signs so expected reads green (#43).
                let swapped = match line.strip_prefix('-') {
                    Some(rest) => format!("+{rest}"),
                    None => match line.strip_prefix('+') {
                        Some(rest) => format!("-{rest}"),
                        None => line.clone(),
                    },
                };
                for (report, text, line) in [
                    ("terminal", &r.plain, &line),
                    ("parse", &r.human, &line),
                    ("JUnit", &junit, &line),
                    ("Markdown", &r.markdown, &swapped),
                    ("HTML", &html, &line),
                ] {
                    assert!(
                        text.contains(line.trim_end()),
                        "{what}: {report} lacks the diff line {line:?}\n{text}"
                    );
                }
            }
            checked += 1;
        }
        // Every failure once: JUnit's failures, Markdown's and HTML's sections, annotations.
        let failures = r.failures.len();
        assert_eq!(
            r.junit.matches("<failure ").count(),
            failures,
            "{recording}: JUnit failures\n{}",
            r.junit
        );
        let file_sections = usize::from(failures == 0 && r.plain.contains("✗ t/recorded"));
        assert_eq!(
            r.markdown.matches("#### ❌").count(),
            failures + file_sections,
            "{recording}: Markdown sections\n{}",
            r.markdown
        );
        assert_eq!(
            r.github.matches("::error ").count(),
            failures + file_sections,
            "{recording}: annotations\n{}",
            r.github
        );
        assert_eq!(
            r.html.matches("<article class=\"failure\"").count(),
            failures + file_sections,
            "{recording}: HTML articles"
        );
    }
    assert!(checked > 50, "only {checked} failures checked");
}

/// The known answers of issue 23's cases, from the producers' own recordings.
#[test]
fn issue23_the_cases_of_the_issue_read_right() {
    let names = |recording: &str| -> Vec<(String, Option<String>, Vec<String>)> {
        reports(recording)
            .failures
            .iter()
            .map(|e| (e.shown_name(), e.location.clone(), diff_lines(e)))
            .collect()
    };
    // Test::More, its diagnostics on the same pipe: every failure its own values.
    let perl = names("perl-explain-merged.tap");
    let find = |all: &[(String, Option<String>, Vec<String>)], name: &str| {
        all.iter()
            .filter(|(n, ..)| n == name)
            .cloned()
            .collect::<Vec<_>>()
    };
    let percent = find(&perl, "percent");
    assert_eq!(percent.len(), 1, "{perl:?}");
    assert_eq!(percent[0].2, ["- \"1.0\"", "+ \"100\""], "{perl:?}");
    assert_eq!(
        percent[0].1.as_deref(),
        Some("test-data/producers/src/perl/explain.t:10")
    );
    assert_eq!(find(&perl, "size")[0].2, ["- \"1.0 MB\"", "+ \"1000 kB\""]);
    let same = find(&perl, "same name");
    assert_eq!(
        same.len(),
        2,
        "two failures with one name are two: {perl:?}"
    );
    assert_ne!(same[0].2, same[1].2, "each with its own values");
    assert!(
        perl.iter().any(|(n, ..)| n == "#4"),
        "the unnamed one by its number: {perl:?}"
    );
    // tape: inspected strings are strings; named under their heading.
    let tape = names("tape-explain.tap");
    let uri = find(&tape, "inspected values > normalizes the uri");
    assert_eq!(uri[0].2, ["- \"uri://b/\"", "+ \"uri://a/\""], "{tape:?}");
    let status: BTreeSet<String> = tape
        .iter()
        .filter(|(n, ..)| n.ends_with("> status"))
        .map(|(n, ..)| n.clone())
        .collect();
    assert_eq!(status.len(), 2, "{tape:?}");
    // node:test: a Date is no string, and nothing reads "no visual difference".
    let r = reports("node-test-explain.tap");
    assert!(!r.plain.contains("no visual difference"), "{}", r.plain);
    // go: five leaf tests, three failing, each its own case in JUnit.
    let r = reports("go-explain.jsonl");
    assert_eq!(r.failures.len(), 3, "{}", r.plain);
    assert_eq!(r.junit.matches("<testcase ").count(), 5, "{}", r.junit);
    // A JUnit suite's leaves stay leaves.
    let r = reports("pytest-explain.junit.xml");
    assert_eq!(r.junit.matches("<testcase ").count(), 5, "{}", r.junit);
    assert_eq!(r.junit.matches("<failure ").count(), 3, "{}", r.junit);
}
