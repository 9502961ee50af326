//! Cuts a warm worker's stream at the driver's end markers (`⟦tapline-warm NONCE end CODE
//! MICROS⟧` and a newline): what comes before one is the file's, what comes after is the next
//! file's. A marker may arrive split over chunks, so a tail that could be the start of one is
//! held back until the next chunk says.

/// One stream of one worker.
#[derive(Debug)]
pub(crate) struct Splitter {
    /// `⟦tapline-warm NONCE end `.
    head: Vec<u8>,
    held: Vec<u8>,
}

/// What ends a marker after its code.
const TAIL: &[u8] = "⟧\n".as_bytes();
/// Longest text read between the head and the tail: an i32 with its sign, a space and a u64.
const MAX_CODE: usize = 11 + 1 + 20;

/// What an end marker says of the file it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct End {
    /// The code `node FILE` would have exited with.
    pub(crate) code: i32,
    /// How long the driver ran the file: from loading it to the end of its 'exit' listeners
    /// (the worker's start and the wait for the command are no file's).
    pub(crate) took: Option<std::time::Duration>,
}

impl End {
    /// A marker's text between the head and the tail: `CODE` or `CODE MICROS`. A code that is
    /// no number still ends the file, failing it.
    fn parse(text: &[u8]) -> End {
        let text = std::str::from_utf8(text).unwrap_or("");
        let mut words = text.splitn(2, ' ');
        let code = words.next().and_then(|c| c.parse::<i32>().ok());
        let took = words
            .next()
            .and_then(|t| t.parse::<u64>().ok())
            .map(std::time::Duration::from_micros);
        End {
            code: code.unwrap_or(1),
            took: code.and(took),
        }
    }
}

impl Splitter {
    pub(crate) fn new(nonce: &str) -> Splitter {
        Splitter {
            head: format!("⟦tapline-warm {nonce} end ").into_bytes(),
            held: Vec::new(),
        }
    }

    /// Adds `bytes`; returns the file's bytes that are certain now and, when its marker came,
    /// what it says (what follows is kept for the next file).
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> (Vec<u8>, Option<End>) {
        self.held.extend_from_slice(bytes);
        self.take()
    }

    /// Adds `bytes` for a later file, cutting nothing now.
    pub(crate) fn hold(&mut self, bytes: &[u8]) {
        self.held.extend_from_slice(bytes);
    }

    /// [`Splitter::feed`] with nothing new: what was held after the last marker.
    pub(crate) fn take(&mut self) -> (Vec<u8>, Option<End>) {
        let Some(at) = memchr::memmem::find(&self.held, &self.head) else {
            let keep = self.partial_head();
            let cut = self.held.len() - keep;
            let mine: Vec<u8> = self.held.drain(..cut).collect();
            return (mine, None);
        };
        let code_at = at + self.head.len();
        let window = &self.held[code_at..self.held.len().min(code_at + MAX_CODE + TAIL.len())];
        match memchr::memmem::find(window, TAIL) {
            Some(len) => {
                let said = End::parse(&window[..len]);
                let end = code_at + len + TAIL.len();
                let mine: Vec<u8> = self.held[..at].to_vec();
                self.held.drain(..end);
                (mine, Some(said))
            }
            None if window.len() >= MAX_CODE + TAIL.len() => {
                // Not a marker after all (the nonce followed by something else): the file's.
                let mine: Vec<u8> = self.held.drain(..code_at).collect();
                (mine, None)
            }
            None => {
                let mine: Vec<u8> = self.held.drain(..at).collect();
                (mine, None)
            }
        }
    }

    /// Everything held, at the worker's end: the file's.
    pub(crate) fn rest(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }

    /// How many bytes at the end of `held` could begin a marker.
    fn partial_head(&self) -> usize {
        let max = self.head.len().saturating_sub(1).min(self.held.len());
        (1..=max)
            .rev()
            .find(|&n| self.held.ends_with(&self.head[..n]))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(split: &mut Splitter, pieces: &[&[u8]]) -> (Vec<u8>, Vec<i32>) {
        let mut bytes = Vec::new();
        let mut codes = Vec::new();
        for piece in pieces {
            let (mine, end) = split.feed(piece);
            bytes.extend(mine);
            codes.extend(end.map(|e| e.code));
        }
        (bytes, codes)
    }

    #[test]
    fn a_marker_ends_the_file_and_what_follows_is_the_next_ones() {
        let mut s = Splitter::new("ab12");
        let (mine, codes) = run(
            &mut s,
            &["ok 1\n⟦tapline-warm ab12 end 3⟧\nnext".as_bytes()],
        );
        assert_eq!((mine.as_slice(), codes), (&b"ok 1\n"[..], vec![3]));
        assert_eq!(s.take(), (b"next".to_vec(), None));
    }

    #[test]
    fn a_marker_says_how_long_the_driver_ran_the_file() {
        let mut s = Splitter::new("ab12");
        let text = "ok 1\n⟦tapline-warm ab12 end 0 12345⟧\n⟦tapline-warm ab12 end 2⟧\n";
        let (mine, end) = s.feed(text.as_bytes());
        assert_eq!(mine, b"ok 1\n");
        let took = Some(std::time::Duration::from_micros(12345));
        assert_eq!(end, Some(End { code: 0, took }));
        assert_eq!(
            s.take(),
            (
                Vec::new(),
                Some(End {
                    code: 2,
                    took: None
                })
            )
        );
        let mut s = Splitter::new("ab12");
        let (_, end) = s.feed("⟦tapline-warm ab12 end x 5⟧\n".as_bytes());
        assert_eq!(
            end,
            Some(End {
                code: 1,
                took: None
            }),
            "no number: fails, untimed"
        );
        let max = format!("⟦tapline-warm ab12 end {} {}⟧\n", i32::MIN, u64::MAX);
        let (_, end) = Splitter::new("ab12").feed(max.as_bytes());
        assert_eq!(
            end.map(|e| e.code),
            Some(i32::MIN),
            "the longest marker is read"
        );
    }

    #[test]
    fn a_marker_split_over_chunks_at_every_byte_is_found() {
        let text = "1..1\nok 1 partial⟦tapline-warm ab12 end -1⟧\n".as_bytes();
        for cut in 0..text.len() {
            let mut s = Splitter::new("ab12");
            let (mine, codes) = run(&mut s, &[&text[..cut], &text[cut..]]);
            assert_eq!(mine, b"1..1\nok 1 partial", "cut at {cut}");
            assert_eq!(codes, vec![-1], "cut at {cut}");
        }
    }

    #[test]
    fn another_nonce_or_a_lookalike_is_the_files_output() {
        let mut s = Splitter::new("ab12");
        let text = "⟦tapline-warm zz end 0⟧\n⟦tapline-warm ab12 end xxxxxxxxxxxxxxxx\n".as_bytes();
        let (mine, codes) = run(&mut s, &[text]);
        assert!(codes.is_empty());
        assert_eq!([mine, s.rest()].concat(), text);
    }
}
