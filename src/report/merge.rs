//! Puts a sharded run back together: the recorded events of shards 1..N (each a `.jsonl` that
//! starts with a [`ShardHeader`]) become the events of one run, as if one machine had run the
//! whole selection, so that every report (`.json`, JUnit, Markdown, HTML, `.jsonl`) is written
//! from them by the same sinks as a live run.
//!
//! Checked first, so nothing is written from the wrong shards: every header has one
//! fingerprint (one selection, one history snapshot, one strategy and N), and each shard is
//! there exactly once. Then each shard's events are passed on in turn with their file indices
//! mapped back to the unsharded selection's (reports list files in that order whatever order
//! their events came in), between one `RunStarted` (the earliest start, every host) and one
//! `RunFinished` (counts summed, the worst verdict, the latest end). A shard let go with
//! `--allow-missing` has its files reported as not run, and the run fails.
use crate::event::run::{FileInfo, RunEvent, RunSummary, ShardHeader};
use std::collections::BTreeMap;

/// Why shards cannot be merged: one line each, for a usage error (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("failed to merge: no shard given")]
    Empty,
    #[error("failed to merge: {name} is not a shard of a sharded run (its first event is not a shard header: run it with --partition and -o FILE.jsonl)")]
    NotAShard { name: String },
    #[error(
        "failed to merge: {name} is shard {index} of {total}, but {first} is of {first_total}"
    )]
    Total {
        name: String,
        index: usize,
        total: usize,
        first: String,
        first_total: usize,
    },
    #[error("failed to merge: {name} was planned from another selection than {first} (fingerprint {theirs} ≠ {ours}: other files, another history snapshot or another strategy)")]
    Mismatch {
        name: String,
        first: String,
        theirs: String,
        ours: String,
    },
    #[error("failed to merge: shard {index} is given twice ({first} and {second})")]
    Duplicate {
        index: usize,
        first: String,
        second: String,
    },
    #[error("failed to merge: shard{} {} of {total} missing (--allow-missing reports their files as not run)", if .missing.len() == 1 { "" } else { "s" }, list(.missing))]
    Missing { missing: Vec<usize>, total: usize },
    #[error("failed to merge: {name} holds no finished run (no run_finished event)")]
    Unfinished { name: String },
}

fn list(n: &[usize]) -> String {
    n.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One shard's recording: its name (for messages), header, and the events after the header.
pub struct ShardInput<I> {
    pub name: String,
    pub header: ShardHeader,
    pub events: I,
}

/// What was merged: the missing shards (with `--allow-missing`) and the merged summary.
#[derive(Debug)]
pub struct Merged {
    pub missing: Vec<usize>,
    pub summary: RunSummary,
}

/// Checks the shards' headers; the shards in index order and the missing ones.
pub fn check<I>(
    mut shards: Vec<ShardInput<I>>,
    allow_missing: bool,
) -> Result<(Vec<ShardInput<I>>, Vec<usize>), MergeError> {
    let Some(first) = shards.first() else {
        return Err(MergeError::Empty);
    };
    let (first_name, total, fingerprint) = (
        first.name.clone(),
        first.header.total,
        first.header.fingerprint.clone(),
    );
    let mut seen: BTreeMap<usize, String> = BTreeMap::new();
    for s in &shards {
        if s.header.total != total {
            return Err(MergeError::Total {
                name: s.name.clone(),
                index: s.header.index,
                total: s.header.total,
                first: first_name,
                first_total: total,
            });
        }
        if s.header.fingerprint != fingerprint {
            return Err(MergeError::Mismatch {
                name: s.name.clone(),
                first: first_name,
                theirs: s.header.fingerprint.clone(),
                ours: fingerprint,
            });
        }
        if let Some(before) = seen.insert(s.header.index, s.name.clone()) {
            return Err(MergeError::Duplicate {
                index: s.header.index,
                first: before,
                second: s.name.clone(),
            });
        }
    }
    let missing: Vec<usize> = (1..=total).filter(|i| !seen.contains_key(i)).collect();
    if !missing.is_empty() && !allow_missing {
        return Err(MergeError::Missing { missing, total });
    }
    shards.sort_by_key(|s| s.header.index);
    Ok((shards, missing))
}

/// Merges checked shards (see [`check`]) into `emit`, one run's events.
pub fn merge<I, E>(
    shards: Vec<ShardInput<I>>,
    missing: Vec<usize>,
    emit: &mut dyn FnMut(RunEvent) -> Result<(), E>,
) -> Result<Result<Merged, MergeError>, E>
where
    I: Iterator<Item = RunEvent>,
{
    let Some(header) = shards.first().map(|s| s.header.clone()) else {
        return Ok(Err(MergeError::Empty));
    };
    let mut shards: Vec<(String, std::iter::Peekable<I>, Vec<usize>)> = shards
        .into_iter()
        .map(|s| {
            let map = indices_of(&s.header, s.header.index);
            (s.name, s.events.peekable(), map)
        })
        .collect();
    let starts: Vec<RunEvent> = shards
        .iter_mut()
        .filter_map(|(_, events, _)| events.next_if(|e| matches!(e, RunEvent::RunStarted { .. })))
        .collect();
    let (started, began_ms) = run_started(&starts, header.selection.len());
    emit(started)?;
    let mut summaries = Vec::new();
    for (name, events, map) in &mut shards {
        let mut finished = None;
        for ev in events {
            match ev {
                RunEvent::RunFinished { summary, .. } => finished = Some(summary),
                RunEvent::RunStarted { .. } | RunEvent::Shard(_) => {}
                other => emit(remap(other, map))?,
            }
        }
        match finished {
            Some(s) => summaries.push(*s),
            None => return Ok(Err(MergeError::Unfinished { name: name.clone() })),
        }
    }
    let mut not_run = 0;
    for &shard in &missing {
        for index in indices_of(&header, shard) {
            not_run += 1;
            let file = FileInfo {
                index,
                rel: header.selection[index].path.clone(),
                command: String::new(),
                log: None,
                attempt: 1,
                leaves: false,
            };
            emit(RunEvent::FileNotRun { run: 1, file })?;
        }
    }
    let summary = run_summary(
        &summaries,
        &starts,
        began_ms,
        header.selection.len(),
        not_run,
    );
    emit(RunEvent::RunFinished {
        run: 1,
        summary: Box::new(summary.clone()),
    })?;
    Ok(Ok(Merged { missing, summary }))
}

/// The unsharded index of each of shard `index`'s files, in the shard's own order.
fn indices_of(header: &ShardHeader, index: usize) -> Vec<usize> {
    header
        .selection
        .iter()
        .enumerate()
        .filter(|(_, u)| u.shard == index)
        .map(|(i, _)| i)
        .collect()
}

/// The shard's event as the whole run's: run 1, file indices of the unsharded selection.
fn remap(ev: RunEvent, map: &[usize]) -> RunEvent {
    let at = |i: usize| map.get(i).copied().unwrap_or(i);
    match ev {
        RunEvent::FileStarted { mut file, .. } => {
            file.index = at(file.index);
            RunEvent::FileStarted { run: 1, file }
        }
        RunEvent::FileNotRun { mut file, .. } => {
            file.index = at(file.index);
            RunEvent::FileNotRun { run: 1, file }
        }
        RunEvent::Tap { file, event, .. } => RunEvent::Tap {
            run: 1,
            file: at(file),
            event,
        },
        RunEvent::Stderr { file, text, .. } => RunEvent::Stderr {
            run: 1,
            file: at(file),
            text,
        },
        RunEvent::AttemptFailed {
            file,
            attempt,
            of,
            result,
            ..
        } => RunEvent::AttemptFailed {
            run: 1,
            file: at(file),
            attempt,
            of,
            result,
        },
        RunEvent::FileFinished { file, result, .. } => RunEvent::FileFinished {
            run: 1,
            file: at(file),
            result,
        },
        RunEvent::Coverage { file, coverage, .. } => RunEvent::Coverage {
            run: 1,
            file: at(file),
            coverage,
        },
        RunEvent::Stopping {
            immediate, running, ..
        } => RunEvent::Stopping {
            run: 1,
            immediate,
            running,
        },
        other => other,
    }
}

/// One `RunStarted` for all: the earliest start, every host, the first shard's place and
/// command; and the earliest start in ms.
fn run_started(starts: &[RunEvent], files: usize) -> (RunEvent, Option<u64>) {
    let mut began = None::<u64>;
    let mut hosts: Vec<String> = Vec::new();
    let (mut jobs, mut cwd, mut command, mut filter) = (0, None, None, None);
    for s in starts {
        if let RunEvent::RunStarted {
            jobs: j,
            started_ms,
            host,
            cwd: c,
            command: cmd,
            test_filter,
            ..
        } = s
        {
            // Every shard narrowed the whole selection alike, before it was dealt.
            filter = filter.or_else(|| test_filter.clone());
            jobs += j;
            began = match (began, started_ms) {
                (Some(a), Some(b)) => Some(a.min(*b)),
                (a, b) => a.or(*b),
            };
            if let Some(h) = host.as_ref().filter(|h| !hosts.contains(h)) {
                hosts.push(h.clone());
            }
            cwd = cwd.or_else(|| c.clone());
            command = command.or_else(|| cmd.clone());
        }
    }
    let started = RunEvent::RunStarted {
        run: 1,
        files,
        jobs,
        started_ms: began,
        host: (!hosts.is_empty()).then(|| hosts.join(", ")),
        cwd,
        command,
        test_filter: filter,
    };
    (started, began)
}

/// Counts summed, the worst verdict, from the earliest start to the latest end.
fn run_summary(
    shards: &[RunSummary],
    starts: &[RunEvent],
    began_ms: Option<u64>,
    files: usize,
    missing_files: usize,
) -> RunSummary {
    let mut sum = RunSummary {
        ok: missing_files == 0,
        files_total: files,
        files_not_run: missing_files,
        ..RunSummary::default()
    };
    let mut end_ms = 0u64;
    for (s, start) in shards.iter().zip(starts) {
        sum.ok &= s.ok;
        sum.files_passed += s.files_passed;
        sum.files_failed += s.files_failed;
        sum.files_not_run += s.files_not_run;
        sum.files_cached += s.files_cached;
        sum.tests.merge(&s.tests);
        sum.interrupted |= s.interrupted;
        sum.max_fail_reached = sum.max_fail_reached.or(s.max_fail_reached);
        if sum.bailed_out.is_none() {
            sum.bailed_out = s.bailed_out.clone();
        }
        sum.slowest.extend(s.slowest.iter().cloned());
        sum.newly_failing.extend(s.newly_failing.iter().cloned());
        sum.fixed.extend(s.fixed.iter().cloned());
        sum.flaky.extend(s.flaky.iter().cloned());
        let start_ms = match start {
            RunEvent::RunStarted { started_ms, .. } => started_ms.unwrap_or(0),
            _ => 0,
        };
        end_ms = end_ms.max(start_ms + s.duration.as_millis() as u64);
    }
    let longest = shards.iter().map(|s| s.duration).max().unwrap_or_default();
    sum.duration = match began_ms {
        Some(b) if end_ms > b => std::time::Duration::from_millis(end_ms - b),
        _ => longest,
    };
    // As a single run ranks them: slowest first, as many as one run keeps.
    let keep = shards.iter().map(|s| s.slowest.len()).max().unwrap_or(0);
    sum.slowest
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    sum.slowest.truncate(keep);
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::{ShardUnit, SHARD_FORMAT};

    fn header(index: usize, total: usize, fingerprint: &str) -> ShardHeader {
        ShardHeader {
            format: SHARD_FORMAT,
            tapline: "test".into(),
            strategy: "slice".into(),
            index,
            total,
            fingerprint: fingerprint.into(),
            selection: (0..4)
                .map(|i| ShardUnit {
                    path: format!("t/{i}.t"),
                    shard: i % total + 1,
                    weight_ms: 0,
                })
                .collect(),
        }
    }

    fn input(index: usize, total: usize, fp: &str) -> ShardInput<std::vec::IntoIter<RunEvent>> {
        ShardInput {
            name: format!("shard-{index}.jsonl"),
            header: header(index, total, fp),
            events: Vec::new().into_iter(),
        }
    }

    #[test]
    fn refuses_missing_duplicated_and_foreign_shards() {
        let err = |shards, allow| check(shards, allow).err().map(|e| e.to_string());
        let missing = err(vec![input(1, 3, "a"), input(3, 3, "a")], false);
        assert_eq!(
            missing.as_deref(),
            Some("failed to merge: shard 2 of 3 missing (--allow-missing reports their files as not run)")
        );
        let twice = err(vec![input(1, 2, "a"), input(1, 2, "a")], false).unwrap_or_default();
        assert!(twice.contains("shard 1 is given twice"), "{twice}");
        let foreign = err(vec![input(1, 2, "a"), input(2, 2, "b")], false).unwrap_or_default();
        assert!(foreign.contains("another selection"), "{foreign}");
        let total = err(vec![input(1, 2, "a"), input(2, 3, "a")], false).unwrap_or_default();
        assert!(total.contains("shard 2 of 3"), "{total}");
        assert!(check(vec![input(1, 3, "a"), input(3, 3, "a")], true).is_ok());
        assert!(!missing.unwrap_or_default().contains('\n'));
    }

    #[test]
    fn indices_go_back_to_the_unsharded_selection() {
        // Shard 2 of 2 holds t/1.t and t/3.t: its files 0 and 1.
        let h = header(2, 2, "a");
        assert_eq!(indices_of(&h, 2), [1, 3]);
        let ev = RunEvent::Tap {
            run: 7,
            file: 1,
            event: crate::event::Event::Comment {
                depth: 0,
                line: 1,
                text: "x".into(),
            },
        };
        assert!(matches!(
            remap(ev, &indices_of(&h, 2)),
            RunEvent::Tap {
                run: 1,
                file: 3,
                ..
            }
        ));
    }
}
