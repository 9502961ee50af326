//! Explains one failing test point: where, what, the expected/actual diff, the stack and the
//! test's own output, from whatever the producer attached (TAP YAML, v2 META and ERROR).
use super::diff::{self, Budget};
use super::style::{self, Style};
use crate::event::Assert;
use serde_json::{Map, Value};
use std::io::{self, Write};

/// What a failing point's attachments say, normalised across producers.
#[derive(Debug, Default, PartialEq)]
pub struct Details {
    pub location: Option<String>,
    pub message: Option<String>,
    pub expected_actual: Option<(Value, Value)>,
    pub stack: Option<String>,
    /// Other diagnostics worth a line each (`operator: strictEqual`).
    pub other: Vec<(String, String)>,
    /// The YAML did not parse: shown raw with the parser's complaint.
    pub raw_yaml: Option<(String, String)>,
}

/// Keys naming the expected and actual values, in the order producers use them.
const PAIRS: [(&str, &str); 3] = [
    ("wanted", "found"),
    ("expected", "actual"),
    ("expected", "got"),
];
/// Keys that are shown elsewhere or are noise in a failure report.
const CONSUMED: [&str; 13] = [
    "wanted",
    "found",
    "expected",
    "actual",
    "got",
    "message",
    "error",
    "stack",
    "at",
    "location",
    "duration_ms",
    "severity",
    "type",
];

pub fn details(a: &Assert<'_>) -> Details {
    let mut d = Details::default();
    if let Some(yaml) = a.diagnostics.as_deref() {
        match serde_saphyr::from_str::<Value>(yaml) {
            Ok(Value::Object(map)) => read_map(&map, &mut d),
            Ok(Value::Null) => {}
            Ok(other) => d.message = Some(scalar(&other)),
            Err(e) => d.raw_yaml = Some((yaml.to_owned(), first_line(&e.to_string()))),
        }
    }
    if let Some(meta) = a
        .meta
        .as_deref()
        .and_then(|m| serde_json::from_str::<Value>(m).ok())
    {
        if d.location.is_none() {
            d.location = file_line(&meta);
        }
    }
    for block in a.blocks.iter().filter(|b| b.kind == "ERROR") {
        let Ok(v) = serde_json::from_str::<Value>(&block.payload) else {
            d.message
                .get_or_insert_with(|| block.payload.trim().to_owned());
            continue;
        };
        let err = v.get("error").unwrap_or(&v);
        if let Some(Value::Object(map)) = Some(err) {
            read_map(map, &mut d);
            if let Some(Value::Object(diffmap)) = map.get("diff") {
                if d.expected_actual.is_none() {
                    d.expected_actual = pair(diffmap);
                }
            }
        }
        if d.location.is_none() {
            d.location = file_line(&v);
        }
    }
    d
}

fn read_map(map: &Map<String, Value>, d: &mut Details) {
    if d.message.is_none() {
        d.message = map.get("message").or_else(|| map.get("error")).map(scalar);
    }
    if d.expected_actual.is_none() {
        d.expected_actual = pair(map);
    }
    if d.stack.is_none() {
        d.stack = map.get("stack").map(scalar);
    }
    if d.location.is_none() {
        d.location = map
            .get("at")
            .or_else(|| map.get("location"))
            .and_then(location);
    }
    for (k, v) in map {
        if !CONSUMED.contains(&k.as_str())
            && !matches!(v, Value::Object(_) | Value::Array(_))
            && k != "diff"
        {
            d.other.push((k.clone(), scalar(v)));
        }
    }
}

fn pair(map: &Map<String, Value>) -> Option<(Value, Value)> {
    PAIRS
        .iter()
        .find_map(|(e, a)| Some((map.get(*e)?.clone(), map.get(*a)?.clone())))
}

fn location(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(_) => file_line(v),
        _ => None,
    }
}

fn file_line(v: &Value) -> Option<String> {
    let file = v.get("file")?.as_str()?;
    let mut s = file.to_owned();
    if let Some(line) = v.get("line").and_then(Value::as_u64) {
        s.push_str(&format!(":{line}"));
        if let Some(col) = v.get("column").and_then(Value::as_u64) {
            s.push_str(&format!(":{col}"));
        }
    }
    Some(s)
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_owned()
}

/// Most lines of a stack trace worth showing; the rest is in the log.
const STACK_LINES: usize = 6;

/// Writes the explanation under a failing point's line, every line prefixed by `indent`.
pub fn render(
    out: &mut dyn Write,
    a: &Assert<'_>,
    output: &[String],
    indent: &str,
    style: Style,
    budget: &Budget,
) -> io::Result<()> {
    let d = details(a);
    if let Some(loc) = &d.location {
        writeln!(
            out,
            "{indent}{}",
            style.paint(style::CYAN, format!("at {loc}"))
        )?;
    }
    if let Some(msg) = &d.message {
        for l in msg.lines() {
            writeln!(out, "{indent}{}", style.paint(style::BOLD, l))?;
        }
    }
    for (k, v) in &d.other {
        writeln!(
            out,
            "{indent}{}",
            style.paint(style::DIM, format!("{k}: {v}"))
        )?;
    }
    if let Some((expected, actual)) = &d.expected_actual {
        writeln!(out)?;
        let mut buf = Vec::new();
        diff::render(&mut buf, expected, actual, &style, budget)?;
        for l in String::from_utf8_lossy(&buf).lines() {
            if l.is_empty() {
                writeln!(out)?; // no trailing indentation on blank lines
            } else {
                writeln!(out, "{indent}{l}")?;
            }
        }
    }
    if let Some((raw, err)) = &d.raw_yaml {
        writeln!(
            out,
            "{indent}{}",
            style.paint(
                style::YELLOW,
                format!("diagnostics are not valid YAML ({err}):")
            )
        )?;
        for l in raw.lines().take(20) {
            writeln!(out, "{indent}  {l}")?;
        }
    }
    if let Some(stack) = &d.stack {
        let lines: Vec<&str> = stack.lines().filter(|l| !l.trim().is_empty()).collect();
        if !lines.is_empty() {
            writeln!(out)?;
        }
        for l in lines.iter().take(STACK_LINES) {
            writeln!(out, "{indent}{}", style.paint(style::DIM, l))?;
        }
        if lines.len() > STACK_LINES {
            let more = format!("… {} more stack lines", lines.len() - STACK_LINES);
            writeln!(out, "{indent}{}", style.paint(style::DIM, more))?;
        }
    }
    if !output.is_empty() {
        writeln!(out, "{indent}{}", style.paint(style::DIM, "output:"))?;
        for l in output {
            writeln!(out, "{indent}{} {l}", style.paint(style::DIM, "│"))?;
        }
    }
    Ok(())
}
