//! Framing: turns byte chunks of any size into complete lines, under a maximum line length.
//!
//! A line longer than the limit is truncated to the limit (cut back to a UTF-8 character
//! boundary) and reported with its full length; the rest of it is discarded as it arrives, so
//! memory stays bounded whatever the input. `\r\n` and `\n` end lines; a lone `\r` does not
//! (progress spinners rewrite a line with it, and the reference parser keeps it too).
use memchr::memchr;

/// Default cap on one line: large enough for any real diagnostic line, small enough that a
/// runaway producer cannot exhaust memory.
pub const DEFAULT_MAX_LINE: usize = 1 << 20;

/// One complete line handed to the parser.
pub struct Line<'a> {
    /// The line without its terminator, possibly truncated; invalid UTF-8 replaced.
    pub text: &'a str,
    /// Full length in bytes (without terminator) when it was truncated.
    pub truncated_from: Option<u64>,
}

pub struct Framer {
    max_line: usize,
    partial: Vec<u8>,
    /// Bytes of the current line seen beyond `max_line` (they are dropped).
    overflow: u64,
}

impl Framer {
    pub fn new(max_line: usize) -> Self {
        Framer {
            max_line: max_line.max(16),
            partial: Vec::new(),
            overflow: 0,
        }
    }

    /// Feeds a chunk, calling `on_line` for every line it completes.
    pub fn feed(&mut self, mut chunk: &[u8], mut on_line: impl FnMut(Line<'_>)) {
        // A line left over from the previous chunk is completed first, by copying.
        if !self.partial.is_empty() || self.overflow > 0 {
            match memchr(b'\n', chunk) {
                Some(nl) => {
                    self.push(&chunk[..nl]);
                    self.emit_partial(&mut on_line);
                    chunk = &chunk[nl + 1..];
                }
                None => return self.push(chunk),
            }
        }
        let Some(last_nl) = memchr::memrchr(b'\n', chunk) else {
            return self.push(chunk);
        };
        let (whole, tail) = (&chunk[..=last_nl], &chunk[last_nl + 1..]);
        // Validating the complete lines in one call is far cheaper than line by line; slicing
        // the validated text at `\n` (an ASCII byte) then cannot split a character.
        match std::str::from_utf8(whole) {
            Ok(text) => self.lines_of(text, &mut on_line),
            Err(_) => {
                for line in whole[..last_nl].split(|&b| b == b'\n') {
                    self.push(line);
                    self.emit_partial(&mut on_line);
                }
            }
        }
        self.push(tail);
    }

    fn lines_of(&mut self, text: &str, on_line: &mut impl FnMut(Line<'_>)) {
        let bytes = text.as_bytes();
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', bytes) {
            if nl - start <= self.max_line {
                on_line(Line {
                    text: strip_cr(&text[start..nl]),
                    truncated_from: None,
                });
            } else {
                self.push(&bytes[start..nl]);
                self.emit_partial(on_line);
            }
            start = nl + 1;
        }
    }

    /// Ends the stream: a final line without a terminator is still a line.
    pub fn finish(&mut self, mut on_line: impl FnMut(Line<'_>)) {
        if !self.partial.is_empty() || self.overflow > 0 {
            self.emit_partial(&mut on_line);
        }
    }

    /// Frames `chunk` (`None`: ends the stream) with the framer `owner` keeps at `framer`,
    /// handing each line's text to `on_line` together with the owner: a reader whose line
    /// handler needs `&mut self` reads each line as it is framed, with no copy of it. The
    /// framer is taken out of the owner for the call (the stand-in allocates nothing).
    pub(crate) fn frame_through<T>(
        owner: &mut T,
        framer: fn(&mut T) -> &mut Framer,
        chunk: Option<&[u8]>,
        mut on_line: impl FnMut(&mut T, &str),
    ) {
        let mut taken = std::mem::replace(framer(owner), Framer::new(0));
        match chunk {
            Some(bytes) => taken.feed(bytes, |l| on_line(owner, l.text)),
            None => taken.finish(|l| on_line(owner, l.text)),
        }
        *framer(owner) = taken;
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = self.max_line.saturating_sub(self.partial.len());
        let take = room.min(bytes.len());
        self.partial.extend_from_slice(&bytes[..take]);
        self.overflow += (bytes.len() - take) as u64;
    }

    fn emit_partial(&mut self, on_line: &mut impl FnMut(Line<'_>)) {
        let truncated_from = (self.overflow > 0).then(|| self.partial.len() as u64 + self.overflow);
        let bytes: &[u8] = if truncated_from.is_some() {
            cut_to_char_boundary(&self.partial)
        } else {
            &self.partial
        };
        let text = String::from_utf8_lossy(bytes);
        let text = if truncated_from.is_some() {
            &text
        } else {
            strip_cr(&text)
        };
        on_line(Line {
            text,
            truncated_from,
        });
        self.partial.clear();
        self.overflow = 0;
    }
}

fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// Drops a trailing incomplete UTF-8 sequence left by truncation, so the cut does not show up
/// as a replacement character that the producer never wrote.
fn cut_to_char_boundary(bytes: &[u8]) -> &[u8] {
    let tail_start = bytes.len().saturating_sub(3);
    for i in (tail_start..bytes.len()).rev() {
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue; // continuation byte: keep looking for the lead byte
        }
        let need = match b {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        return if bytes.len() - i >= need {
            bytes
        } else {
            &bytes[..i]
        };
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(max: usize, chunks: &[&[u8]]) -> Vec<(Vec<u8>, Option<u64>)> {
        let mut f = Framer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.feed(c, |l| {
                out.push((l.text.as_bytes().to_vec(), l.truncated_from))
            });
        }
        f.finish(|l| out.push((l.text.as_bytes().to_vec(), l.truncated_from)));
        out
    }

    #[test]
    fn splits_crlf_and_final_line_without_newline() {
        let got = lines(100, &[b"a\r\nb\n", b"c"]);
        assert_eq!(
            got,
            vec![
                (b"a".to_vec(), None),
                (b"b".to_vec(), None),
                (b"c".to_vec(), None)
            ]
        );
    }

    #[test]
    fn crlf_split_across_chunks() {
        let got = lines(100, &[b"ab\r", b"\ncd\n"]);
        assert_eq!(got, vec![(b"ab".to_vec(), None), (b"cd".to_vec(), None)]);
    }

    #[test]
    fn long_line_is_truncated_and_reported() {
        let got = lines(16, &[&[b'x'; 10], &[b'y'; 30], b"\nok\n"]);
        assert_eq!(got[0].0.len(), 16);
        assert_eq!(got[0].1, Some(40));
        assert_eq!(got[1], (b"ok".to_vec(), None));
    }

    #[test]
    fn truncation_never_splits_a_character() {
        let line = "é".repeat(20); // 40 bytes of 2-byte characters
        let got = lines(17, &[line.as_bytes(), b"\n"]);
        assert_eq!(got[0].0.len(), 16);
        assert!(std::str::from_utf8(&got[0].0).is_ok());
    }
}
