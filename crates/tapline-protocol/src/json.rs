//! JSON literals written straight into a buffer, byte for byte as serde_json writes them:
//! integers, strings (with its escapes) and optional strings. Shared by the hand-written JSON
//! of `--format jsonl` (tapline's `report::jsonl`) and of the summary document (`summary`),
//! both on the parser's hot path.

/// Integers as serde_json writes them: it uses this same crate.
pub fn push_int(buf: &mut Vec<u8>, n: impl itoa::Integer) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A JSON string literal escaped as serde_json escapes: `"` and `\` by a backslash,
/// backspace, tab, line feed, form feed and carriage return by their short forms, the other
/// control characters as `\u00xx` (lowercase hex); everything else (DEL, non-ASCII) as is.
pub fn push_str(buf: &mut Vec<u8>, s: &str) {
    let mut rest = s.as_bytes();
    buf.reserve(rest.len() + 2);
    buf.push(b'"');
    while let Some(at) = find_escape(rest) {
        buf.extend_from_slice(&rest[..at]);
        push_escape(buf, rest[at]);
        rest = &rest[at + 1..];
    }
    buf.extend_from_slice(rest);
    buf.push(b'"');
}

fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The first byte that needs escaping, eight bytes at a time (SWAR): this runs over every
/// name and output line of the stream, and most have nothing to escape.
pub fn find_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = ONES * 0x80;
    // Each test flags its bytes exactly up to its first true hit (borrows only run upwards,
    // past it), so the lowest flag of their union is the first byte to escape.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        // A byte below 0x20 is one whose value minus 0x20 borrows, when its high bit is clear.
        let flags = (x.wrapping_sub(ONES * 0x20) & !x & HIGHS)
            | zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')));
        if flags != 0 {
            return Some(at + flags.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| escaped(b))
        .map(|i| at + i)
}

fn push_escape(buf: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0a => b'n',
        0x0c => b'f',
        0x0d => b'r',
        _ => {
            let hex = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ];
            buf.extend_from_slice(&hex);
            return;
        }
    };
    buf.extend_from_slice(&[b'\\', short]);
}

/// A string literal, or `null`.
pub fn push_opt_str(buf: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => push_str(buf, s),
        None => buf.extend_from_slice(b"null"),
    }
}

/// Adds the member `"key": value` (`value` already JSON) to the object that `buf` ends with:
/// a document written whole, given one member more at its end.
pub fn append_member(buf: &mut Vec<u8>, key: &str, value: &[u8]) {
    debug_assert_eq!(buf.last(), Some(&b'}'), "an object ends the buffer");
    buf.pop();
    buf.push(b',');
    push_str(buf, key);
    buf.push(b':');
    buf.extend_from_slice(value);
    buf.push(b'}');
}

/// An array of string literals: `["a","b"]`.
pub fn push_str_array<S: AsRef<str>>(buf: &mut Vec<u8>, items: impl IntoIterator<Item = S>) {
    buf.push(b'[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        push_str(buf, s.as_ref());
    }
    buf.push(b']');
}

#[cfg(test)]
mod tests {
    use super::{append_member, find_escape, push_int, push_str_array};

    #[test]
    fn a_member_is_added_at_the_end_of_an_object() {
        let mut buf = b"{\"a\":1}".to_vec();
        append_member(&mut buf, "tests", b"{\"pass\":2}");
        assert_eq!(buf, b"{\"a\":1,\"tests\":{\"pass\":2}}");
    }

    #[test]
    fn string_arrays_are_written_escaped_and_comma_separated() {
        let mut buf = Vec::new();
        push_str_array(&mut buf, ["a", "b\"\n"]);
        push_str_array(&mut buf, Vec::<String>::new());
        assert_eq!(buf, br#"["a","b\"\n"][]"#);
    }

    #[test]
    fn numbers_are_written_exactly() {
        for n in [
            0,
            7,
            9,
            10,
            42,
            99,
            100,
            101,
            999,
            1000,
            65_535,
            1_000_000,
            u64::MAX,
        ] {
            let mut buf = Vec::new();
            push_int(&mut buf, n);
            assert_eq!(String::from_utf8(buf).expect("ascii"), n.to_string());
        }
    }

    #[test]
    fn escape_search_agrees_with_the_byte_rule() {
        let rule = |s: &[u8]| s.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\');
        let samples: Vec<Vec<u8>> = vec![
            b"plain name that is long enough".to_vec(),
            b"has \"quote\" inside".to_vec(),
            b"back\\slash in the middle".to_vec(),
            b"tab\there".to_vec(),
            "ünïcödé ⟦TSTEST⟧ text".as_bytes().to_vec(),
            vec![0x1f; 9],
            vec![0x20; 17],
            vec![0x7f, 0x80, 0xff, 0x21, 0x5b, 0x5d, 0x23, 0x24],
        ];
        for s in samples {
            for start in 0..s.len() {
                assert_eq!(
                    find_escape(&s[start..]),
                    rule(&s[start..]),
                    "{:?}",
                    &s[start..]
                );
            }
        }
    }
}
