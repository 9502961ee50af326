//! Bundles a browser test file with esbuild, for the page to load as one ES module.
//!
//! - **Which esbuild**: the project's own (`node_modules/.bin/esbuild` under the project
//!   root), else the first `esbuild` on `PATH` (the npm package `esbuild` ships its binary;
//!   `npm install --save-dev esbuild` puts it in the first place).
//! - **How**: `esbuild FILE --bundle --format=esm --platform=browser --sourcemap=both
//!   --metafile=… --outfile=…`, run in the project root so the metafile names inputs relative
//!   to it. `both` is the inline source map the issue asks for (the page's DevTools and
//!   `Error.stack` consumers see it) plus the same map beside the bundle, which tapline reads
//!   to map an uncaught error's stack back to the source ([`crate::util::source_map`]) without
//!   decoding the base64 copy.
//! - **Where**: the run's scratch folder, mirroring the file's path under the root
//!   (`test/a.browser.ts` → `bundle/test/a.browser.ts.js`): two files never share a name,
//!   `a.browser.ts` and `a.browser.js` included.
//! - **Inputs**: the metafile's `inputs` that are files under the project root and outside
//!   `node_modules` (installed packages are no edit of the project's, and watch ignores them
//!   anyway): what watch mode re-runs the file for.
//! - **Failure**: esbuild's own message (its stderr, trimmed) is the file's reason. esbuild
//!   gets [`BUNDLE_DEADLINE`] to finish, then is killed.
//!
//! Bundling blocks (it waits for esbuild): call it off the async threads.
use crate::util::source_map::{self, Place, SourceMap};
use crate::util::which;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::Duration;

/// How long esbuild may take over one file. It bundles a large app in well under a second;
/// a minute means it hangs (a plugin-less esbuild has nothing to wait for).
pub(crate) const BUNDLE_DEADLINE: Duration = Duration::from_secs(60);

/// How to install esbuild, for the messages of files that need it.
pub(crate) const INSTALL_ESBUILD: &str =
    "install esbuild (`npm install --save-dev esbuild` in the project) to bundle it";

/// A bundled file, ready to serve.
#[derive(Debug)]
pub(crate) struct Bundle {
    /// The folder to serve: the scratch folder's `bundle/`.
    pub(crate) serve_root: PathBuf,
    /// The bundle's URL path under `serve_root` (`test/a.browser.ts.js`: '/'-separated,
    /// %-escaped, no leading '/').
    pub(crate) entry: String,
    /// The files the bundle was made of, under the project root, absolute.
    pub(crate) inputs: Vec<PathBuf>,
    map_path: PathBuf,
    project_root: PathBuf,
    /// Decoded on first use: most runs never need it.
    map: OnceLock<Option<SourceMap>>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum BundleError {
    /// esbuild rejected the file: its message (all of it in `message`, for the log) says
    /// why; the error's line is its first error and where.
    #[error("esbuild could not bundle {file}: {}", summary(message))]
    Rejected { file: String, message: String },
    #[error("failed to start esbuild ({path}): {reason}")]
    Start { path: PathBuf, reason: String },
    #[error("esbuild did not finish bundling {file} within {} s: killed", BUNDLE_DEADLINE.as_secs())]
    Deadline { file: String },
    #[error("failed to prepare the bundle of {file}: {reason}")]
    Io { file: String, reason: String },
}

/// esbuild's first error on one line: `Could not resolve "x" (test/a.ts:1:18)`, and how many
/// more there are.
fn summary(message: &str) -> String {
    let lines: Vec<&str> = message.lines().map(str::trim).collect();
    let Some(at) = lines.iter().position(|l| l.starts_with("✘ [ERROR]")) else {
        return lines
            .iter()
            .find(|l| !l.is_empty())
            .copied()
            .unwrap_or("")
            .to_owned();
    };
    let what = lines[at].trim_start_matches("✘ [ERROR]").trim();
    // The location line follows the headline after a blank: `test/a.ts:1:18:`.
    let place = lines[at + 1..]
        .iter()
        .take_while(|l| !l.starts_with("✘ "))
        .find(|l| l.ends_with(':') && l.contains(':') && !l.contains(' '))
        .map(|l| l.trim_end_matches(':'));
    let errors = lines.iter().filter(|l| l.starts_with("✘ [ERROR]")).count();
    let mut out = match place {
        Some(place) => format!("{what} ({place})"),
        None => what.to_owned(),
    };
    if errors > 1 {
        out.push_str(&format!(
            " and {} more error{}",
            errors - 1,
            if errors > 2 { "s" } else { "" }
        ));
    }
    out
}

/// The esbuild to bundle with: the project's, else `PATH`'s.
pub(crate) fn find_esbuild(project_root: &Path) -> Option<PathBuf> {
    esbuild_in(project_root, std::env::var_os("PATH").as_deref())
}

/// [`find_esbuild`] with `path` as PATH: esbuild runs in the project root, so a relative entry
/// is taken from there ([`which`]).
fn esbuild_in(project_root: &Path, path: Option<&OsStr>) -> Option<PathBuf> {
    let local = project_root.join("node_modules/.bin/esbuild");
    if which::is_executable(&local) {
        return Some(local);
    }
    which::find_in(OsStr::new("esbuild"), path, project_root)
}

/// `file` relative to the root, with `/` separators, for messages and the bundle's name.
pub(crate) fn rel_of(file: &Path, project_root: &Path) -> String {
    let rel = file.strip_prefix(project_root).unwrap_or(file);
    let rel = rel.strip_prefix("/").unwrap_or(rel);
    rel.to_string_lossy().into_owned()
}

/// Bundles `file` (absolute, under `project_root`) with `esbuild` into `scratch/bundle/`.
/// `measured` (`--coverage`): nothing is tree-shaken, so that a function no test calls is in
/// the bundle, counted as never run, instead of left out and never seen.
pub(crate) fn bundle(
    esbuild: &Path,
    file: &Path,
    project_root: &Path,
    scratch: &Path,
    measured: bool,
) -> Result<Bundle, BundleError> {
    let rel = rel_of(file, project_root);
    let io_err = |e: std::io::Error| BundleError::Io {
        file: rel.clone(),
        reason: e.to_string(),
    };
    let serve_root = scratch.join("bundle");
    let out = serve_root.join(format!("{rel}.js"));
    let meta = serve_root.join(format!("{rel}.meta.json"));
    let stderr_path = serve_root.join(format!("{rel}.esbuild.log"));
    std::fs::create_dir_all(out.parent().unwrap_or(&serve_root)).map_err(io_err)?;
    let stderr = std::fs::File::create(&stderr_path).map_err(io_err)?;

    let mut cmd = Command::new(esbuild);
    cmd.arg(file)
        .args([
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--sourcemap=both",
            "--log-level=error",
            "--color=false",
        ])
        .args(measured.then_some("--tree-shaking=false"))
        .args(
            // tstest loads the folder's 00init ahead of the file: injected, it runs first.
            crate::harness::node::init_module::init_of(file).map(|init| flag("--inject:", &init)),
        )
        .arg(flag("--metafile=", &meta))
        .arg(flag("--outfile=", &out))
        .current_dir(project_root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let ok = run_with_deadline(cmd, esbuild, &rel)?;
    if !ok {
        let message = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        let message = message.trim();
        return Err(BundleError::Rejected {
            file: rel.clone(),
            message: if message.is_empty() {
                "esbuild failed and said nothing".into()
            } else {
                message.to_owned()
            },
        });
    }
    let inputs = read_inputs(&meta, project_root).map_err(io_err)?;
    Ok(Bundle {
        entry: super::prepare::url_path(Path::new(&format!("{rel}.js"))),
        serve_root,
        inputs,
        map_path: PathBuf::from(format!("{}.map", out.display())),
        project_root: project_root.to_owned(),
        map: OnceLock::new(),
    })
}

fn flag(name: &str, path: &Path) -> std::ffi::OsString {
    let mut arg = std::ffi::OsString::from(name);
    arg.push(path.as_os_str());
    arg
}

/// Runs esbuild to its end or [`BUNDLE_DEADLINE`]; whether it succeeded.
fn run_with_deadline(mut cmd: Command, esbuild: &Path, rel: &str) -> Result<bool, BundleError> {
    let mut child = cmd.spawn().map_err(|e| BundleError::Start {
        path: esbuild.to_owned(),
        reason: e.to_string(),
    })?;
    let pid = rustix::process::Pid::from_child(&child);
    let (tx, rx) = mpsc::channel();
    // The waiter owns the child and reaps it whatever happens here.
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match rx.recv_timeout(BUNDLE_DEADLINE) {
        Ok(Ok(status)) => Ok(status.success()),
        Ok(Err(e)) => Err(BundleError::Io {
            file: rel.to_owned(),
            reason: format!("failed to wait for esbuild: {e}"),
        }),
        Err(_) => {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            Err(BundleError::Deadline {
                file: rel.to_owned(),
            })
        }
    }
}

/// The metafile's inputs that are project files: relative to the root (esbuild ran there),
/// not above it, not a namespaced virtual module (`<stdin>`, `(disabled):fs`), not in
/// `node_modules`.
fn read_inputs(meta: &Path, project_root: &Path) -> std::io::Result<Vec<PathBuf>> {
    #[derive(serde::Deserialize)]
    struct Meta {
        inputs: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
    }
    let text = std::fs::read_to_string(meta)?;
    let meta: Meta = serde_json::from_str(&text)
        .map_err(|e| std::io::Error::other(format!("esbuild's metafile: {e}")))?;
    Ok(meta
        .inputs
        .keys()
        .map(Path::new)
        .filter(|p| {
            p.is_relative()
                && p.components().all(|c| {
                    matches!(c, std::path::Component::Normal(n) if n != OsStr::new("node_modules"))
                })
        })
        .map(|p| project_root.join(p))
        .filter(|p| p.is_file())
        .collect())
}

impl Bundle {
    /// The source map written beside the bundle.
    pub(crate) fn map_path(&self) -> &Path {
        &self.map_path
    }

    /// The bundle's source map, decoded once; `None` when it cannot be read.
    pub(crate) fn source_map(&self) -> Option<&SourceMap> {
        self.map
            .get_or_init(|| SourceMap::read(&self.map_path, &self.project_root).ok())
            .as_ref()
    }

    /// `stack` with the bundle's frames named by their source places.
    pub(crate) fn map_stack(&self, stack: &str) -> String {
        match self.source_map() {
            Some(map) => source_map::map_stack(stack, &format!("/{}", self.entry), map),
            None => stack.to_owned(),
        }
    }

    /// Where in the sources `stack` was thrown from, when its frames say.
    pub(crate) fn thrown_at(&self, stack: &str) -> Option<Place> {
        source_map::first_place(stack, &format!("/{}", self.entry), self.source_map()?)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A bundle served from `serve_root` as `entry`, its map at `map_path`.
    pub(crate) fn bundle_for_test(serve_root: &Path, entry: &str, map_path: &Path) -> Bundle {
        Bundle {
            serve_root: serve_root.to_path_buf(),
            entry: entry.to_owned(),
            inputs: Vec::new(),
            map_path: map_path.to_path_buf(),
            project_root: serve_root.to_path_buf(),
            map: OnceLock::new(),
        }
    }

    #[test]
    fn project_esbuild_comes_before_path() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            find_esbuild(dir.path()).is_none_or(|p| !p.starts_with(dir.path())),
            "nothing in an empty project"
        );
        let bin = dir.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("esbuild"), "#!/bin/sh\n").unwrap();
        assert_ne!(
            find_esbuild(dir.path()),
            Some(bin.join("esbuild")),
            "not executable"
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("esbuild"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        assert_eq!(find_esbuild(dir.path()), Some(bin.join("esbuild")));
    }

    /// Regression: a relative PATH entry was taken from tapline's folder and the path found
    /// left relative, so that esbuild, started in the project root, was another file (or none)
    /// when tapline ran from a subfolder.
    #[test]
    fn a_relative_path_entry_is_the_project_roots_where_esbuild_runs() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(tools.join("esbuild"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            tools.join("esbuild"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        assert_eq!(
            esbuild_in(dir.path(), Some(OsStr::new("tools"))),
            Some(tools.join("esbuild")),
            "found from the root, whatever folder the test runs in, and absolute"
        );
        let sub = dir.path().join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(esbuild_in(&sub, Some(OsStr::new("tools"))), None);
    }

    #[test]
    fn metafile_inputs_are_project_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["test/a.ts", "lib/b.ts", "node_modules/x/index.js"] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "").unwrap();
        }
        let meta = root.join("meta.json");
        std::fs::write(
            &meta,
            r#"{"inputs":{"test/a.ts":{},"lib/b.ts":{"bytes":1},"node_modules/x/index.js":{},
               "../outside.js":{},"(disabled):fs":{},"<stdin>":{},"gone.ts":{}},"outputs":{}}"#,
        )
        .unwrap();
        let inputs = read_inputs(&meta, root).unwrap();
        assert_eq!(inputs, vec![root.join("lib/b.ts"), root.join("test/a.ts")]);
    }

    /// The esbuild tests bundle with: `PATH`'s, else the one `.ci/run` installs.
    pub(crate) fn test_esbuild() -> Option<PathBuf> {
        find_esbuild(Path::new("/nonexistent")).or_else(|| {
            let ci = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/ci-tools/node_modules/.bin/esbuild");
            which::is_executable(&ci).then_some(ci)
        })
    }

    use crate::harness::browser::test_project as project;

    const LIB: &str = "export function f(x: number): number {\n  if (x > 1) throw new Error(\"boom\");\n  return x;\n}\n";

    #[test]
    fn bundles_typescript_with_its_inputs_and_a_source_map() {
        let Some(esbuild) = test_esbuild() else {
            println!("SKIP bundles_typescript_with_its_inputs_and_a_source_map: esbuild is not installed (.ci/run installs it)");
            return;
        };
        let dir = project(&[
            ("lib/b.ts", LIB),
            ("test/c.js", "export const g = 1;\n"),
            ("node_modules/dep/index.js", "export const d = 2;\n"),
            ("test/a.browser.ts", "import { f } from '../lib/b';\nimport { g } from './c.js';\nimport { d } from 'dep';\nconsole.log(f(g + d));\n"),
        ]);
        let root = dir.path();
        let scratch = tempfile::tempdir().unwrap();
        let b = bundle(
            &esbuild,
            &root.join("test/a.browser.ts"),
            root,
            scratch.path(),
            false,
        )
        .unwrap();
        assert_eq!(b.entry, "test/a.browser.ts.js");
        assert_eq!(b.serve_root, scratch.path().join("bundle"));
        let mut inputs = b.inputs.clone();
        inputs.sort();
        assert_eq!(
            inputs,
            vec![
                root.join("lib/b.ts"),
                root.join("test/a.browser.ts"),
                root.join("test/c.js")
            ]
        );
        let js = std::fs::read_to_string(b.serve_root.join("test/a.browser.ts.js")).unwrap();
        assert!(
            js.contains("//# sourceMappingURL=data:application/json;base64,"),
            "inline map"
        );
        assert!(!js.contains("number"), "TypeScript's types are gone:\n{js}");

        // A frame at the bundle's `throw` maps back to lib/b.ts line 2, where `throw` stands.
        let (line, text) = js
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains("throw new Error"))
            .unwrap();
        let col = text.find("throw").unwrap() + 1;
        let stack = format!(
            "Error: boom\n    at f (http://127.0.0.1:1234/test/a.browser.ts.js:{}:{col})",
            line + 1
        );
        assert_eq!(b.map_stack(&stack), "Error: boom\n    at f (lib/b.ts:2:14)");
        assert_eq!(b.thrown_at(&stack).unwrap().to_string(), "lib/b.ts:2:14");
    }

    #[test]
    fn an_esbuild_error_is_the_files_reason() {
        let Some(esbuild) = test_esbuild() else {
            println!("SKIP an_esbuild_error_is_the_files_reason: esbuild is not installed (.ci/run installs it)");
            return;
        };
        let dir = project(&[(
            "test/a.browser.ts",
            "import { x } from 'no-such-package';\nconsole.log(x);\n",
        )]);
        let scratch = tempfile::tempdir().unwrap();
        let err = bundle(
            &esbuild,
            &dir.path().join("test/a.browser.ts"),
            dir.path(),
            scratch.path(),
            false,
        )
        .unwrap_err();
        let BundleError::Rejected { file, message } = &err else {
            panic!("{err}");
        };
        assert_eq!(file, "test/a.browser.ts");
        assert!(
            message.contains("Could not resolve \"no-such-package\""),
            "{message}"
        );
        assert!(message.contains("test/a.browser.ts:1:"), "{message}");
        assert_eq!(message, message.trim());
        assert_eq!(
            err.to_string(),
            "esbuild could not bundle test/a.browser.ts: Could not resolve \"no-such-package\" (test/a.browser.ts:1:18)"
        );
    }

    #[test]
    fn the_summary_is_the_first_error_and_where() {
        let two = "✘ [ERROR] Could not resolve \"x\"\n\n    test/a.ts:1:18:\n      1 │ import 'x';\n        ╵        ~~~\n\n  You can mark the path \"x\" as external.\n\n✘ [ERROR] Expected \";\" but found \"}\"\n\n    lib/b.ts:3:1:\n\n2 errors";
        assert_eq!(
            summary(two),
            "Could not resolve \"x\" (test/a.ts:1:18) and 1 more error"
        );
        assert_eq!(summary("✘ [ERROR] Something odd"), "Something odd");
        assert_eq!(
            summary("\nerror: unknown option\n"),
            "error: unknown option"
        );
        assert_eq!(summary(""), "");
    }

    #[test]
    fn a_missing_esbuild_is_named() {
        let dir = project(&[("a.browser.ts", "")]);
        let err = bundle(
            Path::new("/nonexistent/esbuild"),
            &dir.path().join("a.browser.ts"),
            dir.path(),
            dir.path(),
            false,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("failed to start esbuild (/nonexistent/esbuild): "),
            "{err}"
        );
    }
}
