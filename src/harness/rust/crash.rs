//! Which tests a crashed test binary was running: libtest prints a test's name only when it
//! ends while several threads run, so a binary that aborts (`std::process::abort()`, a
//! segfault) names none. The binary itself says which tests its run had: its command, as
//! cargo quoted it in `process didn't exit successfully: `…``, with `--list --format terse`
//! (the same filter words, so the same tests, in libtest's order), and how many threads ran
//! them. The reader then names the ones that had started and not reported.
use crate::protocol::libtest::{Listed, TestLister};
use std::process::Command;
use std::sync::Arc;

/// The lister the reader of libtest's output asks once a binary crashed.
pub(super) fn lister() -> TestLister {
    Arc::new(|command: &str| listed(command, std::env::var("RUST_TEST_THREADS").ok()))
}

/// `command`'s tests and threads; `env_threads`: `RUST_TEST_THREADS` as the binary had it.
fn listed(command: &str, env_threads: Option<String>) -> Option<Listed> {
    let argv = crate::util::shell::split_words(command).ok()?;
    let (program, args) = argv.split_first()?;
    let args = listing_args(args);
    let out = crate::util::quiet::stdout_of(
        Command::new(program)
            .args(&args)
            .args(["--list", "--format", "terse"]),
    )?;
    let names = super::list::terse(&String::from_utf8_lossy(&out))
        .into_iter()
        .filter_map(|mut n| n.pop())
        .collect();
    Some(Listed {
        names,
        threads: threads(&argv, env_threads.as_deref()),
    })
}

/// The run's words that say which tests (filters, `--exact`, `--skip NAME`, `--ignored`),
/// without those that only change how it prints (`--quiet`'s dots, `--format X`: the listing
/// has its own, `--nocapture`, `--show-output`).
fn listing_args(args: &[String]) -> Vec<&String> {
    let mut kept = Vec::new();
    let mut words = args.iter();
    while let Some(w) = words.next() {
        match w.as_str() {
            "--quiet" | "-q" | "--nocapture" | "--show-output" => {}
            "--format" => {
                words.next();
            }
            _ if w.starts_with("--format=") => {}
            _ => kept.push(w),
        }
    }
    kept
}

/// libtest's threads: `--test-threads N` (`=N`), else `RUST_TEST_THREADS`, else what the
/// machine offers, as libtest decides.
fn threads(argv: &[String], env: Option<&str>) -> usize {
    let said = argv.iter().enumerate().find_map(|(i, w)| {
        if let Some(n) = w.strip_prefix("--test-threads=") {
            return Some(n.to_owned());
        }
        (w == "--test-threads")
            .then(|| argv.get(i + 1).cloned())
            .flatten()
    });
    said.as_deref()
        .or(env)
        .and_then(|n| n.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn threads_as_libtest_takes_them() {
        assert_eq!(threads(&words("/b --test-threads=3"), Some("5")), 3);
        assert_eq!(threads(&words("/b --test-threads 4"), None), 4);
        assert_eq!(threads(&words("/b"), Some("5")), 5);
        assert!(threads(&words("/b"), Some("x")) >= 1);
    }

    #[test]
    fn a_listing_keeps_the_words_that_choose_tests() {
        let args = words("--quiet --format pretty adds --exact --skip slow --format=json -q");
        let kept: Vec<&str> = listing_args(&args)
            .into_iter()
            .map(String::as_str)
            .collect();
        assert_eq!(kept, ["adds", "--exact", "--skip", "slow"]);
    }

    #[test]
    fn a_binary_that_is_gone_lists_nothing() {
        assert_eq!(listed("/nonexistent/crash-0123 --quiet", None), None);
        assert_eq!(listed("", None), None);
    }
}
