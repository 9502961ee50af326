//! Command lines split into words as a POSIX shell would, for `scripts.test`, `--exec` and
//! the commands of `tapline.toml`.

/// Splits a command line into words like a POSIX shell, without expanding anything:
/// whitespace separates words, single quotes keep everything, double quotes keep everything
/// but `\"`, `\\`, `\$` and `` \` ``, and elsewhere a backslash keeps the next character.
pub(crate) fn split_words(line: &str) -> Result<Vec<String>, &'static str> {
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
