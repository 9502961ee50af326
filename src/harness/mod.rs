//! The harnesses tapline runs test files through, one room each behind one interface
//! ([`Harness`]), and their [`registry`]: the generic layers (discovery, planning, the runner)
//! ask the registry, never a room by name. Adding a harness is a room of its own and one line
//! in [`registry`]; docs/harness-adapters.md shows the interface.
//!
//! The model is neotest's adapters: a harness says which files it runs ([`Harness::rules`],
//! [`Harness::takes`]), how one runs through it ([`Harness::command`], [`Harness::by_line`]),
//! how a silent one is judged ([`Harness::silent`]) and what its files run with
//! ([`Harness::env`]). Every method but [`Harness::id`] has a default, so a room implements only
//! what its harness does. The rooms sit below the runner: they import only `util`, the
//! protocol crate and each other's vocabulary ([`api`]).
use crate::harness::shebang::Shebang;
use api::{Around, Builtin, Candidate, Counting, Cx, Hosts, Id, Made, Silent};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub mod api;
pub mod filter;
pub mod follow;
pub(crate) mod hooks;
pub mod registry;
pub(crate) mod shebang;
// inventory (h39-inv): what a harness says of a file's tests without running them.
pub(crate) mod list;
pub(crate) mod scan;
// trace and coverage (h39-trace): the per-language trace hooks and coverage engines.
pub mod trace;
// warm (h39-warm): what the generic worker pool (run/worker) asks a harness's worker.
pub(crate) mod worker;
// dsc2: a folder's walk as a harness takes it over.
#[cfg(test)]
pub(crate) mod discovery_cases;
pub(crate) mod folder;

mod ava;
mod bats;
pub mod browser;
mod busted;
pub(crate) mod driver;
mod go;
mod jest;
mod mocha;
pub(crate) mod node;
pub(crate) mod perl;
mod pgtap;
pub(crate) mod python;
pub(crate) mod reporters;
// rust (h48-rust): a crate's or workspace's test binaries through `cargo test`.
mod rust;
mod shell;
mod shell_tap;
// tap (h39-tap): a script's `tap`, its files through tap 18+.
mod tap;
// vitest (h39-vitest): a script's `vitest`, its files through it.
mod vitest;

// disc: a command line and the variables it runs with (a preload's, [`Harness::preload`]).
pub(crate) type Preloaded = (Vec<OsString>, Vec<(OsString, OsString)>);

/// One harness: how tapline finds, runs and judges the files it runs.
pub(crate) trait Harness: Sync {
    /// Its name in the registry and in a file's description.
    fn id(&self) -> Id;

    /// Its built-in runner rules, tried after the user's `[[runner]]` rules in the registry's
    /// order.
    fn rules(&self) -> &'static [Builtin] {
        &[]
    }

    /// Whether a directory walk takes a file one of its rules maps (and the rule's walk names
    /// take): as the harness names its tests, beyond a glob.
    fn takes(&self, _file: &Candidate<'_>) -> bool {
        true
    }

    /// Whether `name` alone says the harness runs the file as a test (`test_x.py`, `x.bats`),
    /// wherever it lies: a folder of another harness's tests is then not wholly that
    /// harness's.
    fn is_test_name(&self, _name: &str) -> bool {
        false
    }

    /// The command a rule of its own made for a file, shaped by the file's `#!` line as the
    /// harness shapes it (the line's flags for the interpreter, a shell it asks for).
    fn by_line(&self, command: Vec<OsString>, _line: &Shebang) -> Vec<OsString> {
        command
    }

    /// The words of its rule's command when the harness chooses them at run time (the
    /// project's own TypeScript runner); `{}` stands for the file, else it goes last.
    fn template(&self, _cx: &mut Cx<'_>) -> Option<Vec<String>> {
        None
    }

    /// The command of a file its rule maps, when the harness makes it (`None`: the rule's
    /// command, shaped by the `#!` line). `abs` is the file's absolute path.
    fn command(&self, _path: &Path, _abs: &Path, _cx: &mut Cx<'_>) -> Option<Made> {
        None
    }

    /// A user's `[[runner]]` command for a file with a `#!` line: what the interpreter insists
    /// on seeing on its command line (perl's `-T`). Asked of every harness.
    fn user_command(&self, command: Vec<OsString>, _line: &Shebang) -> Vec<OsString> {
        command
    }

    /// Where a file its rule maps runs, when its name may say (`None`: by its command).
    fn hosts(&self, _name: &str) -> Option<Hosts> {
        None
    }

    /// How a file named `name` that prints no TAP is judged, when one of its rules maps it.
    fn silent(&self, _name: &str) -> Silent {
        Silent::Fails
    }

    /// The command of a file its followed command `words` takes where it cannot list (found by
    /// its fallback places, `walked` the walk's command), as the harness's own older runner
    /// starts it from `cwd` (node-tap 16's options); `None` keeps the walk's.
    fn fallback_command(
        &self,
        _words: &[String],
        _path: &Path,
        _walked: &[OsString],
        _cwd: &Path,
    ) -> Option<Vec<OsString>> {
        None
    }

    /// What it runs once before and once after a run's files, for its followed command
    /// `words` from `cwd` (node-tap's `before`/`after`); nothing by default.
    fn around(&self, _words: &[String], _cwd: &Path) -> Around {
        Around::default()
    }

    /// What it runs once before and once after a run that holds any of its files, however
    /// they were found (pgTAP's check that the database answers, so that a run that cannot
    /// connect says so once, not once per file); nothing by default.
    fn around_files(&self, _cwd: &Path) -> Around {
        Around::default()
    }

    /// How the tests of a file it runs are counted: top-level points unless its harness
    /// counts otherwise (node-tap counts assertions).
    fn counts(&self) -> Counting {
        Counting::TopLevel
    }

    /// Whether `program` (a command's program, its base name) writes each line whole to
    /// stdout and stderr as it goes, so one pipe for both keeps them in order.
    fn flushes_each_line(&self, _program: &str) -> bool {
        false
    }

    /// The filter of a file's tests when this harness runs it ([`filter::Probe`]: by its
    /// command, source or format).
    fn filter(&self, _probe: &filter::Probe<'_>) -> Option<filter::Filter> {
        None
    }

    /// What a file this harness runs gets in its environment, given the run's (`Err`: why the
    /// file cannot run).
    fn env(&self, _env: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
        Ok(Vec::new())
    }

    /// Folders a sandboxed file of this harness must still read (tapline's own plugin in the
    /// temp folder, which the sandbox replaces).
    fn sandbox_reads(&self) -> Result<Vec<PathBuf>, String> {
        Ok(Vec::new())
    }

    // --- the project's folders ---
    /// The files whose folder its ecosystem takes for a project's root (`package.json`,
    /// `go.mod`): a bare run in a subfolder runs from the nearest folder holding one, as the
    /// harness itself finds its root from anywhere below it.
    fn project_markers(&self) -> &'static [&'static str] {
        &[]
    }

    /// Folders its ecosystem fills with dependencies or caches, never a test's source: a
    /// walk passes over them and watch mode watches none of them.
    fn dependency_folders(&self) -> &'static [&'static str] {
        &[]
    }

    // --- inventory (h39-inv): the static scan and the harness's own listing ---

    /// How the tests of a file named `path` are read from its source, when its language is
    /// this harness's (by its name alone: whichever harness runs it).
    fn scanner(&self, _path: &str) -> Option<scan::Scanner> {
        None
    }

    /// A scanned test's names as a run of `file` by this harness names it (`None`: not its).
    fn scanned_name(&self, _file: &list::Listable<'_>, _name: &[String]) -> Option<Vec<String>> {
        None
    }

    /// The tests of a `[[suite]]` this harness runs, read from the sources under its folder
    /// (`None`: not its suite).
    fn suite_tests(&self, _suite: &list::Listable<'_>) -> Option<Vec<list::Scanned>> {
        None
    }

    /// How this harness lists `file`'s tests by running its own listing, if it has one.
    fn lister(&self, _file: &list::Listable<'_>) -> Option<list::Lister> {
        None
    }

    /// Lists the tests of `files` (each one `lister` took, with `lister`'s batch key), run
    /// from `cwd`, into `out`.
    fn list(
        &self,
        _lister: &list::Lister,
        _files: &[&list::Listable<'_>],
        _cwd: &Path,
        _out: &mut list::Listing,
    ) {
    }

    // --- disc: what a harness says about a project and how its files run (#39 §2 A, B, D, E) ---

    /// What any file gets in its environment because this harness would run it, by its
    /// command and name (prove's `HARNESS_ACTIVE`: a perl file, or `*.t` whatever runs it).
    /// Asked of every harness; set before the user's `--env`, which wins.
    fn file_env(&self, _command: &[OsString], _rel: &str) -> Vec<(OsString, OsString)> {
        Vec::new()
    }

    /// `--list`'s note on the variables [`Harness::file_env`] gave a file, shown as `K=V …`.
    fn file_env_note(&self, shown: &str) -> String {
        format!("its files get {shown}")
    }

    /// Why the files in `cwd` run one at a time as this harness runs them, given the programs
    /// of their commands (`None`: a file with no command). Asked in the registry's order;
    /// the first reason wins.
    fn one_at_a_time(&self, _cwd: &Path, _programs: &[Option<String>]) -> Option<String> {
        None
    }

    /// `--list`'s notes on what a run in `cwd` takes from this harness (a Perl
    /// distribution's folders on `@INC`).
    fn notes(&self, _cwd: &Path) -> Vec<String> {
        Vec::new()
    }

    /// The variable its interpreter reads include folders from (`[run] lib` and `-I DIR` are
    /// prepended to it), when this harness speaks for the interpreter.
    fn lib_var(&self) -> Option<&'static str> {
        None
    }

    /// Folders of the project in `dir` (absolute) its files see on [`Harness::lib_var`] after
    /// `-I DIR` and `[run] lib`, as the harness puts them there (a Perl distribution's `lib`).
    fn dist_libs(&self, _dir: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// `argv` as it must be for its interpreter to see the include folders (a taint-mode perl
    /// ignores `PERL5LIB`); `get` reads a variable as the child sees it. Asked of every
    /// harness.
    fn adapt(&self, argv: Vec<OsString>, _get: &dyn Fn(&str) -> Option<OsString>) -> Vec<OsString> {
        argv
    }

    /// What it takes from one simple command of a project's test script (already split at
    /// `&&`, `||`, `;`, `|`, wrappers and `VAR=value` skipped), when the command runs this
    /// harness (`None`: not this harness's command).
    fn follows(&self, _words: &[String]) -> Option<follow::Follows> {
        None
    }

    /// The module a file at `abs` (absolute) loads first in its process, as this harness runs
    /// a folder's init module (tstest's `00init`). Asked of every harness; the first wins.
    fn init_of(&self, _abs: &Path) -> Option<PathBuf> {
        None
    }

    /// `argv` loading `init` first, and the variables that name it (`shown`: as a failure
    /// names it); `Ok(None)`: this harness loads nothing ahead for `argv`'s program; `Err`:
    /// why the file cannot run. `inline`: nothing of tapline's temp folder may be named (a
    /// sandbox hides it). Asked of every harness; the first `Some` wins.
    fn preload(
        &self,
        _argv: &[OsString],
        _init: &Path,
        _shown: &str,
        _inline: bool,
    ) -> Result<Option<Preloaded>, String> {
        Ok(None)
    }

    /// What the result cache adds to the key of a file that loads `init` first (its content
    /// is an input). Asked of every harness; the first wins.
    fn init_cache_word(&self, _init: &Path) -> Option<String> {
        None
    }

    /// Whether the file at `path` declares one of `wanted` as a tag, as this harness reads
    /// tags (`--tag`).
    fn declares_tag(&self, _path: &Path, _wanted: &[String]) -> bool {
        false
    }

    /// `--tag`'s `KEY=VALUE` for every file, as this harness passes the tags on.
    fn tag_env(&self, _wanted: &[String]) -> Option<String> {
        None
    }

    /// The files a run with no PATH takes when the project in `cwd` (or its `root`) is this
    /// harness's and has none of the default test folders: where the harness looks with no
    /// argument (pytest: from the cwd down), relative to `cwd`. `None`: not its project.
    fn project_files(
        &self,
        _cwd: &Path,
        _root: &Path,
    ) -> Option<Result<Vec<PathBuf>, ignore::Error>> {
        None
    }

    /// Whether this harness runs the file at `abs`, which another harness's built-in rule
    /// maps, by what the file says (a `*.t` whose `#!` names a shell): its
    /// [`Harness::command`] then makes the file's command.
    fn claims(&self, _abs: &Path) -> bool {
        false
    }

    /// Whether the project in `cwd` names its test files in this harness's own configuration
    /// (busted's `.busted`): a run with no PATH then takes [`Harness::project_files`] even
    /// where a default test folder exists.
    fn configures_files(&self, _cwd: &Path) -> bool {
        false
    }

    /// The files its own collection takes, when the files a run found include some it runs
    /// (`input.harness` is its id) and the project's session decides which (pytest's:
    /// `testpaths`, `collect_ignore`, `--ignore` in `addopts`). `bare`: a run with no PATH,
    /// whose files of this harness are then exactly these (relative to the cwd); with PATHs
    /// only whether its files can run at all is asked (`Ok(None)`). `Err`: why not, after
    /// "failed to list the test files of `ID`: " (one error for the run, exit 2).
    fn collects(
        &self,
        _bare: bool,
        _cx: &mut Cx<'_>,
    ) -> Option<Result<Option<Vec<PathBuf>>, String>> {
        None
    }

    /// Why [`Harness::project_files`] found none (after "failed to find test files: ").
    fn no_project_files(&self) -> &'static str {
        "the project has no test folder and no test file"
    }

    /// The `[[suite]]`s the project in `cwd` implies when its configuration names none (go's
    /// module: `go test -json` for each package `go list ./...` gives). `None`: no project of
    /// this harness's here.
    fn implied_suite(&self, _cwd: &Path) -> Option<Vec<follow::Implied>> {
        None
    }

    /// The packages a `[[suite]]` of `format` run in `dir` tests, as this harness reads them
    /// (go's module: its failures' locations then are relative to the project `root`).
    fn suite_packages(
        &self,
        _format: crate::protocol::InputFormat,
        _dir: &Path,
        _root: &Path,
    ) -> Option<crate::protocol::gojson::PackageDirs> {
        None
    }

    /// How a crashed test binary of a stream in `format` names the tests it was running: by
    /// asking the binary itself ([`crate::protocol::libtest::TestLister`]); `None`: it cannot.
    fn crash_lister(
        &self,
        _format: crate::protocol::InputFormat,
    ) -> Option<crate::protocol::libtest::TestLister> {
        None
    }

    // --- through: a harness that lists and runs its own files ([`follow::Through`]) ---

    /// The files the followed command `words` runs, as the harness itself lists them
    /// (relative to `cwd`, where the script runs), when this harness runs its own files
    /// (`None`: it does not; `Err`: why it cannot list them, after "failed to list ").
    fn list_through(&self, _words: &[String], _cwd: &Path) -> Option<Result<Vec<PathBuf>, String>> {
        None
    }

    /// The command that runs the file at `path` (from the cwd) alone through the harness, as
    /// the followed command `words` runs its files: its flags, the project's configuration,
    /// tapline's reporter. Asked only of a harness whose [`Harness::list_through`] listed it.
    fn command_through(
        &self,
        _words: &[String],
        path: &Path,
        _cx: &mut Cx<'_>,
    ) -> Result<Vec<OsString>, api::MissingInterpreter> {
        Err(api::MissingInterpreter {
            program: self.id().to_owned(),
            file: path.to_path_buf(),
            hint: String::new(),
        })
    }

    // --- warm (h39-warm): a long-lived worker that runs the harness's files one after another ---

    /// Its worker, when files it runs may share a long-lived process ([`worker::Worker`]).
    fn worker(&self) -> Option<&'static dyn worker::Worker> {
        None
    }

    // --- dsc2: a project a harness owns and a folder's walk it takes over ---

    /// Whether the project in `cwd` is wholly this harness's (a Perl distribution): a walk
    /// then takes this harness's files only, and a run with no PATH walks
    /// [`Harness::owned_dirs`]. Asked in the registry's order; the first wins.
    fn owns_project(&self, _cwd: &Path) -> bool {
        false
    }

    /// The folders a run with no PATH walks in a project this harness owns.
    fn owned_dirs(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether the folder at `dir` (absolute) holds tests of this harness only, by its own
    /// files' names (`another_test`: whether a name is a test of some harness): a run with no
    /// PATH inside it walks it.
    fn holds_own_only(&self, _dir: &Path, _another_test: &dyn Fn(&str) -> bool) -> bool {
        false
    }

    /// The walk of the folder `dir` (as walked, from `cwd`) as this harness takes it over, if
    /// it does. `owned`: the project is this harness's ([`Harness::owns_project`]); `bare`: a
    /// run with no PATH, which follows the harness.
    fn folder(
        &self,
        _cwd: &Path,
        _dir: &Path,
        _owned: bool,
        _bare: bool,
        _another_test: &dyn Fn(&str) -> bool,
    ) -> Option<Box<dyn folder::Folder>> {
        None
    }

    // --- dsc2: `tapline init`, what it detects and writes ---

    /// `tapline init`: whether the folder `dir` (absolute) holds a project of this harness's
    /// that a `[[suite]]` runs (a go module, pytest's configuration).
    fn init_marks(&self, _dir: &Path) -> bool {
        false
    }

    /// `tapline init`: why a project [`Harness::init_marks`] found at `rel` (relative to the
    /// root, `""` for the root) needs no `[[suite]]`, as the comment written instead: a bare run
    /// at the root runs it by itself ([`Harness::implied_suite`]), or the harness's own run
    /// never does (go's `_examples`). `None`: it needs one.
    fn init_no_suite(&self, _rel: &str) -> Option<String> {
        None
    }

    /// `tapline init`: whether its project inside another of its own, or inside a folder a
    /// plain run walks (the root's included), is already run by a plain run (pytest's), so
    /// needs no suite; else each one is a suite of its own (go's modules).
    fn init_nests(&self) -> bool {
        false
    }

    /// The word `tapline init` names its suites by (`go`, `go-tools`).
    fn init_name(&self) -> &'static str {
        self.id()
    }

    /// `tapline init`'s `[[suite]]` for its project `where_` (`the root`, or its folder),
    /// `name` and `dir` TOML strings already, with the comment that leads it.
    fn init_suite(&self, _where_: &str, _name: &str, _dir: &str) -> String {
        String::new()
    }

    /// `tapline init`'s `[run]` comment on a project this harness owns
    /// ([`Harness::owns_project`]).
    fn init_owned_note(&self) -> Option<&'static str> {
        None
    }

    /// The test script the project at `root` declares, as this harness's ecosystem declares
    /// one (`package.json`'s `scripts.test`).
    fn init_script(&self, _root: &Path) -> Option<String> {
        None
    }

    /// `tapline init`'s text on that script (`quoted`: a TOML string already): the `[run]`
    /// comment when a plain run follows it (`followed`), else the block that ends the file.
    fn init_script_text(&self, _quoted: &str, _words: &[&str], _followed: bool) -> String {
        String::new()
    }

    // --- workspaces (h39-ws): a monorepo whose packages each run their own test script ---

    /// The packages of the workspace whose root is `root`, as this harness's ecosystem
    /// declares them (`None`: no workspace here; `Err`: its declaration cannot be read, after
    /// "failed to read the workspace: "). Asked in the registry's order; the first wins.
    fn workspace(&self, _root: &Path) -> Option<Result<follow::Workspace, String>> {
        None
    }
}

#[cfg(test)]
mod coverage_engines_tests;
#[cfg(test)]
mod tests;
