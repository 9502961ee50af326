package crash

import "testing"

func TestBefore(t *testing.T) {}

func TestNilMap(t *testing.T) {
	var m map[string]int
	t.Log("writing to a nil map")
	m["a"] = 1
}
