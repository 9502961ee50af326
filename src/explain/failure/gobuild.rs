//! A go package that did not build: `go test -json` fails it with `FAIL\tpkg [build failed]`
//! (or `[setup failed]`) and the compiler's lines (`./x_test.go:12:3: undefined: foo`) come as
//! its output (go before 1.24 prints them on stderr) or in its message (go 1.24's
//! `build-output` records). The compiler's lines are the failure's message, as `go test`
//! prints them, and the first one's `file:line:column` its location; the package header
//! (`# pkg [pkg.test]`) and go's `FAIL` line stay its output.
use super::Details;

/// Reads a build failure into `d`: its message and location from the compiler's lines.
pub(super) fn read(d: &mut Details) {
    let message = d.message.clone().unwrap_or_default();
    let said: Vec<&str> = message.lines().collect();
    if !said
        .iter()
        .copied()
        .chain(d.output.iter().map(String::as_str))
        .any(is_build_failed)
    {
        return;
    }
    let mut compiler = Vec::new();
    let mut rest = Vec::new();
    // go's order: the header and the compiler's lines (output), then its `FAIL` line. A line
    // both in the output and in the message (stderr joined to stdout, which the stream's
    // reader also gives the package) is said once.
    let output = (d.output.iter().map(String::as_str)).filter(|l| !said.contains(l));
    for line in output.chain(said.iter().copied()) {
        match compiler_location(line) {
            Some(_) => compiler.push(line.trim_start_matches("./").to_owned()),
            None => rest.push(line.to_owned()),
        }
    }
    let Some(at) = compiler.first().and_then(|l| compiler_location(l)) else {
        return;
    };
    d.location = Some(at.to_owned());
    d.message = Some(compiler.join("\n"));
    rest.retain(|l| !l.trim().is_empty());
    d.output = rest;
}

/// `FAIL\tpkg [build failed]`, `FAIL\tpkg [setup failed]`.
fn is_build_failed(line: &str) -> bool {
    let Some((_, why)) = line.strip_prefix("FAIL\t").and_then(|r| r.split_once(' ')) else {
        return false;
    };
    matches!(why.trim_end(), "[build failed]" | "[setup failed]")
}

/// The `file.go:12:3` (or `file.go:12`) a compiler line starts with, `./` taken off.
fn compiler_location(line: &str) -> Option<&str> {
    let line = line.strip_prefix("./").unwrap_or(line);
    let (loc, _) = line.split_once(": ")?;
    let mut parts = loc.split(':');
    let file = parts.next()?;
    let numbers: Vec<&str> = parts.collect();
    let numeric = |n: &&str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    (file.ends_with(".go")
        && !file.contains(' ')
        && (1..=2).contains(&numbers.len())
        && numbers.iter().all(numeric))
    .then_some(loc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compilers_lines_are_the_message_and_the_first_the_location() {
        let mut d = Details {
            message: Some("FAIL\texample.com/g/b [build failed]".to_owned()),
            output: vec![
                "# example.com/g/b [example.com/g/b.test]".to_owned(),
                "b/b_test.go:7:2: undefined: foo".to_owned(),
                "./b_test.go:9:2: x declared and not used".to_owned(),
            ],
            ..Details::default()
        };
        read(&mut d);
        assert_eq!(d.location.as_deref(), Some("b/b_test.go:7:2"));
        assert_eq!(
            d.message.as_deref(),
            Some("b/b_test.go:7:2: undefined: foo\nb_test.go:9:2: x declared and not used")
        );
        assert_eq!(
            d.output,
            [
                "# example.com/g/b [example.com/g/b.test]",
                "FAIL\texample.com/g/b [build failed]"
            ]
        );
    }

    #[test]
    fn a_failure_without_the_build_line_is_left_alone() {
        let mut d = Details {
            message: Some("x_test.go:3: got 2".to_owned()),
            ..Details::default()
        };
        read(&mut d);
        assert_eq!(d.location, None);
    }
}
