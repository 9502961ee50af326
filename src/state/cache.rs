//! The opt-in result cache (`--cache`, `[run] cache = true`): a file whose inputs are unchanged
//! since it last passed is not run; its last result is reported instead, marked cached.
//!
//! A file's key hashes its content, its command line (with how its stdout and stderr are read:
//! `runners::Streams::key`), tapline's version, the
//! environment (less the [`VOLATILE_ENV`] names, which change between shells without
//! changing a test), and the path and content of every file under the project root matching
//! `[run] cache_inputs` (globs relative to the root, `.gitignore` honoured). Only a pass that
//! was neither flaky nor itself cached is stored; a failure or a flaky pass removes the entry.
//! The store is `<log dir>/cache.json`, replaced atomically; two runs at once may each lose
//! the other's new entries, which only costs a re-run.
use crate::event::run::{FileResult, Tally};
use crate::event::Verdict;
use globset::{Glob, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Duration;
use std::{fs, io};

pub const FILE_NAME: &str = "cache.json";

/// Environment variables left out of the key: they differ between shells and terminals.
pub const VOLATILE_ENV: &[&str] = &[
    "_",
    "OLDPWD",
    "SHLVL",
    "PS1",
    "TERM_SESSION_ID",
    "WINDOWID",
    "SSH_AUTH_SOCK",
    "SSH_CLIENT",
    "SSH_CONNECTION",
    "SSH_TTY",
    "GPG_TTY",
    "DISPLAY",
    "XAUTHORITY",
    "COLUMNS",
    "LINES",
];

/// A stored pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub key: String,
    pub tally: Stored,
    pub duration_ms: u64,
}

/// The counts a cached result reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    pub pass: u64,
    pub skip: u64,
    pub todo: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Document {
    files: BTreeMap<String, Entry>,
}

/// The cache of one log folder, with the key parts shared by every file of a run.
pub struct Cache {
    path: PathBuf,
    doc: Document,
    /// Hash of the environment, the declared inputs and the run's settings.
    shared: u128,
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("invalid cache_inputs glob `{glob}`: {source}")]
    Glob {
        glob: String,
        source: globset::Error,
    },
    #[error("failed to read cache input {path}: {source}")]
    Input { path: PathBuf, source: io::Error },
}

impl Cache {
    /// Loads the store (a missing or damaged one is empty: it is only a cache) and hashes
    /// the declared inputs under `root`.
    pub fn open(log_dir: &Path, root: &Path, inputs: &[String]) -> Result<Cache, CacheError> {
        let path = log_dir.join(FILE_NAME);
        let doc = fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let mut h = Hasher128::default();
        env!("CARGO_PKG_VERSION").hash(&mut h);
        let mut env: Vec<(String, String)> = std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .filter(|(k, _)| !VOLATILE_ENV.contains(&k.as_str()))
            .collect();
        env.sort();
        env.hash(&mut h);
        hash_inputs(root, inputs, &mut h)?;
        Ok(Cache {
            path,
            doc,
            shared: h.finish128(),
        })
    }

    /// The key of `file` (its path relative to `root` is `rel`) run by `command`; `None` when
    /// the file cannot be read (then it just runs).
    pub fn key(&self, root: &Path, rel: &str, command: &str) -> Option<String> {
        // A `.both` file's entries (`a.both.ts (node)`) read the one file.
        let content = fs::read(root.join(crate::harness::api::file_rel(rel))).ok()?;
        let mut h = Hasher128::default();
        self.shared.hash(&mut h);
        rel.hash(&mut h);
        command.hash(&mut h);
        content.hash(&mut h);
        Some(format!("{:032x}", h.finish128()))
    }

    /// The stored pass of `rel` under `key`, as a cached result.
    pub fn lookup(&self, rel: &str, key: &str) -> Option<FileResult> {
        let e = self.doc.files.get(rel).filter(|e| e.key == key)?;
        Some(cached_result(e))
    }

    /// Records a run's results (by index, as `rels` and `keys`), as [`Cache::update`] does.
    pub fn update_all(
        &mut self,
        rels: &[String],
        keys: &[Option<String>],
        results: &[Option<FileResult>],
    ) {
        for ((r, rel), key) in results.iter().zip(rels).zip(keys) {
            if let Some(r) = r {
                self.update(rel, key.as_deref(), r);
            }
        }
    }

    /// Records a finished (not cached) result: a clean pass is stored, anything else forgets
    /// (a file with no tests too: it is no pass, and replaying it would count one).
    pub fn update(&mut self, rel: &str, key: Option<&str>, r: &FileResult) {
        if r.cached || r.cancelled {
            return;
        }
        match key {
            Some(key) if r.ok && !r.flaky && !r.no_tests => {
                let entry = Entry {
                    key: key.to_owned(),
                    tally: Stored {
                        pass: r.tally.pass,
                        skip: r.tally.skip,
                        todo: r.tally.todo,
                    },
                    duration_ms: r.duration.as_millis() as u64,
                };
                self.doc.files.insert(rel.to_owned(), entry);
            }
            _ => {
                self.doc.files.remove(rel);
            }
        }
    }

    /// Writes the store atomically.
    pub fn save(&self) -> io::Result<()> {
        let temp = self.path.with_extension("json.tmp");
        let mut json = serde_json::to_vec_pretty(&self.doc)?;
        json.push(b'\n');
        fs::write(&temp, json)?;
        fs::rename(&temp, &self.path)
    }
}

fn cached_result(e: &Entry) -> FileResult {
    let tally = Tally {
        pass: e.tally.pass,
        fail: 0,
        skip: e.tally.skip,
        todo: e.tally.todo,
        ..Tally::default()
    };
    FileResult {
        ok: true,
        reasons: Vec::new(),
        exit: None,
        timed_out: false,
        cancelled: false,
        leaked: false,
        duration: Duration::from_millis(e.duration_ms),
        tally,
        verdict: Verdict {
            ok: true,
            count: tally.total(),
            pass: tally.pass,
            fail: 0,
            todo: tally.todo,
            skip: tally.skip,
            plan: None,
            bailout: None,
            reasons: Vec::new(),
        },
        attempts: 0,
        flaky: false,
        cached: true,
        no_tests: false,
        tests: Default::default(),
    }
}

/// Hashes the path and content of every file under `root` matching one of `globs`, in path
/// order.
fn hash_inputs(root: &Path, globs: &[String], h: &mut Hasher128) -> Result<(), CacheError> {
    if globs.is_empty() {
        return Ok(());
    }
    let mut set = GlobSetBuilder::new();
    for g in globs {
        let glob = Glob::new(g).map_err(|source| CacheError::Glob {
            glob: g.clone(),
            source,
        })?;
        set.add(glob);
    }
    let set = set.build().map_err(|source| CacheError::Glob {
        glob: globs.join(", "),
        source,
    })?;
    let mut matched = Vec::new();
    for entry in ignore::WalkBuilder::new(root)
        .hidden(false)
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != ".nogit")
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        if set.is_match(rel) {
            matched.push(rel.to_path_buf());
        }
    }
    matched.sort();
    for rel in matched {
        let path = root.join(&rel);
        let content = fs::read(&path).map_err(|source| CacheError::Input { path, source })?;
        rel.hash(h);
        content.hash(h);
    }
    Ok(())
}

/// Two differently seeded SipHash streams: 128 bits, so an unrelated change never collides.
/// `DefaultHasher`'s algorithm may change between Rust releases; that only empties the cache.
#[derive(Default)]
struct Hasher128 {
    a: DefaultHasher,
    b: DefaultHasher,
    started: bool,
}

impl Hasher for Hasher128 {
    fn write(&mut self, bytes: &[u8]) {
        if !self.started {
            self.started = true;
            self.b.write_u8(0xA5);
        }
        self.a.write(bytes);
        self.b.write(bytes);
    }
    fn finish(&self) -> u64 {
        self.a.finish()
    }
}

impl Hasher128 {
    fn finish128(&self) -> u128 {
        (u128::from(self.a.finish()) << 64) | u128::from(self.b.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass() -> FileResult {
        let mut r = cached_result(&Entry {
            key: String::new(),
            tally: Stored {
                pass: 3,
                skip: 1,
                todo: 0,
            },
            duration_ms: 40,
        });
        r.cached = false;
        r
    }

    #[test]
    fn keys_follow_content_command_and_inputs() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        fs::create_dir_all(root.join("lib")).unwrap();
        fs::write(root.join("a.sh"), "one").unwrap();
        fs::write(root.join("lib/x.sh"), "x").unwrap();
        let inputs = vec!["lib/**".to_owned()];
        let open = || Cache::open(&root.join("logs"), root, &inputs).expect("open");
        let key = open().key(root, "a.sh", "sh a.sh").expect("key");
        assert_eq!(open().key(root, "a.sh", "sh a.sh").as_ref(), Some(&key));
        assert_ne!(open().key(root, "a.sh", "bash a.sh").as_ref(), Some(&key));
        fs::write(root.join("lib/x.sh"), "y").unwrap();
        assert_ne!(open().key(root, "a.sh", "sh a.sh").as_ref(), Some(&key));
        fs::write(root.join("lib/x.sh"), "x").unwrap();
        fs::write(root.join("a.sh"), "two").unwrap();
        assert_ne!(open().key(root, "a.sh", "sh a.sh").as_ref(), Some(&key));
        assert!(open().key(root, "missing.sh", "sh").is_none());
        let bad = Cache::open(&root.join("logs"), root, &["[".to_owned()]);
        assert!(matches!(bad, Err(CacheError::Glob { .. })));
    }

    #[test]
    fn stores_clean_passes_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut cache = Cache::open(dir.path(), dir.path(), &[]).expect("open");
        cache.update("a.t", Some("k1"), &pass());
        let hit = cache.lookup("a.t", "k1").expect("stored");
        assert!(hit.cached && hit.ok);
        assert_eq!((hit.tally.pass, hit.tally.skip), (3, 1));
        assert!(cache.lookup("a.t", "k2").is_none());
        let mut flaky = pass();
        flaky.flaky = true;
        cache.update("a.t", Some("k1"), &flaky);
        assert!(cache.lookup("a.t", "k1").is_none());
        cache.update("a.t", Some("k1"), &pass());
        let mut failed = pass();
        failed.ok = false;
        cache.update("a.t", Some("k1"), &failed);
        assert!(cache.lookup("a.t", "k1").is_none());
        let mut no_tests = pass();
        no_tests.no_tests = true;
        cache.update("a.js", Some("k1"), &no_tests);
        assert!(cache.lookup("a.js", "k1").is_none(), "no tests is no pass");
        cache.update("a.t", Some("k1"), &pass());
        cache.save().expect("save");
        let again = Cache::open(dir.path(), dir.path(), &[]).expect("open");
        assert!(again.lookup("a.t", "k1").is_some());
    }
}
