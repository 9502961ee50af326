//! The run's spool of plain JUnit cases: an unnamed file in the temporary directory that the
//! collector appends each plain case's bytes to as it arrives, and the JUnit report copies
//! from when it writes the document, so that a file of a million points holds no case of
//! them in memory. Unnamed (`tempfile::tempfile`): the system removes it when the process
//! ends, however it ends.
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::ops::Range;

/// Bytes gathered before they are written to the file.
const BUFFER: usize = 256 << 10;

pub(crate) struct Spool {
    /// `None` once a write failed: the cases spooled are lost, and the report says so.
    file: Option<File>,
    /// Bytes not written to the file yet.
    pending: Vec<u8>,
    /// The spool's length, pending bytes included.
    len: u64,
}

impl Spool {
    /// A new empty spool; `None` when no temporary file can be made (the cases are then
    /// kept in memory, as without one).
    pub(crate) fn create() -> Option<Self> {
        let file = tempfile::tempfile().ok()?;
        Some(Spool {
            file: Some(file),
            pending: Vec::new(),
            len: 0,
        })
    }

    /// Appends `bytes`; where they are in the spool.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> Range<u64> {
        let start = self.len;
        self.len += bytes.len() as u64;
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= BUFFER {
            self.flush();
        }
        start..self.len
    }

    /// Writes what is pending to the file (before the report reads it).
    pub(crate) fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let written = match &mut self.file {
            Some(file) => file
                .seek(SeekFrom::End(0))
                .and_then(|_| file.write_all(&self.pending)),
            None => Ok(()),
        };
        if written.is_err() {
            self.file = None;
        }
        self.pending.clear();
    }

    /// Empties the spool for a new run (watch mode, `--runs N`).
    pub(crate) fn clear(&mut self) {
        self.pending.clear();
        self.len = 0;
        if let Some(file) = &self.file {
            if file.set_len(0).is_err() {
                self.file = None;
            }
        }
    }

    /// The file, with every byte written so far once [`Self::flush`]ed; `None` after a
    /// failed write.
    pub(crate) fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn bytes_are_read_back_where_write_said_they_are() {
        let mut spool = Spool::create().expect("a temporary file");
        let a = spool.write(b"first ");
        let big = vec![b'x'; BUFFER + 10];
        let b = spool.write(&big);
        let c = spool.write(b"last");
        spool.flush();
        let mut all = Vec::new();
        let mut file = spool.file().expect("written");
        file.seek(SeekFrom::Start(0)).expect("seek");
        file.read_to_end(&mut all).expect("read");
        assert_eq!(&all[a.start as usize..a.end as usize], b"first ");
        assert_eq!(&all[b.start as usize..b.end as usize], &big[..]);
        assert_eq!(&all[c.start as usize..c.end as usize], b"last");
        spool.clear();
        assert_eq!(spool.write(b"again"), 0..5);
    }
}
