//! `--tag T`: the files that declare one of the tags, as their harnesses read tags, and the
//! variables that pass the tags on to every file (tapline's own reading of a harness's tags:
//! [`crate::harness::Harness::declares_tag`]).
use super::discover::TestFile;
use crate::harness::registry;

/// `--tag`'s `--env` words for every file (`KEY=a,b`), as the harnesses pass their tags on;
/// none without tags.
pub fn tag_env(wanted: &[String]) -> Vec<String> {
    if wanted.is_empty() {
        return Vec::new();
    }
    registry::tag_env(wanted)
}

/// `--tag`: the files that declare one of `wanted` (all of them when it is empty).
pub fn with_tags(files: Vec<TestFile>, wanted: &[String]) -> Vec<TestFile> {
    if wanted.is_empty() {
        return files;
    }
    files
        .into_iter()
        .filter(|f| {
            // A file that runs in a folder of its own (a workspace's package) is named from it.
            let path = match &f.input.cwd {
                Some(dir) => dir.join(&f.path),
                None => f.path.clone(),
            };
            registry::declares_tag(&path, wanted)
        })
        .collect()
}
