//! The files a walk passed over, and why: `--list` and `tapline list` say it, since a user
//! may have expected a helper or a script to run.

/// A file a walk found and did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    /// Relative to the project root.
    pub rel: String,
    pub why: PassedOverWhy,
}

/// Why a walk passed a file over: `--list` says it, since a user may have expected it to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassedOverWhy {
    /// Not named as a test by its language's harness (a module, data, a helper).
    NotATest,
    /// Executable, but no naming rule names it a test: a walk runs nothing for being
    /// executable (a project's `test/run` may run `make install`).
    Executable,
    /// Beside the tests of a folder a harness took over, which runs its own kind of file only
    /// (`t/lib.sh` beside `*.t`); why, as the harness words it
    /// ([`crate::harness::folder::Folder::helper`]).
    Helper(&'static str),
    /// A file of the kind a folder's harness runs that the harness a plain run follows does
    /// not run (a `*.t` below `t/`); why, as the harness words it
    /// ([`crate::harness::folder::Folder::unrun`]).
    Unrun(&'static str),
    /// Excluded by tap's own configuration (`exclude`).
    TapExcluded,
}

impl PassedOverWhy {
    /// Why, as `--list` words it after the file's name.
    pub fn says(self) -> &'static str {
        match self {
            Self::NotATest => "not named as a test",
            Self::Executable => {
                "executable, but not named as a test (a walk runs no file for being executable; name it to run it)"
            }
            Self::Helper(why) | Self::Unrun(why) => why,
            Self::TapExcluded => "excluded by tap's `exclude`",
        }
    }
}

/// `--list`'s lines on what the walks passed over: a line for each file passed over for a
/// reason of its own (an executable, a helper beside `*.t` tests), the first
/// [`SHOWN_REASONS`]; then the files not named as tests, the first five by name.
pub fn passed_over_notes(passed: &[PassedOver]) -> Vec<String> {
    const SHOWN_NAMES: usize = 5;
    let (plain, reasoned): (Vec<&PassedOver>, Vec<&PassedOver>) = passed
        .iter()
        .partition(|p| p.why == PassedOverWhy::NotATest);
    let mut notes: Vec<String> = reasoned
        .iter()
        .take(SHOWN_REASONS)
        .map(|p| format!("{}: passed over: {}", p.rel, p.why.says()))
        .collect();
    if reasoned.len() > SHOWN_REASONS {
        notes.push(format!(
            "and {} more files passed over as helpers or executables",
            reasoned.len() - SHOWN_REASONS
        ));
    }
    if !plain.is_empty() {
        let shown: Vec<&str> = plain
            .iter()
            .take(SHOWN_NAMES)
            .map(|p| p.rel.as_str())
            .collect();
        let mut names = shown.join(", ");
        if plain.len() > SHOWN_NAMES {
            names.push_str(&format!(", and {} more", plain.len() - SHOWN_NAMES));
        }
        let plural = if plain.len() == 1 { "" } else { "s" };
        notes.push(format!("not tests ({} file{plural}): {names}", plain.len()));
    }
    notes
}

/// How many files passed over for a reason of their own `--list` names one by one.
pub const SHOWN_REASONS: usize = 20;
