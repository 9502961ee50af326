//! A harness's long-lived worker: one process that runs many of its files one after another
//! (node's warm worker), started and fed by the generic pool (`run/worker`), which asks this
//! interface what only the harness knows: its interpreter, its driver and which files may run
//! in it.
use std::ffi::OsString;
use std::path::Path;

/// What the pool asks the harness whose worker runs a file.
pub(crate) trait Worker: Sync {
    /// Whether `program` (a command's program, its base name) is the interpreter the worker's
    /// driver runs in.
    fn runs(&self, program: &str) -> bool;

    /// The files written to the workers' hooks folder, the driver (run as the command's file)
    /// first.
    fn files(&self) -> &'static [(&'static str, &'static str)];

    /// Whether the file at `path` (absolute) may run in a worker: `Some(preload)`, where
    /// `preload` says its worker loads the harness before its first file (files with and
    /// without it get workers of their own); `None`: it runs in a process of its own. `asked`:
    /// its rule says `warm = true`.
    fn key_extra(&self, path: &Path, asked: bool) -> Option<bool>;

    /// Whether it also runs the files of other harnesses whose program it [`Worker::runs`]
    /// (`registry::worker_for`); a worker that serves only its own harness's files says no
    /// (pytest's, under any python).
    fn serves_others(&self) -> bool {
        true
    }

    /// Whether a worker of this harness started at a run's end may wait for watch mode's next
    /// cycle (`run/worker/spares.rs`): it loads only its harness before its first file. One
    /// that loads the project's tests as it starts (pytest's collects the session) would run
    /// the next cycle's files as they were before the edit: none is kept.
    fn spares(&self) -> bool {
        true
    }

    /// The worker's arguments after its interpreter, given `argv` (a file's command less the
    /// file) and `driver` (its first file's path): by default its command's with the driver in
    /// place of the file; a harness whose own program serves the files (pytest with its
    /// plugin) may start without any.
    fn start_args(&self, argv: &[OsString], driver: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> = argv.get(1..).unwrap_or_default().to_vec();
        args.push(driver.as_os_str().to_owned());
        args
    }

    /// Variables a worker started in `cwd` with `argv` (its command less the file) gets after
    /// the run's; `get` reads a variable as the worker would see it, `hooks` is the driver's
    /// folder.
    fn start_env(
        &self,
        _hooks: &Path,
        _argv: &[OsString],
        _cwd: &Path,
        _get: &dyn Fn(&str) -> Option<OsString>,
    ) -> Vec<(OsString, OsString)> {
        Vec::new()
    }
}
