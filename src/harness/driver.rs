//! A node driver of tapline's that runs a harness's files through the harness itself (mocha's,
//! jest's, vitest's, ava's): its files written once into the hooks' folder, the command that
//! lists a project's files with it and the one that runs one file through it, the warm worker
//! it serves as when the pool starts it, and the test-name pattern of the harnesses that match
//! a test's titles joined by a space.
use super::api::MissingInterpreter;
use super::filter::Pattern;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

/// A driver and the files it loads beside it (the driver first), written on first use.
pub(crate) struct Driver {
    /// The harness's name: the hooks' folder's and the messages'.
    kind: &'static str,
    files: &'static [(&'static str, &'static str)],
    written: OnceLock<Result<PathBuf, String>>,
}

impl Driver {
    pub(crate) const fn new(
        kind: &'static str,
        files: &'static [(&'static str, &'static str)],
    ) -> Driver {
        Driver {
            kind,
            files,
            written: OnceLock::new(),
        }
    }

    /// The driver's path, its files written once per process into the hooks' folder.
    pub(crate) fn path(&self) -> Result<PathBuf, String> {
        self.written
            .get_or_init(|| {
                let name = self.files.first().map_or("", |(name, _)| *name);
                super::hooks::versioned_hooks(self.kind, self.files)
                    .map(|dir| dir.join(name))
                    .map_err(|e| format!("failed to write tapline's {} driver: {e}", self.kind))
            })
            .clone()
    }

    /// `node DRIVER run WORDS FILE`: the file at `path` run alone through the harness (`words`
    /// say how, the driver's `--` among them where it reads one).
    pub(crate) fn run_command(
        &self,
        words: impl IntoIterator<Item = OsString>,
        path: &Path,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        let driver = self.path().map_err(|hint| MissingInterpreter {
            program: self.kind.to_owned(),
            file: path.to_path_buf(),
            hint: format!(": {hint}"),
        })?;
        let mut argv: Vec<OsString> = vec!["node".into(), driver.into(), "run".into()];
        argv.extend(words);
        // The file last: a warm worker is the command less its file.
        argv.push(path.as_os_str().to_owned());
        Ok(argv)
    }

    /// [`Self::run_command`] for a script's words (`mocha --require x test/`): its flags, the
    /// program left out, then `--`, where the driver stops reading options.
    pub(crate) fn script_command(
        &self,
        words: &[String],
        path: &Path,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        let flags = words.iter().skip(1).map(OsString::from);
        self.run_command(flags.chain(["--".into()]), path)
    }

    /// The first line `node DRIVER MODE ARGS`, run in `cwd`, prints (`None`: none, or it could
    /// not run; what it said on stderr is dropped: the question was optional). Asked once per
    /// process: a discovery reads the project's declaration more than once.
    pub(crate) fn ask(&self, mode: &str, args: &[String], cwd: &Path) -> Option<String> {
        type Asked = Mutex<HashMap<(String, Vec<String>, PathBuf), Option<String>>>;
        static ASKED: OnceLock<Asked> = OnceLock::new();
        let key = (
            format!("{}/{mode}", self.kind),
            args.to_vec(),
            cwd.to_path_buf(),
        );
        let asked = ASKED.get_or_init(Asked::default);
        if let Some(said) = asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return said.clone();
        }
        let said = self.ask_now(mode, args, cwd);
        (asked.lock().unwrap_or_else(PoisonError::into_inner)).insert(key, said.clone());
        said
    }

    fn ask_now(&self, mode: &str, args: &[String], cwd: &Path) -> Option<String> {
        let driver = self.path().ok()?;
        let node = crate::util::which::find("node".as_ref(), cwd)?;
        crate::util::quiet::first_line_of(
            std::process::Command::new(node)
                .arg(&driver)
                .arg(mode)
                .args(args)
                .current_dir(cwd)
                .env("TAPLINE", "1")
                .env("NO_COLOR", "1"),
        )
    }

    /// The files `node DRIVER list ARGS`, run in `cwd`, prints one a line (from `cwd`); `Err`:
    /// the line it said why on (its `tapline: ` line first), after "failed to list …: ".
    pub(crate) fn list<'a>(
        &self,
        args: impl IntoIterator<Item = &'a OsStr>,
        cwd: &Path,
    ) -> Result<Vec<PathBuf>, String> {
        let driver = self.path()?;
        let node = crate::util::which::find("node".as_ref(), cwd)
            .ok_or_else(|| format!("node is not installed ({} runs under node)", self.kind))?;
        let out = std::process::Command::new(node)
            .arg(&driver)
            .arg("list")
            .args(args)
            .current_dir(cwd)
            .env("TAPLINE", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("failed to start node: {e}"))?;
        if !out.status.success() {
            let said = String::from_utf8_lossy(&out.stderr);
            let line = (said.lines().find(|l| l.starts_with("tapline: ")))
                .or_else(|| said.lines().find(|l| !l.trim().is_empty()));
            return Err(match line {
                Some(line) => line.trim_start_matches("tapline: ").to_owned(),
                None => format!("{}'s listing failed", self.kind),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect())
    }
}

/// The warm worker: the driver serves the pool's commands from stdin when the pool starts it.
impl super::worker::Worker for Driver {
    fn runs(&self, program: &str) -> bool {
        matches!(program, "node" | "nodejs")
    }

    fn files(&self) -> &'static [(&'static str, &'static str)] {
        self.files
    }

    fn key_extra(&self, _path: &Path, _asked: bool) -> Option<bool> {
        Some(false)
    }
}

/// `word` put before the command's last `--` (the driver's, before the file).
pub(crate) fn before_the_file(command: &mut Vec<OsString>, word: String) {
    let at = (command.iter().rposition(|w| w == "--")).unwrap_or(command.len());
    command.insert(at, word.into());
}

/// The pattern of a harness that matches a test's titles joined by a space (mocha's `--grep`,
/// jest's and vitest's `--testNamePattern`), where a point's name here joins them by ` > `:
/// the plain patterns' text, the known matching tests anchored, and the regular expressions
/// for tests known only at run time.
pub(crate) fn titles_pattern(patterns: &[Pattern], matching: &[Vec<String>]) -> String {
    let titles = |name: &str| name.replace(" > ", " ");
    let mut all: Vec<String> = (patterns.iter())
        .filter(|p| p.plain)
        .map(|p| regex::escape(&titles(&p.text)))
        .collect();
    let own: Vec<String> = (matching.iter())
        .map(|n| regex::escape(&titles(&n.join(" > "))))
        .collect();
    if !own.is_empty() {
        all.push(format!("^({})$", own.join("|")));
    }
    all.extend(
        (patterns.iter())
            .filter(|p| !p.plain)
            .map(|p| p.source().to_owned()),
    );
    all.join("|")
}

/// What the rooms' tests of their drivers share.
#[cfg(test)]
pub(crate) mod testing {
    use super::super::api::{Cx, Memo, Settings};
    use super::super::Harness;
    use std::path::Path;

    /// A script's command as words, split at spaces.
    pub(crate) fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    /// The words after `node DRIVER` of the command `harness` makes for the file at `path`
    /// when the script's command is `line` (a project in `/p`); checks the command starts so,
    /// with `driver` the driver's file name.
    pub(crate) fn run_words(
        harness: &dyn Harness,
        line: &str,
        path: &str,
        driver: &str,
    ) -> Vec<String> {
        let (mut memo, settings) = (Memo::default(), Settings::default());
        let mut cx = Cx {
            cwd: Path::new("/p"),
            root: Path::new("/p"),
            settings: &settings,
            memo: &mut memo,
        };
        let argv =
            (harness.command_through(&words(line), Path::new(path), &mut cx)).expect("command");
        let shown: Vec<String> = argv.iter().map(|w| w.to_string_lossy().into()).collect();
        assert_eq!(shown[0], "node");
        assert!(shown[1].ends_with(driver), "{shown:?}");
        shown[2..].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_joined_by_a_space_and_the_pattern_goes_before_the_file() {
        let p = Pattern::parse("math > adds").expect("pattern");
        let mut command: Vec<OsString> = ["node", "d.cjs", "run", "--", "t.js"]
            .map(OsString::from)
            .to_vec();
        let pattern = titles_pattern(&[p], &[vec!["math > adds (x)".to_owned()]]);
        before_the_file(&mut command, format!("--grep={pattern}"));
        assert_eq!(command[3], "--grep=math adds|^(math adds \\(x\\))$");
        assert_eq!(command[4], "--");
        let re = Pattern::parse("/^a.b$/").expect("pattern");
        assert_eq!(titles_pattern(&[re], &[]), "^a.b$");
    }
}
