package demo

import "testing"

// A module of its own, under `_`: go test ./... of the parent skips it.
func TestNeverRuns(t *testing.T) { t.Fatal("_examples ran") }
