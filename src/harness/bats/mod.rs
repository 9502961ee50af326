//! bats: `*.bats` files run under `bats --tap`, which reads their `#!` line itself.
use super::api::{Builtin, Id};
use super::filter::{after_program, own_level, Filter, Narrow, Pattern, Probe};
use super::Harness;
use std::ffi::OsString;
mod scan;

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
}

/// `bats --filter`, matched against each test's own name.
struct BatsFilter;

impl Narrow for BatsFilter {
    fn said(&self) -> &'static str {
        "bats --filter"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        after_program(
            command,
            vec!["--filter".into(), own_level(patterns, matching)],
        );
    }
}
