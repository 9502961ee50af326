//! Perl's trace hook: `TaplineTrace.pm`, loaded by `PERL5OPT=-I<hooks> -MTaplineTrace` (on the
//! command line for a taint-mode perl, which ignores `PERL5OPT`), dumps `%INC` at exit. It is
//! compiled before the test, so its `END` block runs last and sees every file loaded; `exit`
//! and `die` run it too, a forked child does not write (it shares `%INC`).
use crate::harness::api::Id;
use crate::harness::trace::{EnvEdit, TraceHook};
use std::path::Path;

pub(crate) struct PerlTrace;
pub(crate) static PERL_TRACE: PerlTrace = PerlTrace;

/// The hook's file name and text.
const HOOKS: &[(&str, &str)] = &[("TaplineTrace.pm", include_str!("hooks/TaplineTrace.pm"))];

impl TraceHook for PerlTrace {
    fn id(&self) -> Id {
        "perl"
    }

    fn is_program(&self, program: &str) -> bool {
        super::is_perl(program)
    }

    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        HOOKS
    }

    fn env(&self, dir: &Path) -> Option<(&'static str, EnvEdit)> {
        Some(("PERL5OPT", EnvEdit::AppendWords(env_words(dir)?)))
    }

    fn shapes_every_run(&self) -> &'static [&'static str] {
        &[
            "Makefile.PL",
            "Build.PL",
            "cpanfile",
            "cpanfile.snapshot",
            "dist.ini",
            "META.json",
            "META.yml",
        ]
    }

    fn module_exts(&self) -> &'static [&'static str] {
        &["pm", "pmc", "pl", "t"]
    }
}

/// The `PERL5OPT` words that load the hook; none when the folder's path holds white space,
/// which `PERL5OPT` cannot carry.
fn env_words(dir: &Path) -> Option<String> {
    let dir = dir.to_str().filter(|d| !d.contains(char::is_whitespace))?;
    Some(format!("-I{dir} -MTaplineTrace"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl5opt_loads_the_hook_unless_its_folder_has_white_space() {
        assert_eq!(
            PERL_TRACE.env(Path::new("/tmp/h")),
            Some((
                "PERL5OPT",
                EnvEdit::AppendWords("-I/tmp/h -MTaplineTrace".into())
            ))
        );
        assert_eq!(PERL_TRACE.env(Path::new("/tmp/a b")), None);
    }
}
