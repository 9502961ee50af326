//! Lua patterns, as busted matches a file's base name against `pattern` (`basename:find(p)`),
//! translated to regular expressions: anchors, `.`, the `%a`-style classes (and their
//! complements), `%`-escapes, sets, and the `*`, `+`, `-`, `?` repeats. A pattern that does
//! not translate matches nothing.

/// Every pattern that translates.
pub(crate) fn compile_all(patterns: &[String]) -> Vec<regex::Regex> {
    patterns.iter().filter_map(|p| compile(p)).collect()
}

pub(crate) fn compile(lua: &str) -> Option<regex::Regex> {
    regex::Regex::new(&translate(lua)?).ok()
}

fn class(c: char) -> Option<&'static str> {
    Some(match c {
        'a' => "A-Za-z",
        'd' => "0-9",
        'l' => "a-z",
        'u' => "A-Z",
        's' => r"\s",
        'w' => "A-Za-z0-9",
        'x' => "0-9A-Fa-f",
        'p' => r"!-/:-@\[-`{-~",
        'c' => r"\x00-\x1f\x7f",
        _ => return None,
    })
}

/// `%c` outside a set: the class, its complement, or the character itself.
fn escape(c: char) -> String {
    match class(c.to_ascii_lowercase()) {
        Some(set) if c.is_ascii_lowercase() => format!("[{set}]"),
        Some(set) => format!("[^{set}]"),
        None => regex::escape(&c.to_string()),
    }
}

fn translate(lua: &str) -> Option<String> {
    let chars: Vec<char> = lua.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '^' if i == 0 => out.push('^'),
            '$' if i == chars.len() - 1 => out.push('$'),
            '%' => {
                i += 1;
                out.push_str(&escape(*chars.get(i)?));
            }
            '.' => out.push('.'),
            '[' => {
                let (set, end) = set(&chars, i)?;
                out.push_str(&set);
                i = end;
                continue;
            }
            '*' | '+' | '?' if i > 0 => out.push(c),
            '-' if i > 0 => out.push_str("*?"),
            other => out.push_str(&regex::escape(&other.to_string())),
        }
        i += 1;
    }
    Some(out)
}

/// A set `[…]` from `start`: the regex set and the index after its `]`.
fn set(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut out = String::from("[");
    let mut i = start + 1;
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    let first = i;
    loop {
        let c = *chars.get(i)?;
        match c {
            ']' if i > first => return Some((out + "]", i + 1)),
            '%' => {
                i += 1;
                let e = *chars.get(i)?;
                match class(e.to_ascii_lowercase()) {
                    Some(set) if e.is_ascii_lowercase() => out.push_str(set),
                    _ => out.push_str(&regex::escape(&e.to_string())),
                }
            }
            '[' | '\\' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            other => out.push(other),
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::compile;

    #[test]
    fn lua_patterns_match_as_find_does() {
        let cases = [
            ("_spec", "a_spec.lua", true),
            ("_spec", "spec_helper.lua", false),
            ("_spec%.lua$", "a_spec.lua", true),
            ("_spec%.lua$", "a_spec.lua.bak", false),
            ("^test_", "test_x.lua", true),
            ("^test_", "my_test_x.lua", false),
            ("_test%.%a+$", "x_test.lua", true),
            ("[_-]spec", "a-spec.lua", true),
            ("t.-_spec", "t_foo_spec.lua", true),
        ];
        for (pattern, name, want) in cases {
            let re = compile(pattern).unwrap_or_else(|| panic!("{pattern} translates"));
            assert_eq!(re.is_match(name), want, "{pattern} on {name}");
        }
        assert!(compile("%").is_none(), "a dangling escape");
    }
}
