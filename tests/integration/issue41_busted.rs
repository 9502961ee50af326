//! Issue 41's busted check on real projects (docs/failures.md "Checked on real projects"):
//! kikito/middleclass has a `spec/` folder of `*_spec.lua` files and no `.busted`, rockspec test
//! or Makefile; a bare `busted` there runs them (its defaults: ROOT `spec`, pattern `_spec`),
//! so a bare `tapline run` does too, as busted (it said "no test folder here"), and explains a
//! failure with busted's sides: `Expected:` is luassert's expected (the first argument of
//! `assert.are.equal`), `Passed in:` the received.
use crate::util::{require, unxml, Project};

fn project() -> Project {
    let p = Project::new();
    p.write(
        "lib.lua",
        "local M = {}\nfunction M.name(c) return 'Class ' .. c end\nreturn M\n",
    );
    p.write(
        "spec/name_spec.lua",
        "package.path = './?.lua;' .. package.path\nlocal lib = require('lib')\ndescribe('name', function()\n  it('says class', function()\n    assert.are.equal('class A', lib.name('A'))\n  end)\n  it('keeps the name', function()\n    assert.truthy(lib.name('A'):find('A'))\n  end)\nend)\n",
    );
    // Not a spec: busted's pattern `_spec` does not take it.
    p.write("spec/helper.lua", "error('a helper is never run')\n");
    p
}

#[test]
fn issue41_busted_spec_folder_alone_runs_as_busted_runs_it() {
    if !require(
        "issue41_busted_spec_folder_alone_runs_as_busted_runs_it",
        &["busted"],
    ) {
        return;
    }
    let p = project();
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed
            .stdout
            .contains("spec/name_spec.lua\tbusted -o TAP spec/name_spec.lua"),
        "{}",
        listed.both()
    );
    assert!(!listed.stdout.contains("helper.lua"), "{}", listed.stdout);
    let ran = p.run(&["--color", "never", "-o", "out.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for fact in [
        "1 failed, 1 passed",
        "✗ name says class",
        "at spec/name_spec.lua:5",
        "Expected objects to be equal.",
        "- \"class A\"",
        "+ \"Class A\"",
    ] {
        assert!(ran.stderr.contains(fact), "lacks {fact:?}:\n{}", ran.both());
    }
    let junit = unxml(&p.read_text("out.xml"));
    assert!(junit.contains("- \"class A\""), "{junit}");
}
