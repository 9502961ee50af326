//! `--format jsonl`: one JSON event per line, written as the stream is parsed.
use crate::event::{Event, Sink};
use std::io::{self, Write};

pub struct JsonlWriter<W: Write> {
    out: W,
    error: Option<io::Error>,
}

impl<W: Write> JsonlWriter<W> {
    pub fn new(out: W) -> Self {
        JsonlWriter { out, error: None }
    }

    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Sink for JsonlWriter<W> {
    fn event(&mut self, event: &Event<'_>) {
        if self.error.is_some() {
            return;
        }
        let r = serde_json::to_writer(&mut self.out, event)
            .map_err(io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}
