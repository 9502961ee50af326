//! Helpers shared by the integration tests.
use std::path::{Path, PathBuf};
use tapline::protocol::Parser;
use tapline::report::jsonl::JsonlWriter;
use tapline::report::summary::SummaryWriter;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `--format summary` document for a stream, parsed back.
pub fn summary(bytes: &[u8]) -> serde_json::Value {
    let mut p = Parser::new(SummaryWriter::new(Vec::new()));
    p.feed(bytes);
    let out = p.finish().finish().expect("writing to a Vec cannot fail");
    serde_json::from_slice(&out).expect("summary is JSON")
}

/// The `--format jsonl` events for a stream, parsed back.
pub fn jsonl_events(bytes: &[u8]) -> Vec<serde_json::Value> {
    let mut p = Parser::new(JsonlWriter::new(Vec::new()));
    p.feed(bytes);
    let out = p.finish().finish().expect("writing to a Vec cannot fail");
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("each line is JSON"))
        .collect()
}

/// Every file below `dir` with the extension, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
