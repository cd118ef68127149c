package main

import (
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

func TestGoldenRules(t *testing.T) {
	e := newEnv(t)
	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithTestNameForDir(true), goldie.WithNameSuffix(".golden"))
	for _, c := range []struct {
		name string
		args []string
	}{{"all", nil}, {"linux", []string{"--os", "linux"}}, {"darwin", []string{"--os", "darwin"}}} {
		r := e.run(t, "", append([]string{"rules"}, c.args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("rules %q: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
		g.Assert(t, c.name, []byte(r.stdout))
	}
}

// TestRulesColumns checks the shape the golden files only show: one rule
// per line, every line with its four columns aligned.
func TestRulesColumns(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, "", "rules")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	why := strings.Index(lines[0], "WHY")
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) < 4 || (f[0] != "linux" && f[0] != "darwin" && f[0] != "any") || len(l) <= why || l[why-1] != ' ' || l[why] == ' ' {
			t.Errorf("line %q: want PLATFORM ID CONDITION WHY, WHY at column %d", l, why)
		}
	}
}
