#[test] fn nope() { let x: i32 = "a"; }
