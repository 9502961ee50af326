package greet

import "testing"

func TestHello(t *testing.T) {
	for _, name := range []string{"go", "tapline"} {
		t.Run(name, func(t *testing.T) {
			if got := Hello(name); got != "hello, "+name {
				t.Errorf("Hello(%q) = %q", name, got)
			}
		})
	}
}

func TestNeedsNetwork(t *testing.T) {
	t.Skip("no network in the example")
}
