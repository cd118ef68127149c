package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactIncludes: the files a redacted git config includes are served
// redacted too, found as git finds them (beside it, under ~/, absolute),
// to git's depth of 10; an include the sandbox cannot place (~user/,
// %(prefix)/) or past that depth is left out of the copy, so git never
// reads its file whole; one that is missing, hidden or in the workspace
// stays, its file not the sandbox's to serve.
func TestRedactIncludes(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	ws := mkdir(t, dir, "ws")
	abs := writeFile(t, dir, "b.gitconfig", "[credential]\n\thelper = !echo T3\n")
	inWS := writeFile(t, ws, "in-ws.gitconfig", "[http]\n\textraheader = WS\n")
	hidden := writeFile(t, home, ".ssh/hidden", "[http]\n\textraheader = SSH\n")
	writeFile(t, home, ".gitconfig", "[include]\n\tpath = team.gitconfig\n\tpath = ~/.git.d/a\n[includeIf \"gitdir:/x/\"]\n\tpath = "+abs+
		"\n[include]\n\tpath = ~other/c\n\tpath = %(prefix)/d\n\tpath = missing\n\tpath = "+inWS+"\n\tpath = "+hidden+"\n\tpath = chain0\n")
	writeFile(t, home, "team.gitconfig", "[http]\n\textraheader = T1\n[user]\n\tname = Team\n")
	writeFile(t, home, ".git.d/a", "[sendemail]\n\tsmtppass = T2\n")
	for i := 0; i <= 11; i++ {
		writeFile(t, home, fmt.Sprintf("chain%d", i), fmt.Sprintf("[include]\n\tpath = chain%d\n[http]\n\textraheader = C%d\n", i+1, i))
	}
	p, err := newPlan("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	copies := map[string]string{}
	for i, f := range p.redacted {
		copies[f.path] = string(p.redactData[i])
	}
	top := copies[filepath.Join(home, ".gitconfig")]
	for _, kept := range []string{`"team.gitconfig"`, `"~/.git.d/a"`, `"` + abs + `"`, `"missing"`, `"` + inWS + `"`, `"` + hidden + `"`, `"chain0"`} {
		if !strings.Contains(top, "path = "+kept) {
			t.Errorf("the copy of ~/.gitconfig lost the include %s:\n%s", kept, top)
		}
	}
	for _, left := range []string{"~other/c", "%(prefix)/d"} {
		if strings.Contains(top, left) {
			t.Errorf("the copy of ~/.gitconfig keeps the include %s, whose file is not served:\n%s", left, top)
		}
	}
	for path, secret := range map[string]string{filepath.Join(home, "team.gitconfig"): "T1", filepath.Join(home, ".git.d/a"): "T2", abs: "T3"} {
		if c, ok := copies[path]; !ok || strings.Contains(c, secret) {
			t.Errorf("%s: served %v, its copy %q", path, ok, c)
		}
	}
	if c := copies[filepath.Join(home, "team.gitconfig")]; !strings.Contains(c, `name = "Team"`) {
		t.Errorf("the included file lost its settings: %q", c)
	}
	for _, path := range []string{inWS, hidden} {
		if _, ok := copies[path]; ok {
			t.Errorf("%s is served as a copy; it is the command's own, or hidden", path)
		}
	}
	// chainN is at depth N+1: chain0 to chain9 are read, chain9's include
	// would be the eleventh, past git's depth.
	for i := 0; i <= 11; i++ {
		c, ok := copies[filepath.Join(home, fmt.Sprintf("chain%d", i))]
		next := strings.Contains(c, fmt.Sprintf("path = \"chain%d\"", i+1))
		switch {
		case i+1 <= gitMaxIncludeDepth && !ok:
			t.Errorf("chain%d, at depth %d, is not served", i, i+1)
		case i+1 < gitMaxIncludeDepth && !next:
			t.Errorf("chain%d lost its include: %q", i, c)
		case i+1 == gitMaxIncludeDepth && next:
			t.Errorf("chain%d, at git's depth, keeps its include of chain%d: %q", i, i+1, c)
		case i+1 > gitMaxIncludeDepth && ok:
			t.Errorf("chain%d, past git's depth, is served", i)
		}
	}
}
