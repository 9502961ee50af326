//! Issue 39: `[run] browser` names the browser for browser tests; `[run] chromium`, its first
//! name, still works with one warning, and both set is an error (docs/configuration.md).
use crate::util::{Project, Ran};

/// A run of one browser file, the browser looked for where `tapline.toml` says (a path that
/// does not exist: what the file's failure names is where tapline looked).
fn run_with(config: &str) -> Ran {
    let p = Project::new();
    p.write("test/a.browser.js", "console.log('ok 1');\n")
        .write("tapline.toml", config);
    let out = (p.command(&[]))
        .env_remove("TAPLINE_CHROMIUM")
        .output()
        .expect("tapline runs");
    Ran::of(out, std::time::Duration::ZERO)
}

const WARNING: &str = "tapline: [run] chromium is now [run] browser (tapline.toml)";

#[test]
fn issue39_the_browser_key_names_the_browser() {
    let ran = run_with("[run]\nbrowser = \"nowhere/browser\"\n");
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.both().contains("nowhere/browser (from [run] browser)"),
        "{}",
        ran.both()
    );
    assert!(!ran.stderr.contains("is now"), "{}", ran.both());
}

#[test]
fn issue39_the_old_browser_key_still_works_with_one_warning() {
    let ran = run_with("[run]\nchromium = \"nowhere/browser\"\n");
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.both().contains("nowhere/browser (from [run] browser)"),
        "{}",
        ran.both()
    );
    assert_eq!(
        ran.stderr.lines().filter(|l| *l == WARNING).count(),
        1,
        "{}",
        ran.both()
    );
}

#[test]
fn issue39_both_browser_keys_set_is_an_error() {
    let ran = run_with("[run]\nbrowser = \"a/browser\"\nchromium = \"b/browser\"\n");
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert_eq!(ran.stdout, "", "{}", ran.both());
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.both());
    assert!(
        ran.stderr.starts_with("tapline: failed to parse ")
            && ran
                .stderr
                .contains("tapline.toml: [run] chromium and [run] browser are both set"),
        "{}",
        ran.both()
    );
}
