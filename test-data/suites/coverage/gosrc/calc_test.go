package calc

import "testing"

func TestUsed(t *testing.T) {
	if Used(1, 2) != 3 {
		t.Fatal("Used(1, 2) != 3")
	}
}
