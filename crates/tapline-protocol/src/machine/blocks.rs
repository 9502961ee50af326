//! Protocol-v2 blocks and YAML diagnostics: collecting their lines and attaching them to test points.
use super::*;

impl Machine {
    pub(super) fn block_line(&mut self, text: &str, sink: &mut dyn Sink) {
        let Some(block) = self.block.as_mut() else {
            return;
        };
        if let Some(MarkerLine::Close(kind)) = line::marker_line(text.trim()) {
            if kind == block.kind {
                if let Some(b) = self.block.take() {
                    let block = Block {
                        kind: Cow::Owned(b.kind),
                        payload: Cow::Owned(b.payload),
                        unterminated: false,
                    };
                    self.attach_block(b.depth, b.line, block, sink);
                }
                return;
            }
        }
        if block.payload.len() + text.len() + 1 > self.max_block {
            if !block.overflowed {
                block.overflowed = true;
                let msg = format!(
                    "⟦TSTEST:{}⟧ block larger than {} bytes; the rest is dropped",
                    block.kind, self.max_block
                );
                let depth = block.depth;
                sink.event(&Event::Problem(Problem {
                    depth,
                    line: self.line_no,
                    kind: ProblemKind::BlockTooLarge,
                    message: msg,
                    fails: false,
                }));
            }
            return;
        }
        block.payload.push_str(text);
        block.payload.push('\n');
    }

    /// A finished v2 block goes to the test point it follows, or stands alone.
    pub(super) fn attach_block(
        &mut self,
        depth: u32,
        line: u64,
        block: Block<'static>,
        sink: &mut dyn Sink,
    ) {
        match self
            .levels
            .get_mut(depth as usize)
            .and_then(|l| l.current.as_mut())
        {
            Some(p) => p.extra.get_or_insert_default().blocks.push(block),
            None => sink.event(&Event::V2Block { depth, line, block }),
        }
    }
    /// Handles a whole-line v2 marker; false when the line is not one.
    pub(super) fn marker(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) -> bool {
        if !text.starts_with(line::MARK_OPEN) {
            return false;
        }
        let Some(m) = line::marker_line(text.trim_end()) else {
            return false;
        };
        let depth = lvl as u32;
        let line = self.line_no;
        match m {
            MarkerLine::Open(kind) => {
                self.block = Some(OpenBlock {
                    depth,
                    kind: kind.to_owned(),
                    payload: String::new(),
                    line,
                    overflowed: false,
                });
            }
            MarkerLine::Close(kind) => {
                self.output(lvl, text, sink);
                let msg = format!("⟦TSTEST:/{kind}⟧ closes no open block");
                self.problem(lvl, line, ProblemKind::StrayMarker, msg, false, sink);
            }
            MarkerLine::Single { kind, payload } => self.single_marker(lvl, kind, payload, sink),
        }
        true
    }

    pub(super) fn single_marker(
        &mut self,
        lvl: usize,
        kind: &str,
        payload: &str,
        sink: &mut dyn Sink,
    ) {
        let depth = lvl as u32;
        let line = self.line_no;
        if kind == "PROTOCOL" {
            return sink.event(&Event::Protocol {
                line,
                version: Cow::Borrowed(payload),
            });
        }
        if kind == "EVENT" {
            return sink.event(&Event::V2Event {
                depth,
                line,
                json: Cow::Borrowed(payload),
            });
        }
        if let Some(p) = self.levels[lvl].current.as_mut() {
            if apply_marker(p, kind, payload) {
                return;
            }
            if kind == "META" {
                if p.time.is_none() {
                    p.time = meta_time(payload);
                }
                p.extra.get_or_insert_default().meta = Some(payload.to_owned());
                return;
            }
        }
        sink.event(&Event::Marker {
            depth,
            line,
            kind: Cow::Borrowed(kind),
            payload: Cow::Borrowed(payload),
        });
    }

    pub(super) fn yaml_line(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        let max = self.max_block;
        let Some(y) = self.levels[lvl].yaml.as_mut() else {
            return;
        };
        let content = text.get(y.indent.len()..).unwrap_or("");
        if content == "..." {
            let y = self.levels[lvl].yaml.take();
            if let (Some(y), Some(p)) = (y, self.levels[lvl].current.as_mut()) {
                if p.time.is_none() {
                    p.time = yaml_duration(&y.body);
                }
                p.extra.get_or_insert_default().diag = Some(y.body);
            }
            return;
        }
        y.lines += 1;
        if y.body.len() + content.len() < max {
            y.body.push_str(content);
            y.body.push('\n');
        } else if !y.overflowed {
            y.overflowed = true;
            let msg = format!("YAML block larger than {max} bytes; the rest is dropped");
            self.problem(
                lvl,
                self.line_no,
                ProblemKind::BlockTooLarge,
                msg,
                false,
                sink,
            );
        }
    }

    /// A YAML block still open when its document closes before the stream ends: its lines
    /// are output, and, as in the reference, a bare `---` with nothing after it is not
    /// non-TAP (so it breaks no `pragma +strict`).
    pub(super) fn yaml_left_open(&mut self, lvl: usize, sink: &mut dyn Sink) {
        let bare = self.levels[lvl]
            .yaml
            .as_ref()
            .is_some_and(|y| y.body.is_empty());
        self.yaml_lines_out(lvl, !bare, sink);
    }

    /// The YAML block was not one: its lines are output, and the pending point is done.
    pub(super) fn yaml_garbage(&mut self, lvl: usize, sink: &mut dyn Sink) {
        self.yaml_lines_out(lvl, true, sink);
    }

    fn yaml_lines_out(&mut self, lvl: usize, non_tap: bool, sink: &mut dyn Sink) {
        let y = self.levels[lvl].yaml.take();
        self.emit_result(lvl, sink);
        if let Some(y) = y {
            if self.levels[lvl].bailed_out {
                return;
            }
            let opener = format!("{}---", y.indent);
            let raw =
                std::iter::once(opener).chain(y.body.lines().map(|l| format!("{}{l}", y.indent)));
            for (i, raw) in raw.enumerate() {
                let line = y.start_line + i as u64;
                if non_tap {
                    self.strict_check(lvl, line, sink);
                }
                sink.event(&Event::Output {
                    depth: lvl as u32,
                    line,
                    text: Cow::Owned(raw),
                });
            }
        }
    }
}
