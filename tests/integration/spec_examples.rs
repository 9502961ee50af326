//! Known-answer tests generated from protocol-spec/: every ```tap block followed by an
//! ```expect block must parse to a summary that contains the expected JSON; one followed by
//! an ```events block (one JSON object a line) to `--format jsonl` events that contain them,
//! one for one, in order.
use crate::util::{files_with_ext, jsonl_events, repo, summary};
use serde_json::Value;

struct Example {
    file: String,
    line: usize,
    tap: String,
    /// Must be contained in the `--format summary` document.
    expect: Option<Value>,
    /// One per event of `--format jsonl`, in order: each contained in its event.
    events: Option<Vec<Value>>,
}

/// The fenced block opening at `lines[open]`: its info string, its lines, and the index
/// after its closing fence.
fn fenced<'a>(lines: &[&'a str], open: usize) -> Option<(&'a str, Vec<&'a str>, usize)> {
    let info = lines.get(open)?.trim_end().strip_prefix("```")?;
    let mut end = open + 1;
    while end < lines.len() && lines[end].trim_end() != "```" {
        end += 1;
    }
    Some((
        info,
        lines[open + 1..end.min(lines.len())].to_vec(),
        end + 1,
    ))
}

fn json_of(text: &str, path: &std::path::Path, line: usize, what: &str) -> Value {
    serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{}:{}: {what} is not JSON: {e}", path.display(), line + 1))
}

fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    for path in files_with_ext(&repo().join("protocol-spec"), "md") {
        let text = std::fs::read_to_string(&path).expect("spec file readable");
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let Some(("tap", tap_lines, next)) = fenced(&lines, i) else {
                i += 1;
                continue;
            };
            let mut ex = Example {
                file: path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                line: i + 1,
                tap: tap_lines.iter().map(|l| format!("{l}\n")).collect(),
                expect: None,
                events: None,
            };
            i = next;
            // The answers follow the stream directly, in either order.
            while let Some((info @ ("expect" | "events"), body, next)) = fenced(&lines, i) {
                if info == "expect" {
                    ex.expect = Some(json_of(&body.join("\n"), &path, i, "expect block"));
                } else {
                    let events = body
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| !l.trim().is_empty());
                    let events = events.map(|(n, l)| json_of(l, &path, i + 1 + n, "event line"));
                    ex.events = Some(events.collect());
                }
                i = next;
            }
            if ex.expect.is_some() || ex.events.is_some() {
                out.push(ex);
            }
        }
    }
    out
}

/// `expected` is contained in `actual`: objects by key, arrays item by item (same length).
fn subset(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let Some(av) = a.get(k) else {
                    return Err(format!("{path}.{k}: missing"));
                };
                subset(v, av, &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!(
                    "{path}: {} items expected, got {}",
                    e.len(),
                    a.len()
                ));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                subset(ev, av, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => Ok(()),
        (e, a) if e == a => Ok(()),
        (e, a) => Err(format!("{path}: expected {e}, got {a}")),
    }
}

#[test]
fn every_spec_example_holds() {
    let all = examples();
    let with_events = all.iter().filter(|e| e.events.is_some()).count();
    assert!(with_events >= 4, "only {with_events} event examples");
    assert!(
        all.len() >= 30,
        "only {} examples found in protocol-spec/",
        all.len()
    );
    let mut failures = Vec::new();
    for ex in &all {
        if let Some(expect) = &ex.expect {
            let got = summary(ex.tap.as_bytes());
            if let Err(e) = subset(expect, &got, "$") {
                failures.push(format!("{}:{}: {e}\n  summary: {got}", ex.file, ex.line));
            }
        }
        if let Some(expect) = &ex.events {
            let got = jsonl_events(ex.tap.as_bytes());
            let (expect, got) = (Value::Array(expect.clone()), Value::Array(got));
            if let Err(e) = subset(&expect, &got, "$events") {
                let lines: Vec<String> = got
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| format!("  {v}"))
                    .collect();
                let lines = lines.join("\n");
                failures.push(format!("{}:{}: {e}\n  events:\n{lines}", ex.file, ex.line));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} spec examples fail:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
