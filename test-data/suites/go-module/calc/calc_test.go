package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 2) != 4 {
		t.Fatal("2+2")
	}
}

func TestTable(t *testing.T) {
	for _, c := range []struct {
		name    string
		a, b, w int
	}{{"zero", 0, 0, 0}, {"one", 1, 0, 1}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.w {
				t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.w)
			}
		})
	}
}
