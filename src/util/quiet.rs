//! Asking a tool a question: run it with no input and its errors unread, and take what it
//! printed only when it succeeded.
//!
//! The rooms ask tools many small questions (a package list, a version, an environment's
//! folder) whose failure only means "no answer": the caller falls back to
//! something else. One home keeps the rule the same everywhere: stdin is closed (a tool that
//! prompts must not wait on tapline's terminal), stderr is discarded (its complaint is not the
//! user's concern when there is a fallback), and a failed or unstartable command is `None`.
use std::process::{Command, Stdio};

/// `cmd`'s stdout when it ran and exited 0; `None` when it could not start or failed.
pub(crate) fn stdout_of(cmd: &mut Command) -> Option<Vec<u8>> {
    let out = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// Whether `cmd` ran and exited 0, nothing it printed read.
pub(crate) fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The first non-blank line, trimmed, of what `cmd` printed when it succeeded.
pub(crate) fn first_line_of(cmd: &mut Command) -> Option<String> {
    let out = stdout_of(cmd)?;
    let text = String::from_utf8_lossy(&out);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_succeeding_command_gives_its_stdout_and_a_failing_one_none() {
        let said = stdout_of(Command::new("sh").args(["-c", "echo hi; echo err >&2"]));
        assert_eq!(said.as_deref(), Some(&b"hi\n"[..]));
        assert_eq!(
            stdout_of(Command::new("sh").args(["-c", "echo hi; exit 3"])),
            None
        );
        assert_eq!(stdout_of(&mut Command::new("/nonexistent/tool")), None);
    }

    #[test]
    fn the_first_line_skips_blank_lines_and_trims() {
        let line = first_line_of(Command::new("sh").args(["-c", "echo; echo '  /a/b  '; echo c"]));
        assert_eq!(line.as_deref(), Some("/a/b"));
        assert_eq!(first_line_of(Command::new("sh").args(["-c", "echo"])), None);
    }

    #[test]
    fn succeeds_is_the_exit_status() {
        assert!(succeeds(
            Command::new("sh").args(["-c", "echo noise; echo more >&2"])
        ));
        assert!(!succeeds(Command::new("sh").args(["-c", "exit 1"])));
        assert!(!succeeds(&mut Command::new("/nonexistent/tool")));
    }

    #[test]
    fn stdin_is_closed_so_a_reading_tool_does_not_wait() {
        let said = stdout_of(Command::new("sh").args(["-c", "cat; echo done"]));
        assert_eq!(said.as_deref(), Some(&b"done\n"[..]));
    }
}
