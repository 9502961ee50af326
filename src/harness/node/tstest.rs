//! What tstest does around a test file, done as tstest does it (docs/tstest.md):
//!
//! - **A folder's `00init` module** ([`init_of`]): tstest runs a folder's `00init.ts` in the
//!   process of each test file of that same folder, before the file (subfolders do not
//!   inherit it). tapline loads it with node's `--import` of a hook of its own in its temp
//!   folder ([`node_preload`]), never a file in the project; a browser file gets it bundled
//!   ahead of it (`esbuild --inject`, [`crate::browser::bundle`]). An init that throws prints
//!   a failing test point naming it and its error: the file fails with it as the reason.
//! - **Parallel groups** ([`Lane`]): when a run follows a `tstest` script, files run one at a
//!   time, as tstest runs them, except the files of one `*.para__N.*` group, which run at the
//!   same time (within `-j`); the plain files come first, then the groups by number.
//! - **Tags** ([`declared_tags`]): `--tag T` keeps the files whose source calls
//!   `.tags(…)` with `T` among its string arguments, and passes the tags on in
//!   `TSTEST_FILTER_TAGS`, as tstest does, for a tapbundle that filters its tests by them.
use crate::harness::api::Lane;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub(crate) use crate::harness::node::init_module::init_of;

/// The hook node imports first (`--import`): it imports the module `TAPLINE_INIT` names and
/// takes the variable away, so that the test's own node subprocesses do not run it again.
const HOOK: &str = include_str!("tstest_init_hook.mjs");
/// The hook's file name in tapline's temp folder.
const HOOK_NAME: &str = "tapline-00init.mjs";
/// The variable naming the init module for the hook; `TAPLINE_INIT_NAME` is how it is shown.
pub(crate) const INIT_VAR: &str = "TAPLINE_INIT";
const INIT_NAME_VAR: &str = "TAPLINE_INIT_NAME";

/// The programs whose command line takes node's `--import` right after the program's name.
fn takes_import(program: &OsString) -> bool {
    let program = program.to_string_lossy();
    let name = program.rsplit('/').next().unwrap_or(&program);
    matches!(name, "node" | "nodejs" | "tsx")
}

/// The hook's path, written once a process (`Err`: why it could not be).
fn hook_path() -> Result<PathBuf, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = super::super::hooks::versioned_hooks("tstest", &[(HOOK_NAME, HOOK)])
            .map_err(|e| e.to_string())?;
        Ok(dir.join(HOOK_NAME))
    })
    .clone()
}

use super::super::Preloaded;

/// `argv` loading `init` first, and the variables the hook reads; `shown` names the init in
/// a failure. `Ok(None)`: the program takes no `--import` (a `[run] ts_runner` of its own,
/// tsrun), so the init cannot be loaded ahead of the file; `Err`: the hook could not be
/// written (the file then fails with why).
/// `inline`: the hook goes on the command line as a `data:` URL, for a sandbox whose private
/// `/tmp` hides tapline's temp folder.
pub(crate) fn node_preload(
    argv: &[OsString],
    init: &Path,
    shown: &str,
    inline: bool,
) -> Result<Option<Preloaded>, String> {
    let Some(program) = argv.first().filter(|p| takes_import(p)) else {
        return Ok(None);
    };
    let hook = if inline {
        OsString::from(data_url(HOOK))
    } else {
        hook_path()
            .map_err(|e| format!("failed to write the 00init hook: {e}"))?
            .into_os_string()
    };
    let mut out = vec![program.clone(), "--import".into(), hook];
    out.extend(argv[1..].iter().cloned());
    let env = vec![
        (INIT_VAR.into(), init.as_os_str().to_owned()),
        (INIT_NAME_VAR.into(), shown.into()),
    ];
    Ok(Some((out, env)))
}

/// What the result cache adds to the key of a file with an init module: its path and
/// content (an unreadable one: its path, and the file runs as its init then fails it).
pub(crate) fn cache_word(init: &Path) -> String {
    let content = std::fs::read(init).unwrap_or_default();
    format!(
        " (00init {} {})",
        init.display(),
        String::from_utf8_lossy(&content)
    )
}

/// `text` as a `data:text/javascript,` URL (every byte but the unreserved ones escaped).
fn data_url(text: &str) -> String {
    let mut url = String::from("data:text/javascript,");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// The lane of a file named `name` in a run that follows tstest: alone, or with its
/// `*.para__N.*` group.
pub(crate) fn lane_of(name: &str) -> Lane {
    para_group(name).map_or(Lane::Alone, Lane::Group)
}

/// The `N` of a `*.para__N.*` name (`test.a.para__1.ts`), as tstest reads it.
pub(crate) fn para_group(name: &str) -> Option<u32> {
    name.split('.').find_map(|segment| {
        let digits = segment.strip_prefix("para__")?;
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    })
}

/// The string literals passed to every `.tags(…)` call in `source` (tapbundle's
/// `tap.tags('db', 'slow').test(…)`), sorted and unique. Only literal arguments count: a
/// computed tag cannot be read without running the file.
pub(crate) fn declared_tags(source: &str) -> Vec<String> {
    let mut tags = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find(".tags(") {
        rest = &rest[at + ".tags(".len()..];
        let args = &rest[..rest.find(')').unwrap_or(rest.len())];
        tags.extend(string_literals(args));
    }
    tags.sort();
    tags.dedup();
    tags
}

/// The quoted strings (`'…'`, `"…"`, `` `…` `` without `${`) in `args`.
fn string_literals(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = args.char_indices();
    while let Some((start, c)) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let body = &args[start + 1..];
        let Some(end) = body.find(c) else { break };
        let text = &body[..end];
        if !(c == '`' && text.contains("${")) {
            out.push(text.to_owned());
        }
        // Skip past the closing quote.
        for _ in 0..text.chars().count() + 1 {
            chars.next();
        }
    }
    out
}

/// Whether the file at `path` declares one of `wanted` as a tag (an unreadable file: no).
pub(crate) fn declares_any_tag(path: &Path, wanted: &[String]) -> bool {
    std::fs::read_to_string(path)
        .map(|text| declared_tags(&text).iter().any(|t| wanted.contains(t)))
        .unwrap_or(false)
}

/// The variable tstest sets for its tag filter, which tapbundle reads to run only the tests
/// carrying one of the tags, comma-separated.
pub(crate) const TAG_VAR: &str = "TSTEST_FILTER_TAGS";

/// `--tag`'s `--env` word for every file (`TSTEST_FILTER_TAGS=a,b`), as tstest passes its
/// tags on; none without tags.
pub(crate) fn tag_env(wanted: &[String]) -> Option<String> {
    (!wanted.is_empty()).then(|| format!("{TAG_VAR}={}", wanted.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folders_init_is_its_own_not_a_parents() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let p = dir.path();
        std::fs::create_dir_all(p.join("test/sub")).expect("mkdir");
        std::fs::write(p.join("test/00init.ts"), "").expect("write");
        std::fs::write(p.join("test/00init.js"), "").expect("write");
        assert_eq!(
            init_of(&p.join("test/test.a.ts")),
            Some(p.join("test/00init.ts"))
        );
        assert_eq!(init_of(&p.join("test/sub/test.b.ts")), None);
        assert_eq!(init_of(&p.join("test/00init.ts")), None);
        assert_eq!(init_of(&p.join("test/a.t")), None);
        use crate::harness::node::init_module::is_init_name;
        assert!(is_init_name("00init.mts") && !is_init_name("00init.d.ts"));
    }

    #[test]
    fn para_groups_as_tstest_names_them() {
        assert_eq!(para_group("test.a.para__1.ts"), Some(1));
        assert_eq!(para_group("test.para__12.browser.ts"), Some(12));
        assert_eq!(para_group("test.para__.ts"), None);
        assert_eq!(para_group("test.para__x1.ts"), None);
        assert_eq!(para_group("test.para_1.ts"), None);
        assert_eq!(lane_of("test.a.ts"), Lane::Alone);
        assert!(Lane::Group(1).fits_beside(Lane::Group(1)));
        assert!(!Lane::Group(1).fits_beside(Lane::Group(2)));
        assert!(!Lane::Alone.fits_beside(Lane::Alone));
        assert!(!Lane::Group(1).fits_beside(Lane::Alone));
        assert!(Lane::Free.fits_beside(Lane::Free));
    }

    #[test]
    fn tags_are_the_literal_arguments_of_tags_calls() {
        let src = "tap.tags('db', \"slow\").test('x', async () => {});\n\
                   tap.tags(`unit`, `${computed}`).test('y', f);\n\
                   tap.test('tags(\"no\")', f); const t = x.tags( 'db' );";
        assert_eq!(declared_tags(src), ["db", "slow", "unit"]);
        assert!(declared_tags("tap.test('a', f)").is_empty());
    }

    #[test]
    fn only_node_and_tsx_take_the_preload() {
        let init = Path::new("/p/test/00init.ts");
        let argv: Vec<OsString> = vec!["/p/node_modules/.bin/tsx".into(), "test/a.ts".into()];
        let (cmd, env) = node_preload(&argv, init, "test/00init.ts", false)
            .expect("hook written")
            .expect("tsx takes it");
        assert_eq!(cmd[1], "--import");
        assert!(cmd[2].to_string_lossy().ends_with(HOOK_NAME));
        assert_eq!(cmd[3], "test/a.ts");
        assert_eq!(env[0], (INIT_VAR.into(), init.as_os_str().to_owned()));
        let other: Vec<OsString> = vec!["tsrun".into(), "test/a.ts".into()];
        assert_eq!(node_preload(&other, init, "x", false), Ok(None));
        let (inline, _) = node_preload(&argv, init, "x", true)
            .expect("nothing to write")
            .expect("tsx takes it");
        assert!(inline[2]
            .to_string_lossy()
            .starts_with("data:text/javascript,%2F%2F"));
        assert!(!inline[2].to_string_lossy().contains([' ', '\n', '\'']));
    }
}
