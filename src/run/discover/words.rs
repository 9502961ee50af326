//! Words and names: command templates filled in, command lines split and quoted as a shell
//! would, and the flat log name of a test path.
use super::TestFile;
use crate::harness::shebang::Shebang;
use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::path::Path;

pub use crate::state::logs::log_name;

/// A line of `tapline run --list`: the file and its command, or why it can't run.
pub fn list_line(f: &TestFile) -> String {
    if let Some(why) = &f.input.cannot_run {
        return format!("{}\t{why}", f.rel);
    }
    match &f.command {
        Ok(words) => {
            let words: Vec<Cow<str>> = words.iter().map(|word| shell_quote(word)).collect();
            format!("{}\t{}", f.rel, words.join(" "))
        }
        Err(missing) => format!("{}\t{missing}", f.rel),
    }
}

/// The command `template` makes for `path`: `{}` within a word stands for it, and it is
/// appended when no word has `{}`.
pub(super) fn fill(template: &[String], path: &Path) -> Vec<OsString> {
    let mut used = false;
    let mut command: Vec<OsString> = template
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let file = if i == 0 {
                program_path(path)
            } else {
                path.into()
            };
            let mut pieces = word.split("{}");
            let mut out = OsString::from(pieces.next().unwrap_or_default());
            for piece in pieces {
                used = true;
                out.push(&file);
                out.push(piece);
            }
            out
        })
        .collect();
    if !used {
        command.push(path.into());
    }
    command
}

/// `path` as a program to run: a bare name would be looked up on PATH instead of in the cwd.
pub(super) fn program_path(path: &Path) -> OsString {
    if path.as_os_str().as_encoded_bytes().contains(&b'/') {
        path.into()
    } else {
        Path::new(".").join(path).into()
    }
}

pub(super) use crate::util::shell::split_words;

/// `word` as a shell would need it written, single-quoted unless it is plainly safe.
pub(super) fn shell_quote(word: &OsStr) -> Cow<'_, str> {
    let word = word.to_string_lossy();
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c))
    {
        word
    } else {
        format!("'{}'", word.replace('\'', r"'\''")).into()
    }
}

/// How a file no rule maps runs by its `#!` line: the interpreter, the line's words split
/// (Linux hands them over as one word, so `#!/usr/bin/env interp -T` fails there), the file.
pub(super) fn by_shebang(line: &Shebang, file: OsString) -> Vec<OsString> {
    std::iter::once(line.program.clone())
        .chain(line.args.iter().cloned())
        .map(OsString::from)
        .chain(std::iter::once(file))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> crate::harness::shebang::Shebang {
        crate::harness::shebang::Shebang::parse(text).expect("a #! line")
    }

    #[test]
    fn files_without_a_rule_run_by_their_line() {
        let command = by_shebang(&line("/usr/bin/env interp -T -w"), "t/run-me".into());
        assert_eq!(command, ["interp", "-T", "-w", "t/run-me"]);
        assert_eq!(
            by_shebang(&line("/bin/sh"), "./x".into()),
            ["/bin/sh", "./x"]
        );
    }
}
