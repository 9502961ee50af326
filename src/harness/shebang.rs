//! The `#!` line of a test file: the interpreter it names and the words it passes, so that a
//! file starts as its own harness would start it (prove gives perl a `.t` file's `-T`).
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// How much of a file is read for its `#!` line. Linux itself reads at most 256 bytes; a
/// longer line is still taken whole up to this, and cut there.
const MAX_LINE: usize = 1024;

/// A file's `#!` line, with `/usr/bin/env` looked through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shebang {
    /// The interpreter as the line names it: a path (`/bin/sh`, `./perl`), or after `env`
    /// a name to look up on PATH.
    pub program: String,
    /// The words after the interpreter, split at whitespace (as `env -S` splits them, and as
    /// Linux does not: it passes everything after the interpreter as one word).
    pub args: Vec<String>,
}

impl Shebang {
    /// The `#!` line of the file at `path`, if it has one naming an interpreter.
    pub fn read(path: &Path) -> Option<Shebang> {
        let mut head = Vec::with_capacity(MAX_LINE);
        File::open(path)
            .ok()?
            .take(MAX_LINE as u64)
            .read_to_end(&mut head)
            .ok()?;
        let line = head.strip_prefix(b"#!")?;
        let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
        Shebang::parse(std::str::from_utf8(&line[..end]).ok()?)
    }

    /// Parses what follows `#!`.
    pub fn parse(line: &str) -> Option<Shebang> {
        let mut words = line.split_whitespace().map(str::to_owned);
        let first = words.next()?;
        if base_name(&first) != "env" {
            return Some(Shebang {
                program: first,
                args: words.collect(),
            });
        }
        let mut rest: Vec<String> = words.collect();
        let mut i = 0;
        while let Some(word) = rest.get(i) {
            match word.as_str() {
                // `env -S 'perl -T'` and `env -Sperl -T`: the words were split above already.
                "-S"
                | "--split-string"
                | "-i"
                | "--ignore-environment"
                | "-"
                | "-0"
                | "--null"
                | "-v"
                | "--debug" => i += 1,
                "-u" | "--unset" | "-C" | "--chdir" => i += 2,
                split if split.starts_with("-S") => {
                    rest[i] = split["-S".len()..].to_owned();
                    break;
                }
                option if option.starts_with('-') => i += 1,
                // Variable assignments for the interpreter's environment.
                assignment if assignment.contains('=') => i += 1,
                _ => break,
            }
        }
        let mut words = rest.into_iter().skip(i);
        Some(Shebang {
            program: words.next()?,
            args: words.collect(),
        })
    }

    /// The interpreter's file name: `perl` for `/usr/bin/perl`.
    pub fn name(&self) -> &str {
        base_name(&self.program)
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> (String, Vec<String>) {
        let s = Shebang::parse(line).unwrap_or_else(|| panic!("{line:?} names no interpreter"));
        (s.program, s.args)
    }

    fn words(words: &[&str]) -> Vec<String> {
        words.iter().map(|&w| w.to_owned()).collect()
    }

    #[test]
    fn interpreters_and_their_words() {
        assert_eq!(parse("/usr/bin/perl"), ("/usr/bin/perl".into(), vec![]));
        assert_eq!(
            parse(" /usr/bin/perl -wT "),
            ("/usr/bin/perl".into(), words(&["-wT"]))
        );
        assert_eq!(parse("perl -T"), ("perl".into(), words(&["-T"])));
        assert_eq!(parse("./perl -Tw"), ("./perl".into(), words(&["-Tw"])));
        assert_eq!(
            parse("/usr/bin/env perl -T"),
            ("perl".into(), words(&["-T"]))
        );
        assert_eq!(
            parse("/usr/bin/env -S node --expose-gc --no-warnings"),
            ("node".into(), words(&["--expose-gc", "--no-warnings"]))
        );
        assert_eq!(
            parse("/usr/bin/env -Spython3 -u"),
            ("python3".into(), words(&["-u"]))
        );
        assert_eq!(
            parse("/usr/bin/env -i -u HOME LANG=C python3 -W error"),
            ("python3".into(), words(&["-W", "error"]))
        );
        assert_eq!(
            parse("/bin/bash -eu"),
            ("/bin/bash".into(), words(&["-eu"]))
        );
        assert_eq!(Shebang::parse(""), None);
        assert_eq!(Shebang::parse("   "), None);
        assert_eq!(Shebang::parse("/usr/bin/env"), None);
        assert_eq!(Shebang::parse("/usr/bin/env -S"), None);
        let s = Shebang::parse("/usr/bin/env perl").expect("perl");
        assert_eq!(s.name(), "perl");
        assert_eq!(
            Shebang::parse("/opt/x/bin/node").expect("node").name(),
            "node"
        );
    }

    #[test]
    fn reads_only_the_first_line() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            path
        };
        let file = write("a.t", b"#!/usr/bin/env perl -T\nuse strict;\n");
        assert_eq!(
            Shebang::read(&file),
            Some(Shebang {
                program: "perl".into(),
                args: words(&["-T"])
            })
        );
        assert_eq!(
            Shebang::read(&write("b.t", b"use strict;\n#!perl -T\n")),
            None
        );
        assert_eq!(Shebang::read(&write("c.t", b"")), None);
        assert_eq!(
            Shebang::read(&write("d.t", b"#!perl")).map(|s| s.program),
            Some("perl".into())
        );
        assert_eq!(Shebang::read(&write("e.t", b"#!\xff\xfe\n")), None);
        assert_eq!(Shebang::read(&dir.path().join("missing.t")), None);
        assert_eq!(Shebang::read(dir.path()), None, "a directory");
        let mut long = b"#!/bin/sh ".to_vec();
        long.extend(std::iter::repeat_n(b'x', 4 * MAX_LINE));
        let s = Shebang::read(&write("f.sh", &long)).expect("cut, not dropped");
        assert_eq!(s.program, "/bin/sh");
    }
}
