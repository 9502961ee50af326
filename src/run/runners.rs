//! The built-in runners: which files each runs, which of those a directory yields, how a
//! file's `#!` line shapes its command (the switches it names, the shell it asks for), and how
//! its stdout and stderr are read ([`Streams`]).
use super::discover::Input;
use super::shebang::{self, Shebang};
use crate::protocol::InputFormat;
use std::ffi::OsString;
use std::path::Path;

/// The interpreter a runner starts, as far as reading a `#!` line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `perl`: it reads its `#!` line itself, but refuses a `-T`/`-t` found only there.
    Perl,
    /// `python3`: the line's words (`-u`, `-W error`, `-X dev`) go on the command line.
    Python,
    /// `node`: the line's flags (`--expose-gc`, `--experimental-…`) go on the command line.
    Node,
    /// `tsx`: like node, from a line naming tsx.
    Tsx,
    /// `sh`: a line naming another shell (`bash`, `zsh`…) runs the file with that shell.
    Shell,
    /// The `#!` line is not read.
    Opaque,
}

/// A built-in runner rule, tried after the user's `[[runner]]` rules.
#[derive(Debug)]
pub struct Builtin {
    /// The files it runs when named or matched by a glob (a file-name glob).
    pub glob: &'static str,
    /// The ones of those a directory walk yields, when fewer: the rest are helpers. Empty
    /// means every file `glob` matches.
    pub walk: &'static [&'static str],
    /// `{}` stands for the file.
    pub command: &'static [&'static str],
    pub family: Family,
}

/// The rules tried after the user's, in order.
pub const BUILTIN_RUNNERS: &[Builtin] = &[
    // prove runs `*.t`; a `.pl` beside them is a helper script (run when named).
    Builtin {
        glob: "*.{t,pl}",
        walk: &["*.t"],
        command: &["perl", "{}"],
        family: Family::Perl,
    },
    // pytest's default names; other modules are helpers.
    Builtin {
        glob: "*.py",
        walk: &["test*.py", "*_test.py"],
        command: &["python3", "{}"],
        family: Family::Python,
    },
    Builtin {
        glob: "*.{js,mjs,cjs}",
        walk: &[],
        command: &["node", "{}"],
        family: Family::Node,
    },
    // tstest's names; `helpers.ts` beside them is not a test. The runner is the project's
    // own ([`ts_runner`]), `tsx` only stands for it.
    Builtin {
        glob: "*.ts",
        walk: &["test*.ts", "*.test.ts", "*.test.*.ts"],
        command: &["tsx", "{}"],
        family: Family::Tsx,
    },
    Builtin {
        glob: "*.sh",
        walk: &[],
        command: &["sh", "{}"],
        family: Family::Shell,
    },
    Builtin {
        glob: "*.bats",
        walk: &[],
        command: &["bats", "--tap", "{}"],
        family: Family::Opaque,
    },
];

/// The command `*.ts` files run with: `[run] ts_runner` of `tapline.toml`, else the project's
/// own runner (`node_modules/.bin/tsx`, then `node_modules/.bin/tsrun` as tstest runs its
/// files, in the nearest `node_modules` from the cwd up to the root), else `tsx`, then
/// `tsrun`, on PATH; else `tsx`, which then fails as not installed. The project's own matters:
/// tsx and ts-node differ on CommonJS interop, and a suite passes under the one it was
/// written for.
pub(crate) fn ts_runner(configured: Option<&[String]>, cwd: &Path, root: &Path) -> Vec<String> {
    if let Some(words) = configured.filter(|w| !w.is_empty()) {
        return words.to_vec();
    }
    let local = cwd
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .flat_map(|dir| ["tsx", "tsrun"].map(|name| dir.join("node_modules/.bin").join(name)))
        .find(|path| crate::util::which::find(path.as_os_str(), cwd).is_some());
    if let Some(path) = local {
        return vec![path.to_string_lossy().into_owned()];
    }
    let on_path = ["tsx", "tsrun"]
        .into_iter()
        .find(|name| crate::util::which::find(std::ffi::OsStr::new(name), cwd).is_some());
    vec![on_path.unwrap_or("tsx").to_owned()]
}

/// The shells a `*.sh` file's `#!` line may ask for instead of `sh`.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"];

/// Whether an interpreter name is perl's (`perl`, `perl5.36.0`), as Test::Harness decides.
pub(crate) fn is_perl(name: &str) -> bool {
    name.starts_with("perl")
}

/// How a file's stdout and stderr are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Streams {
    /// A pipe each; stderr is the tests' output, placed among the TAP by when it arrives.
    Apart,
    /// A pipe each, both parsed as TAP (`--merge` for a producer that may leave a line
    /// half-written): a line is parsed once whole, but two lines from the two pipes in the
    /// order they arrive, which need not be the order they were written.
    Parsed,
    /// One pipe for both, as `2>&1` makes it, parsed as TAP: the lines come in the order the
    /// child wrote them.
    OnePipe,
}

impl Streams {
    /// What the result cache adds to the file's command line: a stderr line parsed or not can
    /// change a verdict.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Streams::Apart => "",
            Streams::Parsed => " (stderr parsed)",
            Streams::OnePipe => " 2>&1",
        }
    }
}

/// How a file's stdout and stderr are read. One pipe when its `[[runner]]` rule says
/// `merge = true`, or by default when it prints TAP and its producer writes each line whole
/// as it goes ([`flushes_each_line`]: perl). That pipe hands over the lines in the order the
/// child wrote them, so the diagnostics Test::More writes to stderr after a `not ok` on stdout
/// are read after it, under any load; the readers of two pipes race. `--merge` (`flag`) parses
/// the other files' stderr too, on its own pipe; `--no-merge` keeps every file's apart.
pub(crate) fn streams(
    flag: Option<bool>,
    input: &Input,
    command: &Result<Vec<OsString>, String>,
) -> Streams {
    let one_pipe = input.merge.unwrap_or_else(|| {
        // JUnit XML or go's JSON would not survive a warning among it.
        input.format == InputFormat::Tap
            && input.report.is_none()
            && command.as_deref().is_ok_and(flushes_each_line)
    });
    match (flag, one_pipe) {
        (Some(false), _) => Streams::Apart,
        (_, true) => Streams::OnePipe,
        (Some(true), false) => Streams::Parsed,
        (None, false) => Streams::Apart,
    }
}

/// Whether a command's producer writes each line whole, to stdout and stderr alike, as it
/// goes, so that one pipe for both keeps its lines whole and in their order: perl, whose
/// Test::Builder and Test2 turn on autoflush for STDOUT and STDERR (the handles themselves,
/// not only their own copies of them). Others may not: Python buffers what it prints to a
/// pipe, and one pipe would join half a stdout line to a stderr line written meanwhile.
pub(crate) fn flushes_each_line(command: &[OsString]) -> bool {
    command.first().is_some_and(|program| {
        let program = program.to_string_lossy();
        is_perl(program.rsplit('/').next().unwrap_or(&program))
    })
}

/// `command` (a built-in runner's, filled in for one file) as that file's `#!` line asks.
pub(crate) fn apply_shebang(
    family: Family,
    mut command: Vec<OsString>,
    line: &Shebang,
) -> Vec<OsString> {
    let name = line.name();
    let words: Vec<String> = match family {
        Family::Perl if is_perl(name) => shebang::perl_switches(&line.args),
        Family::Python if name.starts_with("python") => line.args.clone(),
        Family::Node if name == "node" || name == "nodejs" => line.args.clone(),
        Family::Tsx if name == "tsx" => line.args.clone(),
        Family::Shell if SHELLS.contains(&name) => {
            if let Some(program) = command.first_mut() {
                *program = line.program.clone().into();
            }
            line.args.clone()
        }
        _ => Vec::new(),
    };
    insert_after_program(&mut command, words);
    command
}

/// A perl command of the user's own (a `[[runner]]` rule): it gets the `#!` line's taint and
/// warning switches, since perl refuses to run a `-T` file without them.
pub(crate) fn apply_perl_switches(mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
    let program = command.first().map(|p| p.to_string_lossy().into_owned());
    if program.is_some_and(|p| is_perl(p.rsplit('/').next().unwrap_or(&p))) {
        insert_after_program(&mut command, shebang::perl_switches(&line.args));
    }
    command
}

/// How a file no rule maps runs by its `#!` line: the interpreter, the line's words split
/// (Linux hands them over as one word, so `#!/usr/bin/env perl -T` fails there), the file.
pub(crate) fn by_shebang(line: &Shebang, file: OsString) -> Vec<OsString> {
    std::iter::once(line.program.clone())
        .chain(line.args.iter().cloned())
        .map(OsString::from)
        .chain(std::iter::once(file))
        .collect()
}

fn insert_after_program(command: &mut Vec<OsString>, words: Vec<String>) {
    let at = 1.min(command.len());
    command.splice(at..at, words.into_iter().map(OsString::from));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Shebang {
        Shebang::parse(text).expect("a #! line")
    }

    fn apply(family: Family, command: &[&str], text: &str) -> Vec<String> {
        let command = command.iter().map(OsString::from).collect();
        apply_shebang(family, command, &line(text))
            .into_iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn each_family_reads_its_own_line() {
        use Family::*;
        let perl = ["perl", "t/a.t"];
        assert_eq!(
            apply(Perl, &perl, "/usr/bin/env perl -T"),
            ["perl", "-T", "t/a.t"]
        );
        assert_eq!(
            apply(Perl, &perl, "perl -wT -l"),
            ["perl", "-w", "-T", "t/a.t"]
        );
        assert_eq!(
            apply(Perl, &perl, "/usr/bin/perl5.36.0 -t"),
            ["perl", "-t", "t/a.t"]
        );
        assert_eq!(apply(Perl, &perl, "/usr/bin/perl"), perl);

        let py = ["python3", "test_a.py"];
        assert_eq!(
            apply(Python, &py, "/usr/bin/env python3 -u -W error"),
            ["python3", "-u", "-W", "error", "test_a.py"]
        );
        assert_eq!(
            apply(Python, &py, "/usr/bin/python -B"),
            ["python3", "-B", "test_a.py"]
        );
        assert_eq!(apply(Python, &py, "/bin/sh -e"), py, "not python's line");

        let node = ["node", "a.mjs"];
        assert_eq!(
            apply(Node, &node, "/usr/bin/env -S node --expose-gc"),
            ["node", "--expose-gc", "a.mjs"]
        );
        assert_eq!(apply(Node, &node, "/usr/bin/env deno run"), node);
        assert_eq!(
            apply(Tsx, &["tsx", "a.ts"], "/usr/bin/env -S tsx --no-warnings"),
            ["tsx", "--no-warnings", "a.ts"]
        );

        let sh = ["sh", "a.sh"];
        assert_eq!(
            apply(Shell, &sh, "/bin/bash -eu"),
            ["/bin/bash", "-eu", "a.sh"]
        );
        assert_eq!(apply(Shell, &sh, "/usr/bin/env zsh"), ["zsh", "a.sh"]);
        assert_eq!(apply(Shell, &sh, "/usr/bin/python3"), sh, "not a shell");

        let bats = ["bats", "--tap", "a.bats"];
        assert_eq!(apply(Opaque, &bats, "/usr/bin/env bats -x"), bats);
    }

    #[test]
    fn user_perl_commands_get_the_switches_perl_insists_on() {
        let switches = |command: &[&str]| -> Vec<String> {
            apply_perl_switches(
                command.iter().map(OsString::from).collect(),
                &line("perl -T"),
            )
            .into_iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
        };
        assert_eq!(
            switches(&["perl", "-Ilib", "t/a.t"]),
            ["perl", "-T", "-Ilib", "t/a.t"]
        );
        assert_eq!(
            switches(&["/opt/perl/bin/perl", "t/a.t"]),
            ["/opt/perl/bin/perl", "-T", "t/a.t"]
        );
        assert_eq!(switches(&["sh", "-c", "x"]), ["sh", "-c", "x"]);
    }

    /// Issue 23: a perl file's two streams are one pipe, unless its rule or `--no-merge` says
    /// otherwise; `--merge` parses another file's stderr on its own pipe.
    #[test]
    fn how_each_file_is_read() {
        use Streams::*;
        let argv = |words: &[&str]| Ok(words.iter().map(OsString::from).collect());
        let perl = argv(&["/usr/bin/perl", "-w", "t/a.t"]);
        let node = argv(&["node", "a.test.js"]);
        let tap = Input::default();
        assert_eq!(streams(None, &tap, &perl), OnePipe);
        assert_eq!(streams(None, &tap, &node), Apart);
        assert_eq!(streams(None, &tap, &Err("no perl".into())), Apart);
        let go = Input {
            format: InputFormat::GoJson,
            ..Input::default()
        };
        assert_eq!(
            streams(None, &go, &perl),
            Apart,
            "only TAP takes a stray line"
        );
        let rule = |merge| Input {
            merge: Some(merge),
            ..Input::default()
        };
        assert_eq!(streams(None, &rule(false), &perl), Apart);
        assert_eq!(streams(None, &rule(true), &node), OnePipe);
        assert_eq!(streams(Some(true), &tap, &node), Parsed, "--merge");
        assert_eq!(streams(Some(true), &rule(false), &perl), Parsed);
        assert_eq!(streams(Some(true), &tap, &perl), OnePipe);
        assert_eq!(
            streams(Some(false), &rule(true), &perl),
            Apart,
            "--no-merge"
        );
    }

    #[test]
    fn perl_writes_each_line_as_it_goes() {
        let flushes = |words: &[&str]| {
            flushes_each_line(&words.iter().map(OsString::from).collect::<Vec<_>>())
        };
        assert!(flushes(&["perl", "t/a.t"]));
        assert!(flushes(&["/opt/perl/bin/perl5.36.0", "-T", "t/a.t"]));
        assert!(!flushes(&["python3", "test_a.py"]));
        assert!(!flushes(&["/usr/bin/env", "perl", "t/a.t"]));
        assert!(!flushes(&[]));
    }

    #[test]
    fn files_without_a_rule_run_by_their_line() {
        let command = by_shebang(&line("/usr/bin/env perl -T -w"), "t/run-me".into());
        assert_eq!(command, ["perl", "-T", "-w", "t/run-me"]);
        assert_eq!(
            by_shebang(&line("/bin/sh"), "./x".into()),
            ["/bin/sh", "./x"]
        );
    }
}
