//! The summary document as it was assembled before entries were written per file (a
//! `serde_json::Value` outer document, each parse summary re-indented at the end): the
//! reference the new assembly must equal byte for byte.
use crate::event::run::{FileResult, RunEvent, RunSummary};
use crate::report::sink::RunSink;
use crate::report::summary::SummaryWriter;
use serde::Serialize;
use std::io::{self, Write};

/// `--format summary`: one JSON document at the end,
/// `{ "ok", "files": [ { "path", "ok", "exit", "timed_out", "duration_ms", "log", "reasons",
/// "attempts", "flaky", "cached", "not_run", "summary" } ], "run": {…} }` (a file never
/// started has `"not_run": true`, `"ok": false` and a null summary); after a `--runs N` series, one
/// document for the last run with `"stability"` added and `"ok"` meaning every test stable.
pub(crate) struct OldSummaryRun<W: Write> {
    out: W,
    files: Vec<FileDoc>,
    /// Inside a `--runs N` series: the document waits for its end.
    series: bool,
    /// The last run's document, held until the series ends.
    held: Option<serde_json::Value>,
}

struct FileDoc {
    path: String,
    log: Option<String>,
    parse: SummaryWriter<Vec<u8>>,
    result: Option<FileResult>,
    /// Never started (`--max-fail` or an interrupt came first).
    not_run: bool,
}

impl<W: Write> OldSummaryRun<W> {
    pub(crate) fn new(out: W) -> Self {
        OldSummaryRun {
            out,
            files: Vec::new(),
            series: false,
            held: None,
        }
    }

    /// What has been written so far (a `Vec<u8>` writer can be taken after each document).
    pub(crate) fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    fn write_all(&mut self, summary: &RunSummary) -> io::Result<()> {
        if self.series {
            let mut parsed = Vec::new();
            let doc = self.document(summary, &mut parsed)?;
            let doc = splice_raw(&serde_json::to_string(&doc)?, &parsed);
            self.held = Some(serde_json::from_str(&doc)?);
            return Ok(());
        }
        // Each file's parse summary is already JSON: it is re-indented into the document
        // rather than parsed into a `Value` and printed again, which for 200,000 test points
        // cost more than the run itself (and half a gigabyte of memory).
        let mut parsed = Vec::new();
        let doc = self.document(summary, &mut parsed)?;
        let outer = serde_json::to_string_pretty(&doc)?;
        let mut text =
            Vec::with_capacity(outer.len() + parsed.iter().map(Vec::len).sum::<usize>() * 2);
        splice_pretty(&mut text, &outer, &parsed);
        text.push(b'\n');
        self.out.write_all(&text)?;
        self.out.flush()
    }

    fn write_doc(&mut self, doc: &serde_json::Value) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, doc)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    /// The document with each file's parse summary left as a placeholder string naming its
    /// index in `parsed`, where its JSON text is put.
    fn document(
        &mut self,
        summary: &RunSummary,
        parsed: &mut Vec<Vec<u8>>,
    ) -> io::Result<serde_json::Value> {
        #[derive(Serialize)]
        struct FileOut<'a> {
            path: &'a str,
            ok: bool,
            exit: Option<crate::event::run::ExitInfo>,
            timed_out: bool,
            duration_ms: u64,
            log: Option<&'a str>,
            reasons: &'a [String],
            attempts: u32,
            flaky: bool,
            cached: bool,
            not_run: bool,
            tests: &'a crate::event::run::Tally,
            summary: serde_json::Value,
        }
        let mut files = Vec::new();
        for f in std::mem::take(&mut self.files) {
            if f.not_run {
                files.push(serde_json::json!({
                    "path": f.path, "ok": false, "exit": null, "timed_out": false,
                    "duration_ms": 0, "log": null, "reasons": ["not run"], "attempts": 0,
                    "flaky": false, "cached": false, "not_run": true, "summary": null,
                }));
                continue;
            }
            let Some(r) = f.result else { continue };
            let doc = f.parse.finish()?;
            // A cached file sent no stream: there is nothing parsed to show.
            let summary_value = if r.cached || doc.is_empty() {
                serde_json::Value::Null
            } else {
                parsed.push(doc);
                serde_json::Value::String(placeholder(parsed.len() - 1))
            };
            files.push(serde_json::to_value(FileOut {
                path: &f.path,
                ok: r.ok,
                exit: r.exit,
                timed_out: r.timed_out,
                duration_ms: r.duration.as_millis() as u64,
                log: f.log.as_deref(),
                reasons: &r
                    .reasons
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>(),
                attempts: r.attempts,
                flaky: r.flaky,
                cached: r.cached,
                not_run: false,
                tests: &r.tally,
                summary: summary_value,
            })?);
        }
        Ok(serde_json::json!({ "ok": summary.ok, "files": files, "run": summary }))
    }
}

impl<W: Write> RunSink for OldSummaryRun<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        match ev {
            RunEvent::FileStarted { file, .. } => {
                if self.files.len() <= file.index {
                    self.files.resize_with(file.index + 1, FileDoc::placeholder);
                }
                self.files[file.index] = FileDoc {
                    path: file.rel.clone(),
                    log: file.log.as_ref().map(|p| p.display().to_string()),
                    parse: SummaryWriter::new(Vec::new()),
                    result: None,
                    not_run: false,
                };
            }
            RunEvent::FileNotRun { file, .. } => {
                if self.files.len() <= file.index {
                    self.files.resize_with(file.index + 1, FileDoc::placeholder);
                }
                let mut doc = FileDoc::placeholder();
                doc.path = file.rel.clone();
                doc.not_run = true;
                self.files[file.index] = doc;
            }
            RunEvent::Tap { file, event, .. } => {
                if let Some(f) = self.files.get_mut(*file) {
                    crate::event::Sink::event(&mut f.parse, event);
                }
            }
            RunEvent::FileFinished { file, result, .. } => {
                if let Some(f) = self.files.get_mut(*file) {
                    f.result = Some(FileResult::clone(result));
                }
            }
            RunEvent::RunFinished { summary, .. } => self.write_all(summary)?,
            RunEvent::SeriesStarted { .. } => self.series = true,
            RunEvent::SeriesFinished { stability } => {
                let mut doc = self.held.take().unwrap_or_else(|| serde_json::json!({}));
                let stable = stability.all_stable();
                let ok = doc["ok"].as_bool().unwrap_or(false) && stable;
                doc["ok"] = ok.into();
                doc["stability"] = serde_json::to_value(stability)?;
                self.series = false;
                self.write_doc(&doc)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// A string no parse summary can produce (it holds a NUL), naming a raw document.
fn placeholder(index: usize) -> String {
    format!("\u{0}raw:{index}\u{0}")
}

/// The quoted form of a placeholder as serde_json writes it.
fn quoted_placeholder(index: usize) -> String {
    format!("\"\\u0000raw:{index}\\u0000\"")
}

/// `outer` (compact JSON) with its placeholders replaced by the raw documents as they are.
fn splice_raw(outer: &str, parsed: &[Vec<u8>]) -> String {
    let mut text = outer.to_owned();
    for (i, doc) in parsed.iter().enumerate() {
        text = text.replacen(&quoted_placeholder(i), &String::from_utf8_lossy(doc), 1);
    }
    text
}

/// `outer` (pretty JSON) into `out`, each placeholder replaced by its raw compact document
/// re-indented to the placeholder's depth, so the result reads as one pretty document.
fn splice_pretty(out: &mut Vec<u8>, outer: &str, parsed: &[Vec<u8>]) {
    let mut rest = outer;
    for (i, doc) in parsed.iter().enumerate() {
        let mark = quoted_placeholder(i);
        let Some(at) = rest.find(&mark) else { break };
        let (before, after) = rest.split_at(at);
        out.extend_from_slice(before.as_bytes());
        // The placeholder's line starts with its indentation (serde_json uses two spaces).
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let indent = before[line_start..].len() - before[line_start..].trim_start().len();
        reindent(out, doc, indent / 2);
        rest = &after[mark.len()..];
    }
    out.extend_from_slice(rest.as_bytes());
}

/// Writes compact JSON `doc` as serde_json's pretty printer would, nested `depth` levels
/// deep: two spaces a level, `": "` after keys, empty containers kept as `[]`/`{}`.
pub(crate) fn reindent(out: &mut Vec<u8>, doc: &[u8], depth: usize) {
    let mut level = depth;
    let mut in_string = false;
    let mut escaped = false;
    let newline = |out: &mut Vec<u8>, level: usize| {
        out.push(b'\n');
        out.resize(out.len() + 2 * level, b' ');
    };
    let mut i = 0;
    while let Some(&b) = doc.get(i) {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                out.push(b);
            }
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if doc.get(i + 1) == Some(&close) {
                    out.extend_from_slice(&[b, close]);
                    i += 2;
                    continue;
                }
                out.push(b);
                level += 1;
                newline(out, level);
            }
            b'}' | b']' => {
                level = level.saturating_sub(1);
                newline(out, level);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                newline(out, level);
            }
            b':' => out.extend_from_slice(b": "),
            b' ' | b'\n' | b'\r' | b'\t' => {}
            _ => out.push(b),
        }
        i += 1;
    }
}

impl FileDoc {
    fn placeholder() -> Self {
        FileDoc {
            path: String::new(),
            log: None,
            parse: SummaryWriter::new(Vec::new()),
            result: None,
            not_run: false,
        }
    }
}

#[cfg(test)]
mod reindent_tests {
    use super::*;

    #[test]
    fn reindent_prints_as_serde_pretty_does() {
        // Keys in sorted order, so a parsed Value prints them in the same order.
        let compact = br#"{"a":[],"b":{},"c":[1,2.5,-3e-7,true,null],"d":{"e":"x\"y\\\\z:,[]{}","f":[{"g":"h"}]}}"#;
        let value: serde_json::Value = serde_json::from_slice(compact).expect("valid");
        let mut out = Vec::new();
        reindent(&mut out, compact, 0);
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            serde_json::to_string_pretty(&value).expect("prints")
        );
    }

    #[test]
    fn placeholders_are_spliced_at_their_depth() {
        let doc =
            serde_json::json!({"files": [{"path": "a", "summary": placeholder(0)}], "ok": true});
        let outer = serde_json::to_string_pretty(&doc).expect("prints");
        let raw = vec![br#"{"asserts":[{"ok":true}],"ok":true}"#.to_vec()];
        let mut out = Vec::new();
        splice_pretty(&mut out, &outer, &raw);
        let spliced: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        let want = serde_json::json!({"files": [{"path": "a", "summary": {"asserts": [{"ok": true}], "ok": true}}], "ok": true});
        assert_eq!(spliced, want);
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            serde_json::to_string_pretty(&want).expect("prints")
        );
        let compact = splice_raw(&serde_json::to_string(&doc).expect("prints"), &raw);
        let parsed: serde_json::Value = serde_json::from_str(&compact).expect("valid JSON");
        assert_eq!(parsed, want);
    }
}
