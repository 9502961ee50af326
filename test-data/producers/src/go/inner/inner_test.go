package inner

import "testing"

func TestGreet(t *testing.T) {
	if got, want := Greet("go"), "hello, go"; got != want {
		t.Errorf("Greet(%q) = %q, want %q", "go", got, want)
	}
}
