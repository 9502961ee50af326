//! #39 (found on minipass, tap 21): a project whose `tap` script runs TypeScript tests had its
//! `test/*.ts` files dropped by a bare run, which then reported the one JavaScript file left
//! green, with a bug in the code. node-tap 18 and later name TypeScript tests as JavaScript
//! ones (every file of `test/`), so a bare run takes them too.
use crate::util::Project;

fn project() -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        "{\"name\":\"x\",\"type\":\"module\",\"scripts\":{\"test\":\"tap\"}}",
    );
    p.write("test/basic.ts", "import t from 'tap'\nt.equal(1, 2)\n");
    p.write("test/sub/deep.ts", "import t from 'tap'\nt.pass('deep')\n");
    p.write("test/types.d.ts", "export type X = number\n");
    p.write(
        "test/esm.mjs",
        "console.log('TAP version 14\\n1..1\\nok 1 - esm')\n",
    );
    p.write("src/index.ts", "export const x = 1\n");
    p
}

#[test]
fn issue39_a_tap_project_runs_its_typescript_tests() {
    let p = project();
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    for file in ["test/basic.ts", "test/sub/deep.ts", "test/esm.mjs"] {
        assert!(listed.stdout.contains(file), "{file}: {}", listed.both());
    }
    for not in ["test/types.d.ts", "src/index.ts"] {
        assert!(!listed.stdout.contains(not), "{not}: {}", listed.both());
    }
}

#[test]
fn issue39_a_tap_project_with_a_failing_typescript_test_is_not_green() {
    let p = project();
    let ran = p.run(&[]);
    assert_ne!(ran.code, 0, "{}", ran.both());
    assert!(ran.both().contains("test/basic.ts"), "{}", ran.both());
}
