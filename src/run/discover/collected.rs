//! A harness whose own session decides which files run ([`crate::harness::Harness::collects`]):
//! in a run with no PATH, its files are the ones it collects (a walked file it
//! leaves out is passed over, a file it collects outside the walked folders is added); with
//! PATHs, its files run as named, but a harness that cannot run at all is one error.
use super::{DiscoverError, Finder, Origin, PassedOverWhy};
use crate::harness::registry;
use crate::util::paths::normalize;
use std::collections::HashSet;
use std::path::PathBuf;

/// Why a walked file the harness's session does not collect is passed over.
const NOT_COLLECTED: &str =
    "not collected by the project's own session (testpaths, collect_ignore, --ignore)";

impl Finder<'_> {
    /// Keeps the files of each harness that collects its own as it collects them (`bare`: a
    /// run with no PATH).
    pub(super) fn keep_collected(&mut self, bare: bool) -> Result<(), DiscoverError> {
        for harness in registry::HARNESSES {
            let id = harness.id();
            if !self.found.values().any(|f| f.input.harness == Some(id)) {
                continue;
            }
            let asked = harness.collects(bare, &mut self.cx());
            let files = match asked {
                None | Some(Ok(None)) => continue,
                Some(Ok(Some(files))) => files,
                Some(Err(why)) => {
                    return Err(DiscoverError::Collects {
                        harness: id.to_owned(),
                        why,
                    });
                }
            };
            let collected: HashSet<PathBuf> =
                files.iter().map(|f| normalize(&self.cwd.join(f))).collect();
            let dropped: Vec<PathBuf> = (self.found.iter())
                .filter(|(abs, f)| f.input.harness == Some(id) && !collected.contains(*abs))
                .map(|(abs, _)| abs.clone())
                .collect();
            for abs in dropped {
                if let Some(file) = self.found.remove(&abs) {
                    self.pass_over(&file.path, PassedOverWhy::Unrun(NOT_COLLECTED));
                }
            }
            for path in files {
                if !self.found.contains_key(&normalize(&self.cwd.join(&path))) {
                    self.add(path, Origin::Named);
                }
            }
        }
        Ok(())
    }
}
