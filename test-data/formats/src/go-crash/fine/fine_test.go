// A passing package with parallel subtests, beside the crashing ones.
package fine

import "testing"

func TestTable(t *testing.T) {
	for _, name := range []string{"a", "b", "c"} {
		name := name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Log("case", name)
		})
	}
}
