//! What the project in the cwd says about its tests, for a run with no PATH: the test command
//! of `package.json` (and the scripts it calls), or the layout of a project a harness owns.
//!
//! Understood in `scripts.test`: a command a harness follows (each room reads its own program's
//! operands and options: [`crate::harness::Harness::follows`]), and `npm run NAME` / `npm
//! test` / `yarn NAME` / `pnpm [run] NAME` calling another script. Commands are split at `&&`,
//! `||`, `;` and `|`; leading `VAR=value` words and wrappers (`cross-env`, `npx`, `nyc`, `c8`)
//! are skipped. Anything else (a linter before the tests, a reporter after them) says nothing.
//!
//! A script naming a harness tapline knows but does not follow ([`registry::unfollowed`]) fails
//! with an error that says what a `tapline.toml` entry running its files needs.
use super::words::split_words;
use crate::harness::registry;
use std::path::Path;

use crate::harness::api::Lane;
pub(super) use crate::harness::follow::{ByConfig, Excludes, Only, Place, Through};

/// The project's own word on its tests.
#[derive(Debug, Clone)]
pub(super) struct Declared {
    pub places: Vec<Place>,
    /// Where it was read, for `--list` and errors: the scripts whose runner command gave the
    /// places, as written (`package.json scripts.tests-only (`runner 'test/*.js'`)`), not the
    /// `npm run …` that called them.
    pub source: String,
    /// Why the run goes one file at a time, when every runner command it followed does
    /// (`X runs files one at a time`, as that harness words it); `None`: they run files in
    /// parallel.
    pub one_at_a_time: Option<&'static str>,
    /// What the own configuration of a harness it follows excludes, each read
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
    /// Per such runner command: why it runs files one at a time, if its words say it does,
    /// else how its harness's configuration says (with the words).
    serial: Vec<Serial>,
    /// What their harnesses' own configurations exclude.
    excludes: Vec<Excludes>,
    /// The first lane a harness gives its files.
    lane: Option<fn(&str) -> Lane>,
    /// The first command naming a harness tapline does not follow yet.
    unfollowed: Option<Unfollowed>,
}

/// Why a runner command runs its files one at a time: its words say, or its harness's own
/// configuration may (read once the cwd is known).
type Serial = (Option<&'static str>, Option<(ByConfig, Vec<String>)>);

/// A test script that runs a harness tapline does not follow (yet): named, with the
/// configuration that runs its files, instead of a guess that runs them under plain node.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unfollowed {
    /// `package.json scripts.test (`runner --require x`)`.
    pub source: String,
    /// The harness, as the script names it.
    pub harness: &'static str,
}

impl Unfollowed {
    /// The one-line error and what an entry that would run the files needs (exit 2).
    pub fn message(&self) -> String {
        format!(
            "failed to find test files: {} runs `{h}`, which tapline does not follow; add a \
             [[runner]] whose command runs one file through {h} and prints TAP, or a [[suite]] \
             that runs {h} and reads its JUnit report (docs/configuration.md)",
            self.source,
            h = self.harness
        )
    }

    /// Why the workspace's package at `dir` (from the root) fails, never started: the
    /// harness named, and the `[[suite]]` that would run it from its folder.
    pub fn in_package(&self, dir: &str) -> String {
        format!(
            "not run: {} runs `{h}`, which tapline does not follow; a [[suite]] in tapline.toml \
             with dir = \"{dir}\" whose command runs {h} and prints TAP (or writes a JUnit \
             report) runs its tests (docs/configuration.md)",
            self.source,
            h = self.harness
        )
    }
}

/// The test script `package.json` in `cwd` declares, if any: `package.json scripts.test
/// (`…`)`.
pub(super) fn test_script(cwd: &Path) -> Option<String> {
    let text = std::fs::read_to_string(cwd.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let line = json.get("scripts")?.get("test")?.as_str()?;
    Some(format!("package.json scripts.test (`{line}`)"))
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
    // The configuration is read only when the words say nothing, and only while every command
    // before said one at a time (one side by side decides).
    let mut reasons = Vec::new();
    for (said, by_config) in &followed.serial {
        let reason = said.or_else(|| by_config.as_ref().and_then(|(f, w)| f(w, cwd)));
        let Some(reason) = reason else {
            break;
        };
        reasons.push(reason);
    }
    let one_at_a_time = (reasons.len() == followed.serial.len())
        .then(|| reasons.first().copied())
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
    // The files a `find` feeds the next command of its pipe (`find . -name '*.spec.ts' |
    // xargs runner`), as globs.
    let mut found: Option<Vec<String>> = None;
    for (command, piped) in commands(line) {
        let fed = found.take().filter(|_| piped);
        let command = unwrap_runner(skip_wrappers(&command), fed);
        if let Some(globs) = find_globs(&command) {
            found = Some(globs);
            continue;
        }
        let words = skip_wrappers(&command);
        let words = package_bin(words, script).unwrap_or(words);
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
            if let Some(harness) = program.and_then(registry::unfollowed) {
                followed.unfollowed.get_or_insert_with(|| Unfollowed {
                    source: format!("package.json scripts.{name} (`{line}`)"),
                    harness,
                });
            }
            continue;
        };
        followed.places.extend(follows.places);
        let by_config = follows.one_at_a_time_by_config.map(|f| (f, words.to_vec()));
        followed.serial.push((follows.one_at_a_time, by_config));
        // Applied once each is enough, and again drops nothing more.
        followed.excludes.extend(follows.excludes);
        followed.lane = followed.lane.or(follows.lane);
        if !followed.scripts.iter().any(|(n, _)| n == name) {
            followed.scripts.push((name.to_owned(), line.to_owned()));
        }
    }
}

/// The simple commands of a shell line: split at `&&`, `||`, `;` and `|`, and out of a
/// subshell group's parentheses (`(runner test/)`, as some projects write their whole test
/// script); each says whether a `|` feeds it the one before.
fn commands(line: &str) -> Vec<(Vec<String>, bool)> {
    let Ok(words) = split_words(&line.replace(';', " ; ")) else {
        return Vec::new();
    };
    let mut out = vec![(Vec::new(), false)];
    let mut groups = 0;
    for word in words {
        if matches!(word.as_str(), "&&" | "||" | ";" | "|") {
            out.push((Vec::new(), word == "|"));
            continue;
        }
        let at_start = out.last().is_some_and(|(c, _)| c.is_empty());
        let (word, opened, closed) = ungroup(&word, at_start, groups);
        groups = groups + opened - closed;
        if let Some((last, _)) = out.last_mut() {
            if !word.is_empty() || opened + closed == 0 {
                last.push(word.to_owned());
            }
        }
        if closed > 0 {
            out.push((Vec::new(), false));
        }
    }
    out.retain(|(c, _)| !c.is_empty());
    out
}

/// `word` without a group's parentheses: the `(`s opening groups where a command starts
/// (`at_start`) and the `)`s closing the `open` ones, so `'(a|b).js'`, a word of a command,
/// keeps its own. The word and how many groups it opened and closed.
fn ungroup(word: &str, at_start: bool, open: usize) -> (&str, usize, usize) {
    let mut rest = word;
    let mut opened = 0;
    if at_start {
        while let Some(inner) = rest.strip_prefix('(') {
            rest = inner;
            opened += 1;
        }
    }
    let mut closed = 0;
    while closed < open + opened {
        let Some(inner) = rest.strip_suffix(')') else {
            break;
        };
        rest = inner;
        closed += 1;
    }
    (rest, opened, closed)
}

/// The command a runner of commands runs: `xargs [options] CMD` with the files `fed` to it
/// by a `find` before it in the pipe (as globs), `glob -c CMD PATTERN...` (the glob package's
/// CLI: CMD with the files the patterns match). Else `words` as they are.
fn unwrap_runner(words: &[String], fed: Option<Vec<String>>) -> Vec<String> {
    let Some((program, rest)) = words.split_first() else {
        return Vec::new();
    };
    match program.rsplit('/').next().unwrap_or(program) {
        "xargs" => {
            // Options that take their value as the next word.
            const WITH_VALUE: &[&str] = &["-n", "-P", "-L", "-I", "-d", "-s", "-E", "-a"];
            let mut i = 0;
            while i < rest.len() && rest[i].starts_with('-') {
                i += if WITH_VALUE.contains(&rest[i].as_str()) {
                    2
                } else {
                    1
                };
            }
            let mut out = rest.get(i..).unwrap_or_default().to_vec();
            out.extend(fed.unwrap_or_default());
            out
        }
        "glob" => {
            let mut command = None;
            let mut patterns = Vec::new();
            let mut args = rest.iter();
            while let Some(w) = args.next() {
                if w == "-c" || w == "--cmd" {
                    command = args.next().and_then(|c| split_words(c).ok());
                } else if let Some(c) = w.strip_prefix("--cmd=") {
                    command = split_words(c).ok();
                } else if !w.starts_with('-') {
                    patterns.push(w.clone());
                }
            }
            match command {
                Some(mut command) => {
                    command.extend(patterns);
                    command
                }
                None => words.to_vec(),
            }
        }
        _ => words.to_vec(),
    }
}

/// The files a `find PATH... -name PATTERN` lists, as globs (`PATH/**/PATTERN`), when
/// `words` is such a command (`-iname` read as `-name`; with no `-name`, every file).
fn find_globs(words: &[String]) -> Option<Vec<String>> {
    let (program, rest) = words.split_first()?;
    if program.rsplit('/').next() != Some("find") {
        return None;
    }
    let paths: Vec<&str> = rest
        .iter()
        .take_while(|w| !w.starts_with('-') && !matches!(w.as_str(), "(" | "!"))
        .map(|p| p.trim_end_matches('/'))
        .collect();
    let names: Vec<&str> = rest
        .windows(2)
        .filter(|w| w[0] == "-name" || w[0] == "-iname")
        .map(|w| w[1].as_str())
        .collect();
    let names = if names.is_empty() { vec!["*"] } else { names };
    let paths = if paths.is_empty() { vec!["."] } else { paths };
    let mut globs = Vec::new();
    for path in paths {
        for name in &names {
            globs.push(match path {
                "." | "" => format!("**/{name}"),
                _ => format!("{}/**/{name}", path.strip_prefix("./").unwrap_or(path)),
            });
        }
    }
    Some(globs)
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

/// The command `pnpm NAME …` / `yarn NAME …` runs when NAME is no script of the project: the
/// package's own program NAME (both fall back to the installed packages' programs, as
/// `pnpm exec` does), so `pnpm runner run` is `runner run`. `pnpm exec NAME …` and `yarn exec NAME …` too.
fn package_bin<'w, 'a>(
    words: &'w [String],
    script: &dyn Fn(&str) -> Option<&'a str>,
) -> Option<&'w [String]> {
    let (program, rest) = words.split_first()?;
    let program = program.rsplit('/').next().unwrap_or(program);
    if !matches!(program, "yarn" | "pnpm") {
        return None;
    }
    let at = rest.iter().position(|w| !w.starts_with('-'))?;
    let name = rest[at].as_str();
    if name == "exec" {
        let bin = &rest[at + 1..];
        return Some(bin.strip_prefix(&["--".to_owned()][..]).unwrap_or(bin))
            .filter(|b| !b.is_empty());
    }
    let builtin = matches!(name, "test" | "t" | "run" | "run-script");
    (!builtin && script(name).is_none()).then(|| &rest[at..])
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

    /// Every room's script cases ([`crate::harness::discovery_cases::scripts`]): the
    /// places following each test script gives.
    #[test]
    fn every_rooms_script_cases() {
        let cases = crate::harness::discovery_cases::scripts();
        assert!(!cases.is_empty(), "the rooms offer cases");
        for case in cases {
            assert_eq!(places(case.test, case.others), case.places, "{}", case.why);
        }
    }

    /// Scripts calling scripts: a loop ends, a command no harness runs gives nothing.
    #[test]
    fn scripts_calling_scripts() {
        assert_eq!(
            places("yarn unit", &[("unit", "yarn unit")]),
            [],
            "a loop ends"
        );
        assert_eq!(places("npm install", &[]), []);
    }

    /// Every room's declared cases: the source names the script with the runner command, as
    /// written; the run goes one file at a time as the commands followed say.
    #[test]
    fn every_rooms_declared_cases() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut count = 0;
        for case in crate::harness::discovery_cases::declared() {
            let json = format!(r#"{{"scripts": {{{}}}}}"#, case.scripts);
            std::fs::write(dir.path().join("package.json"), json).expect("write");
            let d = declared(dir.path()).expect("declared");
            if let Some(source) = case.source {
                assert_eq!(d.source, source, "{}", case.scripts);
            }
            assert_eq!(d.one_at_a_time, case.one_at_a_time, "{}", case.scripts);
            count += 1;
        }
        assert!(count > 0, "the rooms offer cases");
    }

    fn w(line: &str) -> Vec<String> {
        split_words(line).expect("words")
    }

    /// #39: the runners of commands scripts wrap a test command in.
    #[test]
    fn xargs_fed_by_find_and_glob_c_run_their_command() {
        let found = find_globs(&w("find ./ -type f -name \\*.spec.ts")).expect("a find");
        assert_eq!(found, ["**/*.spec.ts"]);
        assert_eq!(
            find_globs(&w("find test src/ -iname '*.t'")).expect("a find"),
            ["test/**/*.t", "src/**/*.t"]
        );
        assert_eq!(find_globs(&w("grep -r x")), None);
        assert_eq!(
            unwrap_runner(&w("xargs -n 1 -0 npx runner --flag"), Some(found)),
            w("npx runner --flag **/*.spec.ts")
        );
        assert_eq!(
            unwrap_runner(&w("glob -c \"runner --x\" \"a/**/*.y\" b.y"), None),
            w("runner --x a/**/*.y b.y")
        );
        assert_eq!(unwrap_runner(&w("runner a"), None), w("runner a"));
    }

    /// `pnpm runner run` (unjs/defu's test script): no script `runner`, so pnpm runs the
    /// package's own program.
    #[test]
    fn a_package_managers_bin() {
        let script = |name: &str| (name == "lint").then_some("eslint .");
        let words = |line: &str| commands(line).remove(0).0;
        let w = words("pnpm runner run");
        assert_eq!(package_bin(&w, &script), Some(&w[1..]));
        let w = words("yarn exec -- runner --tap");
        assert_eq!(package_bin(&w, &script), Some(&w[3..]));
        let w = words("pnpm lint");
        assert_eq!(package_bin(&w, &script), None, "a script of that name runs");
        let w = words("pnpm run x");
        assert_eq!(package_bin(&w, &script), None);
        let w = words("npm runner");
        assert_eq!(package_bin(&w, &script), None, "npm has no such fallback");
    }

    /// A script wrapped in a subshell group is its commands; a command's own parentheses
    /// stay its words'.
    #[test]
    fn a_groups_parentheses_bound_commands() {
        let words = |line: &str| commands(line).into_iter().map(|c| c.0).collect::<Vec<_>>();
        let w = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(words("(runner test/)"), [w("runner test/")]);
        assert_eq!(
            words("( cd sub && runner ) && (lint)"),
            [w("cd sub"), w("runner"), w("lint")]
        );
        assert_eq!(words("((runner a))"), [w("runner a")]);
        assert_eq!(words("runner 'x/(a|b)' '(c)'"), [w("runner x/(a|b) (c)")]);
        assert_eq!(words("runner a)"), [w("runner a)")], "no group opened");
    }

    #[test]
    fn unknown_commands_say_nothing() {
        assert_eq!(places("jasmine --random", &[]), []);
        assert_eq!(
            places("echo \"Error: no test specified\" && exit 1", &[]),
            []
        );
        // A script whose words cannot be split: the rooms' script cases.
    }
}
