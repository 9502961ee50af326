// A test whose goroutine panics: nothing recovers it, the binary ends.
package goroutine

import (
	"testing"
	"time"
)

func TestPaused(t *testing.T) {
	t.Parallel()
}

func TestFirst(t *testing.T) {}

func TestGoroutinePanics(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		panic("boom in a goroutine")
	}()
	<-done
	time.Sleep(time.Second)
}

func TestAfter(t *testing.T) {}
