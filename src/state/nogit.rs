//! tapline's own folder, `.nogit/` (logs, history, the daemon's socket): when tapline creates
//! it, it puts a `.gitignore` of `*` inside, so nothing in it ever shows as untracked, whether
//! or not the project's own `.gitignore` names it.
use std::fs;
use std::io;
use std::path::Path;

/// The folder's name.
pub const NOGIT: &str = ".nogit";

/// `fs::create_dir_all(dir)`, and a `.gitignore` of `*` in the `.nogit` folder on the way when
/// this call created it. A `.nogit` that already existed is left as it is (its owner may have
/// chosen to track something in it).
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let created = dir
        .ancestors()
        .filter(|a| a.file_name().is_some_and(|n| n == NOGIT))
        .last()
        .filter(|nogit| !nogit.exists())
        .map(Path::to_path_buf);
    fs::create_dir_all(dir)?;
    if let Some(nogit) = created {
        fs::write(nogit.join(".gitignore"), "*\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_nogit_ignores_itself() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        create_dir_all(&dir.path().join(".nogit/testlogs/previous")).expect("created");
        assert_eq!(
            fs::read_to_string(dir.path().join(".nogit/.gitignore")).expect("written"),
            "*\n"
        );
        assert!(!dir.path().join(".nogit/testlogs/.gitignore").exists());

        // One that was there already is the owner's.
        fs::create_dir(dir.path().join("own")).expect("mkdir");
        fs::create_dir(dir.path().join("own/.nogit")).expect("mkdir");
        create_dir_all(&dir.path().join("own/.nogit/testlogs")).expect("created");
        assert!(!dir.path().join("own/.nogit/.gitignore").exists());

        // Other folders get nothing.
        create_dir_all(&dir.path().join("logs/x")).expect("created");
        assert!(!dir.path().join("logs/.gitignore").exists());
    }
}
