// Package gonested is the root package of a module with a nested one (cmp/cmpopts): go prints
// a failure's location relative to its package's folder.
package gonested

import "testing"

// A failing subtest, then a passing one that logs: the log is the passing subtest's.
func TestEqual(t *testing.T) {
	t.Run("ints", func(t *testing.T) {
		if 1+1 != 3 {
			t.Errorf("got %d, want %d", 1+1, 3)
		}
	})
	t.Run("strings", func(t *testing.T) {
		t.Log("comparing strings")
	})
}

// A passing test that logs, after a test that failed through its subtest.
func TestHash(t *testing.T) {
	t.Log("hash is stable")
}
