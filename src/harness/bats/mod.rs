//! bats: `*.bats` files run under `bats --tap`, which reads their `#!` line itself.
use super::api::{insert_after_program, Builtin, Id};
use super::filter::{own_level, Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows};
use super::Harness;
use std::ffi::OsString;
#[cfg(test)]
pub(crate) mod discovery_cases;
mod scan;
use std::path::Path;

pub(crate) struct Bats;
pub(crate) static BATS: Bats = Bats;

impl Harness for Bats {
    fn id(&self) -> Id {
        "bats"
    }

    // --- inventory (h39-inv) ---
    fn scanner(&self, path: &str) -> Option<crate::harness::scan::Scanner> {
        scan::reads(path).then_some(scan::scan as crate::harness::scan::Scanner)
    }

    fn rules(&self) -> &'static [Builtin] {
        &[Builtin {
            glob: "*.bats",
            walk: &[],
            command: &["bats", "--tap", "{}"],
        }]
    }

    fn is_test_name(&self, name: &str) -> bool {
        name.ends_with(".bats")
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        (probe.suite.is_none() && (probe.program)("bats")).then_some(Filter::of(&BatsFilter))
    }

    // --- disc (#39 §2 D) ---

    fn one_at_a_time(&self, _cwd: &Path, programs: &[Option<String>]) -> Option<String> {
        // A walk of bats files alone runs as bats runs them; a mixed one keeps the cores.
        let bats = |p: &Option<String>| p.as_deref() == Some("bats");
        (!programs.is_empty() && programs.iter().all(bats))
            .then(|| "bats runs files one at a time".to_owned())
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let ("bats", args) = follow::program(words)? else {
            return None;
        };
        let recursive = args.iter().any(|a| a == "-r" || a == "--recursive");
        let with_value = ["-f", "--filter", "-j", "--jobs"];
        Some(Follows {
            places: follow::folders_or_files(args, &with_value, "test", recursive, &["*.bats"]),
            one_at_a_time: (!follow::jobs_given(args)).then_some("bats runs files one at a time"),
            ..Follows::default()
        })
    }
}

/// `bats --filter`, matched against each test's own name.
struct BatsFilter;

impl Narrow for BatsFilter {
    fn said(&self) -> &'static str {
        "bats --filter"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        insert_after_program(
            command,
            vec!["--filter".into(), own_level(patterns, matching)],
        );
    }
}
