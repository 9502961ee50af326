//! Issue 40, item 6 (pgTAP) and issue 41's pgTAP reader: a project's SQL files that declare a
//! pgTAP plan run through `psql` as pg_prove runs them, against the database its `PG*`
//! variables name (a throwaway cluster here, `initdb` and `pg_ctl` on a temporary folder and
//! socket, as pgTAP's own CI starts one): the same files, counts, verdicts and exit code as
//! `pg_prove`; `have:`/`want:` explained as a diff with `want` expected; no database is one
//! error for the run. The fixture: test-data/suites/pgtap.
use crate::util::{copy_dir, repo, require, tool, unmet, Project};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A PostgreSQL cluster of its own, listening on a socket in a temporary folder only, with
/// pgTAP created in its `postgres` database; stopped when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    pg_ctl: PathBuf,
    /// Run as the `postgres` user: the server refuses to run as root.
    as_postgres: bool,
}

const PORT: &str = "54329";

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("tapline-pg-")
            .tempdir()
            .expect("temp dir");
        let as_postgres = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        if as_postgres {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))
                .expect("chmod");
        }
        let cluster = Cluster {
            pg_ctl: tool("pg_ctl"),
            dir,
            as_postgres,
        };
        let data = cluster.dir.path().join("data");
        let socket = format!(
            "-k {} -c listen_addresses='' -p {PORT}",
            cluster.dir.path().display()
        );
        let log = cluster.dir.path().join("server.log");
        cluster.server(
            &tool("initdb"),
            &[
                "-D".into(),
                data.clone().into(),
                "-U".into(),
                "postgres".into(),
                "-A".into(),
                "trust".into(),
            ],
        );
        cluster.server(
            &cluster.pg_ctl,
            &[
                "-D".into(),
                data.into(),
                "-o".into(),
                socket.into(),
                "-l".into(),
                log.into(),
                "-w".into(),
                "start".into(),
            ],
        );
        let created = Command::new("psql")
            .args(["--no-psqlrc", "--quiet", "-c", "CREATE EXTENSION pgtap"])
            .envs(cluster.env())
            .output()
            .expect("psql runs");
        assert!(
            created.status.success(),
            "CREATE EXTENSION pgtap: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        cluster
    }

    /// Runs a server program, as `postgres` when the tests run as root.
    fn server(&self, program: &Path, args: &[OsString]) {
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        let out = command
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("server program runs");
        assert!(
            out.status.success(),
            "{} failed: {}{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The `PG*` variables that name its database.
    fn env(&self) -> Vec<(&'static str, OsString)> {
        vec![
            ("PGHOST", self.dir.path().into()),
            ("PGPORT", PORT.into()),
            ("PGUSER", "postgres".into()),
            ("PGDATABASE", "postgres".into()),
        ]
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&self.pg_ctl);
            c
        } else {
            Command::new(&self.pg_ctl)
        };
        // A server left running would hold the folder; stopping is best effort.
        let _ = command
            .args([
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "stop".as_ref(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Whether pgTAP's extension is installed for the server (Debian's `postgresql-NN-pgtap`).
fn pgtap_installed(test: &str) -> bool {
    let ok = Command::new("pg_config")
        .arg("--sharedir")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .is_some_and(|share| Path::new(&share).join("extension/pgtap.control").is_file())
        || std::fs::read_dir("/usr/share/postgresql").is_ok_and(|versions| {
            versions
                .flatten()
                .any(|v| v.path().join("extension/pgtap.control").is_file())
        });
    if !ok {
        unmet(
            test,
            "pgTAP's extension (.ci/run installs the Debian package postgresql-NN-pgtap)",
        );
    }
    ok
}

/// The fixture in a project of its own.
fn project() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/pgtap"), p.path());
    p
}

/// Each file's path, verdict and counts, and the exit code, of a `--format summary` run.
fn outcome(ran: &crate::util::Ran) -> (i32, Vec<String>) {
    let doc: Value = ran.summary_doc();
    let files = doc["files"].as_array().cloned().unwrap_or_default();
    let files = files
        .iter()
        .map(|f| {
            format!(
                "{} ok={} pass={} fail={}",
                f["path"].as_str().unwrap_or_default(),
                f["ok"],
                f["tests"]["pass"],
                f["tests"]["fail"]
            )
        })
        .collect();
    (ran.code, files)
}

#[test]
fn issue40_pgtap_files_run_through_psql_as_pg_prove_runs_them() {
    let test = "issue40_pgtap_files_run_through_psql_as_pg_prove_runs_them";
    if !require(test, &["psql", "pg_ctl", "initdb", "pg_prove"]) || !pgtap_installed(test) {
        return;
    }
    let cluster = Cluster::start();
    let env = cluster.env();
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let p = project();
    let ran = p.run_env(&["--format", "summary", "--no-cache", "--no-history"], &env);
    assert_eq!(
        outcome(&ran),
        (
            1,
            vec![
                "test/sql/pets.sql ok=true pass=3 fail=0".to_owned(),
                "test/sql/sums.sql ok=false pass=1 fail=4".to_owned(),
            ]
        ),
        "the schema file is no test: {}",
        ran.both()
    );
    // pg_prove's own run of the same files: the same verdicts, counts and exit code.
    let prove = Command::new("pg_prove")
        .args(["test/sql/pets.sql", "test/sql/sums.sql"])
        .current_dir(p.path())
        .envs(env.iter().copied())
        .output()
        .expect("pg_prove runs");
    let said = String::from_utf8_lossy(&prove.stdout);
    assert_eq!(prove.status.code(), Some(1), "{said}");
    assert!(said.contains("test/sql/pets.sql .. ok"), "{said}");
    assert!(
        said.contains("test/sql/sums.sql (Wstat: 0 Tests: 5 Failed: 4)"),
        "{said}"
    );
}

#[test]
fn issue40_pgtap_have_and_want_are_a_diff_with_want_expected() {
    let test = "issue40_pgtap_have_and_want_are_a_diff_with_want_expected";
    if !require(test, &["psql", "pg_ctl", "initdb"]) || !pgtap_installed(test) {
        return;
    }
    let cluster = Cluster::start();
    let env = cluster.env();
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let p = project();
    let ran = p.run_env(&["test/sql/sums.sql", "--no-cache", "--no-history"], &env);
    let out = &ran.stderr;
    assert_eq!(ran.code, 1, "{}", ran.both());
    let two = out
        .find("✗ two and two")
        .unwrap_or_else(|| panic!("{}", ran.both()));
    assert!(
        out[two..].contains("- Expected\n    + Received\n\n    - \"5\"\n    + \"4\"\n"),
        "want is expected, have is received: {}",
        ran.both()
    );
    let lines = out
        .find("✗ two lines")
        .unwrap_or_else(|| panic!("{}", ran.both()));
    assert!(
        out[lines..].contains("      first\n    - third\n    + second\n"),
        "a value's later lines are its own: {}",
        ran.both()
    );
    let set = out
        .find("✗ the set")
        .unwrap_or_else(|| panic!("{}", ran.both()));
    assert!(out[set..].contains("Records differ"), "{}", ran.both());
    assert!(
        out[set..].contains("-   \"(3)\",\n    +   \"(2)\","),
        "{}",
        ran.both()
    );
    let tables = out
        .find("✗ the tables")
        .unwrap_or_else(|| panic!("{}", ran.both()));
    assert!(
        out[tables..].contains("Tables differ") && out[tables..].contains("-   \"owners\","),
        "a *_are test's missing names: {}",
        ran.both()
    );
    assert!(
        !out.contains("have:"),
        "read, not left as output: {}",
        ran.both()
    );
    assert!(!out.contains("Failed test 2"), "{}", ran.both());
}

#[test]
fn issue40_pgtap_no_database_is_one_error_for_the_run() {
    if !require(
        "issue40_pgtap_no_database_is_one_error_for_the_run",
        &["psql"],
    ) {
        return;
    }
    let p = project();
    let nowhere = p.join("no-server-here");
    let ran = p.run_env(
        &["--no-cache", "--no-history"],
        &[("PGHOST", nowhere.as_os_str()), ("PGPORT", "1".as_ref())],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let said = ran
        .stderr
        .matches("the database check of the pgTAP files")
        .count();
    assert_eq!(said, 1, "once for the run: {}", ran.both());
    assert!(
        ran.stderr.contains("psql: error: connection to server"),
        "psql's own words: {}",
        ran.both()
    );
    assert!(ran.stderr.contains("no test file ran"), "{}", ran.both());
    assert!(
        !ran.stdout.contains("sums.sql"),
        "no file ran: {}",
        ran.both()
    );
}
