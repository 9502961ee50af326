//! What a browser file is turned into before a page loads it: the folder the run's server
//! serves for it, the module's URL path inside that folder, and the files the module loads
//! (which watch mode follows).
//!
//! With esbuild (the project's `node_modules/.bin/esbuild`, else `PATH`'s) every browser file
//! is bundled ([`super::bundle`]): TypeScript, bare imports and all, into one module in the
//! file's scratch folder, with the source map that maps an uncaught error's stack back to the
//! sources. An esbuild error fails the file: its first error is the reason, all of its
//! message goes to the log.
//!
//! Without esbuild a `.js`/`.mjs` file is served as a native ES module from the project
//! root, so its relative imports load as they are written; one that imports a package by
//! name (`import x from "lib"`), or any TypeScript, fails before a page is opened, saying how
//! to install esbuild ([`super::imports`]).
use super::bundle::{self, Bundle, BundleError};
use super::imports::{self, NativeError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A browser file, ready to serve.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// The folder served for this file.
    pub serve_root: PathBuf,
    /// The module's URL path under `serve_root` ('/'-separated, not starting with '/').
    pub entry: String,
    /// The files the module loads, for watch mode (the file itself at least).
    pub inputs: Vec<PathBuf>,
    /// The bundle served, whose source map names an error's place in the sources; `None`
    /// when the file is served as it is written.
    pub bundle: Option<Arc<Bundle>>,
}

impl Prepared {
    /// `stack` with its bundle frames named by their places in the sources.
    pub(crate) fn map_stack(&self, stack: &str) -> String {
        match &self.bundle {
            Some(b) => b.map_stack(stack),
            None => stack.to_owned(),
        }
    }

    /// Where in the sources `stack` was thrown, when a bundle's map says.
    pub(crate) fn thrown_at(&self, stack: &str) -> Option<String> {
        Some(self.bundle.as_ref()?.thrown_at(stack)?.to_string())
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum PrepareError {
    #[error("failed to load {file}: it is outside the project root {root}")]
    OutsideRoot { file: String, root: String },
    #[error("failed to load {file}: {why}")]
    Unreadable { file: String, why: String },
    #[error("{0}")]
    Bundle(#[from] BundleError),
    #[error("{0}")]
    Native(#[from] NativeError),
    #[error(
        "failed to load {file}: its folder's {init} runs ahead of it only in a bundle; {}",
        bundle::INSTALL_ESBUILD
    )]
    InitNeedsBundle { file: String, init: String },
}

impl PrepareError {
    /// What the log gets beyond the reason: esbuild's whole message.
    pub(crate) fn details(&self) -> Option<&str> {
        match self {
            PrepareError::Bundle(BundleError::Rejected { message, .. }) => Some(message),
            _ => None,
        }
    }
}

/// Prepares `file` (absolute, or relative to the cwd) of the project at `project_root`;
/// `scratch` is a folder of this file's own for whatever preparing writes (a bundle);
/// `measured`: the page's coverage is taken (a bundle keeps what no one imports).
/// Blocks while esbuild bundles: call it off the async threads.
pub(crate) fn prepare(
    file: &Path,
    project_root: &Path,
    scratch: &Path,
    measured: bool,
) -> Result<Prepared, PrepareError> {
    let esbuild = bundle::find_esbuild(project_root);
    let esbuild = esbuild.as_deref().map(|e| (e, measured));
    prepare_with(esbuild, file, project_root, scratch)
}

/// [`prepare`] with `esbuild` given, and whether the page is measured (`None`: there is no
/// esbuild).
pub(crate) fn prepare_with(
    esbuild: Option<(&Path, bool)>,
    file: &Path,
    project_root: &Path,
    scratch: &Path,
) -> Result<Prepared, PrepareError> {
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
    let root = std::path::absolute(project_root).unwrap_or_else(|_| project_root.to_path_buf());
    let rel = abs
        .strip_prefix(&root)
        .map_err(|_| PrepareError::OutsideRoot {
            file: shown.clone(),
            root: root.display().to_string(),
        })?
        .to_owned();
    if let Some((esbuild, measured)) = esbuild {
        let bundle = bundle::bundle(esbuild, &abs, &root, scratch, measured)?;
        return Ok(Prepared {
            serve_root: bundle.serve_root.clone(),
            entry: bundle.entry.clone(),
            inputs: bundle.inputs.clone(),
            bundle: Some(Arc::new(bundle)),
        });
    }
    if let Some(init) = crate::harness::node::init_module::init_of(&abs) {
        return Err(PrepareError::InitNeedsBundle {
            file: shown,
            init: bundle::rel_of(&init, &root),
        });
    }
    let inputs = imports::native_inputs(&abs, &root)?;
    Ok(Prepared {
        serve_root: root,
        entry: url_path(&rel),
        inputs,
        bundle: None,
    })
}

/// A relative path as a URL path: '/'-separated, each segment %-escaped.
pub(crate) fn url_path(rel: &Path) -> String {
    rel.components()
        .map(|c| url_escape(&c.as_os_str().to_string_lossy()))
        .collect::<Vec<_>>()
        .join("/")
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
        std::fs::write(
            root.join("test/sub dir/a.browser.mjs"),
            "import './b.js';\n",
        )
        .expect("write");
        std::fs::write(root.join("test/sub dir/b.js"), "").expect("write");
        std::fs::write(root.join("test/b.browser.ts"), "").expect("write");
        std::fs::write(root.join("test/c.browser.js"), "import 'lodash';\n").expect("write");
        let native = |f: &str| prepare_with(None, &root.join(f), root, root);
        let p = native("test/sub dir/a.browser.mjs").expect("prepared");
        assert_eq!(p.entry, "test/sub%20dir/a.browser.mjs");
        assert_eq!(p.serve_root, root);
        assert_eq!(
            p.inputs,
            [
                root.join("test/sub dir/a.browser.mjs"),
                root.join("test/sub dir/b.js")
            ]
        );
        assert!(p.bundle.is_none());
        for needs in ["test/b.browser.ts", "test/c.browser.js"] {
            let err = native(needs).expect_err("needs esbuild");
            assert!(
                err.to_string().contains("npm install --save-dev esbuild"),
                "{err}"
            );
        }
        assert!(matches!(
            native("none.js"),
            Err(PrepareError::Unreadable { .. })
        ));
    }

    #[test]
    fn with_esbuild_every_file_is_bundled() {
        let Some(esbuild) = bundle::tests::test_esbuild() else {
            println!("SKIP with_esbuild_every_file_is_bundled: esbuild is not installed (.ci/run installs it)");
            return;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("test")).expect("mkdir");
        std::fs::write(
            root.join("test/a b.browser.ts"),
            "const n: number = 1;\nconsole.log(n);\n",
        )
        .expect("write");
        std::fs::write(root.join("test/bad.browser.js"), "import 'nope';\n").expect("write");
        let scratch = tempfile::tempdir().expect("tempdir");
        let p = prepare_with(
            Some((&esbuild, false)),
            &root.join("test/a b.browser.ts"),
            root,
            scratch.path(),
        )
        .expect("bundled");
        assert_eq!(p.entry, "test/a%20b.browser.ts.js");
        assert!(p.serve_root.join("test/a b.browser.ts.js").is_file());
        assert_eq!(p.inputs, [root.join("test/a b.browser.ts")]);
        let err = prepare_with(
            Some((&esbuild, false)),
            &root.join("test/bad.browser.js"),
            root,
            scratch.path(),
        )
        .expect_err("esbuild rejects it");
        assert_eq!(
            err.to_string(),
            "esbuild could not bundle test/bad.browser.js: Could not resolve \"nope\" (test/bad.browser.js:1:7)"
        );
        assert!(err
            .details()
            .is_some_and(|m| m.contains("✘ [ERROR] Could not resolve \"nope\"")));
    }
}
