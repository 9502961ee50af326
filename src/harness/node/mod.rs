//! JavaScript and TypeScript files run by node (or the project's TypeScript runner): the files
//! a walk takes as node's runner, node-tap and tstest name them ([`naming`]), and how a `#!`
//! line's flags reach node.
use super::api::{insert_after_program, Builtin, Candidate, Cx, Hosts, Id, Silent};
use super::filter::{own_level, Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Only};
use super::Harness;
use crate::harness::shebang::Shebang;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[cfg(test)]
pub(crate) mod discovery_cases;
pub(crate) mod init_module;
pub(crate) mod naming;
mod scan;
mod source_maps;
pub(crate) mod tstest;
// trace and coverage (h39-trace): the trace hook and V8's coverage.
pub(crate) mod coverage;
pub(crate) mod trace;
// warm (h39-warm): the warm worker's driver and which files run in it.
mod warm;
// workspaces (h39-ws): a monorepo's packages, as npm, yarn, pnpm and lerna declare them.
mod workspaces;

/// The options of `node --test` (and `tsx --test`) that take their value as the next word.
const NODE_TEST_WITH_VALUE: &[&str] = &[
    "-r",
    "--require",
    "--import",
    "--loader",
    "--test-reporter",
    "--test-reporter-destination",
    "--test-name-pattern",
    "--test-skip-pattern",
    "--test-concurrency",
    "--test-timeout",
];

/// `*.{js,mjs,cjs}` under node.
pub(crate) struct Node;
pub(crate) static NODE: Node = Node;

/// `*.ts` under the project's TypeScript runner ([`ts_runner`]).
pub(crate) struct TypeScript;
pub(crate) static TYPESCRIPT: TypeScript = TypeScript;

/// node's runner and tape count a file with no TAP as one with no tests, not as a failure.
fn silent(name: &str) -> Silent {
    match name.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "js" | "mjs" | "cjs" | "ts" => Silent::NoTests,
        _ => Silent::Fails,
    }
}

impl Harness for Node {
    fn id(&self) -> Id {
        "node"
    }

    // As npm finds its project: the nearest `package.json`.
    fn project_markers(&self) -> &'static [&'static str] {
        &["package.json"]
    }

    // --- inventory (h39-inv) ---
    fn scanner(&self, path: &str) -> Option<crate::harness::scan::Scanner> {
        scan::reads(path).then_some(scan::scan as crate::harness::scan::Scanner)
    }

    // --- disc (#39 §2 C) ---

    fn lib_var(&self) -> Option<&'static str> {
        Some("NODE_PATH")
    }

    // tstest's own: a folder's `00init` (loaded by node's `--import`) and `--tag`, for every
    // file whatever runs it ([`tstest`]).

    fn init_of(&self, abs: &Path) -> Option<PathBuf> {
        tstest::init_of(abs)
    }

    fn preload(
        &self,
        argv: &[OsString],
        init: &Path,
        shown: &str,
        inline: bool,
    ) -> Result<Option<super::Preloaded>, String> {
        tstest::node_preload(argv, init, shown, inline)
    }

    fn init_cache_word(&self, init: &Path) -> Option<String> {
        Some(tstest::cache_word(init))
    }

    fn declares_tag(&self, path: &Path, wanted: &[String]) -> bool {
        tstest::declares_any_tag(path, wanted)
    }

    fn tag_env(&self, wanted: &[String]) -> Option<String> {
        tstest::tag_env(wanted)
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let (program, args) = follow::program(words)?;
        let js = Only::Js { ts: false };
        let places = match program {
            "tape" => follow::operands(args, &["-r", "--require", "-i", "--ignore"])
                .into_iter()
                .map(|a| follow::path_or_glob(a, js.clone()))
                .collect(),
            // tsx's `--test` is node's runner with tsx's loader: TypeScript tests too.
            "tsx" if args.iter().any(|a| a == "--test") => follow::or_default(
                follow::operands(args, NODE_TEST_WITH_VALUE),
                Only::Js { ts: true },
            ),
            "node" if args.iter().any(|a| a == "--test") => {
                follow::or_default(follow::operands(args, NODE_TEST_WITH_VALUE), js)
            }
            _ => return None,
        };
        // node's runner and tape's one process do not say they run files one at a time.
        Some(Follows {
            places,
            ..Follows::default()
        })
    }

    fn rules(&self) -> &'static [Builtin] {
        &[Builtin {
            glob: "*.{js,mjs,cjs}",
            walk: &[],
            command: &["node", "{}"],
        }]
    }

    fn is_test_name(&self, name: &str) -> bool {
        naming::is_js_test(Path::new(name), false)
    }

    fn takes(&self, file: &Candidate<'_>) -> bool {
        naming::is_js_test(file.path, file.in_test_folder)
            && !crate::harness::node::init_module::is_init_name(file.name)
    }

    fn by_line(&self, mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
        // The line's flags (`--expose-gc`, `--experimental-…`) go on the command line.
        if matches!(line.name(), "node" | "nodejs") {
            insert_after_program(&mut command, line.args.clone());
        }
        command
    }

    fn hosts(&self, name: &str) -> Option<Hosts> {
        Some(naming::runtimes(name))
    }

    fn silent(&self, name: &str) -> Silent {
        silent(name)
    }

    fn dependency_folders(&self) -> &'static [&'static str] {
        &["node_modules"]
    }

    // warm (h39-warm)
    fn worker(&self) -> Option<&'static dyn crate::harness::worker::Worker> {
        Some(&warm::WARM)
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        if probe.suite.is_some() || !(probe.program)("node") {
            return None;
        }
        let src = (probe.source)();
        let imports = |module: &str| {
            ["'", "\""]
                .iter()
                .any(|q| src.contains(&format!("{q}{module}{q}")))
        };
        match () {
            () if imports("node:test") => Some(NODE_TEST_FILTER),
            () => None,
        }
    }

    // --- dsc2: `tapline init` ---

    fn init_script(&self, root: &Path) -> Option<String> {
        let text = std::fs::read_to_string(root.join("package.json")).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        Some(json.get("scripts")?.get("test")?.as_str()?.to_owned())
    }

    fn init_script_text(&self, quoted: &str, words: &[&str], followed: bool) -> String {
        if followed {
            return format!("# A plain run follows package.json's test script ({quoted}).\n");
        }
        let uses = |tool: &str| words.iter().any(|w| w.rsplit('/').next() == Some(tool));
        let block = if uses("mocha") {
            "[[suite]]\nname = \"mocha\"\ncommand = [\"npx\", \"mocha\", \"--reporter\", \"tap\"]\n"
        } else if uses("vitest") {
            "[[suite]]\nname = \"vitest\"\ncommand = [\"npx\", \"vitest\", \"run\", \"--reporter=tap\"]\n"
        } else {
            "# tapline does not know how it runs tests; if it prints TAP, run it as a suite:\n\
             # [[suite]]\n# name = \"npm\"\n# command = [\"npm\", \"test\", \"--silent\"]\n"
        };
        format!("\n# package.json's test script: {quoted}\n{block}")
    }

    // --- workspaces (h39-ws) ---

    fn workspace(&self, root: &Path) -> Option<Result<follow::Workspace, String>> {
        workspaces::workspace(root)
    }
}

/// node's runner: `--test-name-pattern`, matched against each test's own name.
pub(crate) const NODE_TEST_FILTER: Filter = Filter::of(&NamePattern);

struct NamePattern;

impl Narrow for NamePattern {
    fn said(&self) -> &'static str {
        "node --test-name-pattern"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        let own = own_level(patterns, matching);
        insert_after_program(command, vec![format!("--test-name-pattern={own}")]);
    }

    /// Node 20's TAP reporter prints each test the pattern left out as
    /// `ok 2 - subtracts # SKIP test name does not match pattern`.
    fn left_out(&self) -> Option<&'static str> {
        Some("test name does not match pattern")
    }
}

impl Harness for TypeScript {
    fn id(&self) -> Id {
        "typescript"
    }

    fn rules(&self) -> &'static [Builtin] {
        // tstest's names; `helpers.ts` beside them is not a test. The runner is the project's
        // own ([`ts_runner`]), `tsx` only stands for it.
        &[Builtin {
            glob: "*.ts",
            walk: &["test*.ts", "*.test.ts", "*.test.*.ts"],
            command: &["tsx", "{}"],
        }]
    }

    fn is_test_name(&self, name: &str) -> bool {
        naming::ts_name(name) == naming::TsName::Test
    }

    fn takes(&self, file: &Candidate<'_>) -> bool {
        self.is_test_name(file.name)
    }

    fn template(&self, cx: &mut Cx<'_>) -> Option<Vec<String>> {
        let (cwd, root, configured) = (cx.cwd, cx.root, cx.settings.ts_runner.clone());
        Some(cx.memo.get_or_insert_with(("typescript", "runner"), || {
            ts_runner(configured.as_deref(), cwd, root)
        }))
    }

    fn by_line(&self, mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
        if line.name() == "tsx" {
            insert_after_program(&mut command, line.args.clone());
        }
        command
    }

    fn hosts(&self, name: &str) -> Option<Hosts> {
        Some(naming::runtimes(name))
    }

    fn silent(&self, name: &str) -> Silent {
        silent(name)
    }

    // A failure's place in the TypeScript source, not the transpiled one ([`source_maps`]).
    fn env(&self, vars: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
        Ok(source_maps::env(vars))
    }

    fn sandbox_reads(&self) -> Result<Vec<PathBuf>, String> {
        Ok(source_maps::hook_dir()
            .map(Path::to_path_buf)
            .into_iter()
            .collect())
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let ("tstest", args) = follow::program(words)? else {
            return None;
        };
        let places = follow::operands(args, &[])
            .into_iter()
            .map(|a| follow::path_or_glob(a, Only::Ts))
            .collect();
        // Its files run one at a time but for their `*.para__N.*` groups.
        Some(Follows {
            places,
            lane: Some(tstest::lane_of),
            ..Follows::default()
        })
    }
}

/// The command `*.ts` files run with: `[run] ts_runner` of `tapline.toml`, else the project's
/// own runner (`node_modules/.bin/tsx`, then `node_modules/.bin/tsrun` as tstest runs its
/// files, in the nearest `node_modules` from the cwd up to the root), else `tsx`, then
/// `tsrun`, on PATH; else `tsx`, which then fails as not installed. The project's own matters:
/// tsx and ts-node differ on CommonJS interop, and a suite passes under the one it was
/// written for.
pub(crate) fn ts_runner(configured: Option<&[String]>, cwd: &Path, root: &Path) -> Vec<String> {
    if let Some(words) = configured.filter(|w| !w.is_empty()) {
        return words.to_vec();
    }
    let local = cwd
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .flat_map(|dir| ["tsx", "tsrun"].map(|name| dir.join("node_modules/.bin").join(name)))
        .find(|path| crate::util::which::find(path.as_os_str(), cwd).is_some());
    if let Some(path) = local {
        return vec![path.to_string_lossy().into_owned()];
    }
    let on_path = ["tsx", "tsrun"]
        .into_iter()
        .find(|name| crate::util::which::find(std::ffi::OsStr::new(name), cwd).is_some());
    vec![on_path.unwrap_or("tsx").to_owned()]
}
