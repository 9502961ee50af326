package cmpopts

import (
	"fmt"
	"os"
	"testing"
)

// Prints after the tests ran: the package's output, no test's.
func TestMain(m *testing.M) {
	code := m.Run()
	fmt.Println("teardown: removed temp files")
	os.Exit(code)
}

func TestSort(t *testing.T) {
	t.Run("ascending", func(t *testing.T) {
		t.Errorf("got [3 1 2], want [1 2 3]")
	})
	t.Run("descending", func(t *testing.T) {
		t.Log("sorted 3 items")
	})
}

func TestLen(t *testing.T) {
	t.Log("len is 3")
}

// The last test fails: the package's teardown line comes right after it.
func TestEmpty(t *testing.T) {
	t.Fatal("empty slice not handled")
}
