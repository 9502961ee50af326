// Package inner is the go explain case's nested package.
package inner

// Greet returns a greeting for name.
func Greet(name string) string { return "hello " + name }
