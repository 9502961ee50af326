//! `tapline coverage who FILE:LINE`: the test files that reached a line in the last run with
//! `--coverage`, from the one record that run kept (`tapline::coverage::who`).
use crate::cli::{CoverageAction, CoverageArgs};
use crate::{Failure, Outcome};
use std::io::Write;
use std::path::Path;
use tapline::coverage::who::Who;
use tapline::run::options::Project;

pub fn run(args: &CoverageArgs) -> Outcome {
    match &args.action {
        CoverageAction::Who { at, log_dir } => who(at, log_dir.as_deref()),
    }
}

fn who(at: &str, log_dir: Option<&Path>) -> Outcome {
    let (file, line) = at
        .rsplit_once(':')
        .and_then(|(f, l)| Some((f, l.parse::<u32>().ok().filter(|&n| n > 0)?)))
        .ok_or_else(|| {
            Failure::usage(format!(
                "expected FILE:LINE (a line number from 1), got `{at}`"
            ))
        })?;
    let project = Project::current().map_err(Failure::usage)?;
    let dir = project.log_dir(log_dir);
    let record = Who::load(&dir).map_err(Failure::Usage)?.ok_or_else(|| {
        Failure::usage(format!(
            "no coverage recorded in {}: run `tapline run --coverage` first",
            dir.display()
        ))
    })?;
    let rel = tapline::run::trace::project_rel(&project.cwd.join(file), &project.root)
        .unwrap_or_else(|| file.trim_start_matches("./").to_owned());
    match record.at(&rel, line) {
        Some(tests) if !tests.is_empty() => {
            let mut out = std::io::stdout().lock();
            for t in tests {
                if writeln!(out, "{t}").is_err() {
                    break;
                }
            }
            Ok(0)
        }
        Some(_) => {
            tapline::say!("tapline: no test reached {rel}:{line} in the last run with --coverage");
            Ok(1)
        }
        None if record.sources.contains_key(&rel) => Err(Failure::usage(format!(
            "{rel}:{line} is no line of code its engine counted"
        ))),
        None => Err(Failure::usage(format!(
            "{rel} was not measured in the last run with --coverage (no test loaded it, or it is not under the project root)"
        ))),
    }
}
