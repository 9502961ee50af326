//! Shell test libraries' `*.t` (sharness, git's `test-lib.sh`, bash-tap, `tap.sh` …): a `*.t`
//! whose `#!` names a shell runs under that shell, as the project's `make test` or `prove`
//! runs it, from the folder the project runs it in, with `$TEST_OPTS` as the library's
//! Makefile passes them (`TEST_OPTS=-v`: each test's commands' output, before its point); a
//! folder whose Makefile runs its `*.t` is walked as that Makefile runs it, and so is a folder
//! of scripts the Makefile above it names by a wildcard (`tests/t[0-9]*-*.sh`).
use super::api::{Id, Made};
use super::shebang::Shebang;
use super::Harness;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
mod folder;

pub(crate) struct ShellTap;
pub(crate) static SHELL_TAP: ShellTap = ShellTap;

/// How much of a script is read for the library it sources.
const HEAD: u64 = 64 * 1024;

impl Harness for ShellTap {
    fn id(&self) -> Id {
        "shell-tap"
    }

    fn claims(&self, abs: &Path) -> bool {
        abs.extension().is_some_and(|e| e == "t")
            && (shell_of(abs).is_some() || abs.parent().is_some_and(folder::runs_its_dot_t))
    }

    fn command(&self, path: &Path, abs: &Path, _cx: &mut super::api::Cx<'_>) -> Option<Made> {
        let text = head(abs);
        let dir = abs.parent()?;
        // Its folder's Makefile runs it there (`cd t && make`), or it sources its library
        // from the folder it runs in (`. ./sharness.sh`): it runs from its folder, named as
        // the Makefile names it. Otherwise from where the run is, as `prove t/` runs it.
        let in_folder = folder::runs_its_dot_t(dir) || sources_from_cwd(&text);
        let (cwd, word) = match (in_folder, abs.file_name()) {
            (true, Some(name)) => (Some(dir.to_path_buf()), OsString::from(name)),
            _ => (None, path.as_os_str().to_owned()),
        };
        let mut command: Vec<OsString> = match shell_of(abs) {
            Some(line) => std::iter::once(line.program.clone())
                .chain(line.args.iter().cloned())
                .map(OsString::from)
                .collect(),
            // A Perl `*.t` beside them, which the Makefile runs through prove from there.
            None => std::iter::once("perl".to_owned())
                .chain(
                    Shebang::read(abs)
                        .map_or_else(Vec::new, |l| super::perl::perl_switches(&l.args)),
                )
                .map(OsString::from)
                .collect(),
        };
        command.push(word);
        // As the library's Makefile runs each file: `'$(SHELL_PATH)' $@ $(TEST_OPTS)`.
        if let Ok(opts) = std::env::var("TEST_OPTS") {
            command.extend(opts.split_whitespace().map(OsString::from));
        }
        Some(Made {
            command: Ok(command),
            harness: self.id(),
            cwd,
        })
    }

    fn holds_own_only(&self, dir: &Path, _another_test: &dyn Fn(&str) -> bool) -> bool {
        folder::runs_its_dot_t(dir)
    }

    fn folder(
        &self,
        cwd: &Path,
        dir: &Path,
        _owned: bool,
        bare: bool,
        _another_test: &dyn Fn(&str) -> bool,
    ) -> Option<Box<dyn super::folder::Folder>> {
        let abs: PathBuf = crate::util::paths::normalize(&cwd.join(dir));
        if folder::runs_its_dot_t(&abs) {
            return Some(Box::new(folder::MakeFolder { dir: abs, bare }));
        }
        folder::named_by_parent_make(&abs).map(|f| Box::new(f) as Box<dyn super::folder::Folder>)
    }

    fn silent(&self, _name: &str) -> super::api::Silent {
        // As prove, which runs such a `t/` too, judges a script that printed no TAP.
        super::api::Silent::NoSubtests
    }
}

/// The `#!` line of `abs` when it names a shell.
fn shell_of(abs: &Path) -> Option<Shebang> {
    Shebang::read(abs).filter(|l| super::shell::SHELLS.contains(&l.name()))
}

fn head(abs: &Path) -> String {
    let mut bytes = Vec::new();
    if let Ok(f) = std::fs::File::open(abs) {
        let _ = f.take(HEAD).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The words of each line's `.`/`source` command: what the script sources.
fn sourced(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        let l = l.trim_start();
        let rest = l.strip_prefix(". ").or_else(|| l.strip_prefix("source "))?;
        rest.split_whitespace().next()
    })
}

/// Whether it sources a file by a path from the folder it runs in: `./lib.sh`, a bare
/// `sharness.sh`, or sharness's `$SHARNESS_TEST_SRCDIR` (`.` unless set).
fn sources_from_cwd(text: &str) -> bool {
    sourced(text).any(|word| {
        let word = word.trim_matches(['"', '\'']);
        word.starts_with("./")
            || word.starts_with("$SHARNESS_TEST_SRCDIR")
            || word.starts_with("${SHARNESS_TEST_SRCDIR")
            || !word.contains(['/', '$'])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_sourcing_its_library_from_where_it_runs() {
        assert!(sources_from_cwd("#!/bin/sh\n. ./sharness.sh\n"));
        assert!(sources_from_cwd(
            ". \"$SHARNESS_TEST_SRCDIR/sharness.sh\"\n"
        ));
        assert!(sources_from_cwd("source test-lib.sh\n"));
        assert!(!sources_from_cwd(
            ". \"$(dirname \"$0\")/bash-tap-bootstrap\"\n"
        ));
        assert!(!sources_from_cwd("echo . ./x\n"));
    }

    #[test]
    fn its_command_and_folder() {
        let d = tempfile::tempdir().expect("temp dir");
        let t = d.path().join("t");
        std::fs::create_dir_all(&t).expect("mkdir");
        let sharness = t.join("a.t");
        std::fs::write(&sharness, "#!/usr/bin/env bash\n. ./sharness.sh\n").expect("write");
        let plain = t.join("b.t");
        std::fs::write(&plain, "#!/bin/sh\n. \"$(dirname \"$0\")/tap.sh\"\n").expect("write");
        let perl = t.join("c.t");
        std::fs::write(&perl, "#!/usr/bin/perl\nuse Test::More;\n").expect("write");
        assert!(SHELL_TAP.claims(&sharness) && SHELL_TAP.claims(&plain));
        assert!(!SHELL_TAP.claims(&perl));
        let settings = super::super::api::Settings::default();
        let mut memo = super::super::api::Memo::default();
        let mut cx = super::super::api::Cx {
            cwd: d.path(),
            root: d.path(),
            settings: &settings,
            memo: &mut memo,
        };
        let made = SHELL_TAP
            .command(Path::new("t/a.t"), &sharness, &mut cx)
            .expect("made");
        assert_eq!(made.cwd.as_deref(), Some(t.as_path()));
        assert_eq!(made.command.expect("command"), ["bash", "a.t"]);
        let made = SHELL_TAP
            .command(Path::new("t/b.t"), &plain, &mut cx)
            .expect("made");
        assert_eq!(made.cwd, None, "from where the run is, as prove t/ runs it");
        assert_eq!(made.command.expect("command"), ["/bin/sh", "t/b.t"]);
    }
}
