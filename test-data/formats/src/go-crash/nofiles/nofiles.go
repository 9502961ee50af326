// A package without test files.
package nofiles

// Half halves.
func Half(n int) int { return n / 2 }
