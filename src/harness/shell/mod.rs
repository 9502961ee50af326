//! Shell scripts that print TAP: `*.sh` runs under `sh`, or the shell its `#!` line asks for.
use super::api::{insert_after_program, Builtin, Id};
use super::Harness;
use crate::harness::shebang::Shebang;
use std::ffi::OsString;

pub(crate) struct Sh;
pub(crate) static SH: Sh = Sh;

/// The shells a `*.sh` file's `#!` line may ask for instead of `sh`.
pub(crate) const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"];

impl Harness for Sh {
    fn id(&self) -> Id {
        "sh"
    }

    fn rules(&self) -> &'static [Builtin] {
        &[Builtin {
            glob: "*.sh",
            walk: &[],
            command: &["sh", "{}"],
        }]
    }

    fn by_line(&self, mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
        // A line naming another shell (`bash`, `zsh`…) runs the file with that shell.
        if SHELLS.contains(&line.name()) {
            if let Some(program) = command.first_mut() {
                *program = line.program.clone().into();
            }
            insert_after_program(&mut command, line.args.clone());
        }
        command
    }
}
