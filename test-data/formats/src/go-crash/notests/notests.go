package notests

// Double doubles.
func Double(n int) int { return 2 * n }
