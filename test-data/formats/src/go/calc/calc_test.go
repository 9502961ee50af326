package calc

import (
	"fmt"
	"os"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
	t.Log("adds small numbers")
}

// A table test: one case fails.
func TestAbs(t *testing.T) {
	cases := []struct {
		name string
		in   int
		want int
	}{
		{"positive", 4, 4},
		{"zero", 0, 0},
		{"minus three", -3, 3},
		{"minus seven", -7, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Abs(c.in); got != c.want {
				t.Errorf("Abs(%d) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("needs a database")
}

func TestSubtestSkips(t *testing.T) {
	t.Run("fast", func(t *testing.T) {})
	t.Run("slow", func(t *testing.T) {
		if os.Getenv("SLOW") == "" {
			t.Skip("set SLOW=1 to run")
		}
	})
}

func TestParallel(t *testing.T) {
	for i := 0; i < 3; i++ {
		i := i
		t.Run(fmt.Sprintf("worker-%d", i), func(t *testing.T) {
			t.Parallel()
			if Add(i, i) != 2*i {
				t.Error("doubling failed")
			}
		})
	}
}

func TestOutput(t *testing.T) {
	fmt.Println("plain stdout from a test")
}
