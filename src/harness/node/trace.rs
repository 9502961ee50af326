//! Node's trace hook: `--require tapline-trace.cjs` (in `NODE_OPTIONS`, so node subprocesses load it
//! too) writes `require.cache` at exit and, when ES modules ran (an ES-module test, `import()`,
//! a `require()` of an ES module on node 20.19+/22.12+, a loader), every file V8 compiled, as
//! node's inspector lists them (`Debugger.enable` replays each script). ES modules stay in
//! node's module map for the life of the process, so that list holds every one of them,
//! however it was reached. A process that ran ES modules and has no inspector writes
//! `#partial node: <why>`, which leaves the file no trace. No loader hook is registered: one
//! starts a thread in every process, and node does not pass a `require()`d ES module's imports
//! through it.
use crate::harness::api::Id;
use crate::harness::trace::{EnvEdit, TraceHook};
use std::path::Path;

pub(crate) struct NodeTrace;
pub(crate) static NODE_TRACE: NodeTrace = NodeTrace;

/// The list of what V8 compiled, which the hook and the warm worker's driver read beside them.
pub(crate) const COMPILED: (&str, &str) = (
    "tapline-compiled.cjs",
    include_str!("hooks/tapline-compiled.cjs"),
);

/// The hook's file name and text, and what it reads beside it.
const HOOKS: &[(&str, &str)] = &[
    ("tapline-trace.cjs", include_str!("hooks/tapline-trace.cjs")),
    COMPILED,
];

impl TraceHook for NodeTrace {
    fn id(&self) -> Id {
        "node"
    }

    fn is_program(&self, program: &str) -> bool {
        matches!(program, "node" | "nodejs" | "tsx")
    }

    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        HOOKS
    }

    fn env(&self, dir: &Path) -> Option<(&'static str, EnvEdit)> {
        Some(("NODE_OPTIONS", EnvEdit::AppendWords(cjs_words(dir)?)))
    }

    fn shapes_every_run(&self) -> &'static [&'static str] {
        &[
            "package.json",
            "package-lock.json",
            "npm-shrinkwrap.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "bun.lock",
            "bun.lockb",
            ".npmrc",
            "tsconfig.json",
        ]
    }

    fn module_exts(&self) -> &'static [&'static str] {
        &["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"]
    }
}

fn plain(dir: &Path) -> Option<&str> {
    dir.to_str().filter(|d| !d.contains(char::is_whitespace))
}

/// The `NODE_OPTIONS` words of every node child.
fn cjs_words(dir: &Path) -> Option<String> {
    Some(format!("--require {}/tapline-trace.cjs", plain(dir)?))
}

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
    fn node_options_require_the_hook_unless_its_folder_has_white_space() {
        assert_eq!(
            NODE_TRACE.env(Path::new("/tmp/h")),
            Some((
                "NODE_OPTIONS",
                EnvEdit::AppendWords("--require /tmp/h/tapline-trace.cjs".into())
            ))
        );
        assert_eq!(NODE_TRACE.env(Path::new("/tmp/a b")), None);
    }

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
