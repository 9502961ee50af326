//! Issue 11, items 1 and 2: resource limits and `--sandbox`, with real rlimits and real
//! bubblewrap. Each test `require`s what it runs (bwrap only where it can make namespaces).
use crate::util::{file_doc, require, Project, Ran};
use serde_json::Value;
use std::net::TcpListener;

/// The file's `reasons` from a `--format summary` run.
fn reasons(ran: &Ran, path: &str) -> Vec<String> {
    let doc = ran.summary_doc();
    file_doc(&doc, path)["reasons"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn ok(ran: &Ran, path: &str) -> bool {
    file_doc(&ran.summary_doc(), path)["ok"] == true
}

/// Passes only when it can open a TCP connection to the port in `PROBE_PORT` on 127.0.0.1.
const NET_PROBE: &str = r#"use IO::Socket::INET;
print "1..1\n";
my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $ENV{PROBE_PORT},
                              Proto => 'tcp', Timeout => 5);
print $s ? "ok 1 - reached the host's loopback server\n" : "not ok 1 - connect failed: $!\n";
"#;

/// Passes only when every write outside /tmp fails (the paths come from the environment).
const WRITE_PROBE: &str = r#"print "1..3\n";
my $n = 0;
for my $path ("$ENV{PROBE_CHECKOUT}/written-by-test", "$ENV{PROBE_OUTSIDE}/written-by-test",
              "$ENV{PROBE_REAL_HOME}/written-by-test") {
    $n++;
    if (open(my $fh, '>', $path)) { close $fh; print "not ok $n - wrote $path\n" }
    else { print "ok $n - cannot write $path: $!\n" }
}
"#;

/// Reads the checkout, writes and reads back /tmp and HOME: all of it allowed in the sandbox.
const READ_AND_TMP: &str = r#"print "1..3\n";
open(my $in, '<', 'data.txt') or die "read data.txt: $!";
my $line = <$in>;
print $line eq "hello\n" ? "ok 1 - read the checkout\n" : "not ok 1 - read $line\n";
for my $dir ('/tmp', $ENV{HOME}) {
    my $path = "$dir/scratch.txt";
    open(my $out, '>', $path) or do { print "not ok - write $path: $!\n"; next };
    print $out "x\n"; close $out;
    open(my $back, '<', $path) or die;
    my $n = $dir eq '/tmp' ? 2 : 3;
    print scalar(<$back>) eq "x\n" ? "ok $n - wrote $path\n" : "not ok $n - $path\n";
}
"#;

#[test]
fn issue11_sandbox_cuts_the_hosts_loopback_which_a_plain_run_reaches() {
    if !require(
        "issue11_sandbox_cuts_the_hosts_loopback_which_a_plain_run_reaches",
        &["perl", "bwrap"],
    ) {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen on loopback");
    let port = listener.local_addr().expect("address").port().to_string();
    let p = Project::new();
    p.write("t/net.t", NET_PROBE);
    let env = format!("PROBE_PORT={port}");
    let args = [
        "--format",
        "summary",
        "--no-history",
        "--env",
        &env,
        "t/net.t",
    ];

    let plain = p.run(&args);
    assert_eq!(
        plain.code,
        0,
        "without --sandbox the probe reaches the server\n{}",
        plain.both()
    );

    let mut sandboxed_args = vec!["--sandbox"];
    sandboxed_args.extend(args);
    let sandboxed = p.run(&sandboxed_args);
    assert_eq!(sandboxed.code, 1, "{}", sandboxed.both());
    assert!(!ok(&sandboxed, "t/net.t"), "{}", sandboxed.both());
    // The log is written by tapline outside the sandbox, so it still holds the probe's words.
    let log = String::from_utf8_lossy(&p.read(".nogit/testlogs/t__net.log")).into_owned();
    assert!(log.contains("not ok 1 - connect failed"), "{log}");
    drop(listener);
}

#[test]
fn issue11_sandbox_forbids_writes_outside_tmp_and_into_the_checkout() {
    if !require(
        "issue11_sandbox_forbids_writes_outside_tmp_and_into_the_checkout",
        &["perl", "bwrap"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("t/write.t", WRITE_PROBE);
    // A folder outside /tmp that the test process itself can write to.
    let outside = tempfile::Builder::new()
        .prefix("tapline-outside-")
        .tempdir_in(
            std::env::var_os("CARGO_TARGET_TMPDIR")
                .unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
        )
        .expect("temp dir outside /tmp");
    let real_home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let envs = [
        format!("PROBE_CHECKOUT={}", p.path().display()),
        format!("PROBE_OUTSIDE={}", outside.path().display()),
        format!("PROBE_REAL_HOME={real_home}"),
    ];
    let mut args = vec!["--sandbox", "--format", "summary", "--no-history"];
    for e in &envs {
        args.extend(["--env", e]);
    }
    args.push("t/write.t");
    let ran = p.run(&args);
    assert_eq!(
        ran.code,
        0,
        "every write outside /tmp must fail\n{}",
        ran.both()
    );
    assert!(!p.join("written-by-test").exists());
    assert!(!outside.path().join("written-by-test").exists());
    assert!(!std::path::Path::new(&real_home)
        .join("written-by-test")
        .exists());

    // `--sandbox-write` opens one path, and only that one.
    let opened = outside.path().display().to_string();
    let mut args_open = vec!["--sandbox-write", &opened];
    args_open.extend(&args);
    let ran = p.run(&args_open);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(outside.path().join("written-by-test").exists());
    assert!(!p.join("written-by-test").exists());
}

#[test]
fn issue11_sandbox_passes_a_test_that_reads_and_uses_tmp() {
    if !require(
        "issue11_sandbox_passes_a_test_that_reads_and_uses_tmp",
        &["perl", "bwrap"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("t/reads.t", READ_AND_TMP)
        .write("data.txt", "hello\n");
    let ran = p.run(&[
        "--sandbox",
        "--format",
        "summary",
        "--no-history",
        "t/reads.t",
    ]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    // The sandbox's /tmp and HOME were private: nothing reached the host's.
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    assert!(!std::path::Path::new(&home).join("scratch.txt").exists());
}

#[test]
fn issue11_sandbox_without_bwrap_is_a_usage_error() {
    let p = Project::new();
    p.write("t/a.t", "print qq(1..1\\nok 1\\n);\n");
    let empty = tempfile::tempdir().expect("temp dir");
    let out = p
        .command(&["--sandbox", "t/a.t"])
        .env("PATH", empty.path())
        .output()
        .expect("tapline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("apt-get install bubblewrap"), "{stderr}");
    assert!(!p.join(".nogit/testlogs/t__a.log").exists(), "nothing ran");
}

#[test]
fn issue11_a_gigabyte_under_max_memory_fails_with_the_limit_named() {
    if require(
        "issue11_a_gigabyte_under_max_memory_fails_with_the_limit_named: perl's allocation failure",
        &["perl"],
    ) {
        let p = Project::new();
        p.write(
            "t/big.t",
            "print qq(1..1\\n);\nmy $x = 'a' x (1 << 30);\nprint qq(ok 1\\n);\n",
        );
        let ran = p.run(&[
            "--max-memory",
            "256M",
            "--format",
            "summary",
            "--no-history",
            "t/big.t",
        ]);
        assert_eq!(ran.code, 1, "{}", ran.both());
        let r = reasons(&ran, "t/big.t");
        assert!(r[0].starts_with("exceeded memory limit 256 MiB"), "{r:?}");
    }
    if require(
        "issue11_a_gigabyte_under_max_memory_fails_with_the_limit_named: python's MemoryError",
        &["python3"],
    ) {
        let p = Project::new();
        p.write(
            "t/big.py",
            "print('1..1')\nx = bytearray(1 << 30)\nprint('ok 1')\n",
        );
        let ran = p.run(&[
            "--max-memory",
            "256M",
            "--format",
            "summary",
            "--no-history",
            "t/big.py",
        ]);
        assert_eq!(ran.code, 1, "{}", ran.both());
        let r = reasons(&ran, "t/big.py");
        assert_eq!(
            r[0], "exceeded memory limit 256 MiB (it printed `MemoryError`)",
            "{r:?}"
        );
        // The same allocation passes without the limit only where the machine has the memory;
        // instead, check that a small one passes under it: the limit does not break python.
        p.write(
            "t/small.py",
            "print('1..1')\nx = bytearray(1 << 20)\nprint('ok 1')\n",
        );
        let ran = p.run(&[
            "--max-memory",
            "256M",
            "--format",
            "summary",
            "--no-history",
            "t/small.py",
        ]);
        assert_eq!(ran.code, 0, "{}", ran.both());
    }
}

#[test]
fn issue11_a_busy_loop_under_max_cpu_time_fails_with_the_limit_named() {
    let p = Project::new();
    p.script("t/spin.sh", "#!/bin/sh\necho 1..1\nwhile :; do :; done\n");
    let ran = p.run(&[
        "--max-cpu-time",
        "2s",
        "--format",
        "summary",
        "--no-history",
        "t/spin.sh",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let r = reasons(&ran, "t/spin.sh");
    assert_eq!(r[0], "exceeded CPU time 2s", "{r:?}");
    assert!(
        !r.iter()
            .any(|x| x.contains("SIGXCPU") || x.contains("killed by")),
        "{r:?}"
    );
}

#[test]
fn issue11_limits_hold_inside_the_sandbox_too() {
    if !require(
        "issue11_limits_hold_inside_the_sandbox_too",
        &["perl", "bwrap"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "t/big.t",
        "print qq(1..1\\n);\nmy $x = 'a' x (1 << 30);\nprint qq(ok 1\\n);\n",
    );
    p.script("t/spin.sh", "#!/bin/sh\necho 1..1\nwhile :; do :; done\n");
    let ran = p.run(&[
        "--sandbox",
        "--max-memory",
        "256M",
        "--max-cpu-time",
        "1s",
        "--format",
        "summary",
        "--no-history",
        "t/big.t",
        "t/spin.sh",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(reasons(&ran, "t/big.t")[0].starts_with("exceeded memory limit 256 MiB"));
    assert_eq!(reasons(&ran, "t/spin.sh")[0], "exceeded CPU time 1s");
}

#[test]
fn issue11_max_output_stops_the_file_and_the_log_keeps_what_came() {
    let p = Project::new();
    p.script(
        "t/chatty.sh",
        "#!/bin/sh\necho 1..1\necho 'ok 1 - said it'\nwhile :; do echo '# more words, forever'; done\n",
    );
    let ran = p.run(&[
        "--max-output",
        "64K",
        "--format",
        "summary",
        "--no-history",
        "t/chatty.sh",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let r = reasons(&ran, "t/chatty.sh");
    assert_eq!(
        r[0], "exceeded output limit 64 KiB (stopped; the log keeps what it wrote)",
        "{r:?}"
    );
    let log = p.read(".nogit/testlogs/t__chatty.log");
    assert!(log.len() >= 64 * 1024, "log holds {} bytes", log.len());
    assert!(log.starts_with(b"1..1\nok 1 - said it\n"));
}

#[test]
fn issue11_bad_limit_values_are_usage_errors() {
    let p = Project::new();
    p.script("t/a.sh", "#!/bin/sh\necho 1..0\n");
    for args in [
        ["--max-memory", "lots"],
        ["--max-output", "0"],
        ["--max-cpu-time", "soon"],
        ["--max-cpu-time", "0"],
    ] {
        let ran = p.run(&[args[0], args[1], "t/a.sh"]);
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.both());
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.both());
    }
    p.write("tapline.toml", "[run]\nmax_memory = \"much\"\n");
    let ran = p.run(&["t/a.sh"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(ran.stderr.contains("tapline.toml:2:"), "{}", ran.both());
}

#[test]
fn issue11_config_turns_the_sandbox_on_and_drops_listed_variables() {
    if !require(
        "issue11_config_turns_the_sandbox_on_and_drops_listed_variables",
        &["bwrap"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "tapline.toml",
        "[run]\nsandbox = true\nsandbox_env_drop = [\"PROBE_SECRET\"]\n",
    );
    p.script(
        "t/env.sh",
        "#!/bin/sh\necho 1..2\n[ -z \"$PROBE_SECRET\" ] && echo ok 1 - dropped || echo not ok 1 - kept\n\
         [ \"$PROBE_KEPT\" = yes ] && echo ok 2 - passed || echo not ok 2 - lost\n\
         touch \"$(pwd)/mark\" 2>/dev/null && echo '# checkout writable'\ntrue\n",
    );
    let ran = p.run(&[
        "--env",
        "PROBE_SECRET=hunter2",
        "--env",
        "PROBE_KEPT=yes",
        "--format",
        "summary",
        "--no-history",
        "t/env.sh",
    ]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        !p.join("mark").exists(),
        "sandbox = true in tapline.toml isolates"
    );
    // `--no-sandbox` overrides the file.
    let ran = p.run(&[
        "--no-sandbox",
        "--env",
        "PROBE_SECRET=x",
        "--no-history",
        "t/env.sh",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(p.join("mark").exists());
}

#[test]
fn issue11_sandbox_leaves_no_process_behind_even_one_that_left_the_group() {
    if !require(
        "issue11_sandbox_leaves_no_process_behind_even_one_that_left_the_group",
        &["bwrap"],
    ) {
        return;
    }
    // A process that leaves the file's process group escapes tapline's killpg; only the
    // sandbox's PID namespace still reaches it. The odd duration names it on the host.
    let p = Project::new();
    p.script(
        "t/escape.sh",
        "#!/bin/sh\nsetsid sleep 271828 >/dev/null 2>&1 &\necho 1..1\necho ok 1 - left one behind\n",
    );
    let ran = p.run(&["--sandbox", "--no-history", "t/escape.sh"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let survivors = || {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| c.split(|&b| b == 0).any(|w| w == b"271828"))
            })
            .count()
    };
    // The namespace's init is killed as the file ends; give the kernel a moment to finish.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while survivors() > 0 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        survivors(),
        0,
        "a process of the sandboxed file outlived it"
    );
}

#[test]
fn issue11_a_cached_pass_without_limits_does_not_stand_for_a_run_with_them() {
    let p = Project::new();
    p.script("t/a.sh", "#!/bin/sh\necho 1..1\necho ok 1\n");
    let cached = |ran: &Ran| file_doc(&ran.summary_doc(), "t/a.sh")["cached"] == true;
    let first = p.run(&["--cache", "--format", "summary", "t/a.sh"]);
    assert!(!cached(&first), "{}", first.both());
    let again = p.run(&["--cache", "--format", "summary", "t/a.sh"]);
    assert!(cached(&again), "{}", again.both());
    let limited = p.run(&[
        "--cache",
        "--max-cpu-time",
        "5s",
        "--format",
        "summary",
        "t/a.sh",
    ]);
    assert!(
        !cached(&limited),
        "a run under limits must really run\n{}",
        limited.both()
    );
    if require("issue11_a_cached_pass_without_limits_does_not_stand_for_a_run_with_them: the sandbox's cache key", &["bwrap"]) {
        let sandboxed = p.run(&["--cache", "--sandbox", "--format", "summary", "t/a.sh"]);
        assert!(!cached(&sandboxed), "{}", sandboxed.both());
    }
}

#[test]
fn issue11_a_suite_under_the_sandbox_may_write_its_junit_report_and_nothing_else() {
    if !require(
        "issue11_a_suite_under_the_sandbox_may_write_its_junit_report_and_nothing_else",
        &["bwrap"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "tapline.toml",
        "[[suite]]\nname = \"xml\"\ndir = \"sub\"\ncommand = [\"sh\", \"make-report.sh\"]\n\
         format = \"junit\"\nreport = \"out/reports/*.xml\"\n",
    );
    p.write(
        "sub/make-report.sh",
        "touch ../escaped 2>/dev/null\nmkdir -p out/reports && cat > out/reports/r.xml <<'X'\n\
         <?xml version=\"1.0\"?>\n<testsuite name=\"s\" tests=\"1\"><testcase name=\"works\"/></testsuite>\nX\n",
    );
    let ran = p.run(&["--sandbox", "--no-history", "--format", "summary"]);
    assert_eq!(
        file_doc(&ran.summary_doc(), "xml")["ok"],
        true,
        "{}",
        ran.both()
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(p.join("sub/out/reports/r.xml").exists());
    assert!(
        !p.join("escaped").exists(),
        "only the report folder is writable"
    );
}
