//! Words and names: command templates filled in, command lines split and quoted as a shell
//! would, and the flat log name of a test path.
use super::TestFile;
use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::path::Path;

/// `test/tapbundle/test.ts` → `test__tapbundle__test.log`: a flat file name that can't leave
/// the log folder (`..` becomes `up`, empty and `.` components go, `\` and NUL become `_`).
pub fn log_name(rel: &str) -> String {
    // A `.both` file's two entries (`a.both.ts (node)`, `a.both.ts (chromium)`) get
    // `a.both.node.log` and `a.both.chromium.log`.
    let (rel, runtime) = match rel.rsplit_once(" (") {
        Some((file, r @ ("node)" | "chromium)"))) => (file, Some(r.trim_end_matches(')'))),
        _ => (rel, None),
    };
    let mut parts: Vec<String> = rel
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .map(|part| {
            if part == ".." {
                "up".to_owned()
            } else {
                part.replace(|c: char| c == '\\' || c.is_control(), "_")
            }
        })
        .collect();
    if let Some(last) = parts.last_mut() {
        // A leading dot starts a hidden name, not an extension.
        if let Some(dot) = last.rfind('.').filter(|&dot| dot > 0) {
            last.truncate(dot);
        }
        if let Some(runtime) = runtime {
            last.push('.');
            last.push_str(runtime);
        }
    }
    let mut stem = parts.join("__");
    if stem.len() > MAX_LOG_STEM {
        // Names longer than a file name may be (255 bytes) keep their start and a hash of the
        // whole, so two long names sharing a start still get two logs.
        let mut cut = MAX_LOG_STEM - 17;
        while !stem.is_char_boundary(cut) {
            cut -= 1;
        }
        let hash = fnv1a(rel.as_bytes());
        stem.truncate(cut);
        stem.push_str(&format!("-{hash:016x}"));
    }
    format!("{}.log", if stem.is_empty() { "_" } else { &stem })
}

/// Longest log name stem: room for `.attempt-NN.log`/`.N.log` within a 255-byte file name.
const MAX_LOG_STEM: usize = 200;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A line of `tapline run --list`: the file and its command, or why it can't run.
pub fn list_line(f: &TestFile) -> String {
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

/// Splits a command line into words like a POSIX shell, without expanding anything:
/// whitespace separates words, single quotes keep everything, double quotes keep everything
/// but `\"`, `\\`, `\$` and `` \` ``, and elsewhere a backslash keeps the next character.
pub(super) fn split_words(line: &str) -> Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    // None between words; Some("") after an empty quoted word like ''.
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let word = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unterminated single quote"),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => word.extend(['\\', c]),
                            None => return Err("unterminated double quote"),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unterminated double quote"),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_default().push(c),
                None => return Err("trailing backslash"),
            },
            c => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

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
