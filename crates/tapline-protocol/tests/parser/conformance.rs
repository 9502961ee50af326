//! In-repo conformance: every stream of test-data/ (our streams, the producer recordings,
//! the conformance streams) parses as the reference parser (tapjs tap-parser) parsed it when
//! `scripts/record-conformance.sh` recorded test-data/conformance/expected/. The comparison
//! rules are CI's `check.py`'s: verdict, count, plan, bail out, and every test point (ok,
//! name, id, TODO/SKIP, the subtest it closes), recursively. Deliberate differences are
//! declared in protocol-spec/divergences.txt as `test-data/<dir>/<name> <reason>`.
use crate::util::{files_with_ext, repo, summary};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Folders of test-data/ whose streams are recorded.
const DIRS: [&str; 3] = ["streams", "producers", "conformance"];
const EXPECTED: &str = "test-data/conformance/expected";
/// The issue's floor: the check covers at least this many of our own streams.
const MIN_STREAMS: usize = 150;
/// At most this many of our streams may be declared divergences.
const MAX_DIVERGENCES: usize = 3;

/// One document level, normalised the way check.py normalises both sides.
#[derive(Debug, Clone, PartialEq)]
struct Level {
    ok: bool,
    count: Option<u64>,
    plan: Option<(u64, u64, bool)>,
    bailout: Option<String>,
    asserts: Vec<Point>,
}

#[derive(Debug, Clone, PartialEq)]
struct Point {
    id: Option<u64>,
    ok: bool,
    name: String,
    todo: Option<String>,
    skip: Option<String>,
    subtest: Option<Level>,
}

fn norm_name(v: &Value) -> String {
    let s = v.as_str().unwrap_or("").trim();
    if s == "(unnamed assert)" || s == "(unnamed test)" {
        String::new()
    } else {
        s.to_owned()
    }
}

/// tap-parser's `false`/`true`/reason, or our `null`/reason.
fn directive(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(String::new()),
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(other) => Some(other.to_string().trim().to_owned()),
    }
}

/// A bail out: absent, or its reason as check.py stringifies it (Python's `str(True)`).
fn bailout(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some("True".to_owned()),
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(other) => Some(other.to_string()),
    }
}

fn id(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64).filter(|&n| n != 0)
}

fn ref_level(complete: &Value, asserts: &[Value]) -> Level {
    let plan = &complete["plan"];
    Level {
        ok: complete["ok"].as_bool().unwrap_or(false),
        count: complete["count"].as_u64(),
        plan: plan["start"].as_u64().map(|start| {
            let end = plan["end"].as_u64().unwrap_or(0);
            (start, end, plan["skipAll"].as_bool().unwrap_or(false))
        }),
        bailout: bailout(complete.get("bailout")),
        asserts: asserts
            .iter()
            // A subtest no point closed is a bare entry in the recording.
            .filter(|a| a.get("ok").is_some())
            .map(|a| Point {
                id: id(a.get("id")),
                ok: a["ok"].as_bool().unwrap_or(false),
                name: norm_name(&a["name"]),
                todo: directive(a.get("todo")),
                skip: directive(a.get("skip")),
                subtest: a.get("subtest").filter(|s| !s.is_null()).map(|s| {
                    ref_level(
                        &s["complete"],
                        s["asserts"].as_array().map_or(&[], Vec::as_slice),
                    )
                }),
            })
            .collect(),
    }
}

fn our_level(doc: &Value) -> Level {
    let plan = &doc["plan"];
    Level {
        ok: doc["ok"].as_bool().unwrap_or(false),
        count: doc["count"].as_u64(),
        plan: plan.as_object().map(|p| {
            (
                p["start"].as_u64().unwrap_or(0),
                p["end"].as_u64().unwrap_or(0),
                p["skip_all"].as_bool().unwrap_or(false),
            )
        }),
        bailout: bailout(doc.get("bailout")),
        asserts: doc["asserts"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|a| Point {
                id: id(a.get("id")),
                ok: a["ok"].as_bool().unwrap_or(false),
                name: norm_name(&a["name"]),
                todo: directive(a.get("todo")),
                skip: directive(a.get("skip")),
                subtest: a.get("subtest").filter(|s| !s.is_null()).map(our_level),
            })
            .collect(),
    }
}

/// The first difference, worded as check.py words it; None when they agree.
fn first_difference(r: &Level, o: &Level, at: &str) -> Option<String> {
    if r.ok != o.ok {
        return Some(format!("{at}: ok: expected {}, got {}", r.ok, o.ok));
    }
    if r.count != o.count {
        return Some(format!(
            "{at}: count: expected {:?}, got {:?}",
            r.count, o.count
        ));
    }
    if r.plan != o.plan {
        return Some(format!(
            "{at}: plan: expected {:?}, got {:?}",
            r.plan, o.plan
        ));
    }
    if r.bailout != o.bailout {
        return Some(format!(
            "{at}: bailout: expected {:?}, got {:?}",
            r.bailout, o.bailout
        ));
    }
    if r.asserts.len() != o.asserts.len() {
        return Some(format!(
            "{at}: {} test points expected, got {}",
            r.asserts.len(),
            o.asserts.len()
        ));
    }
    for (i, (rp, op)) in r.asserts.iter().zip(&o.asserts).enumerate() {
        let here = format!("{at} point #{}", i + 1);
        let same = (rp.ok, &rp.name, rp.id, &rp.todo, &rp.skip)
            == (op.ok, &op.name, op.id, &op.todo, &op.skip);
        if !same {
            return Some(format!(
                "{here}: expected ok={} name={:?} id={:?} todo={:?} skip={:?}, \
                 got ok={} name={:?} id={:?} todo={:?} skip={:?}",
                rp.ok, rp.name, rp.id, rp.todo, rp.skip, op.ok, op.name, op.id, op.todo, op.skip
            ));
        }
        match (&rp.subtest, &op.subtest) {
            (None, None) => {}
            (Some(rs), Some(os)) => {
                if let Some(d) = first_difference(rs, os, &format!("{here} > subtest")) {
                    return Some(d);
                }
            }
            (rs, os) => {
                return Some(format!(
                    "{here}: subtest expected {}, got {}",
                    rs.is_some(),
                    os.is_some()
                ))
            }
        }
    }
    None
}

/// `test-data/<dir>/<name>` for a stream path.
fn key(stream: &Path) -> String {
    let rel = stream.strip_prefix(repo()).unwrap_or(stream);
    rel.with_extension("").to_string_lossy().replace('\\', "/")
}

fn expected_path(stream: &Path) -> PathBuf {
    let rel = stream
        .strip_prefix(repo().join("test-data"))
        .unwrap_or(stream);
    repo().join(EXPECTED).join(rel.with_extension("json"))
}

fn streams() -> Vec<PathBuf> {
    let expected = repo().join(EXPECTED);
    DIRS.iter()
        .flat_map(|d| files_with_ext(&repo().join("test-data").join(d), "tap"))
        .filter(|p| !p.starts_with(&expected))
        .collect()
}

/// The declared rule under which a stream with no plan, no test point and no bail out fails
/// (`no TAP output`) where tap-parser passes it as "no tests found" (protocol-spec/verdict.md).
const NO_TAP_RULE: &str = "rule:no-tap-output";

/// Under [`NO_TAP_RULE`]: the reference's result as tapline's rule changes it (failing, with no
/// plan), when the reference saw no TAP at all and tapline names that reason; else the
/// reference unchanged. Everything else is still compared, so a stream that had any TAP in it
/// can never pass for empty.
fn no_tap_output(reference: Level, ours: &Value) -> Result<Level, Level> {
    let silent = reference.count.unwrap_or(0) == 0
        && reference.asserts.is_empty()
        && reference.bailout.is_none()
        && reference
            .plan
            .is_none_or(|(start, end, skip_all)| (start, end, skip_all) == (1, 0, true));
    let named = ours["reasons"] == serde_json::json!([tapline_protocol::NO_TAP_OUTPUT]);
    if silent && named {
        Ok(Level {
            ok: false,
            plan: None,
            ..reference
        })
    } else {
        Err(reference)
    }
}

/// The declared rule under which a test point after the final plan (trailing, or a `1..0`) is
/// counted and fails the stream (as prove reads it) where tap-parser ignores it
/// (protocol-spec/verdict.md, difference 11).
const AFTER_PLAN_RULE: &str = "rule:point-after-trailing-plan";

/// Under [`AFTER_PLAN_RULE`]: when tapline names a point after the trailing plan, the
/// reference's result failing, with the points after the plan added to its own; else the
/// reference unchanged. The reference's points must be the first of ours, so nothing the
/// reference counted can change under the rule.
fn point_after_plan(reference: Level, ours: &Value, ours_level: &Level) -> Result<Level, Level> {
    let named = ours["reasons"].as_array().is_some_and(|rs| {
        rs.iter().filter_map(Value::as_str).any(|r| {
            r.contains("came after the trailing plan") || r.contains("came after the skip-all plan")
        })
    });
    let n = reference.asserts.len();
    let prefix = ours_level.asserts.len() > n && ours_level.asserts[..n] == reference.asserts[..];
    if !(named && prefix) {
        return Err(reference);
    }
    let extra = ours_level.asserts.len() - n;
    let mut asserts = reference.asserts;
    asserts.extend_from_slice(&ours_level.asserts[n..]);
    Ok(Level {
        ok: false,
        count: reference.count.map(|c| c + extra as u64),
        asserts,
        ..reference
    })
}

/// Rules (`rule:…` keys) declared in divergences.txt.
fn declared_rules() -> Vec<String> {
    let path = repo().join("protocol-spec/divergences.txt");
    let text = std::fs::read_to_string(&path).expect("protocol-spec/divergences.txt readable");
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|k| k.starts_with("rule:"))
        .map(str::to_owned)
        .collect()
}

/// The repo's own declared divergences (`test-data/…` keys) with their reasons.
fn divergences() -> BTreeMap<String, String> {
    let path = repo().join("protocol-spec/divergences.txt");
    let text = std::fs::read_to_string(&path).expect("protocol-spec/divergences.txt readable");
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        assert!(
            !reason.trim().is_empty(),
            "divergence without a reason: {line:?}"
        );
        if key.starts_with("test-data/") {
            out.insert(key.to_owned(), reason.trim().to_owned());
        }
    }
    out
}

#[test]
fn every_stream_of_the_repo_agrees_with_the_reference_parser() {
    let declared = divergences();
    assert!(
        declared.len() <= MAX_DIVERGENCES,
        "{} divergences declared for the repo's streams; at most {MAX_DIVERGENCES}",
        declared.len()
    );
    let all = streams();
    let mut failures = Vec::new();
    let mut agreed = 0;
    let mut diverged = Vec::new();
    let mut by_rule = Vec::new();
    let mut by_after_plan = Vec::new();
    for stream in &all {
        let k = key(stream);
        let exp_path = expected_path(stream);
        let Ok(exp_text) = std::fs::read_to_string(&exp_path) else {
            failures.push(format!(
                "{k}: no recorded result at {} (run scripts/record-conformance.sh)",
                exp_path.display()
            ));
            continue;
        };
        let exp: Value = serde_json::from_str(&exp_text).expect("expected file is JSON");
        let reference = ref_level(
            &exp["complete"],
            exp["asserts"].as_array().map_or(&[], Vec::as_slice),
        );
        let bytes = std::fs::read(stream).expect("stream readable");
        let doc = summary(&bytes);
        let ours = our_level(&doc);
        let reference = match no_tap_output(reference, &doc) {
            Ok(expected) => {
                by_rule.push(k.clone());
                expected
            }
            Err(reference) => reference,
        };
        let reference = match point_after_plan(reference, &doc, &ours) {
            Ok(expected) => {
                by_after_plan.push(k.clone());
                expected
            }
            Err(reference) => reference,
        };
        match (first_difference(&reference, &ours, "top"), declared.get(&k)) {
            (None, None) => agreed += 1,
            (None, Some(_)) => failures.push(format!(
                "{k}: declared a divergence but agrees now: remove it from divergences.txt"
            )),
            (Some(_), Some(_)) => diverged.push(k),
            (Some(d), None) => failures.push(format!("{k}: {d}")),
        }
    }
    for k in declared.keys() {
        if !all.iter().any(|s| &key(s) == k) {
            failures.push(format!(
                "{k}: declared a divergence, but there is no such stream"
            ));
        }
    }
    // Recordings of streams that no longer exist would make the count lie.
    for exp in files_with_ext(&repo().join(EXPECTED), "json") {
        let rel = exp.strip_prefix(repo().join(EXPECTED)).unwrap_or(&exp);
        let stream = repo().join("test-data").join(rel.with_extension("tap"));
        if !stream.is_file() {
            failures.push(format!(
                "{}: recorded, but the stream is gone (run scripts/record-conformance.sh)",
                exp.display()
            ));
        }
    }
    assert!(
        declared_rules().iter().any(|r| r == NO_TAP_RULE) || by_rule.is_empty(),
        "the rule {NO_TAP_RULE} applied to {by_rule:?} but is not declared in divergences.txt"
    );
    assert!(
        declared_rules().iter().any(|r| r == AFTER_PLAN_RULE) || by_after_plan.is_empty(),
        "the rule {AFTER_PLAN_RULE} applied to {by_after_plan:?} but is not declared in divergences.txt"
    );
    println!(
        "conformance: {agreed} agreed ({} of them by the declared rule {NO_TAP_RULE}: {}; \
         {} by {AFTER_PLAN_RULE}: {}), {} declared divergences ({}), {} failed, {} streams",
        by_rule.len(),
        by_rule.join(", "),
        by_after_plan.len(),
        by_after_plan.join(", "),
        diverged.len(),
        diverged.join(", "),
        failures.len(),
        all.len()
    );
    assert!(
        failures.is_empty(),
        "disagreements:\n{}",
        failures.join("\n")
    );
    assert!(
        all.len() >= MIN_STREAMS,
        "only {} streams in the conformance check; the floor is {MIN_STREAMS}",
        all.len()
    );
}

/// The comparison itself can fail: a stream that differs from its recording is caught.
#[test]
fn the_comparison_catches_a_changed_verdict_name_and_subtest() {
    let exp: Value = serde_json::from_str(
        r#"{"complete": {"ok": true, "count": 1, "bailout": false,
             "plan": {"start": 1, "end": 1, "skipAll": false}},
            "asserts": [{"id": 1, "ok": true, "name": "a", "todo": false, "skip": false,
             "subtest": {"complete": {"ok": true, "count": 1, "bailout": false,
               "plan": {"start": 1, "end": 1, "skipAll": false}},
               "asserts": [{"id": 1, "ok": true, "name": "in", "todo": false, "skip": false}]}}]}"#,
    )
    .expect("literal JSON");
    let reference = ref_level(&exp["complete"], exp["asserts"].as_array().unwrap());
    let same = our_level(&summary(
        b"# Subtest: a\n    ok 1 - in\n    1..1\nok 1 - a\n1..1\n",
    ));
    assert_eq!(first_difference(&reference, &same, "top"), None);
    for other in [
        &b"# Subtest: a\n    ok 1 - in\n    1..1\nnot ok 1 - a\n1..1\n"[..],
        b"# Subtest: a\n    ok 1 - IN\n    1..1\nok 1 - a\n1..1\n",
        b"ok 1 - a\n1..1\n",
        b"# Subtest: a\n    ok 1 - in\n    1..1\nok 1 - a # TODO\n1..1\n",
    ] {
        let ours = our_level(&summary(other));
        assert!(
            first_difference(&reference, &ours, "top").is_some(),
            "{}",
            String::from_utf8_lossy(other)
        );
    }
}
