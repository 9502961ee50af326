//! Issue 7: files run as their own harness runs them. Real children: perl reads a `-T` from
//! its `#!` line only if it is on the command line too; a directory yields test files, not
//! the helpers beside them (with `--exec` too); `--env`, `[run] env` and `-I DIR` reach every
//! child, a taint-mode perl included.
use crate::util::{file_doc, require, Project};
use serde_json::Value;

/// The verdict of every file of a `--format summary` run, by path.
fn verdicts(doc: &Value) -> Vec<(String, bool)> {
    doc["files"]
        .as_array()
        .expect("files is an array")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path").to_owned(),
                f["ok"].as_bool().expect("ok"),
            )
        })
        .collect()
}

fn expect(pairs: &[(&str, bool)]) -> Vec<(String, bool)> {
    pairs.iter().map(|&(p, ok)| (p.to_owned(), ok)).collect()
}

/// A perl test: passes when `cond` (perl) holds, says why not otherwise.
fn perl_test(shebang: &str, cond: &str) -> String {
    format!(
        "{shebang}\nprint qq{{1..1\\n}};\nprint +({cond}) ? qq{{ok 1\\n}} : qq{{not ok 1 - ({cond}) is false\\n}};\n"
    )
}

#[test]
fn issue7_taint_perl_files_pass() {
    let p = Project::new();
    p.write(
        "t/env.t",
        perl_test("#!/usr/bin/env perl -T", "${^TAINT} == 1"),
    )
    .write("t/plain.t", perl_test("#!perl -T", "${^TAINT} == 1"))
    .write(
        "t/combined.t",
        perl_test("#!/usr/bin/perl -wT", "${^TAINT} == 1 && $^W"),
    )
    .write("t/lower.t", perl_test("#!perl -t", "${^TAINT} == -1"))
    .write("t/warn.t", perl_test("#!perl -w", "$^W && !${^TAINT}"))
    // Taint mode ignores PERL5LIB: `-I lib` must reach it as a switch.
    .write("lib/Helper.pm", "package Helper; sub answer { 42 } 1;\n")
    .write(
        "t/lib.t",
        perl_test("#!perl -T", "do { require Helper; Helper::answer() == 42 }"),
    )
    // An executable no rule maps: Linux would hand env `perl -T` as one word.
    .script(
        "t/exe",
        &perl_test("#!/usr/bin/env perl -T", "${^TAINT} == 1"),
    );
    let ran = p.run(&["--format", "summary", "-I", "lib", "t", "t/exe"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        verdicts(&ran.summary_doc()),
        expect(&[
            ("t/combined.t", true),
            ("t/env.t", true),
            ("t/exe", true),
            ("t/lib.t", true),
            ("t/lower.t", true),
            ("t/plain.t", true),
            ("t/warn.t", true),
        ]),
        "{}",
        ran.both()
    );
    let listed = p.run(&["--list", "-I", "lib", "t/env.t", "t/lib.t"]);
    let lib = p.join("lib");
    assert!(
        listed
            .stdout
            .contains(&format!("t/lib.t\tperl -I{} ", lib.display())),
        "a taint-mode perl gets PERL5LIB as -I:\n{}",
        listed.both()
    );
    assert!(listed.stdout.contains("-T t/env.t\n"), "{}", listed.both());
}

#[test]
fn issue7_directory_runs_only_test_files() {
    let p = Project::new();
    let failing = "print qq{1..1\\nnot ok 1 - a helper ran as a test\\n};\n";
    p.write("t/a.t", "print qq{1..1\\nok 1\\n};\n")
        .write("t/sub/b.t", "print qq{1..1\\nok 1\\n};\n")
        .write("t/helper.pl", failing)
        .script(
            "t/mk-manifest.pl",
            &format!("#!/usr/bin/env perl\n{failing}"),
        )
        .write("t/lib/Mod.pm", "package Mod; 1;\n")
        .write("t/data.json", "{}");
    let ran = p.run(&["--format", "summary", "t"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        verdicts(&ran.summary_doc()),
        expect(&[("t/a.t", true), ("t/sub/b.t", true)]),
        "{}",
        ran.both()
    );

    let named = p.run(&["--format", "summary", "t/helper.pl"]);
    assert_eq!(
        named.code,
        1,
        "a helper named explicitly runs:\n{}",
        named.both()
    );
    assert_eq!(file_doc(&named.summary_doc(), "t/helper.pl")["ok"], false);

    let listed = p.run(&["--list", "t"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert_eq!(
        listed.stdout,
        "t/a.t\tperl t/a.t\nt/sub/b.t\tperl t/sub/b.t\n",
        "{}",
        listed.both()
    );
    assert!(
        listed
            .stderr
            .contains("tapline: a directory yields files matching *.t *.t2 test*.py *_test.py"),
        "--list says what a directory yields:\n{}",
        listed.both()
    );
    assert!(
        listed
            .stderr
            .contains("tapline: not tests (3 files): t/data.json, t/helper.pl, t/lib/Mod.pm"),
        "{}",
        listed.both()
    );
    assert!(
        listed.stderr.contains(
            "tapline: t/mk-manifest.pl: passed over: a helper beside *.t tests (prove runs *.t only)"
        ),
        "an executable helper, said on its own line (issue 38):\n{}",
        listed.both()
    );
}

#[test]
fn issue7_exec_on_a_directory_runs_only_test_files() {
    let p = Project::new();
    p.write("t/a.t", "print qq{1..1\\nok 1\\n};\n")
        .write("t/helper.pl", "print qq{1..1\\nnot ok 1 - helper\\n};\n")
        .write("t/lib/Mod.pm", "print qq{1..1\\nnot ok 1 - module\\n};\n")
        .write("t/sample.txt", "1..1\nnot ok 1 - sample\n");
    let ran = p.run(&["--format", "summary", "--exec", "perl -w {}", "t"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        verdicts(&ran.summary_doc()),
        expect(&[("t/a.t", true)]),
        "{}",
        ran.both()
    );
    let listed = p.run(&["--list", "--exec", "perl -w {}", "t"]);
    assert_eq!(listed.stdout, "t/a.t\tperl -w t/a.t\n", "{}", listed.both());

    // A glob is the user's own pick: every file it matches runs with the command.
    let globbed = p.run(&["--list", "--exec", "cat", "t/*.txt"]);
    assert_eq!(
        globbed.stdout,
        "t/sample.txt\tcat t/sample.txt\n",
        "{}",
        globbed.both()
    );

    p.write("rb/a.rb", "");
    let none = p.run(&["--exec", "ruby {}", "rb"]);
    assert_eq!(none.code, 2, "{}", none.both());
    assert_eq!(none.stderr.lines().count(), 1, "{}", none.both());
    assert!(
        none.stderr
            .contains("with --exec a directory still yields only its test files"),
        "{}",
        none.both()
    );
}

#[test]
fn issue7_env_and_lib_reach_the_child() {
    let p = Project::new();
    let root = std::fs::canonicalize(p.path()).expect("canonical temp dir");
    let root = root.to_str().expect("UTF-8 temp dir").to_owned();
    p.write(
        "tapline.toml",
        "[run]\nenv = { FROM_CONFIG = \"c\", BOTH = \"config\", NUM = 3 }\nlib = [\"vendor\"]\n",
    )
    .write(
        "test/env.sh",
        format!(
            r#"echo 1..6
check() {{ if [ "$2" = "$3" ]; then echo "ok $1"; else echo "not ok $1 - got '$2', want '$3'"; fi; }}
check 1 "$FROM_CLI" "x=y z"
check 2 "$FROM_CONFIG" c
check 3 "$BOTH" cli
check 4 "$NUM" 3
check 5 "$PERL5LIB:$PYTHONPATH" "{root}/lib:{root}/vendor:/inherited:{root}/lib:{root}/vendor"
check 6 "$NODE_PATH" "{root}/lib:{root}/vendor"
"#
        ),
    )
    .write("lib/My/Mod.pm", "package My::Mod; sub hi { 'hi' } 1;\n")
    .write("test/mod.t", "use My::Mod;\nprint qq{1..1\\n}, My::Mod::hi() eq 'hi' ? qq{ok 1\\n} : qq{not ok 1\\n};\n")
    .write("lib/mymod.py", "HI = 'hi'\n")
    .write("test/test_mod.py", "import mymod\nprint('1..1')\nprint('ok 1' if mymod.HI == 'hi' else 'not ok 1')\n");
    // Tracing adds its hooks to PERL5OPT, PYTHONPATH and NODE_OPTIONS (tests/integration/
    // trace.rs); this test is about what `-I` and `--env` set.
    let mut cmd = p.command(&[
        "--no-trace",
        "--format",
        "summary",
        "--env",
        "FROM_CLI=x=y z",
        "--env",
        "BOTH=cli",
        "-I",
        "lib",
    ]);
    cmd.env("PERL5LIB", "/inherited")
        .env_remove("PYTHONPATH")
        .env_remove("NODE_PATH");
    let out = cmd.output().expect("tapline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout).expect("summary JSON");
    let python = require(
        "issue7_env_and_lib_reach_the_child: its python file",
        &["python3"],
    );
    let mut want = vec![("test/env.sh", true), ("test/mod.t", true)];
    if python {
        want.push(("test/test_mod.py", true));
    }
    let got: Vec<(String, bool)> = verdicts(&doc)
        .into_iter()
        .filter(|(path, _)| python || path != "test/test_mod.py")
        .collect();
    assert_eq!(got, expect(&want), "{stdout}\n{stderr}");

    // From a subfolder, relative include folders are still the project root's.
    let sub = p.join("test");
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(&sub)
        .env("CI", "1")
        .args(["run", "--list", "-I", "lib", "mod.t"])
        .output()
        .expect("tapline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("tapline: env PERL5LIB={root}/lib:{root}/vendor")),
        "{stderr}"
    );

    for bad in ["NOEQUALS", "=value"] {
        let ran = p.run(&["--env", bad]);
        assert_eq!(ran.code, 2, "{}", ran.both());
        assert_eq!(ran.stderr.lines().count(), 1, "one line:\n{}", ran.both());
        assert!(
            ran.stderr.starts_with("tapline: invalid --env: "),
            "{}",
            ran.both()
        );
        assert!(ran.stderr.contains(bad), "{}", ran.both());
    }
    p.write("tapline.toml", "[run]\nenv = { \"\" = \"x\" }\n");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert_eq!(ran.stderr.lines().count(), 1, "one line:\n{}", ran.both());
    assert!(ran.stderr.contains("tapline.toml:2:"), "{}", ran.both());
}

#[test]
fn issue7_other_runners_read_their_shebang_too() {
    let test = "issue7_other_runners_read_their_shebang_too";
    if !require(test, &["bash"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "test/arrays.sh",
        "#!/bin/bash\nxs=(a b)\necho 1..1\n[[ ${#xs[@]} == 2 ]] && echo ok 1 || echo not ok 1\n",
    );
    let mut want = vec![("test/arrays.sh", true)];
    if require(&format!("{test}: its python file"), &["python3"]) {
        p.write(
            "test/test_flags.py",
            "#!/usr/bin/env python3 -W error -u\nimport sys\nprint('1..1')\nprint('ok 1' if sys.warnoptions == ['error'] and sys.stdout.write_through else 'not ok 1 - ' + repr(sys.warnoptions))\n",
        );
        want.push(("test/test_flags.py", true));
    }
    if require(&format!("{test}: its node file"), &["node"]) {
        p.write(
            "test/gc.js",
            "#!/usr/bin/env -S node --expose-gc\nconsole.log('1..1');\nconsole.log(typeof gc === 'function' ? 'ok 1' : 'not ok 1 - no gc()');\n",
        );
        want.push(("test/gc.js", true));
    }
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    want.sort();
    assert_eq!(
        verdicts(&ran.summary_doc()),
        expect(&want),
        "{}",
        ran.both()
    );
}

#[test]
fn issue7_bail_out_stops_the_run_as_prove_does() {
    let p = Project::new();
    p.write("t/a.t", "print qq{1..1\\nok 1\\n};\n")
        .write(
            "t/b.t",
            "print qq{1..2\\nok 1\\nBail out! database is down\\n};\n",
        )
        .write(
            "t/c.t",
            "open my $f, '>', 'c-ran'; print qq{1..1\\nok 1\\n};\n",
        );
    let ran = p.run(&["--format", "summary", "-j1", "--retries", "2", "t"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        !p.join("c-ran").exists(),
        "a file after the bail out ran:\n{}",
        ran.both()
    );
    let doc = ran.summary_doc();
    assert_eq!(
        doc["run"]["bailed_out"],
        serde_json::json!({"file": "t/b.t", "reason": "database is down"}),
        "{}",
        ran.both()
    );
    assert_eq!(doc["run"]["files_not_run"], 1, "{}", ran.both());
    assert_eq!(
        file_doc(&doc, "t/b.t")["attempts"],
        1,
        "a bail out is not retried"
    );
    assert!(
        ran.stderr
            .contains("✗ BAILED OUT  t/b.t: database is down · 1 of 3 files failed · 1 not run"),
        "{}",
        ran.both()
    );

    // A file running beside it is stopped, and says why. (A fresh project: history would put
    // the files that failed above first.)
    let p = Project::new();
    p.write("t/c.t", "print qq{1..1\\nok 1\\n};\n")
        .write(
            "t/a.t",
            "$| = 1; print qq{1..1\\n}; sleep 60; print qq{ok 1\\n};\n",
        )
        .write(
            "t/b.t",
            "select undef, undef, undef, 0.3; print qq{Bail out!\\n};\n",
        );
    let ran = p.run(&["--format", "summary", "-j2", "--grace", "1s", "t"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.took < std::time::Duration::from_secs(30),
        "{}",
        ran.both()
    );
    let doc = ran.summary_doc();
    assert_eq!(doc["run"]["bailed_out"]["reason"], "", "{}", ran.both());
    let a = file_doc(&doc, "t/a.t");
    assert_eq!(a["ok"], false, "{}", ran.both());
    assert_eq!(
        a["reasons"][0],
        "stopped: t/b.t bailed out",
        "{}",
        ran.both()
    );
    assert_eq!(doc["run"]["files_not_run"], 1, "{}", ran.both());

    // --keep-going: every file runs, the bailing one still fails.
    p.write("t/a.t", "print qq{1..1\\nok 1\\n};\n");
    let ran = p.run(&["--format", "summary", "-j1", "--keep-going", "t"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["run"]["bailed_out"], Value::Null, "{}", ran.both());
    assert_eq!(doc["run"]["files_not_run"], 0, "{}", ran.both());
    assert_eq!(file_doc(&doc, "t/b.t")["ok"], false, "{}", ran.both());
    assert_eq!(file_doc(&doc, "t/c.t")["ok"], true, "{}", ran.both());
}
