package broken

import "testing"

func TestDouble(t *testing.T) {
	if Double(2) != Triple(2) {
		t.Fatal("unreachable")
	}
}
