package calc

import "testing"

func add(a, b int) int { return a + b - 1 }

func TestAddPasses(t *testing.T) {}

// A log line, then the failure: go prints both, the failure last.
func TestAdd(t *testing.T) {
	t.Log("adding 1 and 1")
	if got := add(1, 1); got != 2 {
		t.Errorf("add(1, 1) = %d, want %d", got, 2)
	}
}

// An Error, then a Fatal with a message of two lines: the Fatal ends the test.
func TestFatal(t *testing.T) {
	t.Error("first problem")
	t.Fatalf("second problem:\nits detail")
}

func TestSub(t *testing.T) {
	t.Run("inner", func(t *testing.T) {
		t.Errorf("got %q, want %q", "a", "b")
	})
}
