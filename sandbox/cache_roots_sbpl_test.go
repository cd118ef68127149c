package sandbox

import (
	"path/filepath"
	"testing"
)

// TestCacheRootDecisions: the macOS profile, judged by the SBPL
// evaluator, keeps a run from reading or writing another workspace's
// caches where the cache root is readable (XDG_CACHE_HOME in the
// workspace; the home's default root under a read grant), in any letter
// case, and from moving the root aside, while the run's own caches stay
// open. Each entry also runs without its deciding rule (and cut, a rule
// that denies the same), under which the answer is the other one.
func TestCacheRootDecisions(t *testing.T) {
	for _, c := range []struct {
		name, wsName string
		entries      func(ws, root, own, homeRoot string) []matrixEntry
	}{
		{name: "ascii", wsName: "ws", entries: func(ws, root, own, homeRoot string) []matrixEntry {
			other := root + "/ws-00000000000000000000000000000000"
			return []matrixEntry{
				{name: "read another workspace's module zip", q: sbplRequest{op: "file-read-data", path: other + "/go-mod/cache/download/m/@v/v1.zip"}, rule: "hide-cache-root-folded", cut: "hide-cache-root"},
				{name: "list the cache root", q: sbplRequest{op: "file-read-data", path: root}, rule: "hide-cache-root-folded", cut: "hide-cache-root"},
				{name: "read it in another case", q: sbplRequest{op: "file-read-data", path: ws + "/.cache/sandtable/CACHES/ws-0/xdg/token"}, rule: "hide-cache-root-folded"},
				{name: "plant a module", q: sbplRequest{op: "file-write-create", path: other + "/go-mod/m@v1/m.go"}, rule: "hide-cache-root-folded", cut: "hide-cache-root"},
				{name: "read the home's default root", q: sbplRequest{op: "file-read-data", path: homeRoot + "/ws-0/xdg/token"}, rule: "hide-cache-root-folded", cut: "hide-cache-root"},
				{name: "move the root's directory aside", q: sbplRequest{op: "file-write-unlink", path: ws + "/.cache/sandtable"}, rule: "hide-rename-guard"},
				{name: "write its own module cache", q: sbplRequest{op: "file-write-create", path: own + "/go-mod/m@v1/m.go"}, allow: true, rule: "cache-bind"},
				{name: "look at its own scope", q: sbplRequest{op: "file-read-metadata", path: own}, allow: true, rule: "cache-scope-metadata"},
				{name: "look at the root", q: sbplRequest{op: "file-read-metadata", path: root}, allow: true, rule: "cache-scope-metadata"},
			}
		}},
		// A name beyond the fold table has no folded pattern: the spelled
		// deny alone decides.
		{name: "unfoldable", wsName: "кэш", entries: func(ws, root, own, homeRoot string) []matrixEntry {
			return []matrixEntry{
				{name: "read another workspace's module zip", q: sbplRequest{op: "file-read-data", path: root + "/ws-0/go-mod/x.zip"}, rule: "hide-cache-root"},
				{name: "write its own module cache", q: sbplRequest{op: "file-write-create", path: own + "/go-mod/x"}, allow: true, rule: "cache-bind"},
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := realTempDir(t)
			home := mkdir(t, dir, "home")
			t.Setenv("HOME", home)
			ws := mkdir(t, dir, c.wsName)
			t.Setenv("XDG_CACHE_HOME", ws+"/.cache")
			root := mkdir(t, ws, ".cache", cacheSubdir)
			homeRoot := mkdir(t, home, ".cache", cacheSubdir)
			own := filepath.Join(root, cacheScopeDir(ws))
			// The derived hidden path under XDG_CACHE_HOME is revealed: a
			// missing one with such a name is refused on macOS.
			cfg := Config{Workspace: ws, Read: []string{home + "/.cache"}, Reveal: []string{ws + "/.cache/huggingface/token"}}
			steps, err := Explain("darwin", cfg)
			if err != nil {
				t.Fatal(err)
			}
			forms, err := readPolicy(steps)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range c.entries(ws, root, own, homeRoot) {
				got, at := decide(forms, e.q)
				by := "no rule"
				if at >= 0 {
					by = forms[at].rule
				}
				if got != e.allow || by != e.rule {
					t.Errorf("%s (%s): %s by %s, want %s by %s", e.name, e.q, answer(got), by, answer(e.allow), e.rule)
					continue
				}
				cutSteps := without(steps, e.rule, "")
				if e.cut != "" {
					cutSteps = without(cutSteps, e.cut, "")
				}
				cut, err := readPolicy(cutSteps)
				if err != nil {
					t.Fatal(err)
				}
				if bare, at := decide(cut, e.q); bare == e.allow {
					t.Errorf("%s (%s): %s without rule %s too (by %s); the entry proves nothing", e.name, e.q, answer(bare), e.rule, cut[at].rule)
				}
			}
		})
	}
}

// TestCacheRootWatched: the watch covers each cache root (row
// stop-on-cache-root-replaced): the root in use at its name, and the
// home's default one, missing, where it would first appear.
func TestCacheRootWatched(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	mkdir(t, home, ".cache")
	t.Setenv("HOME", home)
	xdg := mkdir(t, dir, "xdg")
	t.Setenv("XDG_CACHE_HOME", xdg)
	p, err := newPlan("linux", Config{Workspace: mkdir(t, dir, "ws")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]bool{
		{xdg + "/sandtable", "caches"}:  false, // made by the plan
		{home + "/.cache", "sandtable"}: true,  // missing: where it would appear
	}
	for _, w := range p.watch {
		if m, ok := want[[2]string{w.dir, w.name}]; ok && w.rule == "stop-on-cache-root-replaced" && w.missing == m {
			delete(want, [2]string{w.dir, w.name})
		}
	}
	if len(want) > 0 {
		t.Errorf("not watched: %v (watch %+v)", want, p.watch)
	}
}
