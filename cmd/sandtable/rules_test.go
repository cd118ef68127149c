package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// fixtures is this package's folder of the module's testdata: the golden
// files, one folder per test.
const fixtures = "../../testdata/cmd/sandtable"

func TestGoldenRules(t *testing.T) {
	e := newEnv(t)
	g := goldie.New(t, goldie.WithFixtureDir(fixtures), goldie.WithTestNameForDir(true), goldie.WithNameSuffix(".golden"))
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
// per line, every line with its columns aligned and its SOURCE a place in
// rules/; --why adds the WHY column, aligned too.
func TestRulesColumns(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"rules"}, {"rules", "--why"}} {
		r := e.run(t, "", args...)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		// Columns align by characters (an APPLIES TO cut short ends in …).
		src := strings.Index(lines[0], "SOURCE")
		why := strings.Index(lines[0], "WHY")
		if src < 0 || (len(args) == 2) != (why > 0) {
			t.Fatalf("%q: header %q", args, lines[0])
		}
		for _, bl := range lines[1:] {
			l := strings.ReplaceAll(bl, "…", ".")
			f := strings.Fields(l)
			if len(f) < 4 || (f[0] != "linux" && f[0] != "darwin" && f[0] != "any") || len(l) <= src || l[src-1] != ' ' || !strings.HasPrefix(l[src:], "rules/") {
				t.Errorf("%q: line %q: want PLATFORM ID APPLIES-TO CONDITION SOURCE, SOURCE at column %d", args, l, src)
			}
			if why > 0 && (len(l) <= why || l[why-1] != ' ' || l[why] == ' ') {
				t.Errorf("%q: line %q: want WHY at column %d", args, l, why)
			}
		}
	}
}

// TestRulesWhole: rules ID prints the row whole (its emission unshortened,
// its why) with its place in rules/, and a missing id is a usage error.
func TestRulesWhole(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, "", "rules", "hide-ssh", "no-home-grant")
	for _, want := range []string{"hide-ssh (any, rules/common.yaml:", "applies to  hide $home/.ssh", "SSH private keys", "no-home-grant (any, rules/common.yaml:", "refuse: workspace, write-path"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("rules hide-ssh no-home-grant: exit %d, stdout %q; want %q", r.code, r.stdout, want)
		}
	}
	if r := e.run(t, "", "rules", "no-such-row"); r.code != exitUsage || !strings.Contains(r.stderr, `no rule "no-such-row"`) {
		t.Errorf("rules no-such-row: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRulesHidden: rules --hidden lists the default hidden set as this
// machine resolves it: a default that exists is hidden, one that does not
// is absent, a --reveal takes its path off the list, and a --hide is
// listed as the run's own.
func TestRulesHidden(t *testing.T) {
	e := newEnv(t)
	ssh := filepath.Join(e.home, ".ssh")
	if err := os.Mkdir(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(e.home, "mine")
	state := func(out, path, id string) string {
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) == 4 && f[1] == path && f[2] == id {
				return f[0]
			}
		}
		return ""
	}
	r := e.run(t, "", "rules", "--hidden", "--hide", mine)
	if r.code != 0 {
		t.Fatalf("rules --hidden: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, c := range [][3]string{{ssh, "hide-ssh", "hidden"}, {filepath.Join(e.home, ".aws"), "hide-aws", "absent"}, {mine, "--hide", "absent"}} {
		if got := state(r.stdout, c[0], c[1]); got != c[2] {
			t.Errorf("rules --hidden: %s (%s) is %q, want %q:\n%s", c[0], c[1], got, c[2], r.stdout)
		}
	}
	r = e.run(t, "", "rules", "--hidden", "--reveal", ssh)
	if got := state(r.stdout, ssh, "hide-ssh"); r.code != 0 || got != "" {
		t.Errorf("rules --hidden --reveal %s: exit %d, %s is %q, want it not listed:\n%s", ssh, r.code, ssh, got, r.stdout)
	}
}
