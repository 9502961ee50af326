//! A small crate tapline's integration tests run through `cargo test`.

/// Adds two numbers.
///
/// ```
/// assert_eq!(rust_basic::add(2, 3), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Subtracts `b` from `a` (wrongly, on purpose: one test fails).
pub fn sub(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn subtracts() {
        assert_eq!(sub(5, 3), 2);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflows() {
        panic!("attempt to add with overflow");
    }

    #[test]
    #[ignore = "slow"]
    fn slow() {}
}
