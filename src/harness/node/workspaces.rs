//! Workspaces: the packages of a JavaScript monorepo, as its package manager reads them.
//!
//! - `pnpm-workspace.yaml` `packages` (pnpm reads nothing else; `!` excludes),
//! - else `package.json` `workspaces` (npm and yarn: an array, or yarn's `{packages: [...]}`),
//! - else `lerna.json` `packages` (lerna without workspaces; lerna with them reads the above).
//!
//! Each pattern is a folder or a glob (`packages/*`, `apps/**`) from the root; a match is a
//! package when it holds a `package.json`. Packages come in the order of their patterns (a
//! glob's matches sorted by path), each once; `node_modules` and hidden folders are never one.
//! The generic layer runs each package's own test script from its folder
//! ([`crate::harness::follow::Workspace`]).
use crate::harness::follow::Workspace;
use globset::{GlobBuilder, GlobMatcher};
use std::path::{Path, PathBuf};

/// How deep a `**` pattern looks below its literal folder.
const MAX_DEPTH: usize = 8;

/// The workspace whose root is `root`, if its package manager declares one (`Err`: the
/// declaration could not be read, after "failed to read the workspace: ").
pub(crate) fn workspace(root: &Path) -> Option<Result<Workspace, String>> {
    let (source, patterns) = declared(root)?;
    Some(patterns.and_then(|patterns| {
        let packages = expand(root, &patterns)?;
        let one_at_a_time = one_package_at_a_time(root);
        Ok(Workspace {
            source,
            packages,
            one_at_a_time,
        })
    }))
}

/// Where the patterns are declared and the patterns, in the order the managers read them.
fn declared(root: &Path) -> Option<(String, Result<Vec<String>, String>)> {
    if let Ok(text) = std::fs::read_to_string(root.join("pnpm-workspace.yaml")) {
        let patterns = yaml_packages(&text);
        return Some(("pnpm-workspace.yaml packages".to_owned(), Ok(patterns)));
    }
    if let Some(patterns) = json_list(&root.join("package.json"), "workspaces") {
        return Some(("package.json workspaces".to_owned(), patterns));
    }
    let patterns = json_list(&root.join("lerna.json"), "packages")?;
    Some(("lerna.json packages".to_owned(), patterns))
}

/// Why the root's test script runs the packages' tests one package at a time: `turbo run test
/// --concurrency=1`, `lerna run test --concurrency 1`, `pnpm -r --workspace-concurrency=1
/// test` (a simple command of `scripts.test`; `1` as its own word or after `=`).
fn one_package_at_a_time(root: &Path) -> Option<&'static str> {
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let line = json.get("scripts")?.get("test")?.as_str()?;
    line.split(['&', '|', ';'])
        .find_map(|command| concurrency_one(&command.split_whitespace().collect::<Vec<_>>()))
}

/// The reason when `words` run the packages' tests with a concurrency of 1.
fn concurrency_one(words: &[&str]) -> Option<&'static str> {
    let program = (words.iter().filter_map(|w| w.rsplit('/').next()))
        .find(|p| matches!(*p, "turbo" | "lerna" | "pnpm"))?;
    let (option, why) = match program {
        "turbo" => (
            "--concurrency",
            "`turbo run test --concurrency=1` runs one package at a time",
        ),
        "lerna" => (
            "--concurrency",
            "`lerna run test --concurrency 1` runs one package at a time",
        ),
        "pnpm" => (
            "--workspace-concurrency",
            "`pnpm -r --workspace-concurrency=1` runs one package at a time",
        ),
        _ => return None,
    };
    let one = words.iter().enumerate().any(|(i, w)| {
        w.strip_prefix(option)
            .and_then(|rest| rest.strip_prefix('='))
            .is_some_and(|v| v == "1")
            || (*w == option && words.get(i + 1) == Some(&"1"))
    });
    one.then_some(why)
}

/// The strings of `key` in the JSON file at `path` (an array, or an object's `packages`
/// array); `None`: no such file or key.
fn json_list(path: &Path, key: &str) -> Option<Result<Vec<String>, String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = match serde_json::from_str(&text) {
        Ok(json) => json,
        Err(e) => return Some(Err(format!("failed to parse {}: {e}", path.display()))),
    };
    let value = json.get(key)?;
    let list = value.get("packages").unwrap_or(value);
    let Some(items) = list.as_array() else {
        return Some(Err(format!(
            "{} `{key}` is neither a list nor {{\"packages\": [...]}}",
            path.display()
        )));
    };
    Some(Ok(items
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()))
}

/// The `packages` list of a `pnpm-workspace.yaml`: a block list (`- 'packages/*'`) or a flow
/// one (`packages: [a, b]`). Other keys (`catalog`, `onlyBuiltDependencies`) are not read.
fn yaml_packages(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = strip_comment(line);
        if line.trim().is_empty() {
            continue;
        }
        let top_level = !line.starts_with([' ', '\t', '-']);
        if top_level {
            inside = false;
            if let Some(rest) = line.strip_prefix("packages:") {
                let rest = rest.trim();
                if let Some(flow) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                    out.extend(flow.split(',').map(unquote).filter(|p| !p.is_empty()));
                } else {
                    inside = rest.is_empty();
                }
            }
            continue;
        }
        if let Some(item) = line.trim_start().strip_prefix('-').filter(|_| inside) {
            let item = unquote(item);
            if !item.is_empty() {
                out.push(item);
            }
        }
    }
    out
}

/// A YAML line without its `# comment` (a `#` after a space, outside quotes).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return &line[..i],
            _ => {}
        }
        prev = c;
    }
    line
}

/// A scalar without its quotes and surrounding space.
fn unquote(s: &str) -> String {
    let s = s.trim();
    let inner = s
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|r| r.strip_suffix('"')));
    inner.unwrap_or(s).to_owned()
}

/// The package folders (from the root) the patterns name, in their order, without those an
/// `!` pattern excludes.
fn expand(root: &Path, patterns: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut packages: Vec<PathBuf> = Vec::new();
    let mut excluded: Vec<GlobMatcher> = Vec::new();
    for pattern in patterns {
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern.as_str()),
        };
        let pattern = clean(pattern);
        // The root is no package of its own workspace (its own script runs anyway).
        if pattern.is_empty() || pattern == "." {
            continue;
        }
        let matcher = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("failed to parse the pattern `{pattern}`: {}", e.kind()))?
            .compile_matcher();
        if negated {
            excluded.push(matcher);
            continue;
        }
        for dir in matches(root, &pattern, &matcher) {
            if !packages.contains(&dir) {
                packages.push(dir);
            }
        }
    }
    packages.retain(|p| !excluded.iter().any(|m| m.is_match(p)));
    Ok(packages)
}

/// A pattern as matched against folder paths: no `./` before it, no `/` after it.
fn clean(pattern: &str) -> String {
    let p = pattern.trim();
    let p = p.strip_prefix("./").unwrap_or(p);
    p.trim_end_matches('/').to_owned()
}

/// The package folders under the pattern's literal folder that it matches, sorted.
fn matches(root: &Path, pattern: &str, matcher: &GlobMatcher) -> Vec<PathBuf> {
    let first_meta = pattern.find(['*', '?', '[', '{']);
    let Some(first_meta) = first_meta else {
        let dir = PathBuf::from(pattern);
        return if root.join(&dir).join("package.json").is_file() {
            vec![dir]
        } else {
            Vec::new()
        };
    };
    let base = pattern[..first_meta]
        .rfind('/')
        .map_or("", |slash| &pattern[..slash]);
    let depth = if pattern.contains("**") {
        MAX_DEPTH
    } else {
        pattern[base.len()..].matches('/').count().max(1)
    };
    let mut found = Vec::new();
    walk(root, Path::new(base), depth, &mut |dir| {
        if matcher.is_match(dir) && root.join(dir).join("package.json").is_file() {
            found.push(dir.to_path_buf());
        }
    });
    found.sort();
    found
}

/// Calls `each` with every folder below `dir` (from the root) down to `depth` levels, past
/// `node_modules` and hidden folders.
fn walk(root: &Path, dir: &Path, depth: usize, each: &mut dyn FnMut(&Path)) {
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "node_modules" || name.starts_with('.') {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let sub = dir.join(&*name);
            each(&sub);
            walk(root, &sub, depth - 1, each);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_concurrency_of_1_runs_one_package_at_a_time() {
        let one = |line: &str| {
            super::concurrency_one(&line.split_whitespace().collect::<Vec<_>>()).is_some()
        };
        assert!(one("turbo run test --concurrency=1"));
        assert!(one("npx turbo test --concurrency 1"));
        assert!(one("lerna run test --stream --concurrency 1"));
        assert!(one("pnpm -r --workspace-concurrency=1 test"));
        assert!(!one("turbo run test"));
        assert!(!one("turbo run test --concurrency=10"));
        assert!(!one("lerna run test --concurrency 2"));
        assert!(!one("mocha --concurrency=1"));
    }

    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    fn packages(dir: &Path) -> (String, Vec<String>) {
        let w = workspace(dir).expect("a workspace").expect("readable");
        let shown = w.packages.iter().map(|p| p.display().to_string());
        (w.source, shown.collect())
    }

    const PKG: &str = "{}";

    #[test]
    fn npm_workspaces_in_their_order_each_once() {
        let dir = project(&[
            (
                "package.json",
                r#"{"workspaces": ["packages/z", "packages/*", "./tools/", "."]}"#,
            ),
            ("packages/a/package.json", PKG),
            ("packages/z/package.json", PKG),
            ("packages/no-manifest/README", ""),
            ("packages/a/node_modules/x/package.json", PKG),
            ("tools/package.json", PKG),
        ]);
        assert_eq!(
            packages(dir.path()),
            (
                "package.json workspaces".into(),
                vec!["packages/z".into(), "packages/a".into(), "tools".into()]
            )
        );
    }

    #[test]
    fn yarn_packages_object_and_lerna() {
        let dir = project(&[
            (
                "package.json",
                r#"{"workspaces": {"packages": ["libs/**"]}}"#,
            ),
            ("libs/a/package.json", PKG),
            ("libs/group/b/package.json", PKG),
        ]);
        assert_eq!(packages(dir.path()).1, ["libs/a", "libs/group/b"]);
        let dir = project(&[
            ("package.json", r#"{"name": "root"}"#),
            ("lerna.json", r#"{"packages": ["modules/*"]}"#),
            ("modules/m/package.json", PKG),
        ]);
        assert_eq!(
            packages(dir.path()),
            ("lerna.json packages".into(), vec!["modules/m".into()])
        );
        let dir = project(&[("package.json", r#"{"name": "single"}"#)]);
        assert!(workspace(dir.path()).is_none(), "no workspace");
    }

    #[test]
    fn pnpm_yaml_wins_and_excludes() {
        let dir = project(&[
            ("package.json", r#"{"workspaces": ["ignored/*"]}"#),
            (
                "pnpm-workspace.yaml",
                "# the packages\npackages:\n  - 'packages/*'   # all\n  - \"examples/*\"\n  - '!packages/fixtures'\n  - '!examples/old'\ncatalog:\n  - not-a-package\n",
            ),
            ("packages/core/package.json", PKG),
            ("packages/fixtures/package.json", PKG),
            ("examples/old/package.json", PKG),
            ("examples/new/package.json", PKG),
            ("ignored/x/package.json", PKG),
        ]);
        assert_eq!(
            packages(dir.path()),
            (
                "pnpm-workspace.yaml packages".into(),
                vec!["packages/core".into(), "examples/new".into()]
            )
        );
        assert_eq!(yaml_packages("packages: ['a/*', b]\n"), ["a/*", "b"]);
    }

    #[test]
    fn an_unreadable_declaration_says_why() {
        let dir = project(&[("package.json", r#"{"workspaces": "packages/*"}"#)]);
        let err = workspace(dir.path()).expect("declared").expect_err("bad");
        assert!(err.contains("neither a list"), "{err}");
    }
}
