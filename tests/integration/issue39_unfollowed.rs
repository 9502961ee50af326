//! #39 item 5: a test script that runs a harness tapline does not follow is named, with the
//! entry that runs its files through it, exit 2; its files are never guessed at under plain
//! node. The user's own `[[runner]]` (or `[[suite]]`) then runs them.
use crate::util::Project;

fn project(script: &str) -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        format!("{{\"name\":\"x\",\"scripts\":{{\"test\":\"{script}\"}}}}"),
    );
    // A mocha spec: under plain node, `describe` is not defined.
    p.write(
        "test/a.spec.js",
        "describe('a', () => it('b', () => {}));\n",
    );
    p
}

#[test]
fn issue39_a_harness_tapline_does_not_follow_is_named_with_an_entry() {
    for (script, harness, entry) in [
        ("jasmine", "jasmine", "prints TAP"),
        (
            "npm run lint && cross-env CI=1 karma start",
            "karma",
            "prints TAP",
        ),
    ] {
        let p = project(script);
        let ran = p.run(&[]);
        assert_eq!(ran.code, 2, "{script}: {}", ran.both());
        let first = ran.stderr.lines().next().unwrap_or_default();
        assert!(
            first.contains(&format!("runs `{harness}`, which tapline does not follow")),
            "{script}: {}",
            ran.both()
        );
        assert!(first.contains(script), "{script}: {}", ran.both());
        assert!(ran.stderr.contains(entry), "{script}: {}", ran.both());
        assert!(
            !ran.stderr.contains("describe is not defined"),
            "{}",
            ran.both()
        );
    }
}

#[test]
fn issue39_the_users_runner_for_an_unfollowed_harness_runs_its_files() {
    // Also for a followed one (mocha): the user's rule says how its files run.
    let p = project("mocha");
    // A stand-in for the harness, printing TAP for the file it is given.
    p.script(
        "fake-mocha",
        "#!/bin/sh\necho '1..1'\necho \"ok 1 - ran $1\"\n",
    );
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"test/**/*.js\"\ncommand = \"sh fake-mocha {}\"\n",
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.stderr.contains("test/a.spec.js"), "{}", ran.both());
}

#[test]
fn issue39_a_script_tapline_follows_or_knows_nothing_of_is_not_refused() {
    // `node test.js`: no harness named; the default folders are walked as before.
    let p = project("node test.js");
    p.write("test/a.spec.js", "console.log('1..1\\nok 1 - a');\n");
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    // A followed harness beside an unfollowed one: the followed one's files run.
    let p = project("node --test test/ && jasmine");
    p.write(
        "test/a.spec.js",
        "const test = require('node:test');\ntest('a', () => {});\n",
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
}

/// Every worked example of docs/configuration.md loads as a `tapline.toml`, its command split
/// into the words written.
#[test]
fn issue39_the_worked_examples_of_the_configuration_page_load() {
    let page = std::fs::read_to_string(crate::util::repo().join("docs/configuration.md"))
        .expect("docs/configuration.md");
    let section = page
        .split("### Worked examples")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Worked examples section");
    let blocks: Vec<&str> = section
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(blocks.len() >= 7, "{section}");
    for block in blocks {
        let p = Project::new();
        p.write("tapline.toml", block);
        let config =
            tapline::run::config::load(p.path()).unwrap_or_else(|e| panic!("{block}\n{e}"));
        let commands: Vec<&Vec<String>> = (config.runners.iter().map(|r| &r.command))
            .chain(config.suites.iter().map(|s| &s.command))
            .collect();
        assert_eq!(commands.len(), 1, "{block}");
        let line = block
            .lines()
            .find_map(|l| l.strip_prefix("command = \""))
            .and_then(|l| l.strip_suffix('"'))
            .expect("a command line");
        assert_eq!(commands[0].join(" "), line, "{block}");
    }
}
