// A test that dereferences nil: the runtime's panic ends the test binary while a parallel
// test is paused, waiting for the sequential tests to end.
package segv

import "testing"

type box struct{ n int }

func TestPaused(t *testing.T) {
	t.Parallel()
	t.Log("never runs: the binary ends first")
}

func TestFirst(t *testing.T) {
	t.Log("passes before the crash")
}

func TestNilDeref(t *testing.T) {
	var b *box
	t.Log("about to crash")
	_ = b.n
}

func TestAfter(t *testing.T) {}
