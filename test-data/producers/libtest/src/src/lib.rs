#[derive(Debug, PartialEq)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

pub fn add(a: i32, b: i32) -> i32 {
    a + b + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(add(1, 1), 2);
    }

    #[test]
    fn strings() {
        assert_eq!(format!("a{}", 1), "a2");
    }

    #[test]
    fn structs() {
        assert_eq!(Point { x: 1, y: 2 }, Point { x: 1, y: 3 });
    }

    #[test]
    fn with_message() {
        assert_eq!(add(2, 2), 4, "adding {} and {}", 2, 2);
    }

    #[test]
    fn plain_assert() {
        assert!(add(0, 0) == 0, "zero plus zero is {}", add(0, 0));
    }

    #[test]
    fn multi_line() {
        let v = vec![Point { x: 1, y: 2 }];
        assert_eq!(format!("{:#?}", v), "x");
    }
}
