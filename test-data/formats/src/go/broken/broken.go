// Package broken does not compile in its test: a build failure as go test -json reports it.
package broken

// Double returns 2n.
func Double(n int) int { return 2 * n }
