// A test that calls os.Exit(3).
package exit

import (
	"os"
	"testing"
)

func TestPaused(t *testing.T) {
	t.Parallel()
}

func TestFirst(t *testing.T) {}

func TestExits(t *testing.T) {
	t.Log("exiting with 3")
	os.Exit(3)
}

func TestAfter(t *testing.T) {}
