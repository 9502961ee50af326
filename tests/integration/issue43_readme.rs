//! #43 items 1 and 2: the README's first screen is for users (what tapline is, why over the
//! harness with measured figures, a real failure as the terminal shows it, install, the Quick
//! start's two commands), and what users install is a release build without debug info.
use crate::util::{copy_dir, repo, require, Project};
use regex::Regex;
use std::fs;

/// What a newcomer sees without scrolling: the issue's "first 40 lines".
const FIRST_SCREEN: usize = 40;

fn readme() -> String {
    fs::read_to_string(repo().join("README.md")).expect("failed to read README.md")
}

fn first_screen(readme: &str) -> Vec<&str> {
    readme.lines().take(FIRST_SCREEN).collect()
}

/// The code of an indented command line, without its `# comment`.
fn command_of(line: &str) -> Option<&str> {
    let code = line.strip_prefix("    ")?;
    Some(code.split(" #").next().unwrap_or_default().trim())
}

/// The first ```text block of `lines`: the command after `$ `, then the lines it printed.
fn excerpt<'a>(lines: &[&'a str]) -> (String, Vec<&'a str>) {
    let start = lines
        .iter()
        .position(|l| *l == "```text")
        .expect("the README's first screen holds a ```text block: a terminal excerpt");
    let len = lines[start + 1..]
        .iter()
        .position(|l| *l == "```")
        .expect("the excerpt's block ends within the first screen");
    let block = &lines[start + 1..start + 1 + len];
    let command = block
        .first()
        .and_then(|l| l.strip_prefix("$ "))
        .expect("the excerpt opens with the command, `$ tapline run …`");
    (command.to_string(), block[1..].to_vec())
}

/// Durations vary from run to run: `(217ms)`, `1.3s` and `221ms` all read `<d>`.
fn without_durations(text: &str) -> String {
    let duration = Regex::new(r"\b\d+(\.\d+)?(ms|s)\b").expect("a valid pattern");
    duration.replace_all(text, "<d>").into_owned()
}

#[test]
fn issue43_the_readmes_first_screen_says_what_and_why_shows_a_failure_and_how_to_start() {
    let readme = readme();
    let lines = first_screen(&readme);
    // What: a paragraph under the title, before any section.
    let what: Vec<&str> = lines[1..]
        .iter()
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    assert!(
        what.len() >= 3 && what.iter().any(|l| l.contains("tapline run")),
        "the README does not open with a paragraph on what tapline is: {what:#?}"
    );
    // Why: three reasons, each with a figure measured in benches/README.md, linked there.
    let benches = fs::read_to_string(repo().join("benches/README.md"))
        .expect("failed to read benches/README.md");
    let figure = Regex::new(r"\d+(\.\d+)?(×| times)").expect("a valid pattern");
    let why: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("- ") && l.contains("](benches/README.md#"))
        .copied()
        .collect();
    assert_eq!(
        why.len(),
        3,
        "three reasons, each linked to its figures: {why:#?}"
    );
    for reason in &why {
        let figures: Vec<&str> = figure.find_iter(reason).map(|m| m.as_str()).collect();
        assert!(!figures.is_empty(), "a reason without a figure: {reason}");
        for f in figures {
            assert!(
                benches.contains(f),
                "{f} is not a figure of benches/README.md: {reason}"
            );
        }
    }
    // A failure as the terminal shows it (that it is real: the test below).
    let (command, printed) = excerpt(&lines);
    assert!(command.starts_with("tapline run "), "{command}");
    assert!(
        printed.iter().any(|l| l.starts_with('✗')) && printed.iter().any(|l| l.contains("+ ")),
        "the excerpt shows no failure and its diff: {printed:#?}"
    );
    // Install in one command, then the Quick start's two commands.
    let install = lines
        .iter()
        .position(|l| command_of(l) == Some("cargo install --path ."))
        .expect("the first screen holds the install command");
    let quick_start = lines
        .iter()
        .position(|l| *l == "## Quick start")
        .expect("the first screen holds the Quick start");
    assert!(
        install < quick_start,
        "install comes before the Quick start"
    );
    let commands: Vec<&str> = lines[quick_start..]
        .iter()
        .filter_map(|l| command_of(l))
        .collect();
    assert_eq!(
        commands,
        [command.as_str(), "cargo test"],
        "the Quick start runs the shipped example shown, then the tests"
    );
}

#[test]
fn issue43_the_readmes_failure_excerpt_is_what_tapline_prints() {
    if !require(
        "issue43_the_readmes_failure_excerpt_is_what_tapline_prints",
        &["node"],
    ) {
        return;
    }
    let readme = readme();
    let (command, printed) = excerpt(&first_screen(&readme));
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(args[..2], ["tapline", "run"], "{command}");
    // The example runs in a fresh copy, at the path the README names.
    let p = Project::new();
    for rel in &args[2..] {
        let from = repo().join(rel);
        let folder = if from.is_dir() {
            rel.to_string()
        } else {
            let parent = std::path::Path::new(rel)
                .parent()
                .expect("a shipped file's folder");
            parent.to_string_lossy().into_owned()
        };
        copy_dir(&repo().join(&folder), &p.join(&folder));
    }
    let ran = p.run(&args[2..]);
    assert_eq!(ran.code, 1, "the example fails: {}", ran.both());
    let shown = without_durations(&ran.stderr);
    let shown: Vec<&str> = shown.lines().collect();
    // Each run of lines between `…` is printed as it stands, in the README's order.
    let excerpt = without_durations(&printed.join("\n"));
    let mut from = 0;
    for chunk in excerpt.split("\n…\n") {
        let chunk: Vec<&str> = chunk.lines().collect();
        let at = shown[from..]
            .windows(chunk.len())
            .position(|w| w == chunk.as_slice())
            .unwrap_or_else(|| {
                panic!(
                    "the README's excerpt is not what `{command}` prints now;\nREADME:\n{}\n\
                     printed:\n{}",
                    chunk.join("\n"),
                    ran.stderr
                )
            });
        from += at + chunk.len();
    }
}

#[test]
fn issue43_release_builds_carry_no_debug_info_and_profiling_keeps_it() {
    let manifest =
        fs::read_to_string(repo().join("Cargo.toml")).expect("failed to read Cargo.toml");
    let manifest: toml::Table = manifest.parse().expect("Cargo.toml is TOML");
    let profile = |name: &str| {
        manifest
            .get("profile")
            .and_then(|p| p.get(name))
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default()
    };
    let none = |v: Option<&toml::Value>| match v {
        None => true,
        Some(toml::Value::Boolean(b)) => !b,
        Some(toml::Value::Integer(n)) => *n == 0,
        Some(toml::Value::String(s)) => s == "none",
        Some(_) => false,
    };
    let release = profile("release");
    assert!(
        none(release.get("debug")),
        "[profile.release] ships debug info to every user: {release:?}"
    );
    let profiling = profile("profiling");
    assert_eq!(
        profiling.get("inherits").and_then(toml::Value::as_str),
        Some("release"),
        "[profile.profiling] is the release build: {profiling:?}"
    );
    assert!(
        !none(profiling.get("debug")),
        "[profile.profiling] keeps line tables for profilers: {profiling:?}"
    );
}
