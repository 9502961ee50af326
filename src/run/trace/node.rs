//! Node's hooks: `--require tapline-trace.cjs` (in `NODE_OPTIONS`, so node subprocesses load
//! it too) writes `require.cache` at exit; for an ES-module test (`TAPLINE_TRACE_ESM=1`) it
//! also registers `tapline-trace-hooks.mjs` (`module.register`), a `load` hook that appends each
//! module as it loads. Registering from `--require` rather than `--import` leaves how node
//! loads the main file alone (`--import` sends even a CommonJS main through the ESM loader).
//! The hook starts a thread (about 25 ms a process on node 20), so a CommonJS test goes
//! without it; if it runs ES modules after all (`import()`), its trace says `#partial` and
//! counts as none.
use std::path::Path;

/// The hooks' file names and texts.
pub(crate) const HOOKS: &[(&str, &str)] = &[
    ("tapline-trace.cjs", include_str!("hooks/tapline-trace.cjs")),
    (
        "tapline-trace-hooks.mjs",
        include_str!("hooks/tapline-trace-hooks.mjs"),
    ),
];

fn plain(dir: &Path) -> Option<&str> {
    dir.to_str().filter(|d| !d.contains(char::is_whitespace))
}

/// The `NODE_OPTIONS` words of every node child (the CommonJS hook).
pub(crate) fn cjs_words(dir: &Path) -> Option<String> {
    Some(format!("--require {}/tapline-trace.cjs", plain(dir)?))
}

/// The variable that has an ES-module test's hook register the ESM load hook.
pub(crate) const ESM_VAR: &str = "TAPLINE_TRACE_ESM";

/// Whether node runs `file` as an ES module: `.mjs`/`.mts`, or `.js`/`.ts` under a
/// `package.json` saying `"type": "module"` (the nearest one decides, as node reads it).
pub(crate) fn is_esm(file: &Path) -> bool {
    match file.extension().and_then(|e| e.to_str()) {
        Some("mjs" | "mts") => return true,
        Some("cjs" | "cts") => return false,
        _ => {}
    }
    let Some(package) = file
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("package.json"))
        .find(|p| p.is_file())
    else {
        return false;
    };
    std::fs::read(&package)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|doc| doc["type"] == "module")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_package_json_decides_the_module_kind() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let p = dir.path();
        std::fs::create_dir_all(p.join("esm/t")).expect("mkdir");
        std::fs::write(p.join("package.json"), r#"{"name":"x"}"#).expect("write");
        std::fs::write(p.join("esm/package.json"), r#"{"type":"module"}"#).expect("write");
        assert!(!is_esm(&p.join("a.test.js")));
        assert!(is_esm(&p.join("a.test.mjs")));
        assert!(is_esm(&p.join("esm/t/a.test.js")));
        assert!(!is_esm(&p.join("esm/t/a.test.cjs")));
    }
}
