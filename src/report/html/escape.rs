//! Escaping for the HTML report: everything a child printed becomes inert text, whether it
//! lands in element content or in a quoted attribute value.
//!
//! One function serves both contexts: `&`, `<`, `>`, `"` and `'` are always written as
//! character references, so a value is safe inside text, `"…"` and `'…'` attributes alike.
//! Beyond markup, test output carries terminal control sequences: CSI sequences (colours,
//! cursor moves, `ESC [ … m`) are dropped, since their meaning is styling the HTML already
//! gives; any other control character (C0 except tab and newline, DEL, C1) is shown as
//! `\u{1b}`, the notation of the terminal diff (control pictures like `␛` are missing from
//! many fonts), so nothing invisible or document-breaking reaches the page and a reader
//! still sees that it was there.
use std::fmt::{self, Display, Write};

/// Text escaped for element content and quoted attribute values.
pub(crate) struct Esc<'a>(pub(crate) &'a str);

impl Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0)
    }
}

/// Appends `text` escaped for element content and quoted attribute values.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    // Writing to a String cannot fail.
    let _ = write_escaped(out, text);
}

fn write_escaped(out: &mut impl Write, text: &str) -> fmt::Result {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let needs_work = matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7f)
            || (b < 0x20 && b != b'\t' && b != b'\n')
            // C1 controls are U+0080..U+009F, encoded C2 80..C2 9F.
            || (b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..0xa0).contains(n)));
        if !needs_work {
            i += 1;
            continue;
        }
        out.write_str(text.get(start..i).unwrap_or_default())?;
        i = match b {
            b'&' => out.write_str("&amp;").map(|()| i + 1)?,
            b'<' => out.write_str("&lt;").map(|()| i + 1)?,
            b'>' => out.write_str("&gt;").map(|()| i + 1)?,
            b'"' => out.write_str("&quot;").map(|()| i + 1)?,
            b'\'' => out.write_str("&#39;").map(|()| i + 1)?,
            0x1b if bytes.get(i + 1) == Some(&b'[') => skip_csi(bytes, i + 2),
            0xc2 => {
                let c = bytes.get(i + 1).copied().unwrap_or_default();
                write!(out, "\\u{{{c:x}}}")?;
                i + 2
            }
            c => {
                write!(out, "\\u{{{c:x}}}")?;
                i + 1
            }
        };
        start = i;
    }
    out.write_str(text.get(start..).unwrap_or_default())
}

/// Index after a CSI sequence whose parameters start at `from`: parameter and intermediate
/// bytes (0x20..=0x3f) up to the final byte (0x40..=0x7e). An unterminated sequence ends at
/// the first byte that cannot belong to it, which is then shown normally.
fn skip_csi(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            0x20..=0x3f => i += 1,
            0x40..=0x7e => return i + 1,
            _ => return i,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        Esc(s).to_string()
    }

    #[test]
    fn markup_is_inert_in_text_and_attributes() {
        assert_eq!(
            esc("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            esc("\" onmouseover='x()' a=\"&"),
            "&quot; onmouseover=&#39;x()&#39; a=&quot;&amp;"
        );
        assert_eq!(esc("]]> & <!-- -->"), "]]&gt; &amp; &lt;!-- --&gt;");
    }

    #[test]
    fn plain_text_and_unicode_pass_through() {
        assert_eq!(esc("héllo wörld 👩‍💻\tx\ny"), "héllo wörld 👩‍💻\tx\ny");
        assert_eq!(esc(""), "");
    }

    #[test]
    fn colour_codes_are_dropped_and_other_controls_shown() {
        assert_eq!(esc("\x1b[31mred\x1b[0m plain"), "red plain");
        assert_eq!(esc("\x1b[1;38;5;208mx"), "x");
        assert_eq!(esc("a\x00b\x07c\rd\x7fe"), "a\\u{0}b\\u{7}c\\u{d}d\\u{7f}e");
        assert_eq!(esc("\x1bX"), "\\u{1b}X");
        assert_eq!(esc("x\x1b["), "x");
        assert_eq!(esc("\x1b[\u{e9}"), "\u{e9}");
        assert_eq!(esc("a\u{85}b\u{9f}"), "a\\u{85}b\\u{9f}");
        // U+00A0..: the C2 lead byte of printable Latin-1 is left alone.
        assert_eq!(esc("\u{a0}é"), "\u{a0}é");
    }

    #[test]
    fn escaping_never_panics_and_leaves_no_raw_markup() {
        let pieces = [
            "<", ">", "&", "\"", "'", "\x1b[", "\x1b", "\u{85}", "é", "m", "\0", "a",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}{c}");
                    let out = esc(&s);
                    assert!(
                        !out.contains(['<', '>', '"', '\'', '\x1b', '\0', '\u{85}']),
                        "{s:?} -> {out:?}"
                    );
                }
            }
        }
    }
}
