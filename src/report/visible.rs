//! A writer that makes the control characters of a stream's own text visible (`\u{1b}`,
//! `\u{7}`, `\r`) before they reach a terminal, where they would move the cursor, clear the
//! screen, set the window's title or ring the bell. Only the human output needs it: logs,
//! jsonl and the `-o` reports keep every byte as the stream wrote it.
use std::io::{self, Write};

/// SGR parameters of tapline's own palette ([`super::style`], [`super::paint`]): with styles on,
/// a sequence made only of these passes, any other is escaped.
const PALETTE: [&str; 11] = ["0", "1", "2", "7", "27", "31", "32", "33", "35", "36", ""];

/// Longest SGR sequence let through (`ESC [ 27 ; 27 m` and the like): an `ESC [` longer than
/// this is no colour of ours.
const MAX_SGR: usize = 16;

/// Escapes control characters but `\n` and `\t` in what is written to `inner`; with `colour`,
/// SGR sequences of tapline's palette pass as they are.
pub struct Visible<W: Write> {
    inner: W,
    colour: bool,
    /// The tail of the last write that may continue in the next (an unfinished `ESC [`, the
    /// first byte of a two-byte character).
    held: Vec<u8>,
    /// A colour was set and not reset: the stream's own, as tapline's end with a reset. It
    /// ends with its line, not spilling into the next.
    open: bool,
}

impl<W: Write> Visible<W> {
    pub fn new(inner: W, colour: bool) -> Self {
        Visible {
            inner,
            colour,
            held: Vec::new(),
            open: false,
        }
    }

    /// Escapes `bytes` into `out`; with `last`, nothing is held for a next write.
    fn escape(&mut self, bytes: &[u8], last: bool, out: &mut Vec<u8>) {
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            let rest = bytes.get(i..).unwrap_or_default();
            match b {
                b'\n' => {
                    if std::mem::take(&mut self.open) {
                        out.extend_from_slice(b"\x1b[0m");
                    }
                    out.push(b);
                }
                b'\t' => out.push(b),
                0x1b if self.colour => match palette_sgr(rest) {
                    Sgr::Ours(len) => {
                        let sequence = rest.get(..len).unwrap_or_default();
                        self.open = !matches!(sequence, b"\x1b[0m" | b"\x1b[m");
                        out.extend_from_slice(sequence);
                        i += len;
                        continue;
                    }
                    Sgr::Unfinished if !last => {
                        self.held.extend_from_slice(rest);
                        return;
                    }
                    _ => push_code(out, u32::from(b)),
                },
                b'\r' => out.extend_from_slice(b"\\r"),
                0..=0x1f | 0x7f => push_code(out, u32::from(b)),
                // C1 controls (U+0080–U+009F) are `C2 80`–`C2 9F` in UTF-8.
                0xc2 => match rest.get(1) {
                    Some(&c @ 0x80..=0x9f) => {
                        push_code(out, u32::from(c));
                        i += 2;
                        continue;
                    }
                    None if !last => {
                        self.held.push(b);
                        return;
                    }
                    _ => out.push(b),
                },
                _ => out.push(b),
            }
            i += 1;
        }
    }
}

enum Sgr {
    /// A complete SGR sequence of the palette, this many bytes long.
    Ours(usize),
    /// Could still become one: the input ended inside it.
    Unfinished,
    Other,
}

/// Whether `bytes` (starting at an ESC) open an SGR sequence of tapline's palette.
fn palette_sgr(bytes: &[u8]) -> Sgr {
    if bytes.len() < 2 {
        return Sgr::Unfinished;
    }
    if bytes.get(1) != Some(&b'[') {
        return Sgr::Other;
    }
    let body = bytes.get(2..).unwrap_or_default();
    let Some(end) = body.iter().take(MAX_SGR).position(|&b| b == b'm') else {
        let open = body.len() < MAX_SGR && body.iter().all(|b| b.is_ascii_digit() || *b == b';');
        return if open { Sgr::Unfinished } else { Sgr::Other };
    };
    let params = std::str::from_utf8(body.get(..end).unwrap_or_default()).unwrap_or("x");
    if params.split(';').all(|p| PALETTE.contains(&p)) {
        Sgr::Ours(end + 3)
    } else {
        Sgr::Other
    }
}

fn push_code(out: &mut Vec<u8>, code: u32) {
    out.extend_from_slice(format!("\\u{{{code:x}}}").as_bytes());
}

impl<W: Write> Write for Visible<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = std::mem::take(&mut self.held);
        bytes.extend_from_slice(buf);
        let mut out = Vec::with_capacity(bytes.len());
        self.escape(&bytes, false, &mut out);
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let held = std::mem::take(&mut self.held);
        let mut out = Vec::new();
        self.escape(&held, true, &mut out);
        self.inner.write_all(&out)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(colour: bool, pieces: &[&[u8]]) -> String {
        let mut v = Visible::new(Vec::new(), colour);
        for piece in pieces {
            v.write_all(piece).expect("write");
        }
        v.flush().expect("flush");
        String::from_utf8_lossy(&v.inner).into_owned()
    }

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(
            shown(false, &[b"a\x1b[2Jb\x07c\rd\te\n"]),
            "a\\u{1b}[2Jb\\u{7}c\\rd\te\n"
        );
        assert_eq!(
            shown(false, &[b"\x1b[31mred\x1b[0m"]),
            "\\u{1b}[31mred\\u{1b}[0m"
        );
        assert_eq!(
            shown(false, &["x\u{9b}y\u{e9}".as_bytes()]),
            "x\\u{9b}y\u{e9}"
        );
        assert_eq!(
            shown(false, &[b"\x1b]0;title\x07"]),
            "\\u{1b}]0;title\\u{7}"
        );
    }

    #[test]
    fn with_colour_our_palette_passes_and_nothing_else() {
        assert_eq!(shown(true, &[b"\x1b[31mred\x1b[0m"]), "\x1b[31mred\x1b[0m");
        assert_eq!(shown(true, &[b"\x1b[2J\x1b[1;31m"]), "\\u{1b}[2J\x1b[1;31m");
        assert_eq!(shown(true, &[b"\x1b]0;t\x07"]), "\\u{1b}]0;t\\u{7}");
        // A sequence cut between two writes is judged whole.
        assert_eq!(shown(true, &[b"a\x1b[3", b"2mb"]), "a\x1b[32mb");
        assert_eq!(shown(true, &[b"a\x1b[3", b"9mb"]), "a\\u{1b}[39mb");
        assert_eq!(shown(true, &[b"a\x1b"]), "a\\u{1b}");
        // A colour left open ends with its line.
        assert_eq!(
            shown(true, &[b"\x1b[31mred\nnext\n"]),
            "\x1b[31mred\x1b[0m\nnext\n"
        );
        assert_eq!(shown(false, &[b"\xc2", b"\x9b"]), "\\u{9b}");
    }
}
