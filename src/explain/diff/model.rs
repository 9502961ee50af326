//! The structured diff: lines with their side, emphasised segments, notes and hunk headers,
//! collected within the line budget. Renderers (terminal, HTML) paint it; nothing here knows
//! colours or markup.
use super::Outcome;

/// Which value a diff line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// Only in the expected value (`-`, green).
    Expected,
    /// Only in the received value (`+`, red).
    Received,
    /// In both (unchanged context, dimmed).
    Context,
}

impl Sign {
    /// The sign alone, for a line whose content is empty (no trailing blank).
    pub fn marker(self) -> &'static str {
        match self {
            Self::Expected => "-",
            Self::Received => "+",
            Self::Context => "",
        }
    }

    /// The sign and the space that separates it from the content.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Expected => "- ",
            Self::Received => "+ ",
            Self::Context => "  ",
        }
    }

    /// The legend's word for the side.
    pub fn name(self) -> &'static str {
        match self {
            Self::Expected => "Expected",
            Self::Received => "Received",
            Self::Context => "",
        }
    }
}

/// A piece of a line's text, already made terminal-safe (hidden characters escaped, trailing
/// blanks marked); markup renderers still have to escape it for their format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub text: String,
    /// Changed characters within a changed line (inverse video on a terminal).
    pub emphasized: bool,
}

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// `- Expected` or `+ Received` (or the producer's names for the sides: `- left`).
    Legend(Sign, &'static str),
    /// A remark on the comparison: `(different types: number vs string)`, `(both strings are
    /// JSON; …)`, `(too large to diff: …)`.
    Note(String),
    /// Separates the legend and notes from the lines.
    Blank,
    /// `Compared values have no visual difference.`
    NoDifference,
    /// A hunk header: `@@ -12,7 +12,8 @@` or `@@ $.users[2].name @@`.
    Hunk(String),
    /// Content of one side or of both. Empty `segments` means an empty line, written as the
    /// bare marker.
    Line { sign: Sign, segments: Vec<Segment> },
    /// `… N more lines`: the rest did not fit the line budget.
    Omitted(usize),
}

impl DiffLine {
    /// The line as plain text, as the terminal shows it without colours.
    pub fn plain_text(&self) -> String {
        match self {
            Self::Legend(sign, name) => format!("{}{}", sign.prefix(), name),
            Self::Note(note) => note.clone(),
            Self::Blank => String::new(),
            Self::NoDifference => super::NO_DIFFERENCE.to_owned(),
            Self::Hunk(header) => header.clone(),
            Self::Line { sign, segments } if segments.is_empty() => sign.marker().to_owned(),
            Self::Line { sign, segments } => {
                let mut text = sign.prefix().to_owned();
                for segment in segments {
                    text.push_str(&segment.text);
                }
                text
            }
            Self::Omitted(n) => omitted_text(*n),
        }
    }
}

pub(crate) fn omitted_text(n: usize) -> String {
    format!("… {n} more lines")
}

/// A diff as structured lines, within the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    pub lines: Vec<DiffLine>,
    pub outcome: Outcome,
}

/// Builds a [`DiffLine::Line`] segment by segment, merging plain neighbours.
pub(crate) struct LineBuilder {
    sign: Sign,
    segments: Vec<Segment>,
}

impl LineBuilder {
    pub(crate) fn new(sign: Sign) -> Self {
        Self {
            sign,
            segments: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, emphasized: bool, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.segments.last_mut() {
            // Emphasised runs stay apart so a renderer can mark each change.
            Some(last) if !emphasized && !last.emphasized => last.text.push_str(text),
            _ => self.segments.push(Segment {
                text: text.to_owned(),
                emphasized,
            }),
        }
    }

    pub(crate) fn finish(self) -> DiffLine {
        DiffLine::Line {
            sign: self.sign,
            segments: self.segments,
        }
    }
}

/// Collects lines, keeping only as many as may be shown but counting all of them so the
/// truncation marker can say how many were dropped.
pub(crate) struct Sink {
    lines: Vec<DiffLine>,
    total: usize,
    cap: usize,
}

impl Sink {
    pub(crate) fn new(max_output_lines: usize) -> Self {
        Self {
            lines: Vec::new(),
            total: 0,
            // A zero budget still gets the marker, otherwise a failure would
            // vanish without a trace.
            cap: max_output_lines.max(1),
        }
    }

    pub(crate) fn room(&self) -> usize {
        self.cap.saturating_sub(self.lines.len())
    }

    pub(crate) fn push(&mut self, line: DiffLine) {
        self.total += 1;
        if self.room() > 0 {
            self.lines.push(line);
        }
    }

    /// Counts a line that would not be shown anyway without building it.
    pub(crate) fn skip(&mut self) {
        self.total += 1;
    }

    pub(crate) fn finish(mut self, too_large: bool) -> Diff {
        let outcome = if self.total <= self.cap {
            Outcome::Full
        } else {
            let shown = self.cap - 1;
            self.lines.truncate(shown);
            // Always at least two: a single extra line would simply be shown.
            let omitted = self.total - shown;
            self.lines.push(DiffLine::Omitted(omitted));
            Outcome::Truncated {
                omitted_lines: omitted,
            }
        };
        Diff {
            lines: self.lines,
            outcome: if too_large {
                Outcome::TooLarge
            } else {
                outcome
            },
        }
    }
}
