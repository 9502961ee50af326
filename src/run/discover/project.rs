//! What the project in the cwd says about its tests, for a run with no PATH: the test command
//! of `package.json` (and the scripts it calls), or a Perl distribution's layout.
//!
//! Understood in `scripts.test`: a command a harness follows (each room reads its own program's
//! operands and options: [`crate::harness::Harness::follows`]), and `npm run NAME` / `npm
//! test` / `yarn NAME` / `pnpm [run] NAME` calling another script. Commands are split at `&&`,
//! `||`, `;` and `|`; leading `VAR=value` words and wrappers (`cross-env`, `npx`, `nyc`, `c8`)
//! are skipped. Anything else (a linter before the tests, a reporter after them) says nothing.
//!
//! The harnesses a script may name that tapline knows but does not follow ([`UNFOLLOWED`]) stay
//! listed here, not in rooms: they have no room (nothing runs through them), and the list is
//! only the error's advice on a `tapline.toml` entry that would run their files.
use super::words::split_words;
use crate::harness::registry;
use std::path::Path;

use crate::harness::api::Lane;
pub(super) use crate::harness::follow::{Excludes, Only, Place, Through};

/// The project's own word on its tests.
#[derive(Debug, Clone)]
pub(super) struct Declared {
    pub places: Vec<Place>,
    /// Where it was read, for `--list` and errors: the scripts whose runner command gave the
    /// places, as written (`package.json scripts.tests-only (`tape 'test/*.js'`)`), not the
    /// `npm run …` that called them.
    pub source: String,
    /// Why the run goes one file at a time, when every runner command it followed does
    /// (`bats runs files one at a time`); `None`: they run files in parallel.
    pub one_at_a_time: Option<&'static str>,
    /// What the own configuration of a harness it follows excludes (node-tap's), each read
    /// from the cwd.
    pub excludes: Vec<Excludes>,
    /// How a file may run beside others, as the first harness it follows that says words it.
    pub lane: Option<fn(&str) -> Lane>,
}

/// What following `scripts.test` (and the scripts it calls) gathered.
#[derive(Default)]
struct Followed {
    places: Vec<Place>,
    /// Each script (name, line) holding a runner command that gave places, once.
    scripts: Vec<(String, String)>,
    /// Per such runner command: why it runs files one at a time, if it does.
    serial: Vec<Option<&'static str>>,
    /// What their harnesses' own configurations exclude.
    excludes: Vec<Excludes>,
    /// The first lane a harness gives its files.
    lane: Option<fn(&str) -> Lane>,
    /// The first command naming a harness tapline does not follow yet.
    unfollowed: Option<Unfollowed>,
}

/// A test script that runs a harness tapline does not follow (yet): named, with the
/// configuration that runs its files, instead of a guess that runs them under plain node.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unfollowed {
    /// `package.json scripts.test (`mocha --require x`)`.
    pub source: String,
    /// The harness, as the script names it.
    pub harness: &'static str,
}

/// Harnesses a `package.json` script may name that tapline does not follow yet, each with a
/// `tapline.toml` entry that runs its files through it (TAP where it prints TAP, else its
/// JUnit report); `None`: no ready entry, the message says what one needs.
const UNFOLLOWED: &[(&str, Option<&str>)] = &[
    (
        "vitest",
        Some("[[runner]]\nglob = \"**/*.{test,spec}.{js,ts,mjs,mts}\"\ncommand = \"npx vitest run --reporter=tap-flat {}\""),
    ),
    (
        "jest",
        Some("[[suite]]\nname = \"jest\"\ncommand = \"npx jest --ci --reporters=default --reporters=jest-junit\"\nformat = \"junit\"\nreport = \"junit.xml\"   # jest-junit's file (npm install --save-dev jest-junit)"),
    ),
    ("jasmine", None),
    ("karma", None),
    ("lab", None),
    ("uvu", None),
    ("playwright", None),
    ("cypress", None),
    ("wtr", None),
    ("web-test-runner", None),
    ("qunit", None),
];

impl Unfollowed {
    /// The one-line error and the entry that would run the files (exit 2).
    pub fn message(&self) -> String {
        let entry = UNFOLLOWED
            .iter()
            .find(|(name, _)| *name == self.harness)
            .and_then(|(_, entry)| *entry);
        let how = match entry {
            Some(entry) => format!("; add to tapline.toml, for instance:\n\n{entry}\n"),
            None => format!(
                "; add a [[runner]] whose command runs one file through {h} and prints TAP, or a \
                 [[suite]] that runs {h} and reads its JUnit report (docs/configuration.md)",
                h = self.harness
            ),
        };
        format!(
            "failed to find test files: {} runs `{}`, which tapline does not follow{how}",
            self.source, self.harness
        )
    }
}

/// The harness tapline does not follow that `package.json`'s test script (or a script it
/// calls) names, when the script names no harness tapline follows.
pub(super) fn unfollowed(cwd: &Path) -> Option<Unfollowed> {
    let followed = follow(cwd)?;
    if !followed.places.is_empty() {
        return None;
    }
    followed.unfollowed
}

/// Follows `package.json`'s `scripts.test` in `cwd`, and the scripts it calls.
fn follow(cwd: &Path) -> Option<Followed> {
    let text = std::fs::read_to_string(cwd.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let scripts = json.get("scripts")?.as_object()?;
    let script = |name: &str| scripts.get(name).and_then(|v| v.as_str());
    let mut followed = Followed::default();
    let test = script("test")?;
    places_of(
        "test",
        test,
        &script,
        &mut vec!["test".to_owned()],
        &mut followed,
    );
    Some(followed)
}

/// What `package.json` in `cwd` declares, if it declares anything tapline understands.
pub(super) fn declared(cwd: &Path) -> Option<Declared> {
    let followed = follow(cwd)?;
    let sources: Vec<String> = followed
        .scripts
        .iter()
        .map(|(name, line)| format!("package.json scripts.{name} (`{line}`)"))
        .collect();
    let one_at_a_time = followed
        .serial
        .iter()
        .all(Option::is_some)
        .then(|| followed.serial.first().copied().flatten())
        .flatten();
    (!followed.places.is_empty()).then(|| Declared {
        places: followed.places,
        source: sources.join(", "),
        one_at_a_time,
        excludes: followed.excludes,
        lane: followed.lane,
    })
}

/// Adds the places the script `name`'s `line` runs tests from, following the scripts it calls
/// (each once).
fn places_of<'a>(
    name: &str,
    line: &str,
    script: &dyn Fn(&str) -> Option<&'a str>,
    seen: &mut Vec<String>,
    followed: &mut Followed,
) {
    for command in commands(line) {
        let words = skip_wrappers(&command);
        if let Some(called) = called_script(words) {
            if !seen.iter().any(|s| s == called) && seen.len() < 16 {
                seen.push(called.to_owned());
                if let Some(line) = script(called) {
                    places_of(called, line, script, seen, followed);
                }
            }
            continue;
        }
        let follows = registry::follows(words).filter(|f| !f.places.is_empty());
        let Some(follows) = follows else {
            let program = words.first().and_then(|w| w.rsplit('/').next());
            if let Some((harness, _)) = UNFOLLOWED.iter().find(|(h, _)| Some(*h) == program) {
                followed.unfollowed.get_or_insert_with(|| Unfollowed {
                    source: format!("package.json scripts.{name} (`{line}`)"),
                    harness,
                });
            }
            continue;
        };
        followed.places.extend(follows.places);
        followed.serial.push(follows.one_at_a_time);
        // Applied once each is enough, and again drops nothing more.
        followed.excludes.extend(follows.excludes);
        followed.lane = followed.lane.or(follows.lane);
        if !followed.scripts.iter().any(|(n, _)| n == name) {
            followed.scripts.push((name.to_owned(), line.to_owned()));
        }
    }
}

/// The simple commands of a shell line: split at `&&`, `||`, `;` and `|`.
fn commands(line: &str) -> Vec<Vec<String>> {
    let Ok(words) = split_words(&line.replace(';', " ; ")) else {
        return Vec::new();
    };
    let mut out = vec![Vec::new()];
    for word in words {
        if matches!(word.as_str(), "&&" | "||" | ";" | "|") {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(word);
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// `words` without leading `VAR=value`s and wrappers that run the rest as their command.
fn skip_wrappers(words: &[String]) -> &[String] {
    let mut rest = words;
    while let Some((first, tail)) = rest.split_first() {
        let program = first.rsplit('/').next().unwrap_or(first);
        let assignment = first.contains('=') && !first.starts_with('-');
        if assignment || matches!(program, "cross-env" | "npx" | "env") {
            rest = tail;
        } else if matches!(program, "nyc" | "c8") {
            // Their own options come before the command.
            let options = tail.iter().take_while(|w| w.starts_with('-')).count();
            rest = &tail[options..];
        } else {
            break;
        }
    }
    rest
}

/// The script `npm run NAME` (and its kin) calls.
/// Options (`--silent`, `-s`) may come before the script's name.
fn called_script(words: &[String]) -> Option<&str> {
    let (program, rest) = words.split_first()?;
    let program = program.rsplit('/').next().unwrap_or(program);
    if !matches!(program, "npm" | "yarn" | "pnpm") {
        return None;
    }
    let mut w = rest
        .iter()
        .map(String::as_str)
        .filter(|word| !word.starts_with('-'));
    match (program, w.next()?) {
        ("npm" | "yarn" | "pnpm", "test" | "t") => Some("test"),
        (_, "run" | "run-script") => w.next(),
        ("yarn" | "pnpm", name) => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(test: &str, others: &[(&str, &str)]) -> Vec<Place> {
        let script = |name: &str| {
            if name == "test" {
                Some(test)
            } else {
                others.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
            }
        };
        let mut out = Followed::default();
        places_of("test", test, &script, &mut Vec::new(), &mut out);
        out.places
    }

    fn place(path: &str, recursive: bool, only: Only) -> Place {
        Place {
            path: path.into(),
            recursive,
            only,
        }
    }

    #[test]
    fn tape_globs() {
        assert_eq!(
            places("tape 'test/*.js' | tap-spec", &[]),
            [place("test/", true, Only::Glob("test/*.js".into()))]
        );
        assert_eq!(
            places("tape -r ./setup.js test/index.js ./test/**/*.js", &[]),
            [
                place("test/index.js", true, Only::Js { ts: false }),
                place("test/", true, Only::Glob("test/**/*.js".into())),
            ]
        );
    }

    #[test]
    fn node_test_and_tap() {
        assert_eq!(
            places("node --test", &[]),
            [place("", true, Only::Js { ts: false })]
        );
        assert_eq!(
            places("NODE_ENV=test node --import ./x.mjs --test spec/", &[]),
            [place("spec", true, Only::Js { ts: false })]
        );
        assert_eq!(
            places(
                "node --test --test-reporter spec --test-reporter-destination=stdout",
                &[]
            ),
            [place("", true, Only::Js { ts: false })],
            "an option's value is no path"
        );
        assert_eq!(
            places("c8 --reporter=lcov tap", &[]),
            [place("", true, Only::Js { ts: true })]
        );
    }

    #[test]
    fn scripts_calling_scripts() {
        assert_eq!(
            places(
                "npm run lint && npm run test:unit",
                &[
                    ("lint", "eslint ."),
                    ("test:unit", "node --test 'spec/**/*.spec.mjs'")
                ]
            ),
            [place(
                "spec/",
                true,
                Only::Glob("spec/**/*.spec.mjs".into())
            )]
        );
        assert_eq!(
            places("yarn unit", &[("unit", "yarn unit")]),
            [],
            "a loop ends"
        );
        assert_eq!(
            places(
                "pnpm run a; pnpm b",
                &[("a", "tstest test/"), ("b", "bats -r e2e")]
            ),
            [
                place("test/", true, Only::Ts),
                place("e2e", true, Only::Names(&["*.bats"])),
            ]
        );
    }

    /// resolve's own: `npm run --silent tests-only`.
    #[test]
    fn options_before_a_scripts_name() {
        assert_eq!(
            places(
                "npm run --silent tests-only",
                &[("tests-only", "tape test/*.js")]
            ),
            [place("test/", true, Only::Glob("test/*.js".into()))]
        );
        assert_eq!(
            places("yarn -s unit", &[("unit", "bats test")]),
            [place("test", false, Only::Names(&["*.bats"]))]
        );
        assert_eq!(places("npm install", &[]), []);
    }

    #[test]
    fn bats_and_prove() {
        assert_eq!(
            places("bats test", &[]),
            [place("test", false, Only::Names(&["*.bats"]))]
        );
        assert_eq!(
            places("prove -lr t xt", &[]),
            [
                place("t", true, Only::Names(&["*.t"])),
                place("xt", true, Only::Names(&["*.t"])),
            ]
        );
        assert_eq!(
            places("prove -I lib", &[]),
            [place("t", false, Only::Names(&["*.t"]))]
        );
    }

    /// The source names the script with the runner command, as written.
    #[test]
    fn the_followed_script_and_its_concurrency() {
        let dir = tempfile::tempdir().expect("tempdir");
        let declare = |scripts: &str| {
            let json = format!(r#"{{"scripts": {{{scripts}}}}}"#);
            std::fs::write(dir.path().join("package.json"), json).expect("write");
            let d = declared(dir.path()).expect("declared");
            (d.source, d.one_at_a_time)
        };
        assert_eq!(
            declare(r#""test": "npm run --silent tests-only", "tests-only": "tape 'test/*.js'""#),
            (
                "package.json scripts.tests-only (`tape 'test/*.js'`)".into(),
                None
            )
        );
        assert_eq!(
            declare(r#""test": "bats test""#),
            (
                "package.json scripts.test (`bats test`)".into(),
                Some("bats runs files one at a time")
            )
        );
        assert_eq!(declare(r#""test": "bats -j 4 test""#).1, None);
        assert_eq!(
            declare(r#""test": "prove -lr t && npm run b", "b": "bats e2e""#).1,
            Some("prove runs files one at a time")
        );
        assert_eq!(
            declare(r#""test": "prove -lr -j9 t && bats e2e""#).1,
            None,
            "one parallel runner: the run keeps the cores"
        );
        assert_eq!(declare(r#""test": "tap""#).1, None);
        assert_eq!(declare(r#""test": "prove -lrj4 t""#).1, None);
        assert_eq!(
            declare(r#""test": "prove -Ilib/j -r t""#).1,
            Some("prove runs files one at a time")
        );
    }

    #[test]
    fn unknown_commands_say_nothing() {
        assert_eq!(places("jest --coverage", &[]), []);
        assert_eq!(
            places("echo \"Error: no test specified\" && exit 1", &[]),
            []
        );
        assert_eq!(places("mocha 'unterminated", &[]), []);
    }
}
