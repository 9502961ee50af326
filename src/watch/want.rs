//! What a run covers (`Want`), merged from changes, keys and cancelled runs, and which files it selects.
use super::*;
use crate::run::discover::file_rel;

/// What the next run covers; several requests merge into one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Want {
    /// Every test file.
    pub all: bool,
    /// The files whose last verdict was a failure.
    pub failing: bool,
    /// ... and of them only the tests that failed (`F`).
    pub failed_tests: bool,
    /// Files whose path matches one of these (`p`).
    pub patterns: Vec<String>,
    /// Changed paths relative to the root: they pick files by trace ([`select`]).
    pub changed: BTreeSet<String>,
    /// What to name in the header: the changes that asked for this run…
    pub triggers: BTreeSet<String>,
    /// …and the keys.
    pub reasons: Vec<String>,
    /// The cancelled run this one restarts.
    pub restarts: Option<u64>,
    /// A key, or a change the user may have made (one not made during a run), asked for it.
    pub asked: bool,
    /// Without `asked`: the self-fed runs in a row this one makes ([`super::feedback`]).
    pub fed: u32,
}

impl Want {
    pub(super) fn all(reason: &str) -> Want {
        Want {
            all: true,
            reasons: vec![reason.into()],
            asked: true,
            ..Want::default()
        }
    }

    /// Self-fed runs in a row this one makes: 0 when anything the user did is in it.
    pub(super) fn fed(&self) -> u32 {
        if self.asked {
            0
        } else {
            self.fed
        }
    }

    /// Only the failing tests run: `F` asked, and nothing that runs whole files was merged in.
    pub(super) fn only_failed_tests(&self) -> bool {
        self.failed_tests && !self.all && self.patterns.is_empty() && self.changed.is_empty()
    }

    pub(super) fn is_empty(&self) -> bool {
        !self.all && !self.failing && self.patterns.is_empty() && self.changed.is_empty()
    }

    pub(super) fn merge(&mut self, other: Want) {
        self.triggers.extend(other.triggers);
        for reason in other.reasons {
            if !self.reasons.contains(&reason) {
                self.reasons.push(reason);
            }
        }
        self.restarts = self.restarts.max(other.restarts);
        self.asked |= other.asked;
        self.fed = self.fed.max(other.fed);
        self.failed_tests |= other.failed_tests;
        self.absorb(other.all, other.failing, other.patterns, other.changed);
    }

    /// Takes over what a cancelled run covered, but not its header.
    pub(super) fn restart_of(&mut self, run: u64, cancelled: Want) {
        self.restarts = Some(run);
        self.failed_tests |= cancelled.failed_tests;
        self.absorb(
            cancelled.all,
            cancelled.failing,
            cancelled.patterns,
            cancelled.changed,
        );
    }

    pub(super) fn absorb(
        &mut self,
        all: bool,
        failing: bool,
        patterns: Vec<String>,
        changed: BTreeSet<String>,
    ) {
        self.all |= all;
        self.failing |= failing;
        for p in patterns {
            if !self.patterns.contains(&p) {
                self.patterns.push(p);
            }
        }
        self.changed.extend(changed);
    }

    /// `triggered by test/a.t, lib/b.pm · restarts run 3`.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if !self.triggers.is_empty() {
            let shown: Vec<&str> = self
                .triggers
                .iter()
                .take(SHOWN_TRIGGERS)
                .map(String::as_str)
                .collect();
            let more = self.triggers.len() - shown.len();
            let mut part = format!("triggered by {}", shown.join(", "));
            if more > 0 {
                part.push_str(&format!(" and {more} more"));
            }
            parts.push(part);
        }
        parts.extend(self.reasons.iter().cloned());
        if let Some(run) = self.restarts {
            parts.push(format!("restarts run {run}"));
        }
        parts.join(" · ")
    }
}

/// What [`select`] picked beyond the files: whether that was every file, and why each file
/// runs when a change picked it (`loaded lib/Mojo/Home.pm`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picked {
    pub all: bool,
    pub why: Vec<(String, String)>,
}

/// The project files each test file loaded (relative to the root), as the last run of it
/// recorded them beyond the stored traces: a page file's bundle inputs
/// ([`crate::harness::registry::PageInputs`]). They count as that file's trace.
pub type Inputs = HashMap<String, BTreeSet<String>>;

/// The stored traces with the run's recorded inputs over them.
pub fn with_inputs(mut traces: Traces, inputs: &Inputs) -> Traces {
    for (rel, loaded) in inputs {
        traces
            .by_test
            .insert(rel.clone(), loaded.iter().cloned().collect());
    }
    traces
}

/// `want.changed` with a changed `.both` file replaced by its entries (`FILE (HOST)`, one per
/// host: [`crate::harness::api::HOST_NAMES`]), which are the test files the selection knows.
fn changed_entries(want: &Want, rels: &[&str]) -> BTreeSet<String> {
    let mut changed = BTreeSet::new();
    for c in &want.changed {
        let entries: Vec<&str> = rels
            .iter()
            .copied()
            .filter(|r| *r != c && file_rel(r) == c)
            .collect();
        if entries.is_empty() {
            changed.insert(c.clone());
        } else {
            changed.extend(entries.into_iter().map(str::to_owned));
        }
    }
    changed
}

/// The files `want` runs, out of those discovered: previously failing ones first, then in
/// discovery order. Changed paths pick by the dependency traces of earlier runs
/// ([`crate::run::trace::select`]): a changed test file runs, a changed file runs the test
/// files that loaded it, and files with no trace run on any change.
pub fn select(
    want: &Want,
    verdicts: &HashMap<String, bool>,
    traces: &Traces,
    files: Vec<TestFile>,
    picked_out: &mut Picked,
) -> Vec<TestFile> {
    let failing = |rel: &str| verdicts.get(rel) == Some(&false);
    let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let why = if want.all {
        BTreeMap::new()
    } else {
        let changed = changed_entries(want, &rels);
        crate::run::trace::select::affected(&changed, &rels, traces, &failing)
    };
    let patterns: Vec<PathPattern> = want.patterns.iter().map(|p| PathPattern::new(p)).collect();
    let total = files.len();
    let mut picked: Vec<TestFile> = files
        .into_iter()
        .filter(|f| {
            want.all
                || why.contains_key(&f.rel)
                || (want.failing && failing(&f.rel))
                || patterns.iter().any(|p| p.matches(&f.rel))
        })
        .collect();
    // Stable: discovery order within each group.
    picked.sort_by_key(|f| !failing(&f.rel));
    *picked_out = Picked {
        all: want.all || (total > 0 && picked.len() == total),
        why: picked
            .iter()
            .filter_map(|f| why.get(&f.rel).map(|w| (f.rel.clone(), w.to_string())))
            .collect(),
    };
    picked
}

/// What a run of `want` that picked `rels` ran: every file when [`select`] took them all,
/// else those (a `.both` file's entries cover its one path), the changes that picked them
/// and what they loaded (a change to one made before the run started is in what it loads).
pub(super) fn covers(want: &Want, picked: &Picked, rels: &[String], traces: &Traces) -> Covers {
    if want.all || picked.all {
        return Covers::All;
    }
    let mut seen: BTreeSet<String> = rels.iter().cloned().collect();
    seen.extend(rels.iter().map(|r| file_rel(r).to_owned()));
    seen.extend(want.changed.iter().cloned());
    for rel in rels {
        seen.extend(traces.by_test.get(rel).into_iter().flatten().cloned());
    }
    Covers::Files(seen)
}

/// The header's lines saying why each file runs, at most [`SHOWN_WHY`] of them; one line
/// when every file runs for the same reason.
pub(super) fn why_lines(picked: &Picked) -> Vec<String> {
    let Some((_, first)) = picked.why.first() else {
        return Vec::new();
    };
    if picked.all && picked.why.iter().all(|(_, w)| w == first) {
        return vec![format!("every file: {first}")];
    }
    let mut lines: Vec<String> = picked
        .why
        .iter()
        .take(SHOWN_WHY)
        .map(|(rel, why)| format!("{rel}  {why}"))
        .collect();
    if picked.why.len() > SHOWN_WHY {
        lines.push(format!("and {} more", picked.why.len() - SHOWN_WHY));
    }
    lines
}

/// Files the header names with their reason before it says "and N more".
const SHOWN_WHY: usize = 20;

/// A `p` pattern: a glob when it has glob characters (matched against the path and the file
/// name), else a substring of the path.
pub(super) struct PathPattern {
    text: String,
    glob: Option<globset::GlobMatcher>,
}

impl PathPattern {
    pub(super) fn new(text: &str) -> PathPattern {
        let glob = text
            .contains(['*', '?', '[', '{'])
            .then(|| GlobBuilder::new(text).build().ok())
            .flatten()
            .map(|g| g.compile_matcher());
        PathPattern {
            text: text.to_owned(),
            glob,
        }
    }

    pub(super) fn matches(&self, rel: &str) -> bool {
        match &self.glob {
            Some(glob) => {
                glob.is_match(rel) || glob.is_match(rel.rsplit('/').next().unwrap_or(rel))
            }
            None => rel.contains(&self.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::api::HOST_NAMES;
    use crate::run::discover::{Input, TestFile};

    fn entry(rel: &str) -> TestFile {
        TestFile {
            path: rel.into(),
            rel: rel.to_owned(),
            command: Ok(Vec::new()),
            input: Input::default(),
        }
    }

    /// Issue 18: a changed `.both` file re-runs its two entries, and only them. Its entries
    /// are `FILE (HOST)`, one per host the registry names ([`HOST_NAMES`]).
    #[test]
    fn a_changed_both_file_reruns_its_two_entries() {
        let both: Vec<String> = (HOST_NAMES.iter())
            .map(|host| format!("test/a.both.mjs ({host})"))
            .collect();
        let files = (both.iter().map(|rel| entry(rel)))
            .chain([entry("test/b.browser.js")])
            .collect();
        let want = Want {
            changed: ["test/a.both.mjs".to_owned()].into(),
            ..Want::default()
        };
        let mut how = Picked::default();
        let picked = select(&want, &HashMap::new(), &Traces::default(), files, &mut how);
        let rels: Vec<&str> = picked.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, both);
        assert_eq!(
            covers(&want, &how, &both, &Traces::default()),
            Covers::Files(
                ["test/a.both.mjs".to_owned()]
                    .into_iter()
                    .chain(both.iter().cloned())
                    .collect()
            )
        );
    }
}
