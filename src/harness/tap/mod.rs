//! node-tap: a project whose test script runs `tap` has its files listed and run by its own
//! tap when tap 18 or later is installed, else (tap 16 and older, which cannot list, or no tap
//! installed) walked by tapline's own naming as before.
//!
//! - which files (tap 18+): `tap list` with the script's flags, which applies the project's
//!   `include`/`exclude` (`.taprc`, package.json `tap`).
//! - each file runs alone, `node tapline-tap.mjs run FILE -- FLAGS`: the driver loads the
//!   project's tap configuration as `tap FLAGS` would and starts node on FILE exactly as tap's
//!   runner spawns a test (its plugins' loaders and imports, TypeScript included, `node-arg`,
//!   `--enable-source-maps`, processinfo), so the file prints its own TAP, not wrapped in the
//!   runner's subtest. tap's coverage is off (tapline reports tests, not coverage thresholds).
//! - tap 16 and older, or tap absent: the script's folders walked for JavaScript and TypeScript
//!   tests as tap names them, minus tap's `exclude` ([`tap_config`]), each under node or the
//!   project's TypeScript runner.
//! - `-t` narrows with tap's `TAP_GREP`, the top level's pattern.
use super::api::{Around, Counting, Cx, Id, MissingInterpreter, Script, Silent};
use super::filter::{level, Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Only, Through};
use super::Harness;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[cfg(test)]
pub(crate) mod discovery_cases;
mod tap_config;

/// node-tap, through its own configuration and loaders.
pub(crate) struct Tap;
pub(crate) static TAP: Tap = Tap;

const ID: Id = "tap";
const DRIVER: &str = "tapline-tap.mjs";
const FILES: &[(&str, &str)] = &[(DRIVER, include_str!("tapline-tap.mjs"))];

/// tap's options that take their value as the next word.
const WITH_VALUE: &[&str] = &["-R", "--reporter", "-j", "--jobs", "-t", "--timeout"];

/// The driver, written on first use.
static DRIVER_FILES: super::driver::Driver = super::driver::Driver::new(ID, FILES);

impl Harness for Tap {
    fn id(&self) -> Id {
        ID
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let ("tap", args) = follow::program(words)? else {
            return None;
        };
        // Where tap cannot list (16 and older, or not installed): tap 18's naming, JavaScript
        // and TypeScript alike, in the script's folders or tap's default ones.
        let fallback =
            follow::or_default(follow::operands(args, WITH_VALUE), Only::Js { ts: true });
        Some(Follows {
            places: vec![Through::place_or(ID, words, fallback)],
            one_at_a_time: None,
            // tap's own configuration may exclude files it would never run.
            excludes: Some(tap_config::excludes),
            lane: None,
            ..Follows::default()
        })
    }

    fn list_through(&self, words: &[String], cwd: &Path) -> Option<Result<Vec<PathBuf>, String>> {
        let ("tap", args) = follow::program(words)? else {
            return None;
        };
        let tap = installed(cwd)?;
        // `tap run PATH…` is `tap PATH…`; `tap list run` would look for a file named `run`.
        let args = args.strip_prefix(&["run".to_owned()]).unwrap_or(args);
        Some(list(&tap, args, cwd))
    }

    fn command_through(
        &self,
        words: &[String],
        path: &Path,
        _cx: &mut Cx<'_>,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        let driver = DRIVER_FILES.path().map_err(|hint| MissingInterpreter {
            program: "tap".to_owned(),
            file: path.to_path_buf(),
            hint: format!(": {hint}"),
        })?;
        let mut argv: Vec<OsString> = vec!["node".into(), driver.into(), "run".into()];
        argv.push(path.as_os_str().to_owned());
        argv.push("--".into());
        argv.extend(words.iter().skip(1).map(OsString::from));
        Ok(argv)
    }

    /// tap 16 (no `tap list`): a walked JavaScript file, or a TypeScript one with `ts` on and
    /// ts-node installed, starts as tap 16's runner spawns it: `node NODE_ARGS FILE TEST_ARGS`
    /// with its `test-env`. Absent tap, or a file tap 16 would not run under node: the walk's.
    fn fallback_command(
        &self,
        words: &[String],
        path: &Path,
        walked: &[OsString],
        cwd: &Path,
    ) -> Option<Vec<OsString>> {
        let ("tap", args) = follow::program(words)? else {
            return None;
        };
        if major(cwd)? >= 18 {
            return None;
        }
        let options = tap_config::tap16(cwd, args);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let ts = matches!(ext, "ts" | "mts" | "cts" | "tsx");
        let ts_node = ts.then(|| ts_node(cwd)).flatten();
        if ts && !(options.ts && ts_node.is_some()) || !ts && walked.first()? != "node" {
            return None;
        }
        let mut argv: Vec<OsString> = Vec::new();
        if !options.test_env.is_empty() {
            argv.push("env".into());
            for e in &options.test_env {
                match e.split_once('=') {
                    Some(_) => argv.push(e.into()),
                    None => argv.extend(["-u".into(), e.into()]),
                }
            }
        }
        argv.push("node".into());
        if let Some(register) = ts_node {
            argv.extend(["-r".into(), register.into_os_string()]);
        }
        argv.extend(options.node_arg.iter().map(OsString::from));
        argv.push(path.as_os_str().to_owned());
        argv.extend(options.test_arg.iter().map(OsString::from));
        Some(argv)
    }

    fn silent(&self, _name: &str) -> Silent {
        Silent::Fails
    }

    /// tap's `before`/`after` programs, started as tap starts them: tap 18+ as a test file
    /// (node with its plugins' loaders and `node-arg`s, through the driver), tap 16 as node
    /// with its `node-arg`s (and ts-node for a `.ts` with `ts` on) and `test-env`. No tap
    /// installed: none (nothing could start them as tap does).
    fn around(&self, words: &[String], cwd: &Path) -> Around {
        let Some(("tap", args)) = follow::program(words) else {
            return Around::default();
        };
        let Some(major) = major(cwd) else {
            return Around::default();
        };
        let [before, after] = tap_config::before_after(cwd, args);
        let script = |file: Option<String>, what: &str| {
            let file = PathBuf::from(file?);
            let argv = match major >= 18 {
                true => {
                    let driver = DRIVER_FILES.path().ok()?;
                    let mut argv: Vec<OsString> = vec!["node".into(), driver.into(), "run".into()];
                    argv.push(file.as_os_str().to_owned());
                    argv.push("--".into());
                    argv.extend(args.iter().map(OsString::from));
                    argv
                }
                false => self.fallback_command(words, &file, &["node".into()], cwd)?,
            };
            Some(Script {
                what: format!("tap's {what} {}", file.display()),
                argv,
                file,
            })
        };
        Around {
            before: script(before, "before"),
            after: script(after, "after"),
        }
    }

    /// tap's summary counts assertions at every depth (tap-parser's `emitAssert`, 16 and 18+).
    fn counts(&self) -> Counting {
        Counting::Asserts
    }

    fn dependency_folders(&self) -> &'static [&'static str] {
        &["node_modules"]
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        if probe.suite.is_some() || !(probe.program)("node") {
            return None;
        }
        let src = (probe.source)();
        let imports_tap = ["'tap'", "\"tap\""].iter().any(|m| src.contains(m));
        (probe.harness == Some(ID) || imports_tap).then_some(Filter::of(&TapGrep))
    }
}

/// The major version of the project's tap (the nearest `node_modules/tap` from `cwd` up).
fn major(cwd: &Path) -> Option<u64> {
    let folder = cwd
        .ancestors()
        .map(|dir| dir.join("node_modules/tap"))
        .find(|dir| dir.join("package.json").is_file())?;
    version_of(&folder)
}

/// The major version in `folder`'s `package.json`.
fn version_of(folder: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(folder.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("version")?
        .as_str()?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// ts-node's `register`, as tap 16 resolves it (`ts-node/register` from tap's folder): here
/// the nearest `node_modules/ts-node/register` from `cwd` up.
fn ts_node(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join("node_modules/ts-node/register"))
        .find(|dir| dir.join("index.js").is_file())
}

/// The project's tap 18 or later: its `tap` program, in the nearest `node_modules` from `cwd`
/// up; `None` when tap is older (no `tap list`) or not installed.
fn installed(cwd: &Path) -> Option<PathBuf> {
    let folder = cwd
        .ancestors()
        .map(|dir| dir.join("node_modules/tap"))
        .find(|dir| dir.join("package.json").is_file())?;
    let major = version_of(&folder)?;
    let bin = folder.parent()?.join(".bin/tap");
    (major >= 18 && bin.exists()).then_some(bin)
}

/// The files `tap list` prints for the script's flags `args`, from `cwd`.
fn list(tap: &Path, args: &[String], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let out = std::process::Command::new(tap)
        .arg("list")
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("failed to start {}: {e}", tap.display()))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let line = said.lines().find(|l| !l.trim().is_empty());
        return Err(line.unwrap_or("tap list failed").trim().to_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(PathBuf::from)
        .collect())
}

/// node-tap's `TAP_GREP`, whose first pattern is the top level's.
struct TapGrep;

impl Narrow for TapGrep {
    fn said(&self) -> &'static str {
        "tap's TAP_GREP"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        // tap reads its `--grep` from the environment when a file runs on its own.
        let top = level(
            patterns,
            matching
                .iter()
                .filter_map(|n| n.first().map(String::as_str))
                .collect(),
        );
        command.splice(
            0..0,
            ["env".into(), OsString::from(format!("TAP_GREP={top}"))],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::driver::testing::words;

    #[test]
    fn follows_tap_through_itself_with_its_naming_as_fallback() {
        let f = TAP.follows(&words("tap -R spec test/")).expect("follows");
        let [place] = f.places.as_slice() else {
            panic!("one place: {:?}", f.places);
        };
        let Only::Through(through) = &place.only else {
            panic!("through: {place:?}");
        };
        assert_eq!(through.harness, ID);
        assert_eq!(through.fallback.len(), 1);
        assert_eq!(through.fallback[0].path, Path::new("test/"));
        assert!(f.excludes.is_some());
        assert!(TAP.follows(&words("tape test/*.js")).is_none());
    }

    #[test]
    fn only_tap_18_or_later_lists() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tap = dir.path().join("node_modules/tap");
        std::fs::create_dir_all(&tap).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).expect("mkdir");
        std::fs::write(dir.path().join("node_modules/.bin/tap"), "").expect("write");
        std::fs::write(tap.join("package.json"), r#"{"version":"16.3.10"}"#).expect("write");
        assert_eq!(installed(dir.path()), None);
        std::fs::write(tap.join("package.json"), r#"{"version":"21.0.1"}"#).expect("write");
        assert!(installed(dir.path()).is_some());
    }
}
