//! The documentation's links hold: every relative Markdown link in the README, CONTRIBUTING.md,
//! `docs/`, `benches/README.md`, `protocol-spec/` and test-data's READMEs names a file of the
//! repository that exists and, with a `#fragment`, a heading of that file as GitHub anchors it.
//! External (http, https, mailto) links are not fetched: a test must not depend on the network.
use crate::util::{files_with_ext, repo};
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The Markdown files whose links are checked, relative to `root`, sorted.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![
        PathBuf::from("README.md"),
        PathBuf::from("CONTRIBUTING.md"),
        PathBuf::from("benches/README.md"),
    ];
    let rel = |p: PathBuf| p.strip_prefix(root).map(Path::to_path_buf).ok();
    docs.extend(
        files_with_ext(&root.join("docs"), "md")
            .into_iter()
            .filter_map(rel),
    );
    docs.extend(
        files_with_ext(&root.join("protocol-spec"), "md")
            .into_iter()
            .filter_map(rel),
    );
    // A suite's installed packages are not ours to check.
    docs.extend(
        files_with_ext(&root.join("test-data"), "md")
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n == "README.md"))
            .filter(|p| !p.components().any(|c| c.as_os_str() == "node_modules"))
            .filter_map(rel),
    );
    docs.sort();
    docs.dedup();
    docs
}

/// `text` with fenced code blocks blanked and inline code spans replaced by spaces, newlines
/// kept, so that what remains is prose and a line number still names its line.
fn prose(text: &str) -> String {
    without_code_spans(&outside_fences(text))
}

/// `text` with its fenced code blocks blanked, newlines kept.
fn outside_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open: Option<(char, usize)> = None;
    for line in text.split_inclusive('\n') {
        let fence = fence(line);
        match (open, fence) {
            (Some((c, n)), Some((d, m, info))) if c == d && m >= n && info.trim().is_empty() => {
                open = None
            }
            (Some(_), _) => {}
            (None, Some((c, n, _))) => open = Some((c, n)),
            (None, None) => {
                out.push_str(line);
                continue;
            }
        }
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// A code fence line: its character, its length and what follows it. A backtick fence's info
/// string holds no backtick (```` ```tap ```` opening a line is inline code, not a fence).
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let trimmed = line.trim_start();
    let c = trimmed.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = trimmed.chars().take_while(|&d| d == c).count();
    let info = &trimmed[n..];
    (n >= 3 && (c == '~' || !info.contains('`'))).then_some((c, n, info))
}

/// Inline code spans (a run of backticks up to the next run of the same length) as spaces.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let n = run_at(i);
        if n == 0 {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let close = (i + n..chars.len()).find(|&j| run_at(j) == n && chars[j - 1] != '`');
        match close {
            Some(j) => {
                let span = &chars[i..j + n];
                out.extend(span.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
                i = j + n;
            }
            // An unmatched run is literal backticks.
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// A link's destination and the line it is on.
#[derive(Debug)]
struct Link {
    line: usize,
    target: String,
}

/// The inline links and images (`[text](dest)`, `![alt](dest)`) and reference definitions
/// (`[label]: dest`) of a document's prose.
fn links(prose: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let line_of = |at: usize| prose[..at].matches('\n').count() + 1;
    for (at, _) in prose.match_indices("](") {
        if let Some(target) = destination(&prose[at + 2..]) {
            out.push(Link {
                line: line_of(at),
                target,
            });
        }
    }
    for (n, line) in prose.lines().enumerate() {
        let t = line.trim_start_matches(' ');
        if line.len() - t.len() > 3 {
            continue;
        }
        if let Some(rest) = t.strip_prefix('[').and_then(|r| r.split_once("]:")) {
            if let Some(dest) = rest.1.split_whitespace().next() {
                out.push(Link {
                    line: n + 1,
                    target: dest.trim_matches(['<', '>']).to_string(),
                });
            }
        }
    }
    out
}

/// The destination at the start of an inline link's parentheses: `<…>`, or up to whitespace (a
/// title follows) or the `)` that closes them (balanced parentheses stay in it).
fn destination(after: &str) -> Option<String> {
    let after = after.trim_start();
    if let Some(rest) = after.strip_prefix('<') {
        return rest.split_once('>').map(|(d, _)| d.to_string());
    }
    let mut depth = 0usize;
    for (i, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(after[..i].to_string()),
            ')' => depth -= 1,
            c if c.is_whitespace() => return Some(after[..i].to_string()),
            _ => {}
        }
    }
    None
}

/// A heading's anchor as GitHub makes it: the heading's text (code spans' content, a link's
/// text) lowercased, each space a `-`, every other character but letters, digits, `-` and `_`
/// dropped.
fn slug(heading: &str) -> String {
    let mut text = heading.replace('`', "");
    // `[text](dest)` reads as `text`.
    while let Some(open) = text.find("](") {
        let Some(start) = text[..open].rfind('[') else {
            break;
        };
        let Some(len) = text[open + 2..].find(')') else {
            break;
        };
        let label = text[start + 1..open].to_string();
        text.replace_range(start..open + 2 + len + 1, &label);
    }
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every anchor of a document's headings (ATX `#` headings outside code), a repeated one
/// numbered `-1`, `-2` … as GitHub numbers it.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    for line in outside_fences(text).lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let hashes = line.trim_start().chars().take_while(|&c| c == '#').count();
        let rest = &line.trim_start()[hashes..];
        if indent > 3 || !(1..=6).contains(&hashes) || !(rest.is_empty() || rest.starts_with(' ')) {
            continue;
        }
        let base = slug(rest.trim().trim_end_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// `path` with `.` and `..` resolved lexically; `None` when it climbs above its start.
fn lexical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// `%XX` escapes decoded (a link to `a%20b.md` names `a b.md`).
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A scheme (`https:`, `mailto:`) makes a link external.
fn is_external(target: &str) -> bool {
    target.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    })
}

/// What is wrong with one link of `doc` (relative to `root`), if anything.
fn problem(root: &Path, doc: &Path, target: &str) -> Option<String> {
    let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
    let path = percent_decoded(path);
    let rel = if path.is_empty() {
        doc.to_path_buf()
    } else if let Some(from_root) = path.strip_prefix('/') {
        PathBuf::from(from_root)
    } else {
        doc.parent().unwrap_or(Path::new("")).join(&path)
    };
    let Some(rel) = lexical(&rel) else {
        return Some("points outside the repository".into());
    };
    let file = root.join(&rel);
    if !file.exists() {
        return Some(format!("{} does not exist", rel.display()));
    }
    if fragment.is_empty() {
        return None;
    }
    if file.extension().is_none_or(|e| e != "md") {
        // GitHub's line anchors (`#L10`, `#L10-L20`) on a source file.
        let line_anchor = fragment.split('-').all(|p| {
            p.strip_prefix('L')
                .is_some_and(|n| n.parse::<u32>().is_ok())
        });
        return (!line_anchor)
            .then(|| format!("#{fragment} on {}, not a Markdown file", rel.display()));
    }
    let text = match fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) => return Some(format!("failed to read {}: {e}", rel.display())),
    };
    let known = anchors(&text);
    (!known.contains(fragment)).then(|| {
        format!(
            "{} has no heading #{fragment} (its anchors: {})",
            rel.display(),
            known.into_iter().collect::<Vec<_>>().join(", ")
        )
    })
}

/// Every broken relative link of `docs` under `root` (`doc:line: [target] problem`), and how
/// many relative links were checked.
fn broken_links(root: &Path, docs: &[PathBuf]) -> (Vec<String>, usize) {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in docs {
        let text = match fs::read_to_string(root.join(doc)) {
            Ok(text) => text,
            Err(e) => {
                broken.push(format!("{}: failed to read it: {e}", doc.display()));
                continue;
            }
        };
        for link in links(&prose(&text)) {
            if is_external(&link.target) {
                continue;
            }
            checked += 1;
            if let Some(p) = problem(root, doc, &link.target) {
                broken.push(format!(
                    "{}:{}: ({}) {p}",
                    doc.display(),
                    link.line,
                    link.target
                ));
            }
        }
    }
    (broken, checked)
}

#[test]
fn every_relative_link_of_the_documentation_names_a_file_and_heading_that_exist() {
    let root = repo();
    let docs = documents(&root);
    for must in [
        "README.md",
        "docs/README.md",
        "benches/README.md",
        "protocol-spec/README.md",
    ] {
        assert!(
            docs.contains(&PathBuf::from(must)),
            "{must} is not among the documents checked: {docs:?}"
        );
    }
    let (broken, checked) = broken_links(&root, &docs);
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
    // The README and the index link into docs/, so a parser that finds nothing is wrong.
    assert!(
        checked > docs.len(),
        "only {checked} links found in {} documents",
        docs.len()
    );
}

#[test]
fn the_link_check_reports_a_missing_file_a_missing_heading_and_a_way_out() {
    let dir = tempfile::tempdir().expect("failed to create a temp dir");
    let root = dir.path();
    fs::create_dir(root.join("docs")).expect("failed to create docs/");
    fs::write(
        root.join("docs/a.md"),
        "# A page\n\n## Which output is a test's\n\n[ok](#which-output-is-a-tests) \
         [ok](../README.md#top) [gone](missing.md) [bad](../README.md#nowhere)\n\
         [out](../../elsewhere.md) `[code](missing.md)` [web](https://example.com/x)\n\n\
         ```\n[fenced](missing.md)\n```\n",
    )
    .expect("failed to write docs/a.md");
    fs::write(root.join("README.md"), "# Top\n").expect("failed to write README.md");
    let (broken, checked) = broken_links(root, &[PathBuf::from("docs/a.md")]);
    assert_eq!(checked, 5, "{broken:?}");
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].starts_with("docs/a.md:5: (missing.md) docs/missing.md does not exist"));
    assert!(broken[1].starts_with(
        "docs/a.md:5: (../README.md#nowhere) README.md has no heading #nowhere (its anchors: top)"
    ));
    assert!(broken[2].starts_with("docs/a.md:6: (../../elsewhere.md) points outside"));
}

#[test]
fn anchors_follow_githubs_rule() {
    let cases = [
        (
            "Browser tests: `*.browser.*` in headless Chromium",
            "browser-tests-browser-in-headless-chromium",
        ),
        ("Reports (`-o PATH`)", "reports--o-path"),
        ("`tapline run [PATH|GLOB …]`", "tapline-run-pathglob-"),
        ("Which output is a test's", "which-output-is-a-tests"),
        (
            "The [daemon](daemon.md) and `snake_case`",
            "the-daemon-and-snake_case",
        ),
        ("10.1 A block", "101-a-block"),
    ];
    for (heading, anchor) in cases {
        assert_eq!(slug(heading), anchor, "{heading}");
    }
    let doc = "# Notes\n\n```md\n# Not a heading\n```\n    # nor this\n## Notes\n#nor this\n### Notes ###\n\
               ## Reports (`-o PATH`)\n";
    let expected: BTreeSet<String> = ["notes", "notes-1", "notes-2", "reports--o-path"]
        .map(String::from)
        .into();
    assert_eq!(anchors(doc), expected);
}

#[test]
fn every_page_of_docs_is_linked_from_its_index() {
    let root = repo();
    let index =
        fs::read_to_string(root.join("docs/README.md")).expect("failed to read docs/README.md");
    let linked: BTreeSet<String> = links(&prose(&index))
        .into_iter()
        .map(|l| l.target.split('#').next().unwrap_or_default().to_string())
        .collect();
    let pages = files_with_ext(&root.join("docs"), "md");
    assert!(pages.len() > 1, "docs/ holds no pages");
    for page in pages {
        let rel = page
            .strip_prefix(root.join("docs"))
            .expect("a page of docs/");
        let rel = rel.to_string_lossy();
        assert!(
            rel == "README.md" || linked.contains(rel.as_ref()),
            "docs/{rel} is not linked from docs/README.md"
        );
    }
}

/// `.ci/run` runs "the README's test command": the README's Quick start must still show the
/// command CI runs, and stay a page a newcomer reads (the reference lives in docs/).
#[test]
fn the_readme_is_short_and_shows_the_test_command_ci_runs() {
    let root = repo();
    let readme = fs::read_to_string(root.join("README.md")).expect("failed to read README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the reference belongs in docs/"
    );
    let ci = fs::read_to_string(root.join(".ci/run")).expect("failed to read .ci/run");
    assert!(
        ci.contains("the README's test command"),
        ".ci/run no longer says what it runs"
    );
    let command = "cargo test";
    assert!(
        ci.lines().any(|l| l.trim() == command),
        ".ci/run does not run `{command}`"
    );
    let quick_start = readme
        .split("\n## ")
        .find(|s| s.starts_with("Quick start"))
        .expect("README.md has a Quick start section");
    assert!(
        quick_start
            .lines()
            .any(|l| l.split('#').next().is_some_and(|c| c.trim() == command)),
        "README.md's Quick start does not show `{command}`:\n{quick_start}"
    );
}
