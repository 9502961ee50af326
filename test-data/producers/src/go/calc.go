// Package calc is the go explain case's code under test.
package calc

// Add returns a plus b.
func Add(a, b int) int { return a + b }

// Double returns twice n.
func Double(n int) int { return n * 2 }
