//! Helpers shared by the parser's tests.
use std::path::{Path, PathBuf};
use tapline_protocol::summary::SummaryWriter;
use tapline_protocol::Parser;

/// The repository's root, where test-data/ and protocol-spec/ are.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `--format summary` document for a stream, parsed back.
pub fn summary(bytes: &[u8]) -> serde_json::Value {
    let mut p = Parser::new(SummaryWriter::new(Vec::new()));
    p.feed(bytes);
    let out = p.finish().finish().expect("writing to a Vec cannot fail");
    serde_json::from_slice(&out).expect("summary is JSON")
}

/// Every file under `dir` (recursively) ending in `.ext`, sorted.
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
