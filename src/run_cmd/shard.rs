//! `--partition` mapped onto the run: the shard's files from the library's plan
//! (`tapline::run::plan`), with history's durations as weights.
use super::Usage;
use crate::cli::RunArgs;
use std::path::Path;
use std::time::Duration;
use tapline::run::history::{self, Index};
use tapline::run::{config, discover};

/// `--partition` (or `[run] partition`): this shard's files, each with the weight it was dealt
/// with (for `--list`), and the shard's header; every file and no header without one.
#[expect(clippy::type_complexity, reason = "one call site unpacks it at once")]
pub(super) fn shard_files(
    args: &RunArgs,
    cfg: &config::Config,
    root: &Path,
    files: Vec<discover::TestFile>,
) -> Result<
    (
        Vec<discover::TestFile>,
        Vec<Option<Duration>>,
        Option<tapline::event::run::ShardHeader>,
    ),
    Usage,
> {
    use tapline::run::plan::{self, partition::PartitionArg, Resolved};
    let arg = match args.partition.as_deref() {
        Some(text) => Some(
            text.parse::<PartitionArg>()
                .map_err(|e| Usage(e.to_string()))?,
        ),
        None => cfg.partition,
    };
    let Some(arg) = arg else {
        let n = files.len();
        return Ok((files, vec![None; n], None));
    };
    if args.watch || args.runs.is_some_and(|r| r > 1) {
        return Err(Usage(
            "--partition runs one shard once: not with --watch or --runs".into(),
        ));
    }
    let time_default = args
        .time_default
        .as_deref()
        .map(config::parse_duration)
        .transpose()
        .map_err(|e| Usage(format!("invalid --time-default: {e}")))?;
    let index = if !args.no_history && cfg.history != Some(false) {
        let store =
            history::Store::in_dir(&super::history_dir_path(args.log_dir.as_ref(), cfg, root));
        let wanted: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        Index::of(&store.recent(&wanted).unwrap_or_default().records)
    } else {
        Index::default()
    };
    let known = |f: &discover::TestFile| {
        index
            .files
            .get(&f.rel)
            .map(|facts| Duration::from_millis(facts.p50_ms as u64))
    };
    let history_knows = files.iter().any(|f| known(f).is_some());
    let env = |key: &str| std::env::var(key).ok();
    let p = match plan::resolve(arg, &env, history_knows).map_err(|e| Usage(e.to_string()))? {
        Resolved::Shard(p) => p,
        Resolved::Everything { note } => {
            eprintln!("tapline: {note}");
            let n = files.len();
            return Ok((files, vec![None; n], None));
        }
    };
    let total = files.len();
    let sharded = plan::shard(files, |f| f.rel.as_str(), known, p, time_default);
    let mine = sharded.mine.len();
    eprintln!(
        "tapline: shard {} of {} ({}): {mine} of {total} files{}",
        p.index,
        p.total,
        p.strategy.name(),
        if mine == 0 {
            " (nothing to run here: this shard passes)"
        } else {
            ""
        }
    );
    let (files, weights): (Vec<_>, Vec<_>) =
        sharded.mine.into_iter().map(|(f, w)| (f, Some(w))).unzip();
    Ok((files, weights, Some(sharded.header)))
}
