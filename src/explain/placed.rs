//! A failure's location checked against its file: a place whose column lies past the end of
//! its line cannot be in that source. A runner's own `location:` of a TypeScript file run under
//! a loader that maps stacks but not the runner's positions is such a transpiled place
//! (`numberSum.spec.ts:2:1073`, docs/failures.md), while the failure's stack, which the loader
//! maps, names the source's own line (`numberSum.spec.ts:11:14`): then the stack's first frame
//! in the same file is the location, as the runner's own reporter shows that stack. A file that
//! cannot be read (a stream from another machine) keeps the location as it came.

/// `location`, or the first frame of `stack` in its file when `location` is no place in it.
pub(crate) fn placed(location: String, stack: Option<&str>) -> String {
    let Some((file, line, column)) = split(&location) else {
        return location;
    };
    // The file is read only when the stack names another place in it: most failures carry
    // none, or the same.
    match stack.and_then(|s| first_frame_in(s, file)) {
        Some(frame) if frame != location && past_the_line(file, line, column) => frame,
        _ => location,
    }
}

/// `file`, line and column of `file:line:column` (`file://` taken off the file).
fn split(location: &str) -> Option<(&str, usize, usize)> {
    let mut parts = location.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    Some((file.strip_prefix("file://").unwrap_or(file), line, column))
}

/// Whether `column` lies past the end of line `line` of `file` (`false` when it cannot be
/// read, or the line is not there: nothing then says the place is wrong).
fn past_the_line(file: &str, line: usize, column: usize) -> bool {
    const LIMIT: u64 = 4 * 1024 * 1024;
    let readable = std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() <= LIMIT);
    if !readable || line == 0 {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(file) else {
        return false;
    };
    text.lines()
        .nth(line - 1)
        .is_some_and(|l| column > l.chars().count() + 1)
}

/// The place of `stack`'s first frame in `file` (`at f (FILE:L:C)`, `at FILE:L:C`, or without
/// the `at`, as some runners write their YAML's frames).
fn first_frame_in(stack: &str, file: &str) -> Option<String> {
    stack.lines().find_map(|l| {
        let l = l.trim();
        let place = l.strip_prefix("at ").unwrap_or(l);
        let place = match place.rfind('(') {
            Some(open) => place.get(open + 1..)?.strip_suffix(')')?,
            None => place,
        };
        let (f, ..) = split(place)?;
        (f == file).then(|| place.strip_prefix("file://").unwrap_or(place).to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transpiled_place_gives_way_to_the_stacks_frame_in_its_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("sum.spec.ts");
        std::fs::write(&file, "import { test } from 'runner'\nconst x = 1\n").expect("write");
        let f = file.display().to_string();
        let stack = format!(
            "AssertionError: 4 == 3\n    at other (/elsewhere/a.ts:1:1)\n    at TestContext.<anonymous> ({f}:2:7)\n"
        );
        assert_eq!(
            placed(format!("{f}:1:856"), Some(&stack)),
            format!("{f}:2:7")
        );
        assert_eq!(
            placed(format!("file://{f}:1:856"), Some(&stack)),
            format!("{f}:2:7")
        );
        // A place inside its line stays, and so does one whose file cannot be read.
        assert_eq!(placed(format!("{f}:2:3"), Some(&stack)), format!("{f}:2:3"));
        assert_eq!(
            placed("/nowhere/x.ts:1:900".into(), Some(&stack)),
            "/nowhere/x.ts:1:900"
        );
        // No frame in the file: the place as it came.
        assert_eq!(
            placed(format!("{f}:1:856"), Some("at x (/a.ts:1:1)")),
            format!("{f}:1:856")
        );
        assert_eq!(placed(format!("{f}:1:856"), None), format!("{f}:1:856"));
        // Frames without `at`.
        let node = format!(
            "TestContext.<anonymous> ({f}:2:9)\nTest.run (node:internal/test_runner/test:796:25)"
        );
        assert_eq!(
            placed(format!("{f}:1:856"), Some(&node)),
            format!("{f}:2:9")
        );
        assert_eq!(placed("t/a.t line 4".into(), None), "t/a.t line 4");
    }
}
