package strs

import "testing"

func TestShout(t *testing.T) {
	if got := Shout("hi"); got != "HI!" {
		t.Errorf("Shout(hi) = %q", got)
	}
}

func TestShoutTwice(t *testing.T) {
	if got := Shout(Shout("a")); got != "A!" {
		t.Errorf("Shout(Shout(a)) = %q, want %q", got, "A!")
	}
}
