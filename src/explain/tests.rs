use super::*;
use crate::protocol::Parser;

/// Every explanation of a TAP text, in the order handed out, with what is no failure's.
fn explain_all(tap: &str, root: Option<&str>) -> Vec<Explained> {
    let mut p = Parser::new(Vec::<Event<'static>>::new());
    p.feed(tap.as_bytes());
    let events = p.finish();
    let mut x = FileExplainer::new(root.map(|r| Arc::from(Path::new(r))));
    let mut out = Vec::new();
    for ev in &events {
        x.event(ev);
        out.extend(x.take());
    }
    out.extend(x.end());
    out
}

fn failures(all: &[Explained]) -> Vec<&Explanation> {
    all.iter()
        .filter_map(|e| match e {
            Explained::Failure(e) => Some(e),
            Explained::Rest { .. } | Explained::Heading { .. } => None,
        })
        .collect()
}

#[test]
fn two_failures_with_one_name_are_two_explanations_each_with_its_own_values() {
    let tap = "TAP version 13\n\
               not ok 1 - same\n  ---\n  expected: 1\n  actual: 2\n  ...\n\
               not ok 2 - same\n  ---\n  expected: 3\n  actual: 4\n  ...\n\
               1..2\n";
    let all = explain_all(tap, None);
    let f = failures(&all);
    assert_eq!(f.len(), 2);
    assert_eq!((f[0].point, f[1].point), (0, 1));
    assert_eq!(f[0].name(), f[1].name());
    assert_eq!(f[0].expected, Some(serde_json::json!(1)));
    assert_eq!(f[1].actual, Some(serde_json::json!(4)));
}

#[test]
fn a_parent_goes_before_its_failing_children_and_one_said_by_them_is_marked() {
    let tap = "TAP version 14\n\
               # Subtest: outer\n    not ok 1 - inner\n    1..1\n\
               not ok 1 - outer\n\
               # Subtest: loud\n    not ok 1 - child\n    1..1\n\
               not ok 2 - loud\n  ---\n  message: the parent's own\n  ...\n\
               1..2\n";
    let all = explain_all(tap, None);
    let names: Vec<(String, bool)> = failures(&all)
        .iter()
        .map(|e| (e.name(), e.by_children))
        .collect();
    assert_eq!(
        names,
        [
            ("outer".to_owned(), true),
            ("outer > inner".to_owned(), false),
            ("loud".to_owned(), false),
            ("loud > child".to_owned(), false),
        ]
    );
}

#[test]
fn an_unnamed_failure_is_shown_by_its_number_and_locations_are_the_projects() {
    let tap = "TAP version 13\n\
               not ok 1\n  ---\n  at: Test.<anonymous> (/w/proj/t/a.js:14:5)\n  ...\n\
               not ok 2 - x\n  ---\n  at: Test.<anonymous> (/elsewhere/b.js:1:1)\n  ...\n\
               1..2\n";
    let all = explain_all(tap, Some("/w/proj"));
    let f = failures(&all);
    assert_eq!(f[0].shown_name(), "#1");
    assert_eq!(f[0].location.as_deref(), Some("t/a.js:14:5"));
    assert_eq!(f[1].location.as_deref(), Some("/elsewhere/b.js:1:1"));
    assert_eq!(
        project_relative(
            "file:///w/proj/t/c.mjs:3".to_owned(),
            Some(Path::new("/w/proj/"))
        ),
        "t/c.mjs:3"
    );
    assert_eq!(
        project_relative("/w/project2/x.js:1".to_owned(), Some(Path::new("/w/proj"))),
        "/w/project2/x.js:1",
        "a sibling folder sharing the root's prefix is not under it"
    );
}

#[test]
fn test_more_diagnostics_after_a_failure_are_its_own_and_output_after_the_last_point_is_no_ones() {
    let tap = "ok 1 - fine\n\
               not ok 2 - percent\n\
               #   Failed test 'percent'\n\
               #   at t/a.t line 3.\n\
               #          got: '100'\n\
               #     expected: '1.0'\n\
               1..2\n\
               # Looks like you failed 1 test of 2.\n\
               crashed here\n";
    let all = explain_all(tap, None);
    let f = failures(&all);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].location.as_deref(), Some("t/a.t:3"));
    assert_eq!(f[0].expected, Some(serde_json::json!("1.0")));
    assert_eq!(f[0].actual, Some(serde_json::json!("100")));
    let Some(Explained::Rest {
        after_last_point, ..
    }) = all.last()
    else {
        panic!("the rest comes last: {all:?}");
    };
    assert_eq!(
        after_last_point,
        &["# Looks like you failed 1 test of 2.", "crashed here"]
    );
}

#[test]
fn past_the_file_limit_failures_are_named_only() {
    let mut tap = String::from("TAP version 13\n");
    for n in 1..=FILE_EXPLAINED + 2 {
        tap.push_str(&format!("not ok {n} - f{n}\n  ---\n  message: m\n  ...\n"));
    }
    let all = explain_all(&tap, None);
    let f = failures(&all);
    assert_eq!(f.len(), FILE_EXPLAINED + 2);
    assert!(f[..FILE_EXPLAINED]
        .iter()
        .all(|e| e.full && e.message.is_some()));
    assert!(f[FILE_EXPLAINED..]
        .iter()
        .all(|e| !e.full && e.message.is_none()));
}
