// go explain case: a t.Errorf with got/want, a failing table subtest
// followed by a passing one that calls t.Log, and (in ./inner) a failure
// in a nested package, whose locations go prints relative to the package.
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got, want := Add(1, 2), 4; got != want {
		t.Errorf("Add(1, 2) = %d, want %d", got, want)
	}
}

func TestTable(t *testing.T) {
	cases := []struct {
		name string
		in   int
		want int
	}{
		{"one", 1, 2},
		{"two", 2, 5},
		{"three", 3, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Double(c.in)
			if got != c.want {
				t.Errorf("Double(%d) = %d, want %d", c.in, got, c.want)
			}
			if c.name == "three" {
				t.Log("three checked after two failed")
			}
		})
	}
}
