// A test that sleeps past `go test -timeout 1s` while parallel tests are paused; it runs only
// with GO_CRASH_TIMEOUT=1 (scripts/record-formats.sh), so `go test ./...` does not wait for it.
package timeout

import (
	"os"
	"testing"
	"time"
)

func TestPaused(t *testing.T) {
	t.Parallel()
}

func TestFirst(t *testing.T) {}

func TestSleeps(t *testing.T) {
	if os.Getenv("GO_CRASH_TIMEOUT") != "1" {
		t.Skip("set GO_CRASH_TIMEOUT=1 to time out")
	}
	t.Run("inner", func(t *testing.T) {
		time.Sleep(10 * time.Second)
	})
}

func TestAfter(t *testing.T) {}
