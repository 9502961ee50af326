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
