package testkit

import "testing"

func TestForksStarted(t *testing.T) {
	for out, want := range map[string]int{
		"STARTED=200\n":                      200,
		"FORKFAIL errno=11\nSTARTED=63\n":    63,
		"":                                   -1,
		"STARTED=x\n":                        -1,
		"Traceback (most recent call last):": -1,
	} {
		if got := ForksStarted(out); got != want {
			t.Errorf("ForksStarted(%q) = %d, want %d", out, got, want)
		}
	}
}
