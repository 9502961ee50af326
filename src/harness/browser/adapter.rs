//! The page host as the generic layers reach it: the command `--list` shows for a file that
//! runs as a page in the run's browser.
use crate::harness::api::{Cx, MissingInterpreter};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The page host's name where a `[[runner]]` asks for it (`runtime = "chromium"`), and the
/// command word such a rule keeps when it names no command.
pub(crate) const RUNTIME: &str = "chromium";

/// The command `--list` shows for a page, which names the browser it runs in (the switches
/// that matter to a reader: headless, and `--no-sandbox` when root); or why it cannot run,
/// with how to install Chromium. The browser is looked for once per discovery.
pub(crate) fn page_command(
    path: &Path,
    cx: &mut Cx<'_>,
) -> Result<Vec<OsString>, MissingInterpreter> {
    let configured = cx.settings.browser.clone();
    let found: Result<PathBuf, String> = cx.memo.get_or_insert_with(("page", "browser"), || {
        super::chromium::find(configured.as_deref())
    });
    match found {
        Ok(binary) => {
            let mut command = vec![binary.into_os_string(), "--headless=new".into()];
            if super::chromium::needs_no_sandbox() {
                command.push("--no-sandbox".into());
            }
            command.push(path.into());
            Ok(command)
        }
        Err(program) => Err(MissingInterpreter {
            program,
            file: path.to_path_buf(),
            hint: format!(": {}", super::chromium::INSTALL_HINT),
        }),
    }
}
