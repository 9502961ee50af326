/// Doubles.
///
/// ```
/// assert_eq!(rbad::double(2), 5);
/// ```
///
/// ```
/// assert_eq!(rbad::double(2), 4);
/// ```
///
/// ```should_panic
/// assert_eq!(rbad::double(2), 4);
/// ```
///
/// ```ignore
/// nothing
/// ```
///
/// ```compile_fail
/// let x: i32 = "a";
/// ```
pub fn double(x: i32) -> i32 { x * 2 }

#[cfg(test)]
mod tests {
    #[test]
    fn prints_then_fails() {
        println!("hello from the test");
        eprintln!("to stderr");
        assert_ne!(1, 1, "they differ? {}", 1);
    }
    #[test]
    fn custom_message() {
        assert_eq!(vec![1, 2], vec![1, 3], "vectors at {}", "x");
    }
    #[test]
    fn plain_panic() {
        panic!("boom\nsecond line");
    }
    #[test]
    fn assert_plain() {
        assert!(1 + 1 == 3);
    }
    #[test]
    #[should_panic]
    fn does_not_panic() {}
    #[test]
    #[should_panic(expected = "xyz")]
    fn wrong_panic() { panic!("abc") }
    #[test]
    fn result_err() -> Result<(), String> { Err("bad result".into()) }
    #[test]
    #[ignore]
    fn ignored_plain() {}
}
