//! The environment every child gets beyond tapline's own: `[run] env` of `tapline.toml`, then
//! `--env KEY=VALUE` over it, and include folders (`[run] lib`, `-I DIR`) prepended to every
//! include variable its harnesses name ([`lib_vars`]), as a harness's own `-I` does; a
//! project's own folders, as its harness puts them there
//! ([`crate::harness::Harness::dist_libs`]), follow them on their harness's variable alone,
//! so `-I` and `[run] lib` come first. An interpreter that ignores its variable in some mode
//! gets the folders on its command line instead ([`crate::harness::Harness::adapt`]).
use crate::harness::registry;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The variables the include folders are prepended to, in the registry's order.
pub fn lib_vars() -> Vec<&'static str> {
    registry::lib_vars()
}

/// A project's own include folders, by the variable they go to after the given ones.
pub type DistLibs = [(&'static str, Vec<PathBuf>)];

/// The project's own include folders in `dir` (absolute), as its harnesses put them there.
pub fn dist_libs(dir: &Path) -> Vec<(&'static str, Vec<PathBuf>)> {
    registry::dist_libs(dir)
}

/// `KEY=VALUE` read and checked where the configuration is read (it needs nothing of the
/// runner), named here too for the callers that know it here.
pub use super::config::{check_var, parse_assignment, EnvError};

/// The value a child sees for `key`: `vars` (a child's own variables, set over tapline's), else
/// `inherited` (tapline's own).
pub(crate) fn seen_by_child(
    vars: &[(OsString, OsString)],
    key: &str,
    inherited: impl Fn(&str) -> Option<OsString>,
) -> Option<OsString> {
    vars.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .or_else(|| inherited(key))
}

/// What tapline sets for every child, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnv {
    pub vars: Vec<(OsString, OsString)>,
}

impl ChildEnv {
    /// `config` (from `tapline.toml`), then `cli` over it key by key, then `libs` (absolute,
    /// first wins) prepended to [`lib_vars`], each of `dist`'s after them to its own variable
    /// only (each folder once); `inherited` reads tapline's own environment.
    pub fn build(
        config: &[(String, String)],
        cli: &[(String, String)],
        libs: &[PathBuf],
        dist: &DistLibs,
        inherited: impl Fn(&str) -> Option<OsString>,
    ) -> ChildEnv {
        fn set(vars: &mut Vec<(OsString, OsString)>, key: &str, value: OsString) {
            match vars.iter_mut().find(|(k, _)| k == key) {
                Some((_, old)) => *old = value,
                None => vars.push((key.into(), value)),
            }
        }
        let mut vars: Vec<(OsString, OsString)> = Vec::new();
        for (key, value) in config.iter().chain(cli) {
            set(&mut vars, key, value.into());
        }
        for var in lib_vars() {
            let mut dirs: Vec<&PathBuf> = libs.iter().collect();
            for lib in dist.iter().filter(|(v, _)| *v == var).flat_map(|(_, l)| l) {
                if !dirs.contains(&lib) {
                    dirs.push(lib);
                }
            }
            if !dirs.is_empty() {
                let before = vars
                    .iter()
                    .find(|(k, _)| k == var)
                    .map(|(_, v)| v.clone())
                    .or_else(|| inherited(var));
                let mut value = join_paths(dirs.iter().map(|lib| lib.as_os_str()));
                if let Some(before) = before.filter(|b| !b.is_empty()) {
                    value.push(":");
                    value.push(before);
                }
                set(&mut vars, var, value);
            }
        }
        ChildEnv { vars }
    }

    /// The value a child sees for `key`: set here, else inherited.
    fn get(&self, key: &str, inherited: &impl Fn(&str) -> Option<OsString>) -> Option<OsString> {
        seen_by_child(&self.vars, key, inherited)
    }

    /// `argv` as it must be to see the include folders, as its harnesses adapt it (an
    /// interpreter that ignores its variable in some mode gets them as switches).
    pub fn adapt(
        &self,
        argv: Vec<OsString>,
        inherited: impl Fn(&str) -> Option<OsString>,
    ) -> Vec<OsString> {
        registry::adapt(argv, &|key: &str| self.get(key, &inherited))
    }
}

/// Folders joined with `:` (a folder holding `:` cannot be in such a list; it is kept as is,
/// as a harness's own `-I` keeps it).
fn join_paths<'a>(dirs: impl Iterator<Item = &'a OsStr>) -> OsString {
    let mut joined = OsString::new();
    for (i, dir) in dirs.enumerate() {
        if i > 0 {
            joined.push(":");
        }
        joined.push(dir);
    }
    joined
}

/// Include folders as absolute paths: relative ones are taken from the project `root`.
pub fn resolve_libs(libs: &[PathBuf], root: &Path) -> Vec<PathBuf> {
    libs.iter().map(|lib| root.join(lib)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<OsString> {
        None
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    fn shown(env: &ChildEnv) -> Vec<(String, String)> {
        env.vars
            .iter()
            .map(|(k, v)| (k.to_string_lossy().into(), v.to_string_lossy().into()))
            .collect()
    }

    #[test]
    fn cli_wins_over_config_key_by_key() {
        let env = ChildEnv::build(
            &pairs(&[("A", "config"), ("B", "config")]),
            &pairs(&[("B", "cli"), ("C", "cli"), ("C", "cli again")]),
            &[],
            &[],
            none,
        );
        assert_eq!(
            shown(&env),
            pairs(&[("A", "config"), ("B", "cli"), ("C", "cli again")])
        );
    }

    /// The registry's include variables: the tests below need three, whichever they are.
    fn three_vars() -> (&'static str, &'static str, &'static str) {
        match lib_vars()[..] {
            [first, second, third, ..] => (first, second, third),
            ref vars => {
                panic!("the tests need three include variables, the registry gives {vars:?}")
            }
        }
    }

    #[test]
    fn libs_are_prepended_to_every_include_variable() {
        let (first, second, third) = three_vars();
        let inherited = |key: &str| (key == second).then(|| OsString::from("/inherited"));
        let env = ChildEnv::build(
            &pairs(&[(third, "/configured")]),
            &pairs(&[(first, "")]),
            &["/p/lib".into(), "/p/t/lib".into()],
            &[],
            inherited,
        );
        // The variables set by `[run] env` and `--env` first, in that order, then the others
        // in the registry's order.
        let mut expected = pairs(&[
            (third, "/p/lib:/p/t/lib:/configured"),
            (first, "/p/lib:/p/t/lib"),
        ]);
        for var in lib_vars()
            .into_iter()
            .filter(|v| ![first, third].contains(v))
        {
            let value = match var == second {
                true => "/p/lib:/p/t/lib:/inherited",
                false => "/p/lib:/p/t/lib",
            };
            expected.extend(pairs(&[(var, value)]));
        }
        assert_eq!(shown(&env), expected);
        assert_eq!(
            resolve_libs(&["lib".into(), "/abs".into()], Path::new("/root")),
            [PathBuf::from("/root/lib"), PathBuf::from("/abs")]
        );
    }

    /// A distribution's folders go to their own variable alone, after `-I` and `[run] lib`,
    /// each once.
    #[test]
    fn a_distributions_libs_follow_the_given_ones() {
        let (own, ..) = three_vars();
        let inherited = |key: &str| (key == own).then(|| OsString::from("/inherited"));
        let env = ChildEnv::build(
            &[],
            &[],
            &["/x".into(), "/p/lib".into()],
            &[(own, vec!["/p/lib".into(), "/p/t/lib".into()])],
            inherited,
        );
        let expected: Vec<(String, String)> = (lib_vars().into_iter())
            .map(|var| match var == own {
                true => (var.to_owned(), "/x:/p/lib:/p/t/lib:/inherited".to_owned()),
                false => (var.to_owned(), "/x:/p/lib".to_owned()),
            })
            .collect();
        assert_eq!(shown(&env), expected);
        let alone = ChildEnv::build(&[], &[], &[], &[(own, vec!["/p/lib".into()])], none);
        assert_eq!(shown(&alone), pairs(&[(own, "/p/lib")]));
    }

    /// A command no harness adapts is left as it is. How a harness adapts its own (as the
    /// child sees the variables: set here over inherited) is the integration test
    /// `issue39_an_adapted_command_sees_the_libs_then_the_inherited_ones`, on a real file.
    #[test]
    fn a_command_no_harness_adapts_is_unchanged() {
        let argv = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        let env = ChildEnv::build(&[], &[], &["/p/lib".into()], &[], |_| Some("/inh".into()));
        for unchanged in [&["sh", "-T", "t/a.sh"][..], &[]] {
            assert_eq!(env.adapt(argv(unchanged), none), argv(unchanged));
        }
    }
}
