//! A `[[suite]]` running `go test`: its trace is what `go list -deps -test` says the packages
//! it tests are built from (every package's Go, cgo, test and embedded files), asked once the
//! suite has run, in its folder, with its `-tags`. Files outside the project (the standard
//! library, the module cache) are dropped as for every trace.
use crate::harness::api::Id;
use crate::harness::trace::TraceHook;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

pub(crate) struct GoTrace;
pub(crate) static GO_TRACE: GoTrace = GoTrace;

/// Why a suite has no trace when `go list` cannot say.
const GO_LIST_FAILED: &str = "`go list` could not list its packages' files";

impl TraceHook for GoTrace {
    fn id(&self) -> Id {
        "go"
    }

    fn is_suite(&self, argv: &[OsString]) -> bool {
        is_go_test(argv)
    }

    fn by_command(
        &self,
        argv: &[OsString],
        cwd: &Path,
        root: &Path,
    ) -> Option<Result<Vec<String>, &'static str>> {
        Some(trace(argv, cwd, root).ok_or(GO_LIST_FAILED))
    }

    fn shapes_every_run(&self) -> &'static [&'static str] {
        &["go.mod", "go.sum", "go.work", "go.work.sum"]
    }

    fn module_exts(&self) -> &'static [&'static str] {
        &["go"]
    }
}

/// `go test` flags written with their value as the next word.
const VALUED: &[&str] = &[
    "-run",
    "-skip",
    "-bench",
    "-benchtime",
    "-count",
    "-cpu",
    "-parallel",
    "-timeout",
    "-tags",
    "-p",
    "-o",
    "-exec",
    "-coverprofile",
    "-covermode",
    "-coverpkg",
    "-cpuprofile",
    "-memprofile",
    "-blockprofile",
    "-mutexprofile",
    "-outputdir",
    "-trace",
    "-list",
    "-shuffle",
    "-fuzz",
    "-fuzztime",
    "-fuzzminimizetime",
    "-vet",
    "-gcflags",
    "-ldflags",
    "-asmflags",
    "-mod",
    "-modfile",
    "-overlay",
    "-pkgdir",
    "-toolexec",
    "-C",
];

/// Flags `go list` must get too: they change which files a package is built from.
const PASSED_ON: &[&str] = &["-tags", "-mod", "-modfile", "-C"];

/// The file lists a package is built from.
const TEMPLATE: &str = concat!(
    "{{.Dir}}",
    "{{range .GoFiles}}\t{{.}}{{end}}{{range .CgoFiles}}\t{{.}}{{end}}",
    "{{range .TestGoFiles}}\t{{.}}{{end}}{{range .XTestGoFiles}}\t{{.}}{{end}}",
    "{{range .EmbedFiles}}\t{{.}}{{end}}{{range .TestEmbedFiles}}\t{{.}}{{end}}",
    "{{range .XTestEmbedFiles}}\t{{.}}{{end}}{{range .CFiles}}\t{{.}}{{end}}",
    "{{range .HFiles}}\t{{.}}{{end}}{{range .SFiles}}\t{{.}}{{end}}",
    "{{range .CXXFiles}}\t{{.}}{{end}}{{range .SysoFiles}}\t{{.}}{{end}}",
);

/// Whether a suite's command is `go test …`.
pub(crate) fn is_go_test(argv: &[OsString]) -> bool {
    let program = argv
        .first()
        .map(|p| p.to_string_lossy())
        .unwrap_or_default();
    program.rsplit('/').next() == Some("go") && argv.get(1).is_some_and(|w| w == "test")
}

/// `go test`'s package patterns (`.` when none) and the flags `go list` needs too.
fn split_args(argv: &[OsString]) -> (Vec<String>, Vec<String>) {
    let mut patterns = Vec::new();
    let mut flags = Vec::new();
    let mut words = argv
        .iter()
        .skip(2)
        .map(|w| w.to_string_lossy().into_owned());
    while let Some(word) = words.next() {
        if word == "-args" || word == "--" {
            break;
        }
        if !word.starts_with('-') {
            patterns.push(word);
            continue;
        }
        let name = word
            .split('=')
            .next()
            .unwrap_or(&word)
            .replacen("--", "-", 1);
        let value = if word.contains('=') {
            None
        } else if VALUED.contains(&name.as_str()) {
            words.next()
        } else {
            continue;
        };
        if PASSED_ON.contains(&name.as_str()) {
            flags.push(word.clone());
            flags.extend(value);
        }
    }
    if patterns.is_empty() {
        patterns.push(".".to_owned());
    }
    (patterns, flags)
}

/// The project files the suite's packages are built from; `None` when go cannot say.
pub(crate) fn trace(argv: &[OsString], cwd: &Path, root: &Path) -> Option<Vec<String>> {
    let (patterns, flags) = split_args(argv);
    let out = crate::util::quiet::stdout_of(
        Command::new(argv.first()?)
            .args(["list", "-deps", "-test", "-f", TEMPLATE])
            .args(&flags)
            .args(&patterns)
            .current_dir(cwd),
    )?;
    let text = String::from_utf8_lossy(&out);
    let roots = crate::harness::trace::Roots::of(root);
    let mut files = std::collections::BTreeSet::new();
    for line in text.lines() {
        let mut fields = line.split('\t');
        let Some(dir) = fields.next().map(Path::new) else {
            continue;
        };
        for name in fields {
            files.extend(roots.rel(&dir.join(name)));
        }
    }
    Some(files.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn go_test_arguments_give_the_packages_and_build_flags() {
        assert!(is_go_test(&words("go test -json ./...")));
        assert!(is_go_test(&words("/usr/local/go/bin/go test")));
        assert!(!is_go_test(&words("go vet ./...")));
        assert!(!is_go_test(&words("pytest -q")));
        assert_eq!(
            split_args(&words(
                "go test -json -run TestX -tags=integration ./... -args -v x"
            )),
            (
                vec!["./...".to_owned()],
                vec!["-tags=integration".to_owned()]
            )
        );
        assert_eq!(
            split_args(&words("go test -count 1 -tags net -v")),
            (
                vec![".".to_owned()],
                vec!["-tags".to_owned(), "net".to_owned()]
            )
        );
    }
}
