//! #43: help as a newcomer meets it: a mistyped command or flag names the one meant, and the
//! commands are listed in the order a user meets them.
use assert_cmd::Command;

fn tapline(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("tapline")
        .expect("binary built")
        .args(args)
        .output()
        .expect("tapline runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn issue43_a_mistyped_command_or_flag_names_the_one_meant() {
    for (typed, meant) in [
        ("rnu", "run"),
        ("lsit", "list"),
        ("prase", "parse"),
        ("hsitory", "history"),
    ] {
        let (code, text) = tapline(&[typed]);
        assert_eq!(code, 2, "{text}");
        assert!(
            text.contains(&format!("a similar subcommand exists: '{meant}'")),
            "{typed}: {text}"
        );
    }
    // Nothing near: no tip at all.
    let (code, text) = tapline(&["xyzzy"]);
    assert_eq!(code, 2, "{text}");
    assert!(!text.contains("tip:"), "{text}");
    let (code, text) = tapline(&["run", "--fail-fsat"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("'--fail-fast'"), "{text}");
}

#[test]
fn issue43_commands_are_listed_in_the_order_a_user_meets_them() {
    let (code, text) = tapline(&["--help"]);
    assert_eq!(code, 0, "{text}");
    let at = |name: &str| {
        text.find(&format!("\n  {name} "))
            .unwrap_or_else(|| panic!("{name} not listed: {text}"))
    };
    let order = [
        "run", "list", "parse", "init", "report", "history", "serve", "man",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?}: {text}");
    }
}

#[test]
fn issue43_run_help_puts_its_flags_under_headings() {
    let (code, text) = tapline(&["run", "--help"]);
    assert_eq!(code, 0, "{text}");
    for heading in [
        "Selection:",
        "Execution:",
        "Output:",
        "Reports:",
        "Watch:",
        "History:",
        "Limits and sandbox:",
    ] {
        assert!(
            text.contains(&format!("\n{heading}\n")),
            "{heading}: {text}"
        );
    }
    // Under `Options:` only help itself is left.
    let options = text.split("\nOptions:\n").nth(1).expect("Options:");
    let options = options.split("\n\n").next().unwrap_or_default();
    assert_eq!(options.lines().count(), 1, "{options}");
}
