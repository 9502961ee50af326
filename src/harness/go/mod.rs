//! go's tests as a `[[suite]]` reads them (`go test -json`): how its command narrows to named
//! tests (`-run`, anchored level by level).
use super::api::Id;
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::Harness;
use crate::protocol::InputFormat;
use std::collections::BTreeSet;
use std::ffi::OsString;

// trace and coverage (h39-trace): `go list` and `-coverprofile`.
pub(crate) mod coverage;
pub(crate) mod trace;

pub(crate) struct Go;
pub(crate) static GO: Go = Go;

impl Harness for Go {
    fn id(&self) -> Id {
        "go"
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        (probe.suite == Some(InputFormat::GoJson) && (probe.program)("go"))
            .then_some(Filter::of(&GoRun))
    }
}

/// `go test -run`.
struct GoRun;

impl Narrow for GoRun {
    fn said(&self) -> &'static str {
        "go test -run"
    }

    fn narrow(&self, command: &mut Vec<OsString>, _patterns: &[Pattern], matching: &[Vec<String>]) {
        if let Some(run) = go_run(matching) {
            command.extend(["-run".into(), OsString::from(run)]);
        }
    }
}

/// go's `-run` for the matching tests (`[package, TestX, subtest…]`): each level anchored,
/// `^(TestA|TestB)$/^(one)$`, as deep as every match goes. None when a whole package matches.
fn go_run(matching: &[Vec<String>]) -> Option<String> {
    let levels: Vec<&[String]> = matching
        .iter()
        .map(|n| n.get(1..).unwrap_or_default())
        .collect();
    if levels.iter().any(|l| l.is_empty()) {
        return None;
    }
    let depth = levels.iter().map(|l| l.len()).min().unwrap_or(0);
    let parts: Vec<String> = (0..depth)
        .map(|d| {
            let names: BTreeSet<String> = levels
                .iter()
                .map(|l| regex::escape(&l[d].replace(' ', "_")))
                .collect();
            format!("^({})$", names.into_iter().collect::<Vec<_>>().join("|"))
        })
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn go_run_anchors_each_level() {
        let m = [
            path(&["ex.com/c", "TestTable", "two"]),
            path(&["ex.com/c", "TestAdd", "x"]),
        ];
        assert_eq!(
            go_run(&m).as_deref(),
            Some("^(TestAdd|TestTable)$/^(two|x)$")
        );
        let top = [
            path(&["ex.com/c", "TestAdd"]),
            path(&["ex.com/c", "TestTable", "two"]),
        ];
        assert_eq!(go_run(&top).as_deref(), Some("^(TestAdd|TestTable)$"));
        assert_eq!(go_run(&[path(&["ex.com/c"])]), None);
    }
}
