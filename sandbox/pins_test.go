package sandbox

import (
	"slices"
	"testing"
)

// TestPinFacts pins exactly the directories a command could rename to move
// a hidden path: those with a writable parent, up to the outermost
// writable root; none inside a hidden directory (a bind there would show
// the host's copy) and none where the last mount on the way is read-only.
func TestPinFacts(t *testing.T) {
	const ws = "/w/ws"
	for _, c := range []struct {
		name               string
		read, write        []string
		hiddenDirs, hidden []string
		want               []string
	}{
		{name: "direct child of the workspace", hidden: []string{ws + "/secret"}},
		{name: "deep in the workspace", hidden: []string{ws + "/a/b/secret"}, want: []string{ws + "/a/b", ws + "/a"}},
		{name: "above a write path", write: []string{ws + "/d/w"}, hidden: []string{ws + "/d/w/x/secret"}, want: []string{ws + "/d/w/x", ws + "/d"}},
		{name: "above a read path", read: []string{ws + "/e/r"}, hidden: []string{ws + "/e/r/x/secret"}, want: []string{ws + "/e"}},
		{name: "workspace inside a write path", write: []string{"/w"}, hidden: []string{ws + "/x/secret"}, want: []string{ws + "/x"}},
		{name: "read-only workspace", read: []string{ws}, hidden: []string{ws + "/a/secret"}},
		{name: "write path also hidden", write: []string{"/w/o"}, hiddenDirs: []string{"/w/o"}, hidden: []string{"/w/o/x/y"}},
		{name: "inside a hidden directory", hiddenDirs: []string{ws + "/h"}, hidden: []string{ws + "/h/x/secret"}},
	} {
		p := &plan{workspace: ws}
		for _, r := range c.read {
			p.read = append(p.read, fact(r, kindDir, ws))
		}
		for _, w := range c.write {
			p.write = append(p.write, fact(w, kindDir, ws))
		}
		for _, h := range c.hiddenDirs {
			p.hidden = append(p.hidden, fact(h, kindDir, ws))
		}
		for _, h := range c.hidden {
			p.hidden = append(p.hidden, fact(h, kindFile, ws))
		}
		var got []string
		for _, f := range pinFacts(p) {
			got = append(got, f.path)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: pins %q, want %q", c.name, got, c.want)
		}
	}
}
