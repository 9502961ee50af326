//! Who owns a comment that is no failure's ([`crate::explain::trailing`] decides those first):
//! a heading that names the points after it, a line of the file's, or the next point's output.
//!
//! Headings: a producer may name each test with a `# name` comment before its points
//! (`# alias`, `ok 40 should be strictly equal`), so a failure is named `alias > should be
//! strictly equal` rather than by an assertion's stock message that a dozen points share.
//! Which producers print each shape below: protocol-spec/producers.md, Headings. The rule, for
//! the reports that name failures (terminal, JUnit, Markdown, HTML), holds for each level (the
//! stream, or a subtest's body: a file run by a runner that wraps each file in a subtest) on
//! its own:
//! - it applies to a level whose first line is a comment (the producers whose levels start
//!   with a plan, a point or `# Subtest:` print none), so a comment between points (a note)
//!   never renames them;
//! - in such a level a comment is the heading of the level's points after it until the next
//!   heading, once a point follows it;
//! - `# Subtest: name` is a subtest's announcement, never a heading; comments before it were
//!   the announced test's console output;
//! - `# FILE @ LINE: name`, a test's announcement of where it is defined, is never a heading
//!   (the point after it has the same name: it would name it twice) nor that test's output: it
//!   is the file's, and a level that opens with one has no headings;
//! - a point named as its heading (an assertion named as the test it is in) is not
//!   named twice; a point in a subtest is named `subtest > heading > point`;
//! - a heading is not shown again as the first point's output, since it names it;
//! - under tap.py's `# TAP results for Class` a comment is a line the next test printed (a
//!   `print("# …")`), not a heading: only the next `# TAP results for …` heads the points
//!   after it.
//!
//! Lines that are no point's, the file's output only:
//! - a comment that heads nothing: another comment replaced it before any point came (a
//!   `# SKIP name` notice of a skipped test, the heading of a test with no points);
//! - a level's closing lines: the comments after its plan, once that plan is read after its
//!   points or its last planned point is read (totals such as `# tests 4` / `# pass 3` /
//!   `# fail 1` or a `# tests` … `# duration_ms` summary, `# failed 1 test`, `# time=…`,
//!   `# Looks like you failed 1 test of 2.`). Inside a subtest they
//!   come right before its closing point, but that point's test did not print them: its
//!   harness summed up. At the top level nothing follows them: they stay output after the
//!   last point, which the reports show as the file's.
//!
//! History and the point names of JUnit's test cases do not use the headings: they name points
//! as the stream does, so a heading renamed later keeps a test's record.
use super::names::{PointName, SEPARATOR};
use tapline_protocol::event::Event;

/// What an event did to the comments.
#[derive(Debug, PartialEq, Default)]
pub(crate) struct Held {
    /// An earlier comment that turned out to head nothing in a level that has no headings
    /// after all (a test's console output before its `# Subtest:`): the caller keeps it as
    /// output now, before the event.
    pub(crate) released: Vec<String>,
    /// The event is a comment that is no point's output: a heading held for the points after
    /// it (it names them), or a line of the file's (see the module doc). The caller keeps it
    /// in the file's output only.
    pub(crate) heading: bool,
}

/// One level's state: the stream's, or an open subtest's body.
#[derive(Debug, Default)]
struct Level {
    /// Decided by the level's first line.
    on: Option<bool>,
    /// A comment waiting for a point to head.
    candidate: Option<String>,
    /// Comments a later one replaced as the candidate before the level's first point: if a
    /// `# Subtest:` then says the level has no headings, they were output as much as the
    /// candidate.
    unheaded: Vec<String>,
    /// The heading of the points being read.
    current: Option<String>,
    /// Points read at this level.
    points: u64,
    /// A plan read before any point: how many points it announces.
    planned: Option<u64>,
    /// Its plan was read after its points, or its last planned point was: what follows at this
    /// depth is its closing lines.
    done: bool,
}

impl Level {
    /// The level turned out to have no headings: the comments it held are output, in order.
    fn release(&mut self) -> Vec<String> {
        let mut released = std::mem::take(&mut self.unheaded);
        released.extend(self.candidate.take());
        released
    }
}

/// The heading state of one stream.
#[derive(Debug, Default)]
pub(crate) struct Headings {
    /// Index = depth.
    levels: Vec<Level>,
    /// The depth of the point read last, which [`Headings::path`] names.
    point: Option<usize>,
}

impl Headings {
    /// Sees every event of the stream that is not a failure's trailing output; returns what a
    /// comment line became.
    pub(crate) fn event(&mut self, ev: &Event<'_>) -> Held {
        match ev {
            // What may come before a level's first line without saying what the level is.
            Event::Version { .. }
            | Event::Pragma { .. }
            | Event::Protocol { .. }
            | Event::Problem(_)
            | Event::Marker { .. }
            | Event::V2Event { .. }
            | Event::V2Block { .. }
            | Event::AssertBegin { .. }
            | Event::Output { .. } => Held::default(),
            Event::SubtestStart { depth, .. } => {
                // As its `# Subtest:` comment says (producers.md, Headings): the comments held
                // before it were the test's output (a test's comment, a logged `{`), never the
                // subtest's name. A level that has no heading naming its points yet is not one
                // of headings; one whose heading already names points keeps it for the
                // subtest too (`# adds`, `ok 1`, `# Subtest: outer`: `adds > outer`), so a
                // test's ID does not change with the subtests after it.
                let parent = self.level(depth.saturating_sub(1));
                let headed = parent.on == Some(true) && parent.current.is_some();
                if !headed {
                    parent.on = Some(false);
                    parent.current = None;
                }
                let released = parent.release();
                *self.level(*depth) = Level::default();
                Held {
                    released,
                    heading: false,
                }
            }
            Event::Comment { depth, text, .. } => self.comment(*depth, text),
            Event::Plan { depth, plan, .. } => {
                let level = self.level(*depth);
                level.on.get_or_insert(false);
                let count = (plan.end + 1).saturating_sub(plan.start);
                if level.points > 0 || plan.skip_all || count == 0 {
                    level.done = true;
                } else {
                    level.planned = Some(count);
                }
                Held::default()
            }
            Event::Assert(a) => {
                self.point = Some(a.depth as usize);
                let level = self.level(a.depth);
                level.on.get_or_insert(false);
                level.points += 1;
                if level.planned.is_some_and(|n| level.points >= n) {
                    level.done = true;
                }
                level.unheaded.clear();
                if let Some(heading) = level.candidate.take() {
                    level.current = Some(heading.trim().to_owned());
                }
                Held::default()
            }
            _ => {
                if let Some(level) = self.levels.first_mut() {
                    level.on.get_or_insert(false);
                }
                Held::default()
            }
        }
    }

    fn level(&mut self, depth: u32) -> &mut Level {
        let d = depth as usize;
        if self.levels.len() <= d {
            self.levels.resize_with(d + 1, Level::default);
        }
        &mut self.levels[d]
    }

    fn comment(&mut self, depth: u32, text: &str) -> Held {
        let level = self.level(depth);
        if level.done {
            // A closing line: after the last point nothing at the top is a point's anyway.
            return Held {
                released: Vec::new(),
                heading: depth > 0,
            };
        }
        if is_subtest_announcement(text) {
            // The level's comments before it were console output (producers.md, Headings).
            level.on = Some(false);
            level.current = None;
            return Held {
                released: level.release(),
                heading: false,
            };
        }
        if is_definition_announcement(text) {
            level.on.get_or_insert(false);
            return Held {
                released: Vec::new(),
                heading: true,
            };
        }
        if !*level.on.get_or_insert(true) {
            return Held::default();
        }
        if names_a_class(level) && !is_class_announcement(text) {
            // Under `# TAP results for Class` (tap.py's only headings) a plain comment is a
            // line a test printed: the next point's output, not the heading of what follows.
            return Held::default();
        }
        // A comment it replaces headed nothing: a notice, the file's (in its output already),
        // or, before the level's first point, output a `# Subtest:` may yet release.
        // As written: trimmed once it names points, whole when it turns out to be output.
        let replaced = level.candidate.replace(text.to_owned());
        if let Some(replaced) = replaced.filter(|_| level.points == 0) {
            level.unheaded.push(replaced);
        }
        Held {
            released: Vec::new(),
            heading: true,
        }
    }

    /// The names of the point just read (`name`, inside the subtests `parents`), outermost
    /// first, with its headings: `[alias, should be strictly equal]`, `[file.js, alias,
    /// expands the alias]` for a point of a subtest with headings.
    pub(crate) fn path<'p>(
        &self,
        parents: impl Iterator<Item = &'p str>,
        name: &str,
    ) -> Vec<String> {
        let depth = self.point.unwrap_or(0);
        let level = (depth > 0).then(|| self.heading(depth)).flatten();
        with_headings(self.heading(0), parents, level, name)
    }

    /// [`Self::path`] as one string: what names each point of a run (one allocation).
    pub(crate) fn joined<'p>(
        &self,
        parents: impl Iterator<Item = &'p str> + Clone,
        name: &str,
    ) -> PointName {
        let depth = self.point.unwrap_or(0);
        let level = (depth > 0).then(|| self.heading(depth)).flatten();
        let top = self.heading(0);
        let mut path = Joined::default();
        for parent in parents.clone() {
            path.push(parent);
        }
        if let Some(heading) = level.filter(|h| !names_itself(name, h)) {
            path.push(heading);
        }
        path.push(name);
        let Joined {
            mut text,
            mut exact,
            ..
        } = path;
        if let Some(heading) = top.filter(|h| !names_itself(&text, h)) {
            exact &= !holds_separator(heading);
            text.insert_str(0, SEPARATOR);
            text.insert_str(0, heading);
        }
        // The list only where the string does not split back into it.
        let parts = (!exact).then(|| with_headings(top, parents, level, name).into_boxed_slice());
        PointName { path: text, parts }
    }

    /// The heading the points of the level at `depth` are under, if any.
    pub(crate) fn heading(&self, depth: usize) -> Option<&str> {
        self.levels
            .get(depth)
            .and_then(|l| l.current.as_deref())
            .filter(|h| !h.is_empty())
    }

    /// The path of the point just read under its headings: `alias > should be strictly
    /// equal`, `file.js > alias > expands the alias` for a point of a subtest with headings.
    #[cfg(test)]
    pub(crate) fn name(&self, path: String) -> String {
        let (parents, name) = match path.rsplit_once(" > ") {
            Some((parents, name)) => (parents.split(" > ").collect(), name),
            None => (Vec::new(), path.as_str()),
        };
        self.path(parents.into_iter(), name).join(" > ")
    }

    /// A comment still waiting at the end of the stream headed nothing: it is output.
    pub(crate) fn take_unused(&mut self) -> Option<String> {
        self.levels.first_mut()?.candidate.take()
    }
}

/// A point's names, outermost first, under the stream's heading `top` and the heading `level`
/// of its own level inside a subtest: `[top, parents…, level, name]`, each heading left out
/// where the names after it already start with it (a point named as its test). The one rule
/// by which every report names a point.
pub(crate) fn with_headings<'p>(
    top: Option<&str>,
    parents: impl Iterator<Item = &'p str>,
    level: Option<&str>,
    name: &str,
) -> Vec<String> {
    let mut path: Vec<String> = parents.map(str::to_owned).collect();
    if let Some(heading) = level.filter(|h| !names_itself(name, h)) {
        path.push(heading.to_owned());
    }
    path.push(name.to_owned());
    if let Some(heading) = top {
        if !names_itself(&path.join(" > "), heading) {
            path.insert(0, heading.to_owned());
        }
    }
    path
}

/// Names joined by [`SEPARATOR`] as they are pushed.
#[derive(Default)]
struct Joined {
    text: String,
    count: usize,
    /// No name holds the separator: the text splits back into the names.
    exact: bool,
}

impl Joined {
    fn push(&mut self, name: &str) {
        if self.count == 0 {
            self.exact = true;
        } else {
            self.text.push_str(SEPARATOR);
        }
        self.count += 1;
        self.exact &= !holds_separator(name);
        self.text.push_str(name);
    }
}

/// Whether a name holds ` > `: a byte search first, as nearly none holds a `>` at all (a
/// substring search's setup would cost every point of a run).
fn holds_separator(name: &str) -> bool {
    memchr::memchr(b'>', name.as_bytes()).is_some() && name.contains(SEPARATOR)
}

/// `inner fails` in the test `inner`: the point already says where it is.
fn names_itself(path: &str, heading: &str) -> bool {
    path.strip_prefix(heading)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// `spec/a_spec.lua @ 4: adds`: where the test about to run is defined, and its name.
pub(crate) fn is_definition_announcement(text: &str) -> bool {
    let Some((file, rest)) = text.trim().split_once(" @ ") else {
        return false;
    };
    let Some((line, _name)) = rest.split_once(": ") else {
        return false;
    };
    !file.is_empty()
        && !file.contains(' ')
        && !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
}

/// `TAP results for Class`: tap.py's heading of a test class's points.
fn is_class_announcement(text: &str) -> bool {
    text.trim_start().starts_with("TAP results for ")
}

/// The level's points are headed by class, as tap.py heads them: its other comments are
/// the tests' own.
fn names_a_class(level: &Level) -> bool {
    level
        .candidate
        .as_deref()
        .or(level.current.as_deref())
        .is_some_and(is_class_announcement)
}

fn is_subtest_announcement(text: &str) -> bool {
    text.trim_start().starts_with("Subtest:")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
    use tapline_protocol::event::{Assert, Plan};

    fn comment(text: &str) -> Event<'static> {
        comment_at(0, text)
    }

    fn comment_at(depth: u32, text: &str) -> Event<'static> {
        Event::Comment {
            depth,
            line: 0,
            text: Cow::Owned(text.to_owned()),
        }
    }

    fn point(name: &str) -> Event<'static> {
        point_at(0, name)
    }

    fn point_at(depth: u32, name: &str) -> Event<'static> {
        Event::Assert(Assert {
            depth,
            ..Assert::plain(false, name)
        })
    }

    fn plan_at(depth: u32, end: u64) -> Event<'static> {
        Event::Plan {
            depth,
            line: 0,
            plan: Plan {
                start: 1,
                end,
                skip_all: false,
                reason: None,
            },
        }
    }

    fn subtest(depth: u32, name: &str) -> Event<'static> {
        Event::SubtestStart {
            depth,
            line: 0,
            name: Cow::Owned(name.to_owned()),
            buffered: false,
        }
    }

    /// How a report places a stream's comments by the rule.
    #[derive(Debug, Default)]
    struct Placed {
        /// Each point's name.
        named: Vec<String>,
        /// Each point's output: the comments before it that are its.
        output: Vec<Vec<String>>,
        /// Comments after the last point, which the reports show as the file's.
        after: Vec<String>,
        /// Comments that are no point's: headings and the file's lines.
        files: Vec<String>,
    }

    fn place(events: &[Event<'static>]) -> Placed {
        let mut h = Headings::default();
        let mut p = Placed::default();
        let mut subtests = tapline_protocol::event::OpenSubtests::default();
        for ev in events {
            let held = h.event(ev);
            p.after.extend(held.released);
            match ev {
                Event::Comment { text, .. } if held.heading => p.files.push(text.to_string()),
                Event::Comment { text, .. } => p.after.push(text.to_string()),
                Event::SubtestStart { depth, name, .. } => subtests.start(*depth, name),
                Event::Assert(a) => {
                    p.named.push(h.name(subtests.path(a.depth, &a.name)));
                    p.output.push(std::mem::take(&mut p.after));
                    subtests.after(a);
                }
                _ => {}
            }
        }
        p.after.extend(h.take_unused());
        p
    }

    #[test]
    fn comment_headings_head_their_points_and_totals_stay_output_after_the_last_point() {
        let p = place(&[
            comment("parse args"),
            point("no"),
            comment("alias"),
            point("should be strictly equal"),
            point("should be strictly equal"),
            plan_at(0, 3),
            comment("tests 3"),
            comment("fail 3"),
        ]);
        assert_eq!(
            p.named,
            [
                "parse args > no",
                "alias > should be strictly equal",
                "alias > should be strictly equal"
            ]
        );
        assert_eq!(p.after, ["tests 3", "fail 3"]);
        assert_eq!(p.files, ["parse args", "alias"]);
    }

    #[test]
    fn under_a_class_heading_a_printed_comment_is_the_next_points_output() {
        // tap.py: `# TAP results for Class` heads the class's points; a test's
        // `print("# x")` is its output, and the next class's heading heads the next points.
        let p = place(&[
            comment("TAP results for A"),
            point("a1"),
            comment("a print"),
            point("a2"),
            comment("TAP results for B"),
            point("b1"),
        ]);
        assert_eq!(
            p.named,
            [
                "TAP results for A > a1",
                "TAP results for A > a2",
                "TAP results for B > b1"
            ]
        );
        assert_eq!(p.output[1], ["a print"]);
    }

    #[test]
    fn a_stream_that_starts_with_a_point_or_a_subtest_has_no_headings() {
        let p = place(&[point("a"), comment("setting up"), point("b")]);
        assert_eq!(p.named, ["a", "b"]);
        assert_eq!(p.output[1], ["setting up"]);
        let p = place(&[comment("Subtest: s"), point("a"), comment("x"), point("b")]);
        assert_eq!(p.named, ["a", "b"]);
        // A test's console output printed as comments before the test is announced.
        let p = place(&[
            comment("console.log line"),
            comment("Subtest: s"),
            point("s"),
            comment("x"),
            point("b"),
        ]);
        assert_eq!(p.named, ["s", "b"]);
        assert_eq!(
            p.output,
            [vec!["console.log line", "Subtest: s"], vec!["x"]]
        );
    }

    #[test]
    fn a_comment_that_heads_nothing_is_the_files_not_the_next_points() {
        // A skipped test's notice: `# SKIP x` and no point.
        let p = place(&[
            comment("parse args"),
            point("accepts a number"),
            comment("SKIP needs a network"),
            comment("alias"),
            point("expands the alias"),
        ]);
        assert_eq!(
            p.named,
            ["parse args > accepts a number", "alias > expands the alias"]
        );
        assert_eq!(p.output, [Vec::<String>::new(), Vec::new()]);
        assert_eq!(p.files, ["parse args", "SKIP needs a network", "alias"]);
        let p = place(&[comment("empty"), comment("full"), point("a")]);
        assert_eq!(p.named, ["full > a"]);
        assert_eq!((p.output[0].len(), p.files.len()), (0, 2));
    }

    #[test]
    fn a_definition_announcement_is_no_heading_and_no_points_output() {
        let mut h = Headings::default();
        let said = h.event(&comment(" spec/a_spec.lua @ 4: math adds"));
        assert_eq!(
            said,
            Held {
                released: Vec::new(),
                heading: true
            },
            "the file's line"
        );
        h.event(&point("math adds"));
        assert_eq!(h.name("math adds".into()), "math adds");
        h.event(&comment(" spec/a_spec.lua @ 9: math subtracts"));
        h.event(&point("math subtracts"));
        assert_eq!(h.name("math subtracts".into()), "math subtracts");
        // A heading that merely holds an `@` is still one.
        let mut h = Headings::default();
        h.event(&comment(" mail me @ home: later"));
        h.event(&point("x"));
        assert_eq!(h.name("x".into()), "mail me @ home: later > x");
    }

    #[test]
    fn a_point_named_as_its_heading_is_named_once() {
        let p = place(&[
            comment("arrays differ"),
            point("arrays differ"),
            comment("inner"),
            point("inner fails"),
            comment("a"),
            point("adds"),
        ]);
        assert_eq!(p.named, ["arrays differ", "inner fails", "a > adds"]);
    }

    #[test]
    fn a_subtests_closing_lines_are_the_files_not_its_closing_points() {
        // `# failed 1 test` after a failing subtest's plan.
        let p = place(&[
            comment("Subtest: formats"),
            subtest(1, "formats"),
            point_at(1, "letters"),
            plan_at(1, 1),
            comment_at(1, "failed 1 test"),
            point("formats"),
            plan_at(0, 1),
            comment("failed 1 of 1 tests"),
        ]);
        assert_eq!(p.output, [vec!["Subtest: formats"], Vec::new()]);
        assert_eq!(p.files, ["failed 1 test"]);
        assert_eq!(p.after, ["failed 1 of 1 tests"]);
        // The plan first: the closing line follows the last planned point.
        let p = place(&[
            plan_at(0, 1),
            comment("Subtest: inner"),
            subtest(1, "inner"),
            plan_at(1, 2),
            point_at(1, "inner passes"),
            comment_at(1, "a note"),
            point_at(1, "inner fails"),
            comment_at(1, "Looks like you failed 1 test of 2."),
            point("inner"),
        ]);
        assert_eq!(p.output[1], ["a note"]);
        assert_eq!(p.files, ["Looks like you failed 1 test of 2."]);
        assert!(p.output[2].is_empty(), "{:?}", p.output);
    }

    #[test]
    fn a_file_in_a_runners_subtest_heads_its_own_points() {
        let p = place(&[
            plan_at(0, 1),
            comment("Subtest: headed.js"),
            subtest(1, "headed.js"),
            comment_at(1, "parse args"),
            point_at(1, "accepts a number"),
            comment_at(1, "SKIP needs a network"),
            comment_at(1, "alias"),
            point_at(1, "expands the alias"),
            plan_at(1, 2),
            comment_at(1, "tests 2"),
            point("headed.js"),
        ]);
        assert_eq!(
            p.named,
            [
                "headed.js > parse args > accepts a number",
                "headed.js > alias > expands the alias",
                "headed.js"
            ]
        );
        assert_eq!(p.output[1], Vec::<String>::new());
        assert_eq!(p.output[2], Vec::<String>::new());
        assert_eq!(
            p.files,
            ["parse args", "SKIP needs a network", "alias", "tests 2"]
        );
    }
}
