#[test]
fn adds_from_outside() {
    assert_eq!(rust_basic::add(20, 22), 42);
}
