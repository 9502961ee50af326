//! `--sandbox`: each test file runs inside bubblewrap (`bwrap`) with no network, a read-only
//! file system (the checkout too), a private writable `/tmp` and `HOME`, its own PID
//! namespace, and only the `--sandbox-write` paths writable besides. docs/sandbox.md holds the
//! threat model.
//!
//! tapline stays outside: it reads the child's pipes and writes the logs itself, so logs,
//! history and reports work unchanged.
use crate::util::which;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Where the test's `HOME` is, inside the private `/tmp`.
pub const SANDBOX_HOME: &str = "/tmp/home";

/// How to wrap each file's command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The `bwrap` executable.
    pub bwrap: PathBuf,
    /// Mounted read-only again after `/tmp` is replaced, so a checkout (or working directory)
    /// that lives under `/tmp` stays visible.
    pub read_only: Vec<PathBuf>,
    /// `--sandbox-write`: absolute, existing paths bound writable.
    pub writable: Vec<PathBuf>,
    /// `[run] sandbox_env_drop`: variables the test does not get.
    pub env_drop: Vec<String>,
}

/// `--sandbox` could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("--sandbox needs bubblewrap (`bwrap`), which is not installed: install it with `apt-get install bubblewrap` (Debian/Ubuntu) or `dnf install bubblewrap` (Fedora)")]
    NoBwrap,
    #[error("failed to use --sandbox-write `{}`: {error}", path.display())]
    Writable {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// The `bwrap` executable on `path` (a `PATH` value), if any; a relative entry is taken from
/// `cwd`, where files run ([`which`]).
pub(crate) fn find_bwrap(path: Option<&OsStr>, cwd: &Path) -> Option<PathBuf> {
    which::find_in(OsStr::new("bwrap"), path, cwd)
}

impl Sandbox {
    /// Finds `bwrap` on `path` and resolves the writable paths against `cwd`; each must exist.
    pub fn new(
        path: Option<&OsStr>,
        cwd: &Path,
        root: &Path,
        writable: &[PathBuf],
        env_drop: Vec<String>,
    ) -> Result<Sandbox, SandboxError> {
        let bwrap = find_bwrap(path, cwd).ok_or(SandboxError::NoBwrap)?;
        let writable = writable
            .iter()
            .map(|p| {
                cwd.join(p)
                    .canonicalize()
                    .map_err(|error| SandboxError::Writable {
                        path: p.clone(),
                        error,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut read_only = vec![root.to_path_buf()];
        if !cwd.starts_with(root) {
            read_only.push(cwd.to_path_buf());
        }
        Ok(Sandbox {
            bwrap,
            read_only,
            writable,
            env_drop,
        })
    }

    /// `argv` run inside the sandbox, in `cwd`.
    pub fn wrap(&self, argv: &[OsString], cwd: &Path) -> Vec<OsString> {
        self.wrap_writable(argv, cwd, &[])
    }

    /// [`Sandbox::wrap`], with `extra` (existing paths) writable too.
    pub fn wrap_writable(&self, argv: &[OsString], cwd: &Path, extra: &[PathBuf]) -> Vec<OsString> {
        self.wrap_with(argv, cwd, extra, &[])
    }

    /// [`Sandbox::wrap_writable`], with `readable` (paths under the private `/tmp`, such as
    /// a harness plugin tapline wrote to its temp folder) visible, read-only, too.
    pub fn wrap_with(
        &self,
        argv: &[OsString],
        cwd: &Path,
        extra: &[PathBuf],
        readable: &[PathBuf],
    ) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![self.bwrap.clone().into()];
        let mut push = |words: &[&OsStr]| out.extend(words.iter().map(|w| w.to_os_string()));
        push(&[
            // Everything read-only; then fresh /dev, /proc and /tmp over it.
            "--ro-bind".as_ref(),
            "/".as_ref(),
            "/".as_ref(),
            "--dev".as_ref(),
            "/dev".as_ref(),
            "--proc".as_ref(),
            "/proc".as_ref(),
            "--tmpfs".as_ref(),
            "/tmp".as_ref(),
            "--dir".as_ref(),
            SANDBOX_HOME.as_ref(),
            "--setenv".as_ref(),
            "HOME".as_ref(),
            SANDBOX_HOME.as_ref(),
            "--setenv".as_ref(),
            "TMPDIR".as_ref(),
            "/tmp".as_ref(),
            // No network at all (not even the host's loopback), and no process of the test
            // outlives it or tapline.
            "--unshare-net".as_ref(),
            "--unshare-pid".as_ref(),
            "--unshare-ipc".as_ref(),
            "--unshare-uts".as_ref(),
            "--die-with-parent".as_ref(),
        ]);
        for dir in self.read_only.iter().chain(readable) {
            push(&["--ro-bind-try".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
        for path in self.writable.iter().chain(extra) {
            push(&["--bind".as_ref(), path.as_os_str(), path.as_os_str()]);
        }
        for key in &self.env_drop {
            push(&["--unsetenv".as_ref(), key.as_ref()]);
        }
        push(&["--chdir".as_ref(), cwd.as_os_str(), "--".as_ref()]);
        out.extend(argv.iter().cloned());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> Sandbox {
        Sandbox {
            bwrap: "/usr/bin/bwrap".into(),
            read_only: vec!["/tmp/project".into()],
            writable: vec!["/var/cache/x".into()],
            env_drop: vec!["AWS_SECRET_ACCESS_KEY".into()],
        }
    }

    #[test]
    fn wraps_the_command_with_isolation_first_and_the_test_last() {
        let argv: Vec<OsString> = vec!["sh".into(), "test/a.sh".into()];
        let wrapped = sandbox().wrap(&argv, Path::new("/tmp/project"));
        let words: Vec<String> = wrapped
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        let text = words.join(" ");
        assert!(
            text.starts_with("/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp ")
        );
        for part in [
            "--unshare-net",
            "--unshare-pid",
            "--die-with-parent",
            "--ro-bind-try /tmp/project /tmp/project",
            "--bind /var/cache/x /var/cache/x",
            "--unsetenv AWS_SECRET_ACCESS_KEY",
            "--setenv HOME /tmp/home",
        ] {
            assert!(text.contains(part), "{part} missing from {text}");
        }
        // The checkout is re-bound after /tmp is replaced, or a checkout under /tmp would vanish.
        let tmpfs = text.find("--tmpfs /tmp").unwrap_or(usize::MAX);
        let checkout = text.find("--ro-bind-try /tmp/project").unwrap_or(0);
        assert!(tmpfs < checkout);
        assert!(text.ends_with("--chdir /tmp/project -- sh test/a.sh"));
    }

    /// Regression: a relative PATH entry gave a relative `bwrap`, checked from tapline's folder
    /// but spawned from each file's.
    #[test]
    fn bwrap_on_a_relative_path_entry_is_found_from_cwd_and_absolute() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let tools = dir.path().join("tools");
        std::fs::create_dir(&tools).expect("mkdir");
        std::fs::write(tools.join("bwrap"), "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(tools.join("bwrap"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        assert_eq!(
            find_bwrap(Some(OsStr::new("tools")), dir.path()),
            Some(tools.join("bwrap"))
        );
    }

    #[test]
    fn missing_bwrap_is_a_usage_error_naming_the_package() {
        let empty = tempfile::tempdir().expect("tempdir");
        let err = Sandbox::new(
            Some(empty.path().as_os_str()),
            Path::new("/"),
            Path::new("/"),
            &[],
            Vec::new(),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(err.contains("apt-get install bubblewrap"), "{err}");
    }
}
