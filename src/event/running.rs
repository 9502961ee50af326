//! Which test a stream was running when it stopped (issue 41 item 3): a file whose process
//! died, or that tapline killed at its timeout, names the test it died in. What names it is
//! what the producer said before that test reported: a protocol-v2 `test:started` event with
//! no test point after it (tapline's own plugins write one as each test starts), or a
//! subtest whose head was read (`# Subtest: name`) and whose closing point never came. A plain
//! TAP point is printed once its test is over, so a stream of points alone names none.
//! (A test2json test that started and never ended is a failing test of its own: its reader
//! says so.)
use super::{Event, OpenSubtests};

#[derive(Debug, Default)]
pub(crate) struct Running {
    subtests: OpenSubtests,
    /// A `test:started` with no point since: its depth and full name.
    started: Option<(u32, String)>,
}

impl Running {
    pub(crate) fn event(&mut self, ev: &Event<'_>) {
        match ev {
            Event::SubtestStart { depth, name, .. } => self.subtests.start(*depth, name),
            // The test it started reports: it is no longer running.
            Event::AssertBegin { depth, .. }
                if self.started.as_ref().is_some_and(|(d, _)| d >= depth) =>
            {
                self.started = None;
            }
            Event::Assert(a) => self.subtests.after(a),
            Event::V2Event { depth, json, .. } => match lifecycle(json) {
                Some(("test:started", Some(name))) => {
                    self.started = Some((*depth, self.subtests.path(*depth, &name)));
                }
                Some(("test:completed", _)) => self.started = None,
                _ => {}
            },
            _ => {}
        }
    }

    /// The test running when the stream stopped, by its full path; `None` when every test it
    /// began had reported.
    pub(crate) fn test(&self) -> Option<String> {
        if let Some((_, name)) = &self.started {
            return Some(name.clone());
        }
        let path = self.subtests.innermost();
        (!path.is_empty()).then_some(path)
    }
}

/// A v2 event's `type` and `name`.
fn lifecycle(json: &str) -> Option<(&'static str, Option<String>)> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let kind = match v.get("type")?.as_str()? {
        "test:started" => "test:started",
        "test:completed" => "test:completed",
        _ => return None,
    };
    let name = v.get("name").and_then(|n| n.as_str()).map(str::to_owned);
    Some((kind, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_all;

    fn running(tap: &str) -> Option<String> {
        let mut r = Running::default();
        for ev in parse_all(tap.as_bytes()) {
            r.event(&ev);
        }
        r.test()
    }

    #[test]
    fn a_started_test_without_its_point_was_running() {
        let mut r = Running::default();
        for ev in parse_all(b"1..2\nok 1 - test_ok\n") {
            r.event(&ev);
        }
        r.event(&Event::V2Event {
            depth: 0,
            line: 3,
            json: r#"{"type":"test:started","name":"test_crash"}"#.into(),
        });
        assert_eq!(r.test().as_deref(), Some("test_crash"));
        for ev in parse_all(b"not ok 2 - test_crash\n") {
            r.event(&ev);
        }
        assert_eq!(r.test(), None);
    }

    #[test]
    fn an_unclosed_subtest_was_running() {
        let tap = "1..2\n# Subtest: outer\n    1..2\n    # Subtest: inner\n        1..1\n        ok 1 - a\n";
        assert_eq!(running(tap).as_deref(), Some("outer > inner"));
        let closed = "1..2\n# Subtest: outer\n    1..1\n    ok 1 - a\nok 1 - outer\n";
        assert_eq!(running(closed), None);
    }

    #[test]
    fn plain_points_name_no_running_test() {
        assert_eq!(running("1..3\nok 1 - a\nnot ok 2 - b\n"), None);
    }
}
