package sandbox

import (
	"strings"
	"testing"

	"github.com/sandtable/sandtable/internal/testkit"
)

// TestMountFlagsFromVocab: what a bwrap flag does at its destination is
// the generator's vocabulary (zz_vocab.go); no hand-written file of the
// package names a mount flag or a mount modifier itself.
func TestMountFlagsFromVocab(t *testing.T) {
	if bwrapMount("--tmpfs") != mountFresh || bwrapMount("--ro-bind") != mountShown || bwrapModifier("--size") != 1 {
		t.Fatal("zz_vocab.go does not know --tmpfs, --ro-bind and --size; is it generated?")
	}
	lits, checked, err := testkit.StringLiterals(".", func(name string) bool { return !strings.HasPrefix(name, "zz_") })
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lits {
		if bwrapMount(l.Value) != mountNone || bwrapModifier(l.Value) > 0 {
			t.Errorf("%s: %q: a mount flag named by hand (use bwrapMount or bwrapModifier)", l.Pos, l.Value)
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files; is the glob right?", checked)
	}
}
