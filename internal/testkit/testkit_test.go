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

func TestStringLiterals(t *testing.T) {
	lits, read, err := StringLiterals(".", func(name string) bool { return name == "testkit.go" })
	if err != nil || read != 1 {
		t.Fatalf("read %d files: %v", read, err)
	}
	found := false
	for _, l := range lits {
		found = found || l.Value == "STARTED=" && l.Pos.Filename == "testkit.go" && l.Pos.Line > 0
	}
	if !found {
		t.Errorf("testkit.go's \"STARTED=\" is not among %d literals", len(lits))
	}
}
