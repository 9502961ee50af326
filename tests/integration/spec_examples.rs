//! Known-answer tests generated from protocol-spec/: every ```tap block followed by an
//! ```expect block must parse to a summary that contains the expected JSON.
use crate::util::{files_with_ext, repo, summary};
use serde_json::Value;

struct Example {
    file: String,
    line: usize,
    tap: String,
    expect: Value,
}

fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    for path in files_with_ext(&repo().join("protocol-spec"), "md") {
        let text = std::fs::read_to_string(&path).expect("spec file readable");
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            if lines[i].trim_end() != "```tap" {
                i += 1;
                continue;
            }
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && lines[end].trim_end() != "```" {
                end += 1;
            }
            let tap: String = lines[start..end].iter().map(|l| format!("{l}\n")).collect();
            let exp_start = end + 1;
            if lines.get(exp_start).map(|l| l.trim_end()) != Some("```expect") {
                i = end + 1;
                continue;
            }
            let mut exp_end = exp_start + 1;
            while exp_end < lines.len() && lines[exp_end].trim_end() != "```" {
                exp_end += 1;
            }
            let json = lines[exp_start + 1..exp_end].join("\n");
            let expect = serde_json::from_str(&json).unwrap_or_else(|e| {
                panic!(
                    "{}:{}: expect block is not JSON: {e}",
                    path.display(),
                    exp_start + 1
                )
            });
            out.push(Example {
                file: path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                line: start,
                tap,
                expect,
            });
            i = exp_end + 1;
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
    assert!(
        all.len() >= 30,
        "only {} examples found in protocol-spec/",
        all.len()
    );
    let mut failures = Vec::new();
    for ex in &all {
        let got = summary(ex.tap.as_bytes());
        if let Err(e) = subset(&ex.expect, &got, "$") {
            failures.push(format!("{}:{}: {e}\n  summary: {got}", ex.file, ex.line));
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
