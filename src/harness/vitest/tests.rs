use super::*;
use crate::harness::driver::testing::{run_words, words};

#[test]
fn follows_vitest_run_watch_and_bare_not_bench_or_list() {
    for line in [
        "vitest",
        "vitest run",
        "vitest --run",
        "vitest run --typecheck",
        "vitest --config vitest.unit.ts --project unit",
        "./node_modules/.bin/vitest watch",
        "vitest test/unit",
    ] {
        let f = VITEST
            .follows(&words(line))
            .unwrap_or_else(|| panic!("{line}"));
        assert_eq!(f.places, [Through::place(ID, &words(line))], "{line}");
        assert_eq!(
            f.one_at_a_time, None,
            "{line}: vitest runs files side by side"
        );
    }
    for line in [
        "vitest bench",
        "vitest list",
        "vitest related src/a.ts",
        "mocha",
        "vite",
    ] {
        assert!(VITEST.follows(&words(line)).is_none(), "{line}");
    }
    let f = VITEST
        .follows(&words("vitest run --no-file-parallelism"))
        .expect("follows");
    assert!(f.one_at_a_time.is_some());
}

#[test]
fn a_file_runs_alone_through_the_driver_with_the_scripts_flags() {
    assert_eq!(
        run_words(&VITEST, "vitest run --typecheck", "test/a.test.ts", DRIVER),
        ["run", "run", "--typecheck", "--", "test/a.test.ts"]
    );
}

#[test]
fn the_listing_is_relative_to_the_cwd_each_file_once() {
    let text = r#"[
  {"file": "/p/test/a.test.ts", "projectName": "unit"},
  {"file": "/p/test/b.test.ts"},
  {"file": "/p/test/a.test.ts", "projectName": "browser"}
]"#;
    assert_eq!(
        parse_list(text, Path::new("/p")),
        Some(vec![
            PathBuf::from("test/a.test.ts"),
            PathBuf::from("test/b.test.ts")
        ])
    );
    assert_eq!(parse_list("No test files found", Path::new("/p")), None);
}

#[test]
fn the_name_pattern_joins_names_by_a_space_and_goes_before_the_file() {
    let p = Pattern::parse("math > adds").expect("pattern");
    let mut command: Vec<OsString> = ["node", "d.mjs", "run", "--", "t.ts"]
        .map(OsString::from)
        .to_vec();
    NamePattern.narrow(&mut command, &[p], &[vec!["math > adds (x)".to_owned()]]);
    assert_eq!(
        command[3],
        "--testNamePattern=math adds|^(math adds \\(x\\))$"
    );
    assert_eq!(command[4], "--");
}
