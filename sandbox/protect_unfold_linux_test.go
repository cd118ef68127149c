package sandbox

import (
	"strings"
	"testing"
)

// TestUnfoldableProtectedPattern judges, with the SBPL evaluator, the
// macOS profile of a workspace whose core.hooksPath names a directory in
// Cyrillic: its deny pattern can spell хуки only as written, so a hook
// created under ХУКИ (the same name to APFS) is allowed. Row
// no-unfoldable-protected refuses the plan; without it the profile is
// built, denies the spelled path (the control: the deny is there) and
// allows the other case (the attack). A Latin hooksPath is planned with
// the row, and its other case denied.
func TestUnfoldableProtectedPattern(t *testing.T) {
	requireBwrap(t)
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	t.Setenv("XDG_CACHE_HOME", mkdir(t, dir, "xdg-cache"))
	decideFor := func(cfg Config, drop []string, qs ...sbplRequest) []bool {
		t.Helper()
		p, err := planWithoutRows("darwin", cfg, drop)
		if err != nil {
			t.Fatalf("plan without %v: %v", drop, err)
		}
		forms, err := readPolicy(darwinSteps(p))
		if err != nil {
			t.Fatal(err)
		}
		var out []bool
		for _, q := range qs {
			allow, _ := decide(forms, q)
			t.Logf("without %v: %s: %s", drop, q, answer(allow))
			out = append(out, allow)
		}
		return out
	}

	ws := mkdir(t, dir, "ws")
	writeFile(t, ws, ".git/config", "[core]\n\thooksPath = хуки\n")
	cfg := Config{Workspace: ws}
	if _, err := PrefixFor("darwin", cfg); err == nil || !strings.Contains(err.Error(), "(refuse: no-unfoldable-protected)") {
		t.Errorf("PrefixFor(darwin) = %v, want the refusal of row no-unfoldable-protected", err)
	}
	spelled := sbplRequest{op: "file-write-create", path: ws + "/хуки/pre-commit"}
	other := sbplRequest{op: "file-write-create", path: ws + "/ХУКИ/pre-commit"}
	got := decideFor(cfg, []string{"no-unfoldable-protected"}, spelled, other)
	if got[0] {
		t.Error("control: without the row the spelled hooks path is writable too, so the attack proves nothing")
	}
	if !got[1] {
		t.Error("without the row the other case is denied as well: the row refuses a workspace the profile protects")
	}

	latin := mkdir(t, dir, "latin")
	writeFile(t, latin, ".git/config", "[core]\n\thooksPath = githooks\n")
	if got := decideFor(Config{Workspace: latin}, nil, sbplRequest{op: "file-write-create", path: latin + "/GitHooks/pre-commit"}); got[0] {
		t.Error("a Latin hooksPath's other case is writable: the fold it relies on is missing")
	}
}
