package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestRefuseFirstRowWins: when two refuse rows refuse a configuration,
// the error names the one first in the table (docs/POLICY.md, "Refused
// configurations"), whichever input was resolved first; with the two rows
// swapped in the check list, it names the other.
func TestRefuseFirstRowWins(t *testing.T) {
	for _, c := range []struct {
		name        string
		first, then string
		setup       func(t *testing.T, dir, ws string) Config
	}{
		{"one input", "no-root-grant", "no-home-grant", func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Write: []string{"/"}}
		}},
		// The workspace, resolved before any hidden path, holds the home;
		// a hidden path goes through a link in it.
		{"two inputs", "no-link-hidden", "no-home-grant", func(t *testing.T, dir, ws string) Config {
			t.Setenv("HOME", mkdir(t, ws, "me"))
			link(t, mkdir(t, dir, "secret"), ws, "hl")
			return Config{Workspace: ws, Hidden: []string{ws + "/hl"}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := realTempDir(t)
			t.Setenv("HOME", mkdir(t, dir, "home"))
			t.Setenv("XDG_CACHE_HOME", mkdir(t, dir, "xdg-cache"))
			cfg := c.setup(t, dir, mkdir(t, dir, "ws"))
			i, j := refuseRowIndex(t, c.first), refuseRowIndex(t, c.then)
			if i >= j {
				t.Fatalf("%s is not before %s in the table", c.first, c.then)
			}
			if _, err := newPlan("linux", cfg); err == nil || !strings.Contains(err.Error(), "(refuse: "+c.first+")") {
				t.Errorf("newPlan = %v, want the refusal of %s, first in the table", err, c.first)
			}
			rows := slices.Clone(refuseRows[:])
			rows[i], rows[j] = rows[j], rows[i]
			var r resolver
			if _, err := planWithRows(&r, "linux", cfg, rows); err == nil || !strings.Contains(err.Error(), "(refuse: "+c.then+")") {
				t.Errorf("with %s before %s: newPlan = %v, want the refusal of %s", c.then, c.first, err, c.then)
			}
		})
	}
}

func refuseRowIndex(t *testing.T, id string) int {
	t.Helper()
	for i, row := range refuseRows {
		if row.id == id {
			return i
		}
	}
	t.Fatalf("no refuse row %s", id)
	return -1
}
