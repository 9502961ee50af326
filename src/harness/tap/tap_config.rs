//! node-tap's own configuration, for a run that follows `tap`: the `exclude` globs of `.taprc`
//! (YAML), else of `package.json`'s `tap` object, as tap reads them (its project root being
//! the current directory here). A file they match is never run as a test, as tap never runs
//! it. Globs in tap's extended forms (`@(a|b)`) are read literally, so match nothing.
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;
use std::path::Path;

/// The files tap's own configuration in `cwd` excludes; `None` when it excludes none.
pub(crate) fn excludes(cwd: &Path) -> Option<GlobSet> {
    let config = taprc(cwd).or_else(|| package_json(cwd))?;
    let globs: Vec<&str> = match config.get("exclude")? {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let mut set = GlobSetBuilder::new();
    let mut any = false;
    for glob in globs {
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        if let Ok(g) = GlobBuilder::new(glob).literal_separator(true).build() {
            set.add(g);
            any = true;
        }
    }
    any.then(|| set.build().ok()).flatten()
}

/// What tap 16 gives each test file it spawns (its `bin/run.js`), from `.taprc`, package.json
/// `tap` (read after it, so its keys win) and the script's own flags (last): `node-arg`s
/// before the file, `test-arg`s after it, `test-env` (`K=V` sets, a bare `K` unsets), and
/// `ts` (a `.ts` file under `-r ts-node/register`).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Tap16 {
    pub(crate) node_arg: Vec<String>,
    pub(crate) test_arg: Vec<String>,
    pub(crate) test_env: Vec<String>,
    pub(crate) ts: bool,
}

/// tap 16's options for files run from `cwd` by the script's flags `args`.
pub(crate) fn tap16(cwd: &Path, args: &[String]) -> Tap16 {
    let mut options = Tap16 {
        ts: std::env::var("TAP_TS").is_ok_and(|v| v == "1"),
        ..Tap16::default()
    };
    for config in [taprc(cwd), package_json(cwd)].into_iter().flatten() {
        let list = |key: &str| -> Option<Vec<String>> {
            match config.get(key)? {
                Value::String(one) => Some(vec![one.clone()]),
                Value::Array(many) => Some(
                    many.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect(),
                ),
                _ => None,
            }
        };
        if let Some(v) = list("node-arg") {
            options.node_arg = v;
        }
        if let Some(v) = list("test-arg") {
            options.test_arg = v;
        }
        if let Some(v) = list("test-env") {
            options.test_env = v;
        }
        if let Some(ts) = config.get("ts").and_then(Value::as_bool) {
            options.ts = ts;
        }
    }
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_owned())),
            None => (word.as_str(), None),
        };
        let into = match flag {
            "--node-arg" => &mut options.node_arg,
            "--test-arg" => &mut options.test_arg,
            "--test-env" => &mut options.test_env,
            "--ts" => {
                options.ts = true;
                continue;
            }
            "--no-ts" => {
                options.ts = false;
                continue;
            }
            _ => continue,
        };
        if let Some(value) = inline.or_else(|| words.next().cloned()) {
            into.push(value);
        }
    }
    options
}

/// tap's `before` and `after` programs (paths from the project's folder): `.taprc`, then
/// package.json `tap`, then the script's `--before`/`--after`, the last one said winning.
pub(crate) fn before_after(cwd: &Path, args: &[String]) -> [Option<String>; 2] {
    let mut said = [None, None];
    for config in [taprc(cwd), package_json(cwd)].into_iter().flatten() {
        for (at, key) in ["before", "after"].into_iter().enumerate() {
            if let Some(v) = config.get(key).and_then(Value::as_str) {
                said[at] = Some(v.to_owned());
            }
        }
    }
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_owned())),
            None => (word.as_str(), None),
        };
        let at = match flag {
            "--before" => 0,
            "--after" => 1,
            _ => continue,
        };
        said[at] = inline.or_else(|| words.next().cloned());
    }
    said
}

/// `.taprc`, which tap reads first.
fn taprc(cwd: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(cwd.join(".taprc")).ok()?;
    serde_saphyr::from_str::<Value>(&text)
        .ok()
        .filter(Value::is_object)
}

/// `package.json`'s `tap` object.
fn package_json(cwd: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(cwd.join("package.json")).ok()?;
    let json: Value = serde_json::from_str(&text).ok()?;
    json.get("tap").filter(|t| t.is_object()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tap16_reads_taprc_then_package_json_then_the_script() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::write(root.join(".taprc"), "node-arg: [--expose-gc]\nts: true\n").expect("write");
        std::fs::write(
            root.join("package.json"),
            r#"{"tap": {"test-env": ["A=1", "B"], "ts": false}}"#,
        )
        .expect("write");
        let args: Vec<String> = ["--node-arg=--no-warnings", "--test-arg", "x", "test/"]
            .map(str::to_owned)
            .to_vec();
        let want = Tap16 {
            node_arg: vec!["--expose-gc".into(), "--no-warnings".into()],
            test_arg: vec!["x".into()],
            test_env: vec!["A=1".into(), "B".into()],
            ts: false,
        };
        assert_eq!(tap16(root, &args), want);
    }

    #[test]
    fn taprc_then_package_json() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        assert!(excludes(root).is_none());
        std::fs::write(
            root.join("package.json"),
            r#"{"tap": {"exclude": ["test/slow/**", "@(a|b)/**"]}}"#,
        )
        .expect("write");
        let set = excludes(root).expect("excludes");
        assert!(set.is_match("test/slow/a.test.js"));
        assert!(!set.is_match("test/a.test.js"));
        std::fs::write(root.join(".taprc"), "exclude: ./test/only.js\n").expect("write");
        let set = excludes(root).expect("excludes");
        assert!(set.is_match("test/only.js"), ".taprc wins");
        assert!(!set.is_match("test/slow/a.test.js"));
        std::fs::write(root.join(".taprc"), "timeout: 30\n").expect("write");
        assert!(excludes(root).is_none(), "a .taprc without exclude");
    }
}
