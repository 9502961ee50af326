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
use super::api::{Cx, Id, MissingInterpreter, Silent};
use super::filter::{level, Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Only, Through};
use super::Harness;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

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

    fn silent(&self, _name: &str) -> Silent {
        Silent::Fails
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

/// The project's tap 18 or later: its `tap` program, in the nearest `node_modules` from `cwd`
/// up; `None` when tap is older (no `tap list`) or not installed.
fn installed(cwd: &Path) -> Option<PathBuf> {
    let folder = cwd
        .ancestors()
        .map(|dir| dir.join("node_modules/tap"))
        .find(|dir| dir.join("package.json").is_file())?;
    let text = std::fs::read_to_string(folder.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let major: u64 = json
        .get("version")?
        .as_str()?
        .split('.')
        .next()?
        .parse()
        .ok()?;
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
