package testdata

import "testing"

// go test ./... never selects a testdata folder.
func TestNeverRuns(t *testing.T) { t.Fatal("testdata ran") }
