//! Where traces are kept: `<history folder>/traces/` (`.nogit/testlogs/traces/` by default),
//! one file per test file, replaced whenever that file runs. A file holds a `test <path>`
//! line, then one project file a line, all relative to the project root. A test file with no
//! stored trace has none: it may depend on anything.
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// The traces folder.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// Every stored trace: the project files each test file loaded, by test file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traces {
    pub by_test: BTreeMap<String, Vec<String>>,
}

impl Store {
    /// The store beside the history in `history_dir`.
    pub fn in_dir(history_dir: &Path) -> Store {
        Store {
            dir: history_dir.join("traces"),
        }
    }

    fn path(&self, test: &str) -> PathBuf {
        let name = test.replace('%', "%25").replace('/', "%2F");
        self.dir.join(format!("{name}.trace"))
    }

    /// Stores `test`'s trace, or removes it (`None`: not a whole trace).
    pub fn save(&self, test: &str, files: Option<&[String]>) -> io::Result<()> {
        let path = self.path(test);
        let Some(files) = files else {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        };
        crate::state::nogit::create_dir_all(&self.dir)?;
        let mut text = format!("test {test}\n");
        for f in files {
            text.push_str(f);
            text.push('\n');
        }
        // Written aside and renamed, so a reader never sees half a trace.
        let mut tmp = path.clone().into_os_string();
        tmp.push(format!(".{}.tmp", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    }

    /// Every stored trace (an unreadable one is no trace).
    pub fn load(&self) -> Traces {
        let mut by_test = BTreeMap::new();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Traces::default();
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "trace") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let mut lines = text.lines();
            let Some(test) = lines.next().and_then(|l| l.strip_prefix("test ")) else {
                continue;
            };
            let files = lines.filter(|l| !l.is_empty()).map(str::to_owned).collect();
            by_test.insert(test.to_owned(), files);
        }
        Traces { by_test }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_are_replaced_and_removed_per_test_file() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let store = Store::in_dir(&dir.path().join(".nogit/testlogs"));
        assert_eq!(store.load(), Traces::default());
        let files = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        store
            .save("t/a.t", Some(&files(&["lib/A.pm", "lib/B.pm"])))
            .expect("saved");
        store
            .save("t/sub/a.t", Some(&files(&["lib/C.pm"])))
            .expect("saved");
        store
            .save("t/a.t", Some(&files(&["lib/B.pm"])))
            .expect("saved");
        let loaded = store.load();
        assert_eq!(loaded.by_test["t/a.t"], files(&["lib/B.pm"]));
        assert_eq!(loaded.by_test["t/sub/a.t"], files(&["lib/C.pm"]));
        store.save("t/a.t", None).expect("removed");
        store.save("t/never.t", None).expect("nothing to remove");
        assert_eq!(
            store.load().by_test.keys().collect::<Vec<_>>(),
            ["t/sub/a.t"]
        );
        assert!(dir.path().join(".nogit/.gitignore").exists());
    }
}
