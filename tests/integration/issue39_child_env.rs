//! Issue 39: what the generic child environment gives a harness that adapts its command,
//! seen on a real file (the unit tests beside `src/run/child_env.rs` name no harness).
use crate::util::{require, Project};

/// A taint-mode perl ignores PERL5LIB, so its room turns the include folders into `-I`
/// switches: `-I DIR` first, then what the child would have inherited, before `-T`.
#[test]
fn issue39_an_adapted_command_sees_the_libs_then_the_inherited_ones() {
    if !require(
        "issue39_an_adapted_command_sees_the_libs_then_the_inherited_ones",
        &["perl"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("t/a.t", "#!perl -T\nprint qq{1..1\\nok 1\\n};\n");
    let listed = p.run_env(
        &["--list", "-I", "lib", "t/a.t"],
        &[("PERL5LIB", std::ffi::OsStr::new("/inherited"))],
    );
    let lib = p.join("lib");
    assert!(
        listed.stdout.contains(&format!(
            "t/a.t\tperl -I{} -I/inherited -T t/a.t\n",
            lib.display()
        )),
        "{}",
        listed.both()
    );
}
