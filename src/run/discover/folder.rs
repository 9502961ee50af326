//! A folder a harness takes over in a walk ([`crate::harness::folder::Folder`], asked of the
//! registry): the files of its own kind it runs are the tests, and what lies beside them is
//! the suite's own machinery, which the harness never runs (a `t/lib.sh` beside `*.t`).
use super::{Finder, PassedOverWhy, RuleKind};
use crate::harness::registry;
use crate::util::paths::{normalize, relative};
use crate::util::which::is_executable_file;
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

impl Finder<'_> {
    /// Whether the folder being walked, if a harness took it over, takes `path`: a file of
    /// the harness's own kind that it runs, or what the user's `[[runner]]` globs match.
    pub(super) fn folder_takes(&self, path: &Path, rel: &str) -> bool {
        let Some(folder) = &self.folder else {
            return true;
        };
        if self.users_rule_matches(rel) {
            return true;
        }
        folder.is_own(rel) && folder.runs(self.cwd, path)
    }

    /// Whether the folder being walked was taken over by a harness whose own kind `rel` is.
    pub(super) fn folder_owns(&self, rel: &str) -> bool {
        self.folder.as_ref().is_some_and(|f| f.is_own(rel))
    }

    fn users_rule_matches(&self, rel: &str) -> bool {
        matches!(
            self.rules.iter().find(|r| r.rule.matches(rel)),
            Some(super::Rule {
                kind: RuleKind::User,
                ..
            })
        )
    }

    /// Why a walk passed `path` over: said in `--list`, most of all for a file that would run
    /// but for the rule of the folder a harness took over, or an executable.
    pub(super) fn why_passed_over(&self, path: &Path) -> PassedOverWhy {
        let abs = normalize(&self.cwd.join(path));
        let rel = relative(&abs, &self.root);
        let executable = fs::metadata(&abs).is_ok_and(|meta| is_executable_file(&meta));
        if let Some(folder) = &self.folder {
            if folder.is_own(&rel) && !folder.runs(self.cwd, path) {
                return PassedOverWhy::Unrun(folder.unrun());
            }
            if executable || self.language_names_test(path, &rel) {
                return PassedOverWhy::Helper(folder.helper());
            }
        }
        if executable {
            PassedOverWhy::Executable
        } else {
            PassedOverWhy::NotATest
        }
    }

    /// Whether a built-in rule's naming would take `path` in a walk, were it not for the
    /// folder it is in.
    fn language_names_test(&self, path: &Path, rel: &str) -> bool {
        let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
        match self.rules.iter().find(|r| r.rule.matches(rel)) {
            Some(super::Rule {
                kind: RuleKind::Builtin { walk, harness },
                ..
            }) => self.named_test(path, name, walk.as_ref(), *harness),
            _ => false,
        }
    }

    /// Reads the folder about to be walked: one a harness takes over, or not.
    pub(super) fn enter(&mut self, dir: &Path) {
        self.folder = registry::folder(self.cwd, dir, self.owner, self.bare);
        if self.bare && self.followed.is_none() {
            self.followed = self.folder.as_ref().and_then(|f| f.one_at_a_time());
        }
    }

    /// Records `path` as passed over, with why.
    pub(super) fn pass_over_walked(&mut self, path: &Path) {
        let why = self.why_passed_over(path);
        self.pass_over(path, why);
    }

    /// Records `path` as passed over because of `why`.
    pub(super) fn pass_over(&mut self, path: &Path, why: PassedOverWhy) {
        let rel = relative(&normalize(&self.cwd.join(path)), &self.root);
        self.passed_over.push(super::PassedOver { rel, why });
    }
}
