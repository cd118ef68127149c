package sandbox

import (
	"regexp"
	"testing"
)

// TestProtectDecisions judges, with the SBPL evaluator, the protect
// section's attacks on the macOS profile: each is denied by the rule
// named, and allowed once that rule is left out of the profile. The plan
// is the decision matrix's, with an existing .git/hooks, .git/config and
// .claude, and a missing .vscode, protected in the workspace.
func TestProtectDecisions(t *testing.T) {
	p := matrixPlan(false, false)
	ws := p.workspace
	p.protected = []pathFact{
		fact(ws+"/.git/config", kindFile, ws),
		fact(ws+"/.git/hooks", kindDir, ws),
		fact(ws+"/.claude", kindDir, ws),
		fact(ws+"/.vscode", kindMissing, ws),
	}
	if err := darwinFacts(p); err != nil {
		t.Fatal(err)
	}
	steps := darwinSteps(p)
	forms, err := readPolicy(steps)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []matrixEntry{
		{name: "plant a post-checkout hook", q: sbplRequest{op: "file-write-create", path: ws + "/.git/hooks/post-checkout"}, rule: "protect-deny"},
		{name: "set core.fsmonitor", q: sbplRequest{op: "file-write-data", path: ws + "/.git/config"}, rule: "protect-deny"},
		{name: "replace the config by rename", q: sbplRequest{op: "file-write-unlink", path: ws + "/.git/config"}, rule: "protect-deny"},
		{name: "plant a hook under another case", q: sbplRequest{op: "file-write-create", path: ws + "/.GIT/Hooks/post-checkout"}, rule: "protect-deny"},
		{name: "create .vscode/tasks.json", q: sbplRequest{op: "file-write-create", path: ws + "/.vscode/tasks.json"}, rule: "protect-deny"},
		{name: "create .VSCode", q: sbplRequest{op: "file-write-create", path: ws + "/.VSCode"}, rule: "protect-deny"},
		{name: "edit .claude/settings.json", q: sbplRequest{op: "file-write-data", path: ws + "/.claude/settings.json"}, rule: "protect-deny"},
		{name: "move .git aside", q: sbplRequest{op: "file-write-unlink", path: ws + "/.git"}, rule: "hide-rename-guard"},
		{name: "write an object", q: sbplRequest{op: "file-write-create", path: ws + "/.git/objects/ab/cdef"}, allow: true, rule: "write-allowlist"},
		{name: "write a file named like one", q: sbplRequest{op: "file-write-create", path: ws + "/.git/configs"}, allow: true, rule: "write-allowlist"},
	} {
		got, at := decide(forms, e.q)
		by := "no rule"
		if at >= 0 {
			by = forms[at].rule
		}
		if got != e.allow || by != e.rule {
			t.Errorf("%s (%s): %s by %s, want %s by %s", e.name, e.q, answer(got), by, answer(e.allow), e.rule)
			continue
		}
		cut, err := readPolicy(without(steps, e.rule, ""))
		if err != nil {
			t.Fatal(err)
		}
		if bare, _ := decide(cut, e.q); bare == e.allow {
			t.Errorf("%s (%s): %s without rule %s too; the entry proves nothing", e.name, e.q, answer(bare), e.rule)
		}
		t.Logf("%-32s %s by %s; the other way without it", e.name+":", answer(got), e.rule)
	}
}

func TestFoldBelow(t *testing.T) {
	for _, c := range []struct{ root, p, want string }{
		{"/Users/José/ws", "/Users/José/ws/.git/hooks", "^/Users/José/ws/[.][gG][iI][tT]/[hH][oO][oO](K|k|\u212a)(S|s|\u017f)(/|$)"},
		{"/a+b", "/a+b/.x", "^/a[+]b/[.][xX](/|$)"},
	} {
		if got := foldBelow(c.root, c.p); got != c.want {
			t.Errorf("foldBelow(%q, %q) = %q; want %q", c.root, c.p, got, c.want)
		}
	}
	// A ^ cannot be bracketed: the pattern matches nothing, which is why
	// row no-caret-protected refuses such a path.
	caret := regexp.MustCompilePOSIX(foldBelow("/a^b", "/a^b/.git"))
	for _, s := range []string{"/a^b/.git", "/a^b/.GIT/x", "/ab/.git"} {
		if caret.MatchString(s) {
			t.Errorf("%s matches %q", caret, s)
		}
	}
}
