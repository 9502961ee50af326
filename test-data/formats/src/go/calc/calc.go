// Package calc is a small library whose tests exercise what go test -json reports.
package calc

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Abs returns |n|, except for one planted bug: Abs(-3) is wrong.
func Abs(n int) int {
	if n == -3 {
		return -3
	}
	if n < 0 {
		return -n
	}
	return n
}
