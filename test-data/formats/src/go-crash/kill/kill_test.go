// A test that sends itself SIGSEGV: no panic, no "--- FAIL" line, the runtime dumps and exits.
package kill

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestPaused(t *testing.T) {
	t.Parallel()
}

func TestFirst(t *testing.T) {}

func TestKillsItself(t *testing.T) {
	t.Log("sending SIGSEGV")
	_ = syscall.Kill(os.Getpid(), syscall.SIGSEGV)
	time.Sleep(5 * time.Second)
}

func TestAfter(t *testing.T) {}
