//! `tapline init`: writes the commented `tapline.toml` `run::init` drafts for the repository
//! at the project root; an existing file is kept unless `--force` (exit 2 saying so).
use crate::cli::InitArgs;
use crate::EXIT_USAGE;
use std::fs;
use tapline::run::{config, init};

pub fn run(args: &InitArgs) -> u8 {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("tapline: failed to read the current directory: {e}");
            return EXIT_USAGE;
        }
    };
    let root = config::find_project_root(&cwd);
    let path = root.join(config::FILE_NAME);
    if path.exists() && !args.force {
        eprintln!(
            "tapline: failed to write {}: it already exists (`tapline init --force` replaces it)",
            path.display()
        );
        return EXIT_USAGE;
    }
    let findings = init::look(&root);
    let text = init::render(&findings);
    if let Err(e) = fs::write(&path, &text) {
        eprintln!("tapline: failed to write {}: {e}", path.display());
        return EXIT_USAGE;
    }
    let suites = text.lines().filter(|l| *l == "[[suite]]").count();
    eprintln!(
        "tapline: wrote {} ({suites} suite{}); `tapline run --list` shows what a run takes",
        path.display(),
        if suites == 1 { "" } else { "s" }
    );
    0
}
