// Package nofiles has no tests: go reports it as skipped.
package nofiles

// Answer is 42.
const Answer = 42
