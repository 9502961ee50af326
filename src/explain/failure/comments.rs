//! Diagnostics that producers print as `#` comments after a failing point rather than as YAML,
//! read into the failure's fields so they render like everyone else's:
//!
//! * Test::More: `Failed test 'name'` / `at FILE line N.` (the location), `got: 'x'` /
//!   `expected: 'y'` (a diff), is_deeply's `Structures begin differing at:` with its
//!   `$got->…` / `$expected->…` lines (a message naming the place, and a diff of the values
//!   there), and `like`'s `'x'` / `doesn't match '(?^:re)'` (`unlike`'s `matches`): the value
//!   received against the check, `=~ (?^:re)` (`!~`), as Test2's `like` reads;
//! * Test2: the same location lines, and its `+---+` table ([`super::test2`]: each row a
//!   difference at its path, by its check);
//! * pgTAP: `Failed test N: "name"`, and `have:`/`want:` (`want` expected) or `Extra
//!   records:`/`Missing records:` ([`super::pgtap`]);
//! * pytest-tap: the `FILE.py:N: ErrorName` line closing the test's own frame (the location),
//!   the empty `--- Captured Log/Out/Err ---` headings, and the `E` lines (the message), whose
//!   `assert X == Y` (or unittest's `X != Y`), when both sides read as values
//!   ([`super::literal`]), is a diff that replaces pytest's own explanation of them;
//! * bats: `(in test file FILE, line N)` (the location; bats-assert's `(from function …`
//!   lines above it are its internals) and the failed command under it (the message), and
//!   bats-assert's `-- values do not equal --` block (a diff);
//! * busted: `FILE @ LINE`, `Failure message: FILE:LINE: message`, `Passed in:` /
//!   `Expected:` and `stack traceback:` ([`super::luassert`]);
//! * a Python traceback (`Traceback (most recent call last):`, as tap.py prints it): the stack
//!   (whose standard-library frames are then left out like any runtime's) and the exception
//!   line under it (the message);
//! * `# Subtest: name` headings, which the point's line says better.
//!
//! Lines read this way leave the output; everything else stays in it, in order.
use super::literal;
use crate::explain::diff;
use serde_json::Value;

/// A producer's summing up of the file (or of a subtest) after its last point: Test::More's
/// and Test2's `Looks like you …`, bats' `bats warning: Executed 2 instead of expected 3
/// tests`, and the totals mocha, ava, tape and node:test print (`# tests 5`, `# pass 1`,
/// `# fail 4`, `# duration_ms 12.5`): mocha prints them right under its last failure's stack,
/// before its plan; a shell test library's `# failed 1 among 3 test(s)`.
pub(crate) fn is_closing_line(comment: &str) -> bool {
    let c = comment.trim_start();
    c.starts_with("Looks like you")
        || c.starts_with("bats warning: ")
        || is_total(c)
        || super::shell_lib::is_closing_line(c)
}

/// `lines` without the totals that end them: from the last `# tests N` on, when everything
/// after it is a totals line (`# pass  425`, `# fail  1`), a blank line or `# ok` (tape's
/// `# tests 426`, `# pass  425`, `# fail  1`, or `# pass  3`, a blank line and `# ok`; mocha's
/// and ava's `# tests`/`# pass`/`# fail`). They are the run's counts, which tapline says
/// itself, never a file's output; the file's log keeps them, as every byte.
pub(crate) fn strip_totals(lines: &mut Vec<String>) {
    let Some(start) = lines.iter().rposition(|l| {
        l.trim_end()
            .strip_prefix("# ")
            .is_some_and(|c| c.starts_with("tests ") && is_total(c))
    }) else {
        return;
    };
    let totals = lines[start..].iter().all(|l| {
        let t = l.trim();
        t.is_empty() || t == "# ok" || t.strip_prefix("# ").is_some_and(is_total)
    });
    if totals {
        lines.truncate(start);
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
    }
}

/// A totals line: `tests 5`, `pass 1`, `fail 4`, `skip 0`, `duration_ms 12.5`…
fn is_total(comment: &str) -> bool {
    const TOTALS: [&str; 10] = [
        "tests",
        "pass",
        "fail",
        "skip",
        "skipped",
        "todo",
        "pending",
        "suites",
        "cancelled",
        "duration_ms",
    ];
    let mut words = comment.split_whitespace();
    let (Some(word), Some(count), None) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    TOTALS.contains(&word)
        && !count.is_empty()
        && count.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// bats' line naming the command that failed: `` `cmd' failed``, ``failed with status 2``,
/// ``failed due to timeout`` (bats' `bats_print_failed_command`).
fn is_failed_command(line: &str) -> bool {
    let Some((command, how)) = line.rsplit_once("' failed") else {
        return false;
    };
    let how = how.strip_prefix(" with status ").map_or(how, |rest| {
        rest.trim_start_matches(|c: char| c.is_ascii_digit())
    });
    command.starts_with('`') && (how.is_empty() || how == " due to timeout")
}

/// bats' trace of a failure in a helper the project defines (`(from function `assert_equal'
/// in file test/test_helper.bash, line 56,` … `in test file test/x.bats, line 81)`), as bats
/// prints it: the project's frames, a relative path, and the test file's line. A library's
/// frames (bats-assert's, loaded by an absolute path) are left out; a trace of none but them
/// is no stack.
fn bats_stack(trace: &[Option<&str>]) -> Option<String> {
    let own = |frame: &str| {
        frame
            .split_once("' in file ")
            .is_some_and(|(_, file)| !file.starts_with('/'))
    };
    let frames: Vec<&str> = trace.iter().flatten().map(|f| f.trim()).collect();
    let (last, calls) = frames.split_last()?;
    if !calls.iter().any(|f| own(f)) {
        return None;
    }
    let kept: Vec<&str> = calls
        .iter()
        .copied()
        .filter(|f| own(f))
        .chain([*last])
        .collect();
    Some(kept.join("\n"))
}

/// What the comments said, and the lines they did not explain.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Read {
    pub(super) location: Option<String>,
    pub(super) message: Option<String>,
    pub(super) expected_actual: Option<(Value, Value)>,
    pub(super) stack: Option<String>,
    pub(super) rest: Vec<String>,
}

/// Most continuation lines read for one quoted Test::More value.
const MAX_VALUE_LINES: usize = 1000;

/// Reads `lines`: the test's output (`commented`: only `#` lines are diagnostics) or the lines
/// of a diagnostic message (bats' TAP 13 `message:`).
pub(super) fn read(lines: &[String], commented: bool) -> Read {
    let bodies: Vec<Option<&str>> = lines
        .iter()
        .map(|l| {
            if commented {
                l.trim_start().strip_prefix('#')
            } else {
                Some(l.as_str())
            }
        })
        .collect();
    let mut r = Read::default();
    // `E` lines are pytest's only where its location line says pytest wrote them.
    let pytest = bodies
        .iter()
        .flatten()
        .any(|b| pytest_location(b.trim()).is_some());
    let mut i = 0;
    while i < lines.len() {
        let used = match bodies[i] {
            Some(body) if commented && body.trim_start().starts_with("Subtest: ") => Some(1),
            Some(body) => r
                .test_more_location(body, bodies.get(i + 1).copied().flatten())
                .or_else(|| r.got_expected(&bodies[i..]))
                .or_else(|| r.structures(&bodies[i..]))
                .or_else(|| r.like(&bodies[i..]))
                .or_else(|| r.test2_table(&bodies[i..]))
                .or_else(|| r.pgtap(&bodies[i..]))
                .or_else(|| r.pytest(&bodies[i..]))
                .or_else(|| r.pytest_error(&bodies[i..], pytest))
                .or_else(|| r.bats_location(&bodies[i..]))
                .or_else(|| r.bats_assert(&bodies[i..]))
                .or_else(|| r.bats_expected_actual(&bodies[i..]))
                .or_else(|| r.busted(&bodies[i..]))
                .or_else(|| r.traceback(&bodies[i..])),
            None => None,
        };
        match used {
            Some(n) => i += n.max(1),
            None => {
                r.rest.push(lines[i].clone());
                i += 1;
            }
        }
    }
    if commented {
        // Blank comments left at the edges only framed what was read.
        let blank = |l: &String| {
            l.trim_start()
                .strip_prefix('#')
                .is_some_and(|b| b.trim().is_empty())
        };
        while r.rest.last().is_some_and(blank) {
            r.rest.pop();
        }
        let lead = r.rest.iter().take_while(|l| blank(l)).count();
        r.rest.drain(..lead);
    }
    r
}

impl Read {
    /// `Failed test 'name'` + `at FILE line N.`, or `Failed test at FILE line N.`.
    fn test_more_location(&mut self, body: &str, next: Option<&str>) -> Option<usize> {
        let t = body.trim();
        let rest = t
            .strip_prefix("Failed test")
            .or_else(|| t.strip_prefix("Failed (TODO) test"))?;
        if let Some(at) = perl_at(rest.trim()) {
            self.location.get_or_insert(at);
            return Some(1);
        }
        let at = next.and_then(|n| perl_at(n.trim()))?;
        self.location.get_or_insert(at);
        Some(2)
    }

    /// `got: 'x'` then `expected: 'y'` (`is`): a diff of the two values.
    fn got_expected(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        if self.expected_actual.is_some() {
            return None;
        }
        let first = bodies.first().copied().flatten()?;
        let got = first.trim_start().strip_prefix("got: ")?;
        let (got, got_lines) = perl_value(got, &bodies[1..])?;
        let next = bodies.get(got_lines).copied().flatten()?;
        let expected = next.trim_start().strip_prefix("expected: ")?;
        let (expected, expected_lines) = perl_value(expected, &bodies[got_lines + 1..])?;
        // `isnt` says `expected: anything else`: no value to diff.
        if expected == diff::bare("anything else") {
            return None;
        }
        self.expected_actual = Some((expected, got));
        Some(got_lines + expected_lines)
    }

    /// is_deeply's `Structures begin differing at:` with `$got->… = v` and `$expected->… = v`.
    fn structures(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        let head = bodies.first().copied().flatten()?;
        if head.trim() != "Structures begin differing at:" {
            return None;
        }
        let got = bodies.get(1).copied().flatten()?.trim();
        let expected = bodies.get(2).copied().flatten()?.trim();
        let (path, got) = got.strip_prefix("$got")?.split_once(" = ")?;
        let (_, expected) = expected.strip_prefix("$expected")?.split_once(" = ")?;
        let (got, _) = perl_value(got, &[])?;
        let (expected, _) = perl_value(expected, &[])?;
        let place = path.trim();
        self.message.get_or_insert_with(|| {
            if place.is_empty() {
                "Structures differ".to_owned()
            } else {
                format!("Structures begin differing at {place}")
            }
        });
        self.expected_actual.get_or_insert((expected, got));
        Some(3)
    }

    /// `like`'s (Test::Builder's `_regex_ok`) two lines, the value then the pattern it was held
    /// to: `'x'` / `doesn't match '(?^:re)'`, or `unlike`'s `'x'` / `matches '(?^:re)'`. The
    /// check is the expected side, unquoted (`=~ (?^:re)`, `!~ (?^:re)`), as a Test2 `like`.
    fn like(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        if self.expected_actual.is_some() {
            return None;
        }
        let first = bodies.first().copied().flatten()?.trim_start();
        // The value is `'…'` or `undef`; a bare word here is no `like` diagnostic.
        if !first.starts_with('\'') && first.trim_end() != "undef" {
            return None;
        }
        let (got, got_lines) = perl_value(first, &bodies[1..])?;
        let next = bodies.get(got_lines).copied().flatten()?.trim_start();
        let (op, pattern) = if let Some(p) = next.strip_prefix("doesn't match ") {
            ("=~", p)
        } else if let Some(p) = next.strip_prefix("matches ") {
            ("!~", p)
        } else {
            return None;
        };
        let pattern = pattern.trim_end().strip_prefix('\'')?.strip_suffix('\'')?;
        self.expected_actual = Some((diff::bare(&format!("{op} {pattern}")), got));
        Some(got_lines + 1)
    }

    /// pytest's `path.py:N: ErrorName` line closing the test's frame (`path.py:N: ` when the
    /// error came from a frame under it), and empty captured-output headings.
    fn pytest(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        let body = bodies.first().copied().flatten()?.trim();
        if let Some(name) = body
            .strip_prefix("--- Captured ")
            .and_then(|r| r.strip_suffix(" ---"))
        {
            if !matches!(name, "Log" | "Out" | "Err") {
                return None;
            }
            // Empty when the next line is blank and then another heading or nothing.
            let blank = |k: usize| bodies.get(k).copied().flatten().map(str::trim);
            let after = blank(2);
            let empty = blank(1) == Some("")
                && (after.is_none() || after.is_some_and(|a| a.starts_with("--- Captured ")));
            return empty.then_some(2);
        }
        let place = pytest_location(body)?;
        // The first frame is the test's; later ones (where a helper raised) stay output.
        if self.location.is_some() {
            return None;
        }
        self.location = Some(place);
        // The blank comment pytest prints before it goes too.
        if self.rest.last().is_some_and(|l| l.trim() == "#") {
            self.rest.pop();
        }
        Some(1)
    }

    /// `(in test file FILE, line N)`, or bats-assert's `(from function …` lines ending in it,
    /// and the failed command under it.
    fn bats_location(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        let first = bodies.first().copied().flatten()?.trim();
        if !first.starts_with("(in test file ") && !first.starts_with("(from function ") {
            return None;
        }
        let mut end = None;
        for (k, body) in bodies.iter().enumerate().take(50) {
            let b = (*body)?.trim();
            if let Some(at) = b.rsplit_once("in test file ").map(|(_, at)| at) {
                end = Some((k, at.strip_suffix(')')?));
                break;
            }
        }
        let (last, at) = end?;
        let (file, line) = at.rsplit_once(", line ")?;
        self.location
            .get_or_insert_with(|| format!("{file}:{line}"));
        if self.stack.is_none() {
            self.stack = bats_stack(&bodies[..=last]);
        }
        let command = bodies
            .get(last + 1)
            .copied()
            .flatten()
            .map(str::trim)
            .filter(|n| is_failed_command(n));
        match command {
            Some(command) => {
                self.message.get_or_insert_with(|| command.to_owned());
                Some(last + 2)
            }
            None => Some(last + 1),
        }
    }

    /// pgTAP's `Failed test N: "name"` and its `have:`/`want:` or records ([`super::pgtap`]).
    fn pgtap(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        if super::pgtap::is_heading(bodies.first().copied().flatten()?) {
            return Some(1);
        }
        if self.expected_actual.is_some() {
            return None;
        }
        let said = super::pgtap::read(bodies)?;
        if let Some(message) = said.message {
            self.message.get_or_insert(message);
        }
        self.expected_actual = said.expected_actual;
        Some(said.used)
    }

    /// Test2's table (`| GOT | OP | CHECK |`), read as Test2 means it ([`super::test2`]), and
    /// `isnt`'s `Comparison matched (it should not).`
    fn test2_table(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        if self.expected_actual.is_some() {
            return None;
        }
        if bodies.first().copied().flatten()?.trim() == "Comparison matched (it should not)." {
            // Test2's `isnt`: no table, the sentence is what failed.
            self.message
                .get_or_insert_with(|| "Comparison matched (it should not)".to_owned());
            return Some(1);
        }
        let table = super::test2::read(bodies)?;
        if let Some(message) = table.message {
            self.message.get_or_insert(message);
        }
        self.expected_actual = Some(table.expected_actual);
        Some(table.used)
    }

    /// pytest's `E` lines, the error it reports: the message, and the values when they claim
    /// `assert X == Y` (or unittest's `X != Y`) of two values. pytest's explanation of the
    /// values goes, as ours is drawn instead; its `+  where` lines stay, saying where a value
    /// came from. Without values its words are all there is, and all stay.
    fn pytest_error(&mut self, bodies: &[Option<&str>], pytest: bool) -> Option<usize> {
        if !pytest || self.message.is_some() {
            return None;
        }
        let block: Vec<(usize, &str)> = bodies
            .iter()
            .map_while(|b| b.and_then(error_line))
            .collect();
        let base = block
            .iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(indent, _)| *indent)
            .min()?;
        let claim = block
            .iter()
            .position(|(indent, t)| *indent == base && without_class(t).starts_with("assert "));
        let read = claim.and_then(|k| Some((k, assert_values(without_class(block[k].1))?)));
        let mut message: Vec<String> = Vec::new();
        if let Some((k, values)) = read {
            message.extend(block[..k].iter().map(|(_, t)| (*t).to_owned()));
            message.push(without_class(block[k].1).to_owned());
            message.extend(
                block[k + 1..]
                    .iter()
                    .filter(|(indent, t)| *indent > base && is_where(t))
                    .map(|(_, t)| (*t).to_owned()),
            );
            self.expected_actual.get_or_insert(values);
        } else if let Some(values) = unittest_values(block[0].1) {
            message.push(block[0].1.to_owned());
            self.expected_actual.get_or_insert(values);
        } else {
            let pad = |indent: usize| " ".repeat(indent.saturating_sub(base));
            message.extend(
                block
                    .iter()
                    .map(|(indent, t)| format!("{}{t}", pad(*indent))),
            );
        }
        let text = message.join("\n");
        self.message = Some(text.trim_end().to_owned()).filter(|m| !m.is_empty());
        Some(block.len())
    }

    /// bats-assert's `-- values do not equal --`, `expected : x`, `actual   : y`, `--`.
    fn bats_assert(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        let head = bodies.first().copied().flatten()?.trim();
        let title = head.strip_prefix("-- ")?.strip_suffix(" --")?;
        let mut fields = Vec::new();
        let mut end = None;
        for (k, body) in bodies.iter().enumerate().skip(1).take(50) {
            let b = (*body)?.trim_start();
            if b.trim() == "--" {
                end = Some(k + 1);
                break;
            }
            let (key, value) = b.split_once(" : ")?;
            fields.push((key.trim(), value));
        }
        let end = end?;
        let field = |name: &str| fields.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
        let (expected, actual) = (field("expected")?, field("actual")?);
        if self.expected_actual.is_some() {
            return None;
        }
        self.expected_actual = Some((
            Value::String(expected.to_owned()),
            Value::String(actual.to_owned()),
        ));
        self.message.get_or_insert_with(|| title.to_owned());
        Some(end)
    }

    /// Under bats' failed command, a test helper's `expected: x` and `actual: y` lines (either
    /// order; rbenv's and its kin's `assert_equal`, a test's own `echo`): the values compared.
    fn bats_expected_actual(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        if self.expected_actual.is_some() || !self.message.as_deref().is_some_and(is_failed_command)
        {
            return None;
        }
        let field = |k: usize, name: &str| {
            let body = bodies.get(k).copied().flatten()?.trim_start();
            Some(
                body.strip_prefix(name)?
                    .strip_prefix(':')?
                    .trim_start()
                    .to_owned(),
            )
        };
        let (expected, actual) = match field(0, "expected") {
            Some(expected) => (expected, field(1, "actual")?),
            None => {
                let actual = field(0, "actual")?;
                (field(1, "expected")?, actual)
            }
        };
        self.expected_actual = Some((Value::String(expected), Value::String(actual)));
        Some(2)
    }

    /// A Python traceback: its frames as the stack, the exception line as the message.
    fn traceback(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        let head = bodies.first().copied().flatten()?.trim();
        if head != "Traceback (most recent call last):" || self.stack.is_some() {
            return None;
        }
        // The printer put one space after `#`; the frames are indented under the heading.
        let line = |k: usize| {
            bodies
                .get(k)
                .copied()
                .flatten()
                .map(|b| b.strip_prefix(' ').unwrap_or(b))
        };
        let mut frames = vec![head.to_owned()];
        let mut k = 1;
        while let Some(b) = line(k).filter(|b| b.starts_with(' ')) {
            frames.push(b.to_owned());
            k += 1;
        }
        let exception = line(k).map(str::trim).filter(|e| !e.is_empty())?;
        self.stack = Some(frames.join("\n"));
        self.message.get_or_insert_with(|| exception.to_owned());
        let mut used = k + 1;
        // unittest's `first != second`: its values, and the ndiff it prints of the same values
        // under it, which the diff drawn from them replaces.
        if self.expected_actual.is_none() {
            if let Some(values) = unittest_values(exception) {
                self.expected_actual = Some(values);
                used += ndiff_lines(&bodies[used..]);
            }
        }
        Some(used)
    }
}

/// How many of `bodies` are the ndiff unittest prints under `first != second`: `- first`,
/// `? ^` marks, `+ second`, lines both share (`  …`) and blank ones, as long as a `-` and a
/// `+` line are among them (blank lines at its end left to the caller).
fn ndiff_lines(bodies: &[Option<&str>]) -> usize {
    let mut end = 0;
    let (mut minus, mut plus) = (false, false);
    for (k, body) in bodies.iter().enumerate().take(MAX_VALUE_LINES) {
        let Some(body) = body else { break };
        let b = body.strip_prefix(' ').unwrap_or(body);
        if b.trim().is_empty() {
            continue;
        }
        match b.get(..2) {
            Some("- ") => minus = true,
            Some("+ ") => plus = true,
            Some("? " | "  ") => {}
            _ => break,
        }
        end = k + 1;
    }
    if minus && plus {
        end
    } else {
        0
    }
}

/// Where a Python traceback's test is: the deepest frame of the test's method `test` (from
/// unittest's name for the test, `test_x (module.Class.test_x)`), else the deepest frame
/// outside Python's standard library and installed packages. An assertion helper a library
/// defines is deeper than the test's line, and not the test's: tapline's own unittest reader
/// places a failure the same way.
pub(super) fn traceback_location(stack: &str, test: Option<&str>) -> Option<String> {
    let mut lines = stack.lines();
    if lines.next()?.trim() != "Traceback (most recent call last):" {
        return None;
    }
    let frames: Vec<(&str, &str, &str)> = lines.filter_map(python_frame).collect();
    let place = |(file, line, _): &(&str, &str, &str)| format!("{file}:{line}");
    if let Some(frame) = test.and_then(|t| frames.iter().rev().find(|f| f.2 == t)) {
        return Some(place(frame));
    }
    frames
        .iter()
        .rev()
        .find(|(file, _, _)| {
            !super::stack::is_internal(&format!("File \"{file}\""))
                && !file.contains("/site-packages/")
                && !file.contains("/dist-packages/")
        })
        .map(place)
}

/// `  File "path.py", line 14, in test_x` as (path, line, function).
fn python_frame(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    let (number, function) = rest.split_once(", in ")?;
    let plausible = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
    plausible.then_some((file, number, function.trim_end()))
}

/// The method of a test unittest names `test_x (module.Class.test_x)` (a subtest's name goes
/// on with its parameters: `… (value='a')`).
pub(super) fn unittest_method(name: &str) -> Option<&str> {
    let (method, rest) = name.split_once(" (")?;
    let id = rest.split_once(')')?.0;
    let identifier = !method.is_empty()
        && method
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    (identifier && id.strip_suffix(method)?.ends_with('.')).then_some(method)
}

/// `path.py:N: ErrorName` (or `path.py:N: ` for a frame an error passed through, `path.py:N:
/// in name` heading a frame of `--tb=short`) as `path.py:N`.
fn pytest_location(body: &str) -> Option<String> {
    let (place, error) = match body.strip_suffix(':') {
        Some(place) => (place, ""),
        None => body.rsplit_once(": ")?,
    };
    let error = match error.strip_prefix("in ") {
        Some(function) if !function.contains(' ') => "",
        _ => error,
    };
    let (file, line) = place.rsplit_once(':')?;
    let plausible = file.ends_with(".py")
        && !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && error
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    plausible.then(|| format!("{file}:{line}"))
}

/// One of pytest's `E   text` lines: its indentation after the `E` and its text (empty for
/// a blank one).
fn error_line(body: &str) -> Option<(usize, &str)> {
    let rest = body.strip_prefix(' ').unwrap_or(body).strip_prefix('E')?;
    let text = rest.trim();
    if text.is_empty() {
        return Some((usize::MAX, ""));
    }
    let indent = rest.len() - rest.trim_start().len();
    (indent >= 3).then_some((indent, text))
}

/// `assert X` without the `AssertionError: ` pytest puts before it when it explains more.
fn without_class(line: &str) -> &str {
    line.strip_prefix("AssertionError: ")
        .filter(|rest| rest.starts_with("assert "))
        .unwrap_or(line)
}

/// pytest's `+  where 5 = f()` and `+  and   6 = g()` lines.
fn is_where(line: &str) -> bool {
    let rest = line.trim_start_matches(['+', ' ']);
    line.starts_with('+') && (rest.starts_with("where ") || rest.starts_with("and "))
}

/// The values of `assert X == Y` (X what the test got): the first ` == ` whose two sides
/// both read as values.
fn assert_values(claim: &str) -> Option<(Value, Value)> {
    let claim = claim.strip_prefix("assert ")?;
    split_values(claim, " == ")
}

/// The values of unittest's `AssertionError: [Lists differ: ]X != Y` (X the first argument,
/// what the test got by the usual `assertEqual(result, expected)`).
fn unittest_values(line: &str) -> Option<(Value, Value)> {
    let claim = line.strip_prefix("AssertionError: ")?;
    let claim = match claim.split_once(" differ: ") {
        Some((kind, rest)) if kind.bytes().all(|b| b.is_ascii_alphabetic()) => rest,
        _ => claim,
    };
    split_values(claim, " != ")
}

/// `left OP right` at the first `op` where both sides read: (right, left), expected first.
fn split_values(claim: &str, op: &str) -> Option<(Value, Value)> {
    claim.match_indices(op).find_map(|(k, _)| {
        let left = literal::parse(claim.get(..k)?)?;
        let right = literal::parse(claim.get(k + op.len()..)?)?;
        Some((right, left))
    })
}

/// `at FILE line N.` as `FILE:N`.
fn perl_at(s: &str) -> Option<String> {
    let rest = s.strip_prefix("at ")?.strip_suffix('.')?;
    let (file, line) = rest.rsplit_once(" line ")?;
    line.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| format!("{file}:{line}"))
}

/// A value as Test::More prints it, and how many lines it took: `'text'` (which may go on over
/// the next comment lines), `undef`, or a bare word (`HASH(0x…)`, `Does not exist`).
fn perl_value(first: &str, more: &[Option<&str>]) -> Option<(Value, usize)> {
    let first = first.trim_end();
    let Some(open) = first.strip_prefix('\'') else {
        return Some((diff::bare(first.trim()), 1));
    };
    if let Some(text) = open.strip_suffix('\'') {
        return Some((Value::String(text.to_owned()), 1));
    }
    // A value with line breaks: Test::More prints its later lines as comments of their own.
    let mut text = open.to_owned();
    for (k, body) in more.iter().take(MAX_VALUE_LINES).enumerate() {
        let body = (*body)?;
        let line = body.strip_prefix(' ').unwrap_or(body);
        text.push('\n');
        if let Some(last) = line.strip_suffix('\'') {
            text.push_str(last);
            return Some((Value::String(text), k + 2));
        }
        text.push_str(line);
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_files_closing_totals_are_no_output() {
        let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<String>>();
        // tape 5, a failing file and a passing one.
        let mut failing = lines("printed\n\n1..426\n# tests 426\n# pass  425\n# fail  1\n");
        strip_totals(&mut failing);
        assert_eq!(failing, ["printed", "", "1..426"]);
        let mut passing = lines("# tests 3\n# pass  3\n\n# ok\n");
        strip_totals(&mut passing);
        assert!(passing.is_empty(), "{passing:?}");
        // A line after them that is no total: they were the test's own words.
        let mut own = lines("# tests 3\n# pass  3\nprinted\n");
        strip_totals(&mut own);
        assert_eq!(own.len(), 3);
    }

    use super::*;
    use serde_json::json;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn test_more_is_reads_as_a_diff_with_its_location() {
        let r = read(
            &lines(
                "#   Failed test 'x'\n#   at t/a.t line 13.\n#          got: 'actual'\n#     expected: 'expected'\n# other",
            ),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("t/a.t:13"));
        assert_eq!(
            r.expected_actual,
            Some((json!("expected"), json!("actual")))
        );
        assert_eq!(r.rest, ["# other"]);
    }

    #[test]
    fn test_more_multi_line_and_undef_values() {
        let r = read(
            &lines("#          got: 'a\n# b'\n#     expected: undef"),
            true,
        );
        assert_eq!(
            r.expected_actual,
            Some((diff::bare("undef"), json!("a\nb")))
        );
        assert!(r.rest.is_empty());
    }

    #[test]
    fn is_deeply_names_the_place() {
        let r = read(
            &lines(
                "#     Structures begin differing at:\n#          $got->{b}[1] = '2'\n#     $expected->{b}[1] = Does not exist",
            ),
            true,
        );
        assert_eq!(
            r.message.as_deref(),
            Some("Structures begin differing at ->{b}[1]")
        );
        assert_eq!(
            r.expected_actual,
            Some((diff::bare("Does not exist"), json!("2")))
        );
    }

    #[test]
    fn test2_table_of_one_row_is_a_diff() {
        let r = read(
            &lines(
                "# +--------+-----+----+-------+\n# | PATH   | GOT | OP | CHECK |\n# +--------+-----+----+-------+\n# | [1][1] | 3   | eq | 4     |\n# +--------+-----+----+-------+\n# after",
            ),
            true,
        );
        assert_eq!(r.expected_actual, Some((json!("4"), json!("3"))));
        assert_eq!(
            r.message.as_deref(),
            Some("Structures begin differing at [1][1]")
        );
        assert_eq!(r.rest, ["# after"]);
    }

    #[test]
    fn pytest_assert_reads_both_sides_and_drops_its_explanation() {
        let r = read(
            &lines(
                "# E       AssertionError: assert [1, 'a == b'] == [2, 'a == b']\n# E         At index 0 diff: 1 != 2\n# E         Use -v to get more diff\n# \n# t/test_a.py:7: AssertionError",
            ),
            true,
        );
        assert_eq!(
            r.expected_actual,
            Some((json!([2, "a == b"]), json!([1, "a == b"])))
        );
        assert_eq!(
            r.message.as_deref(),
            Some("assert [1, 'a == b'] == [2, 'a == b']")
        );
        assert!(r.rest.is_empty(), "{:?}", r.rest);
        // Not values: pytest's words are the message.
        let r = read(
            &lines(
                "# E       assert <Foo> == 1\n# E         more\n# t/test_a.py:7: AssertionError",
            ),
            true,
        );
        assert_eq!(r.message.as_deref(), Some("assert <Foo> == 1\n  more"));
        assert_eq!(r.expected_actual, None);
        // Without pytest's location line, `E` lines are anyone's.
        let text = "# E       assert 1 == 2";
        assert_eq!(read(&lines(text), true).rest, lines(text));
    }

    /// A pytest 7.4.4 failure as pytest-tap 3.5 writes it (python 3.11.7): `body` between the
    /// test's source and the `--- Captured` headings.
    fn pytest_failure(body: &str) -> Vec<String> {
        let tail =
            "# --- Captured Log ---\n# \n# --- Captured Out ---\n# \n# --- Captured Err ---\n#";
        lines(&format!("{body}\n{tail}"))
    }

    #[test]
    fn pytest_assertion_is_the_message_values_and_location() {
        let r = read(
            &pytest_failure(
                "# def test_message():\n#         x = 3\n# >       assert x == 4, \"x should be four\"\n# E       AssertionError: x should be four\n# E       assert 3 == 4\n# \n# test_values.py:15: AssertionError",
            ),
            true,
        );
        assert_eq!(
            r.message.as_deref(),
            Some("AssertionError: x should be four\nassert 3 == 4")
        );
        assert_eq!(r.expected_actual, Some((json!(4), json!(3))));
        assert_eq!(r.location.as_deref(), Some("test_values.py:15"));
        assert_eq!(
            r.rest,
            [
                "# def test_message():",
                "#         x = 3",
                "# >       assert x == 4, \"x should be four\""
            ]
        );
        // pytest's explanation goes with the values it explains; `where` says where one came from.
        let r = read(
            &pytest_failure(
                "# def test_call():\n# >       assert helper() == 6\n# E       assert 5 == 6\n# E        +  where 5 = helper()\n# \n# test_values.py:21: AssertionError",
            ),
            true,
        );
        assert_eq!(
            r.message.as_deref(),
            Some("assert 5 == 6\n+  where 5 = helper()")
        );
        assert_eq!(r.expected_actual, Some((json!(6), json!(5))));
        let r = read(
            &pytest_failure(
                "# def test_strings():\n# >       assert 'abc' == \"it's\"\n# E       assert 'abc' == \"it's\"\n# E         - it's\n# E         + abc\n# \n# test_values.py:2: AssertionError",
            ),
            true,
        );
        assert_eq!(r.message.as_deref(), Some("assert 'abc' == \"it's\""));
        assert_eq!(r.expected_actual, Some((json!("it's"), json!("abc"))));
        assert_eq!(r.rest.len(), 2, "{:?}", r.rest);
    }

    #[test]
    fn python_reprs_in_pytest_assertions_are_their_values() {
        let r = read(
            &pytest_failure(
                "# def test_bytes():\n# >       assert b'x' == b'y'\n# E       AssertionError: assert b'x' == b'y'\n# E         At index 0 diff: b'x' != b'y'\n# E         Use -v to get more diff\n# \n# test_values.py:5: AssertionError",
            ),
            true,
        );
        assert_eq!(r.message.as_deref(), Some("assert b'x' == b'y'"));
        assert_eq!(
            r.expected_actual,
            Some((diff::typed("b'y'", "bytes"), diff::typed("b'x'", "bytes")))
        );
        let r = read(
            &pytest_failure(
                "# def test_none():\n# >       assert None == 'None'\n# E       AssertionError: assert None == 'None'\n# \n# test_values.py:11: AssertionError",
            ),
            true,
        );
        let none = diff::typed("None", "None");
        assert_eq!(r.expected_actual, Some((json!("None"), none.clone())));
        let r = read(
            &pytest_failure(
                "# def test_containers():\n# >       assert {'a': [1, (2, None)]} == {'a': [1, (3, None)]}\n# E       AssertionError: assert {'a': [1, (2, None)]} == {'a': [1, (3, None)]}\n# E         Differing items:\n# E         {'a': [1, (2, None)]} != {'a': [1, (3, None)]}\n# E         Use -v to get more diff\n# \n# test_values.py:8: AssertionError",
            ),
            true,
        );
        assert_eq!(
            r.expected_actual,
            Some((json!({"a": [1, [3, none]]}), json!({"a": [1, [2, none]]})))
        );
    }

    #[test]
    fn pytest_unittest_and_raised_errors() {
        // unittest's assertEqual through pytest: `first != second`, then its own diff.
        let r = read(
            &pytest_failure(
                "# self = <test_more.Tests testMethod=test_lists>\n# \n#     def test_lists(self):\n#         a = [1, 2, 3]\n#         b = [1, 2, 4]\n#         # a comment\n# >       self.assertEqual(a, b)\n# E       AssertionError: Lists differ: [1, 2, 3] != [1, 2, 4]\n# E       \n# E       First differing element 2:\n# E       3\n# E       4\n# E       \n# E       - [1, 2, 3]\n# E       ?        ^\n# E       \n# E       + [1, 2, 4]\n# E       ?        ^\n# \n# test_more.py:10: AssertionError",
            ),
            true,
        );
        assert_eq!(
            r.message.as_deref(),
            Some("AssertionError: Lists differ: [1, 2, 3] != [1, 2, 4]")
        );
        assert_eq!(
            r.expected_actual,
            Some((json!([1, 2, 4]), json!([1, 2, 3])))
        );
        assert_eq!(r.location.as_deref(), Some("test_more.py:10"));
        assert_eq!(r.rest.len(), 7, "{:?}", r.rest);
        // Raised in a helper: the message is the error, the place the test's own frame; the
        // helper's frame stays output.
        let r = read(
            &lines(
                "# def test_helper():\n#         print(\"captured out\")\n# >       check(3)\n# \n# test_more.py:25: \n# _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n# \n# x = 3\n# \n#     def check(x):\n#         if x != 4:\n# >           raise ValueError(f\"x is {x}\")\n# E           ValueError: x is 3\n# \n# helper_mod.py:3: ValueError\n# --- Captured Log ---\n# \n# --- Captured Out ---\n# captured out",
            ),
            true,
        );
        assert_eq!(r.message.as_deref(), Some("ValueError: x is 3"));
        assert_eq!(r.location.as_deref(), Some("test_more.py:25"));
        assert_eq!(r.expected_actual, None);
        assert!(
            r.rest.contains(&"# helper_mod.py:3: ValueError".to_owned()),
            "{:?}",
            r.rest
        );
        assert!(!r.rest.iter().any(|l| l.contains("E ")), "{:?}", r.rest);
        // Not values: pytest's explanation is all there is, kept in the message.
        let r = read(
            &pytest_failure(
                "# def test_raises():\n# >       with pytest.raises(ValueError):\n# E       Failed: DID NOT RAISE <class 'ValueError'>\n# \n# test_more.py:20: Failed",
            ),
            true,
        );
        assert_eq!(
            r.message.as_deref(),
            Some("Failed: DID NOT RAISE <class 'ValueError'>")
        );
        let r = read(
            &pytest_failure(
                "# def test_str_multiline():\n#         expected = \"line one\\nline two\\n\"\n# >       assert \"line one\\nline 2\\n\" == expected\n# E       AssertionError: assert 'line one\\nline 2\\n' == 'line one\\nline two\\n'\n# E           line one\n# E         - line two\n# E         ?      ^^^\n# E         + line 2\n# E         ?      ^\n# \n# test_more.py:32: AssertionError",
            ),
            true,
        );
        assert_eq!(
            r.expected_actual,
            Some((json!("line one\nline two\n"), json!("line one\nline 2\n")))
        );
        assert_eq!(
            r.message.as_deref(),
            Some("assert 'line one\\nline 2\\n' == 'line one\\nline two\\n'")
        );
    }

    #[test]
    fn pytest_short_tracebacks_name_the_frame_after_its_place() {
        // pytest 7.4.4 --tb=short, pytest-tap 3.5.
        let r = read(
            &lines(
                "# test_more.py:25: in test_helper\n#     check(3)\n# helper_mod.py:3: in check\n#     raise ValueError(f\"x is {x}\")\n# E   ValueError: x is 3\n# --- Captured Log ---\n# \n# --- Captured Out ---\n# captured out",
            ),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("test_more.py:25"));
        assert_eq!(r.message.as_deref(), Some("ValueError: x is 3"));
        assert_eq!(
            r.rest,
            [
                "#     check(3)",
                "# helper_mod.py:3: in check",
                "#     raise ValueError(f\"x is {x}\")",
                "# --- Captured Out ---",
                "# captured out"
            ]
        );
        let r = read(
            &lines(
                "# test_more.py:14: in test_strings\n#     self.assertEqual('uri://a/', 'uri://b/')\n# E   AssertionError: 'uri://a/' != 'uri://b/'\n# E   - uri://a/\n# E   ?       ^\n# E   + uri://b/\n# E   ?       ^",
            ),
            true,
        );
        assert_eq!(
            r.expected_actual,
            Some((json!("uri://b/"), json!("uri://a/")))
        );
        assert_eq!(
            r.message.as_deref(),
            Some("AssertionError: 'uri://a/' != 'uri://b/'")
        );
    }

    #[test]
    fn a_python_traceback_is_the_stack_and_its_exception_the_message() {
        let r = read(
            &lines(
                "# Traceback (most recent call last):\n#   File \"/usr/lib/python3.11/unittest/case.py\", line 57, in run\n#     yield\n#   File \"/w/t.py\", line 43, in test_raises\n#     raise RuntimeError(\"boom\")\n# RuntimeError: boom\n# after",
            ),
            true,
        );
        assert_eq!(r.message.as_deref(), Some("RuntimeError: boom"));
        assert_eq!(
            r.stack.as_deref(),
            Some(
                "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/unittest/case.py\", line 57, in run\n    yield\n  File \"/w/t.py\", line 43, in test_raises\n    raise RuntimeError(\"boom\")"
            )
        );
        assert_eq!(r.rest, ["# after"]);
    }

    #[test]
    fn unittest_values_in_a_traceback_replace_its_ndiff() {
        // tap.py 3.1 (python 3.11.7): assertEqual's `first != second`, then its ndiff.
        let r = read(
            &lines(
                "# Traceback (most recent call last):\n#   File \"/w/mixed.py\", line 14, in test_x\n#     self.assertEqual([1, 2], [1, 3])\n# AssertionError: [1, 2] != [1, 3]\n# - [1, 2]\n# ?     ^\n# \n# + [1, 3]\n# ?     ^\n#\nafter",
            ),
            true,
        );
        assert_eq!(
            r.message.as_deref(),
            Some("AssertionError: [1, 2] != [1, 3]")
        );
        assert_eq!(r.expected_actual, Some((json!([1, 3]), json!([1, 2]))));
        assert_eq!(r.rest, ["after"]);
        // Without values unittest's words stay.
        let r = read(
            &lines(
                "# Traceback (most recent call last):\n#   File \"/w/t.py\", line 3, in test_y\n#     f()\n# AssertionError: 'a' == 'a'\n# - not a diff",
            ),
            true,
        );
        assert_eq!(r.expected_actual, None);
        assert_eq!(r.rest, ["# - not a diff"]);
    }

    #[test]
    fn a_traceback_is_located_at_the_tests_method_else_the_deepest_project_frame() {
        let stack = "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/unittest/case.py\", line 57, in run\n    yield\n  File \"/w/tests/test_a.py\", line 14, in test_x\n    check(1)\n  File \"/w/tests/helpers.py\", line 3, in check\n    assert x\n  File \"/v/lib/python3.11/site-packages/lib/tools.py\", line 9, in eq\n    raise AssertionError";
        assert_eq!(
            traceback_location(stack, Some("test_x")).as_deref(),
            Some("/w/tests/test_a.py:14")
        );
        assert_eq!(
            traceback_location(stack, None).as_deref(),
            Some("/w/tests/helpers.py:3")
        );
        assert_eq!(
            traceback_location("Error: x\n  at f (a.js:1:2)", None),
            None
        );
        assert_eq!(
            unittest_method("test_x (__main__.T.test_x) (value='a (b)')"),
            Some("test_x")
        );
        assert_eq!(unittest_method("Docstring (not a test id)"), None);
        assert_eq!(unittest_method("test_x (pkg.T.other_x)"), None);
    }

    #[test]
    fn test_more_like_and_unlike_are_the_value_against_the_check() {
        let text = "#   Failed test at t/h.t line 54.\n#                   'https://x/a.gif'\n#     doesn't match '(?^:^http://x/)'";
        let r = read(&lines(text), true);
        assert_eq!(r.location.as_deref(), Some("t/h.t:54"));
        assert_eq!(
            r.expected_actual,
            Some((diff::bare("=~ (?^:^http://x/)"), json!("https://x/a.gif")))
        );
        assert!(r.rest.is_empty(), "{:?}", r.rest);
        let text = "#                   'a\n# b'\n#           matches '(?^:b)'";
        let r = read(&lines(text), true);
        assert_eq!(
            r.expected_actual,
            Some((diff::bare("!~ (?^:b)"), json!("a\nb")))
        );
        let text = "#                   undef\n#     doesn't match '(?^:x)'";
        let r = read(&lines(text), true);
        assert_eq!(
            r.expected_actual,
            Some((diff::bare("=~ (?^:x)"), diff::bare("undef")))
        );
        // A note that only looks like a value stays output.
        let r = read(&lines("# 'quoted'\n# and more"), true);
        assert_eq!(r.expected_actual, None);
        assert_eq!(r.rest.len(), 2);
    }

    #[test]
    fn isnt_is_no_diff() {
        let text = "#          got: 'a'\n#     expected: anything else";
        let r = read(&lines(text), true);
        assert_eq!(r.expected_actual, None);
        assert_eq!(r.rest, lines(text));
    }

    #[test]
    fn pytest_location_and_empty_captures() {
        let r = read(
            &lines(
                "# E   boom\n# \n# t/test_a.py:15: AssertionError\n# --- Captured Log ---\n# \n# --- Captured Out ---\n# \n# --- Captured Err ---\n# hello",
            ),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("t/test_a.py:15"));
        assert_eq!(r.message.as_deref(), Some("boom"));
        assert_eq!(r.rest, ["# --- Captured Err ---", "# hello"]);
    }

    #[test]
    fn bats_failed_command_with_its_status() {
        for (line, is) in [
            ("`false' failed", true),
            ("`run_it' failed with status 2", true),
            ("`sleep 9' failed due to timeout", true),
            ("`sleep 9' failed with status 124 due to timeout", true),
            ("`x' failed to start", false),
            ("false' failed", false),
        ] {
            assert_eq!(is_failed_command(line), is, "{line}");
        }
    }

    #[test]
    fn bats_location_command_and_assert_block() {
        let r = read(
            &lines(
                "# (in test file t/a.bats, line 14)\n#   `assert_equal \"$a\" b' failed\n#\n# -- values do not equal --\n# expected : b\n# actual   : a\n# --\n#",
            ),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("t/a.bats:14"));
        assert_eq!(r.message.as_deref(), Some("`assert_equal \"$a\" b' failed"));
        assert_eq!(r.expected_actual, Some((json!("b"), json!("a"))));
        assert!(r.rest.is_empty(), "{:?}", r.rest);
        // bats-assert's own frames above the test file's line.
        let r = read(
            &lines(
                "# (from function `assert_equal' in file /n/bats-assert/src/assert_equal.bash, line 40,\n#  in test file t/f.bats, line 11)\n#   `assert_equal \"got\" \"wanted\"' failed",
            ),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("t/f.bats:11"));
        assert!(r.message.is_some() && r.rest.is_empty());
        assert_eq!(r.stack, None, "a library's frames only");
        // Plain output lines are never read.
        let r = read(&lines("got: 'a'\nexpected: 'b'"), true);
        assert_eq!(r.expected_actual, None);
    }

    #[test]
    fn bats_project_helper_frames_and_its_expected_actual() {
        // rbenv's test_helper: its own assert_equal prints `expected:` / `actual:`.
        let r = read(
            &lines(
                "# (from function `assert_equal' in file test/test_helper.bash, line 56,\n#  from function `assert_output' in file test/test_helper.bash, line 65,\n#  from function `x' in file /usr/lib/bats-assert/src/x.bash, line 3,\n#  in test file test/version-name.bats, line 81)\n#   `assert_output \"1.8.7\"' failed\n# expected: 1.8.7\n# actual:   ruby-1.8.7",
            ),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("test/version-name.bats:81"));
        assert_eq!(
            r.stack.as_deref(),
            Some(
                "(from function `assert_equal' in file test/test_helper.bash, line 56,\nfrom function `assert_output' in file test/test_helper.bash, line 65,\nin test file test/version-name.bats, line 81)"
            )
        );
        assert_eq!(
            r.expected_actual,
            Some((json!("1.8.7"), json!("ruby-1.8.7")))
        );
        assert!(r.rest.is_empty(), "{:?}", r.rest);
        // Without bats' failed command above them, such lines are the test's output.
        let r = read(&lines("# expected: 1\n# actual: 2"), true);
        assert_eq!(r.expected_actual, None);
    }
}
