//! The temporary project every `tapline run` test works in, what a run did, and the small
//! file helpers the tests share.
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Generous: the tests must pass on a loaded 2-core machine, where a debug tapline, sh and
/// perl all compete for time. Only a hang should ever get near it.
pub(crate) const HANG: Duration = Duration::from_secs(120);

/// A temporary project: `.git` makes it the root, so logs land in its `.nogit/testlogs`.
pub(crate) struct Project {
    dir: TempDir,
}

/// What one `tapline run` did.
pub(crate) struct Ran {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) took: Duration,
}

impl Ran {
    /// What a finished `tapline` process did, `took` its wall time (zero where the test does
    /// not time it).
    pub(crate) fn of(out: std::process::Output, took: Duration) -> Ran {
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            took,
        }
    }

    /// Both streams, for assertion messages.
    pub(crate) fn both(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    pub(crate) fn summary_doc(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("--format summary is not JSON ({e}):\n{}", self.both()))
    }
}

impl Project {
    /// Starts tapline in the background (for tests that signal or watch it while it runs),
    /// its stderr (and stdout, when `stdout_file` is set) going to files in the project.
    pub(crate) fn spawn_tapline(&self, args: &[&str], stdout_file: bool) -> std::process::Child {
        let err = fs::File::create(self.join("stderr.txt")).expect("create");
        let out = if stdout_file {
            Stdio::from(fs::File::create(self.join("stdout.txt")).expect("create"))
        } else {
            Stdio::null()
        };
        StdCommand::new(env!("CARGO_BIN_EXE_tapline"))
            .current_dir(self.path())
            .env("CI", "1")
            .env("NO_COLOR", "1")
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("spawn tapline")
    }

    pub(crate) fn new() -> Project {
        let dir = tempfile::Builder::new()
            .prefix("tapline-run-")
            .tempdir()
            .expect("temp dir");
        fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        Project { dir }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn join(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    /// Writes `rel` (creating its folders).
    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Project {
        let path = self.join(rel);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        fs::write(&path, content).expect("write");
        self
    }

    /// Writes an executable script.
    pub(crate) fn script(&self, rel: &str, content: &str) -> &Project {
        self.write(rel, content);
        let path = self.join(rel);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        self
    }

    pub(crate) fn read(&self, rel: &str) -> Vec<u8> {
        fs::read(self.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub(crate) fn command(&self, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"));
        cmd.current_dir(self.path())
            .env("CI", "1")
            .env("NO_COLOR", "1")
            .arg("run")
            .args(args)
            .timeout(HANG);
        cmd
    }

    /// `tapline ARGS` (any command) in the project.
    pub(crate) fn tapline(&self, args: &[&str]) -> Ran {
        let started = Instant::now();
        let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
            .current_dir(self.path())
            .env("CI", "1")
            .env("NO_COLOR", "1")
            .args(args)
            .timeout(HANG)
            .output()
            .expect("tapline runs");
        Ran::of(out, started.elapsed())
    }

    pub(crate) fn read_text(&self, rel: &str) -> String {
        fs::read_to_string(self.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub(crate) fn run(&self, args: &[&str]) -> Ran {
        self.run_env(args, &[])
    }

    /// `tapline run ARGS` with these variables set (a `PATH` of its own, for instance).
    pub(crate) fn run_env(&self, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Ran {
        let started = Instant::now();
        let mut command = self.command(args);
        command.envs(env.iter().copied());
        let out = command.output().expect("tapline runs");
        Ran::of(out, started.elapsed())
    }

    /// The pid a script wrote to `rel`, once it has written it.
    pub(crate) fn pid(&self, rel: &str) -> i32 {
        let text = String::from_utf8(self.read(rel)).expect("utf-8 pid");
        text.trim()
            .parse()
            .unwrap_or_else(|e| panic!("pid in {rel}: {text:?}: {e}"))
    }
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// `files[]` of a summary document, by path.
pub(crate) fn file_doc<'a>(doc: &'a Value, path: &str) -> &'a Value {
    doc["files"]
        .as_array()
        .expect("files is an array")
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no file {path} in {doc:#}"))
}
