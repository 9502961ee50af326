//! A recorded stream replayed as one file of a `tapline run` with every report, so a test
//! looks for one fact (a value, a location, a message) in each sink's words.
use super::{unmarkdown, unxml, Project, Ran};

/// The run of `NAME.sh` (`cat NAME.tap`, then `exit EXIT`) with `-o out.xml -o out.md -o
/// out.jsonl`.
pub(crate) struct Replayed {
    pub(crate) project: Project,
    pub(crate) ran: Ran,
}

impl Replayed {
    /// The terminal's, JUnit's and Markdown's texts, their escapes undone.
    pub(crate) fn sinks(&self) -> [(&'static str, String); 3] {
        [
            ("terminal", self.ran.stderr.clone()),
            ("JUnit", unxml(&self.project.read_text("out.xml"))),
            ("Markdown", unmarkdown(&self.project.read_text("out.md"))),
        ]
    }

    /// The jsonl report.
    pub(crate) fn jsonl(&self) -> String {
        self.project.read_text("out.jsonl")
    }
}

/// Replays `recording` as `NAME.sh` exiting with `exit`, and checks that the file's log under
/// `.nogit/testlogs/` keeps every byte of it.
pub(crate) fn replay(name: &str, recording: impl AsRef<[u8]>, exit: i32) -> Replayed {
    let recording = recording.as_ref();
    let project = Project::new();
    project.write(&format!("{name}.tap"), recording).write(
        &format!("{name}.sh"),
        format!("cat {name}.tap\nexit {exit}\n"),
    );
    let script = format!("{name}.sh");
    let ran = project.run(&[
        &script,
        "--color",
        "never",
        "-o",
        "out.xml",
        "-o",
        "out.md",
        "-o",
        "out.jsonl",
        "--no-cache",
    ]);
    assert_eq!(
        project
            .read_text(&format!(".nogit/testlogs/{name}.log"))
            .as_bytes(),
        recording,
        "the log keeps every byte"
    );
    Replayed { project, ran }
}
