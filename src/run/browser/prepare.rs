//! What a browser file is turned into before a page loads it: the folder the run's server
//! serves for it, the module's URL path inside that folder, and the files the module loads
//! (which watch mode follows).
//!
//! This is the seam with bundling: without a bundler a `.js`/`.mjs` file is served as a native
//! ES module from the project root, so its relative imports load as they are written (a bare
//! import such as `import x from "lib"` then fails in the browser, naming the module); a `.ts`
//! file cannot run natively and fails saying how to get esbuild.
use std::path::{Path, PathBuf};

/// A browser file, ready to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prepared {
    /// The folder served for this file.
    pub serve_root: PathBuf,
    /// The module's URL path under `serve_root` ('/'-separated, not starting with '/').
    pub entry: String,
    /// The files the module loads, for watch mode (the file itself at least).
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PrepareError {
    #[error("failed to load {file}: TypeScript runs in the browser once bundled, and esbuild is not installed (npm install --save-dev esbuild)")]
    NeedsEsbuild { file: String },
    #[error("failed to load {file}: it is outside the project root {root}")]
    OutsideRoot { file: String, root: String },
    #[error("failed to load {file}: {why}")]
    Unreadable { file: String, why: String },
}

/// Prepares `file` (absolute, or relative to the cwd) of the project at `project_root`;
/// `scratch` is a folder of this file's own for whatever preparing writes (a bundle).
pub(crate) fn prepare(
    file: &Path,
    project_root: &Path,
    scratch: &Path,
) -> Result<Prepared, PrepareError> {
    let _ = scratch;
    let shown = file.display().to_string();
    let abs = std::path::absolute(file).map_err(|e| PrepareError::Unreadable {
        file: shown.clone(),
        why: e.to_string(),
    })?;
    if let Err(e) = std::fs::metadata(&abs) {
        return Err(PrepareError::Unreadable {
            file: shown,
            why: e.to_string(),
        });
    }
    let ext = abs.extension().and_then(|e| e.to_str()).unwrap_or("");
    if matches!(ext, "ts" | "mts" | "tsx" | "cts") {
        return Err(PrepareError::NeedsEsbuild { file: shown });
    }
    let root = std::path::absolute(project_root).unwrap_or_else(|_| project_root.to_path_buf());
    let rel = abs
        .strip_prefix(&root)
        .map_err(|_| PrepareError::OutsideRoot {
            file: shown.clone(),
            root: root.display().to_string(),
        })?;
    let entry = rel
        .components()
        .map(|c| url_escape(&c.as_os_str().to_string_lossy()))
        .collect::<Vec<_>>()
        .join("/");
    Ok(Prepared {
        serve_root: root,
        entry,
        inputs: vec![abs],
    })
}

/// A path segment as a URL path segment: what a URL would misread is %-escaped.
fn url_escape(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_modules_are_served_from_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("test/sub dir")).expect("mkdir");
        std::fs::write(root.join("test/sub dir/a.browser.mjs"), "").expect("write");
        std::fs::write(root.join("test/b.browser.ts"), "").expect("write");
        let p = prepare(&root.join("test/sub dir/a.browser.mjs"), root, root).expect("prepared");
        assert_eq!(p.entry, "test/sub%20dir/a.browser.mjs");
        assert_eq!(p.serve_root, root);
        let ts = prepare(&root.join("test/b.browser.ts"), root, root).expect_err("needs esbuild");
        assert!(
            ts.to_string().contains("npm install --save-dev esbuild"),
            "{ts}"
        );
        assert!(matches!(
            prepare(&root.join("none.js"), root, root),
            Err(PrepareError::Unreadable { .. })
        ));
    }
}
