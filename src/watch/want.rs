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
    /// Files whose path matches one of these (`p`).
    pub patterns: Vec<String>,
    /// Changed paths relative to the root: test files among them run; any other means all.
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
        self.absorb(other.all, other.failing, other.patterns, other.changed);
    }

    /// Takes over what a cancelled run covered, but not its header.
    pub(super) fn restart_of(&mut self, run: u64, cancelled: Want) {
        self.restarts = Some(run);
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

/// The project files each test file loaded (relative to the root), as the last run of it
/// recorded them: for now a browser file's bundle inputs ([`crate::run::browser`]). A file
/// without an entry may depend on anything.
pub type Inputs = HashMap<String, BTreeSet<String>>;

/// The changed paths that are no test file.
fn other_changes<'w>(want: &'w Want, tests: &HashSet<&str>) -> Vec<&'w str> {
    want.changed
        .iter()
        .map(String::as_str)
        .filter(|c| !tests.contains(c))
        .collect()
}

/// Whether a run of `want` runs every file: asked to, or a path changed that is no test file
/// and no recorded input of one.
fn runs_all(want: &Want, others: &[&str], inputs: &Inputs) -> bool {
    want.all
        || others
            .iter()
            .any(|c| !inputs.values().any(|loaded| loaded.contains(*c)))
}

/// The files `want` runs, out of those discovered: previously failing ones first, then in
/// discovery order. A changed path that is a recorded input of some files runs those, and
/// the files with no record (they may load it too); any other change runs all.
pub fn select(
    want: &Want,
    verdicts: &HashMap<String, bool>,
    inputs: &Inputs,
    files: Vec<TestFile>,
) -> Vec<TestFile> {
    let failing = |rel: &str| verdicts.get(rel) == Some(&false);
    let tests: HashSet<&str> = files.iter().map(|f| file_rel(&f.rel)).collect();
    let others = other_changes(want, &tests);
    let all = runs_all(want, &others, inputs);
    let loads_a_change = |rel: &str| match inputs.get(rel) {
        Some(loaded) => others.iter().any(|c| loaded.contains(*c)),
        None => !others.is_empty(),
    };
    let patterns: Vec<PathPattern> = want.patterns.iter().map(|p| PathPattern::new(p)).collect();
    let mut picked: Vec<TestFile> = files
        .into_iter()
        .filter(|f| {
            all || want.changed.contains(&f.rel)
                || loads_a_change(&f.rel)
                // A changed `.both` file is its two entries' (`a.both.ts (node)`, `… (chromium)`).
                || want.changed.iter().any(|c| c == file_rel(&f.rel))
                || (want.failing && failing(&f.rel))
                || patterns.iter().any(|p| p.matches(&f.rel))
        })
        .collect();
    // Stable: discovery order within each group.
    picked.sort_by_key(|f| !failing(&f.rel));
    picked
}

/// What a run of `want` that picked `rels` ran: every file when [`select`] took them all,
/// else those and the inputs recorded for them (a change to one made before the run started
/// is in what the run loads).
pub(super) fn covers(want: &Want, rels: &[String], inputs: &Inputs) -> Covers {
    // Covered by file: a `.both` file's entries cover its one path.
    let tests: HashSet<&str> = rels.iter().map(|r| file_rel(r)).collect();
    let others = other_changes(want, &tests);
    if runs_all(want, &others, inputs) {
        Covers::All
    } else {
        let mut seen: BTreeSet<String> = tests.iter().map(|t| (*t).to_owned()).collect();
        for rel in rels {
            seen.extend(inputs.get(rel).into_iter().flatten().cloned());
        }
        Covers::Files(seen)
    }
}

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
    use crate::run::discover::{Input, TestFile};

    fn entry(rel: &str) -> TestFile {
        TestFile {
            path: rel.into(),
            rel: rel.to_owned(),
            command: Ok(Vec::new()),
            input: Input::default(),
        }
    }

    /// Issue 18: a changed `.both` file re-runs its two entries, and only them.
    #[test]
    fn a_changed_both_file_reruns_its_two_entries() {
        let files = vec![
            entry("test/a.both.mjs (node)"),
            entry("test/a.both.mjs (chromium)"),
            entry("test/b.browser.js"),
        ];
        let want = Want {
            changed: ["test/a.both.mjs".to_owned()].into(),
            ..Want::default()
        };
        let picked = select(&want, &HashMap::new(), &Inputs::new(), files);
        let rels: Vec<&str> = picked.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            ["test/a.both.mjs (node)", "test/a.both.mjs (chromium)"]
        );
        let ran = [
            "test/a.both.mjs (node)".to_owned(),
            "test/a.both.mjs (chromium)".to_owned(),
        ];
        assert_eq!(
            covers(&want, &ran, &Inputs::new()),
            Covers::Files(["test/a.both.mjs".to_owned()].into_iter().collect())
        );
    }
}
