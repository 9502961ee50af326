//! Perl's hook: `TaplineTrace.pm`, loaded by `PERL5OPT=-I<hooks> -MTaplineTrace` (on the
//! command line for a taint-mode perl, which ignores `PERL5OPT`), dumps `%INC` at exit. It is
//! compiled before the test, so its `END` block runs last and sees every file loaded; `exit`
//! and `die` run it too, a forked child does not write (it shares `%INC`).
use std::path::Path;

/// The hook's file name and text.
pub(crate) const HOOKS: &[(&str, &str)] =
    &[("TaplineTrace.pm", include_str!("hooks/TaplineTrace.pm"))];

/// The `PERL5OPT` words that load the hook; none when the folder's path holds white space,
/// which `PERL5OPT` cannot carry.
pub(crate) fn env_words(dir: &Path) -> Option<String> {
    let dir = dir.to_str().filter(|d| !d.contains(char::is_whitespace))?;
    Some(format!("-I{dir} -MTaplineTrace"))
}
