//! The plain test cases of a JUnit suite (passing or skipped, name and message printable
//! ASCII: nearly every case of a big run) written straight into the suite quick-junit
//! serialized, in the bytes quick-junit gives them.
//!
//! Why: quick-junit's `XmlString::new` runs every string through a terminal parser to strip
//! ANSI escapes, a `write!` per character; on a 200,000-point run that was a quarter of the
//! reports' time. On printable ASCII it changes nothing, so such a case is written here with
//! quick-xml's own attribute escaping, and quick-junit still writes the suite around it and
//! every other case (failures, errors, retries, output, anything to clean). A run of plain
//! cases stands in the suite as one marker case, replaced by their text once serialized.
//! The tests compare every suite against quick-junit writing all of its cases.
use quick_junit::{TestCase, TestCaseStatus};
use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;
use std::time::Duration;

use crate::report::record::SpooledRun;

/// The marker case's name: U+FFFF never reaches the document otherwise (`clean` replaces it),
/// so the marker's element cannot be mistaken for a real case's.
const MARKER_NAME: &str = "\u{FFFF}";

/// A marker case as quick-junit writes it inside a one-suite document (indentation included,
/// so a change of quick-junit's layout finds no marker and falls back to quick-junit alone).
const MARKER_ELEMENT: &[u8] = "\n        <testcase name=\"\u{FFFF}\"/>".as_bytes();

/// A case's start, at its depth in the document (root, suite, case: 4 spaces a level).
const CASE_START: &[u8] = b"\n        <testcase name=\"";

/// The plain cases of one suite, as runs between its other cases.
#[derive(Default)]
pub(super) struct Runs {
    /// The suite's classname, escaped for an attribute value.
    classname: String,
    /// Every plain case's element, in order.
    text: Vec<u8>,
    /// Each run: where its text ends in `text`, or where the spool holds it.
    ends: Vec<Run>,
    /// The last case pushed was plain: the next one continues its run.
    open: bool,
    /// Plain cases, and how many of them are skipped.
    cases: usize,
    skipped: usize,
}

/// Where a run of plain cases is.
enum Run {
    /// In [`Runs::text`], up to this end (from the previous run's).
    Text(usize),
    /// In the run's spool file.
    Spool(Range<u64>),
}

/// A rendered suite's bytes: its own, and runs of cases the spool holds.
pub(super) enum Part {
    Text(Vec<u8>),
    Spool(Range<u64>),
}

/// What a plain case shows besides its name.
pub(super) struct Plain<'a> {
    pub(super) time: Option<Duration>,
    /// `Some` for a skipped case: its `<skipped message>`.
    pub(super) skipped: Option<Cow<'a, str>>,
}

/// Text that quick-junit's `XmlString::new` (and `clean`) leave as it is.
pub(super) fn is_plain(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b' '..=b'~'))
}

impl Runs {
    /// Starts a suite whose cases' classname is `classname`.
    pub(super) fn begin(&mut self, classname: &str) {
        self.classname.clear();
        self.classname
            .push_str(&quick_xml::escape::escape(classname));
        self.text.clear();
        self.ends.clear();
        self.open = false;
        self.cases = 0;
        self.skipped = 0;
    }

    /// Adds a plain case; the suite gets a marker when it starts a new run.
    /// `id` is its stable ID (`file` and `test_id`: see `with_id`).
    pub(super) fn push(&mut self, name: &str, id: &str, case: &Plain<'_>) -> Option<TestCase> {
        write_case(&mut self.text, &self.classname, name, id, case);
        self.skipped += usize::from(case.skipped.is_some());
        self.cases += 1;
        let starts = !self.open;
        self.open = true;
        if starts {
            self.ends.push(Run::Text(self.text.len()));
        } else if let Some(Run::Text(end)) = self.ends.last_mut() {
            *end = self.text.len();
        }
        starts.then(|| TestCase::new(MARKER_NAME, TestCaseStatus::success()))
    }

    /// Adds a run of plain cases that the spool holds (`bytes`, written by [`write_case`]):
    /// a marker of its own.
    pub(super) fn push_spooled(&mut self, run: &SpooledRun) -> TestCase {
        self.cases += run.cases;
        self.skipped += run.skipped;
        self.open = false;
        self.ends.push(Run::Spool(run.bytes.clone()));
        TestCase::new(MARKER_NAME, TestCaseStatus::success())
    }

    /// A case of quick-junit's comes next: the next plain case starts a new run.
    pub(super) fn interrupt(&mut self) {
        self.open = false;
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// What the markers added to the suite's counts that the cases they stand for change:
    /// `(tests, skipped)` to add to the suite's.
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.cases - self.ends.len(), self.skipped)
    }

    /// `suite` (a serialized `<testsuite>` holding the markers) with each marker replaced by
    /// its run of cases, appended to `out` (a spooled run as a part of its own); false (and
    /// `out` unspecified) when the markers found are not the runs.
    pub(super) fn splice(&self, suite: &[u8], out: &mut Vec<Part>) -> bool {
        let mut text = Vec::with_capacity(suite.len() + self.text.len());
        let mut last = 0;
        let mut start = 0;
        let mut runs = self.ends.iter();
        for at in memchr::memmem::find_iter(suite, MARKER_ELEMENT) {
            let Some(run) = runs.next() else {
                return false;
            };
            text.extend_from_slice(&suite[last..at]);
            match run {
                Run::Text(end) => {
                    text.extend_from_slice(&self.text[start..*end]);
                    start = *end;
                }
                Run::Spool(bytes) => {
                    out.push(Part::Text(std::mem::take(&mut text)));
                    out.push(Part::Spool(bytes.clone()));
                }
            }
            last = at + MARKER_ELEMENT.len();
        }
        text.extend_from_slice(&suite[last..]);
        out.push(Part::Text(text));
        runs.next().is_none()
    }
}

/// Appends a plain case's element to `t`, as quick-junit writes it in a one-suite document;
/// `classname` is escaped already.
pub(super) fn write_case(t: &mut Vec<u8>, classname: &str, name: &str, id: &str, case: &Plain<'_>) {
    t.extend_from_slice(CASE_START);
    t.extend_from_slice(quick_xml::escape::escape(name).as_bytes());
    t.extend_from_slice(b"\" classname=\"");
    t.extend_from_slice(classname.as_bytes());
    t.push(b'"');
    if let Some(time) = case.time {
        // quick-junit's own format for `time`.
        let _ = write!(t, " time=\"{:.3}\"", time.as_secs_f64());
    }
    t.extend_from_slice(b" file=\"");
    t.extend_from_slice(classname.as_bytes());
    t.extend_from_slice(
        b"\">\n            <properties>\n                <property name=\"test_id\" value=\"",
    );
    t.extend_from_slice(quick_xml::escape::escape(id).as_bytes());
    t.extend_from_slice(b"\"/>\n            </properties>");
    if let Some(message) = &case.skipped {
        t.extend_from_slice(b"\n            <skipped message=\"");
        t.extend_from_slice(quick_xml::escape::escape(message.as_ref()).as_bytes());
        t.extend_from_slice(b"\"/>");
    }
    t.extend_from_slice(b"\n        </testcase>");
}
