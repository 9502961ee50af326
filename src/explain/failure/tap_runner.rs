//! node-tap's runner (`tap` running files, each as a subtest named by the file) writes a file's
//! subtest's diagnostics as the process it ran: `stdio`, `cwd`, `externalID`, `command`,
//! `args`, `exitCode`, `signal`. They are tap's bookkeeping, not what failed: a file that
//! failed through its tests is explained by them, and of the process only how it ended is
//! said, on the quiet line (`exit code 1`, `signal SIGSEGV`), for a file that said nothing
//! else.
use serde_json::{Map, Value};

/// The fields tap's runner writes for a file's subtest.
const FIELDS: [&str; 7] = [
    "stdio",
    "cwd",
    "externalID",
    "command",
    "args",
    "exitCode",
    "signal",
];

/// Whether `map` is tap's runner's account of a file's process: its `externalID`, `command`
/// and `exitCode` together (no assertion writes those three).
pub(super) fn is_process(map: &Map<String, Value>) -> bool {
    ["externalID", "command", "exitCode"]
        .iter()
        .all(|k| map.contains_key(*k))
}

/// Whether `key` is one of the runner's fields (of a map [`is_process`] said is one).
pub(super) fn is_field(key: &str) -> bool {
    FIELDS.contains(&key)
}

/// How the process ended, for the quiet line: a code other than 0, a signal.
pub(super) fn ending(map: &Map<String, Value>) -> Vec<(String, String)> {
    let mut said = Vec::new();
    match map.get("exitCode") {
        Some(Value::Number(n)) if n.as_i64() != Some(0) => {
            said.push(("exitCode".to_owned(), n.to_string()));
        }
        _ => {}
    }
    if let Some(Value::String(signal)) = map.get("signal") {
        said.push(("signal".to_owned(), signal.clone()));
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_process_is_its_id_command_and_exit() {
        let run = json!({"stdio": "inherit", "cwd": "/p", "externalID": "a.js",
            "command": "/usr/bin/node", "args": ["a.js"], "exitCode": 1, "signal": null});
        assert!(is_process(&map(run)));
        assert!(!is_process(&map(json!({"command": "x", "exitCode": 1}))));
    }

    #[test]
    fn the_ending_is_a_code_other_than_zero_or_a_signal() {
        let said = |v| ending(&map(v));
        assert_eq!(
            said(json!({"exitCode": 1, "signal": null})),
            [("exitCode".to_owned(), "1".to_owned())]
        );
        assert_eq!(said(json!({"exitCode": 0, "signal": null})), []);
        assert_eq!(
            said(json!({"exitCode": null, "signal": "SIGSEGV"})),
            [("signal".to_owned(), "SIGSEGV".to_owned())]
        );
    }
}
