// Package strs shouts.
package strs

import "strings"

// Shout upper-cases s and adds a bang.
func Shout(s string) string { return strings.ToUpper(s) + "!" }
