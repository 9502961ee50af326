//! Issue 42: JUnit's plain cases (passing or skipped, printable ASCII) go to a spool file as
//! they arrive and the document is assembled from it at the end: every case still there, in
//! stream order, interleaved with the cases quick-junit writes (failures, names to clean), and
//! nothing left in the temporary directory after the run.
use crate::util::Project;

/// Points in the file: past the 10,000 a record keeps.
const POINTS: u32 = 50_000;

/// Every point passes but 20,000 (got 41, wanted 42) and 30,000 (a name quick-junit writes:
/// not ASCII); every 1000th is a SKIP.
fn big() -> String {
    format!(
        "#!/bin/sh\nawk -v n={POINTS} 'BEGIN {{ print \"TAP version 13\"; print \"1..\" n;\n\
           for (k = 1; k <= n; k++) {{\n\
             if (k == 20000) {{ print \"not ok 20000 - values\"; print \"  ---\";\n\
               print \"  found: 41\"; print \"  wanted: 42\"; print \"  ...\" }}\n\
             else if (k == 30000) {{ print \"ok 30000 - caf\\303\\251\" }}\n\
             else if (k % 1000 == 0) {{ print \"ok \" k \" - skipped # SKIP later\" }}\n\
             else {{ print \"ok \" k \" - case \" k }} }} }}'\n"
    )
}

/// The `name` of every `<testcase>` in `xml`, in order.
fn case_names(xml: &str) -> Vec<&str> {
    xml.split("<testcase name=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[test]
fn issue42_junit_spool_a_big_file_has_every_case_in_order_and_its_failure_values() {
    let p = Project::new();
    p.script("test/big.sh", &big());
    let tmp = p.join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    let ran = p.run_env(&["-q", "-o", "r.xml"], &[("TMPDIR", tmp.as_os_str())]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let xml = p.read_text("r.xml");
    let names = case_names(&xml);
    assert_eq!(names.len(), POINTS as usize);
    for (k, name) in (1..=POINTS).zip(&names) {
        let want = match k {
            20000 => "values".to_owned(),
            30000 => "café".to_owned(),
            k if k % 1000 == 0 => "skipped".to_owned(),
            k => format!("case {k}"),
        };
        assert_eq!(*name, want, "case {k}");
    }
    let suite = xml
        .split("<testsuite name=\"test/big.sh\"")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .expect("the file's suite");
    for count in ["tests=\"50000\"", "failures=\"1\"", "skipped=\"48\""] {
        assert!(suite.contains(count), "{count} in {suite}");
    }
    let failure = xml
        .split("<testcase name=\"values\"")
        .nth(1)
        .and_then(|rest| rest.split("</testcase>").next())
        .expect("the failing case");
    assert!(failure.contains("<failure"), "{failure}");
    assert!(
        failure.contains("41") && failure.contains("42"),
        "{failure}"
    );
    // The spool is unnamed: nothing of it in the temporary directory after the run.
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("tmp").collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

#[test]
fn issue42_junit_spool_a_watch_of_runs_writes_each_run_s_cases_once() {
    // `--runs 2` runs the file twice into one record: the spool is emptied when a run starts,
    // so the document has the last run's cases, once each.
    let p = Project::new();
    p.script(
        "test/t.sh",
        "#!/bin/sh\necho 1..3\necho 'ok 1 - a'\necho 'ok 2 - b # SKIP no'\necho 'ok 3 - c'\n",
    );
    let ran = p.run(&["-q", "--runs", "2", "-o", "r.xml"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let xml = p.read_text("r.xml");
    assert_eq!(case_names(&xml), ["a", "b", "c"], "{xml}");
}
