package sandbox

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// factFor returns the hidden fact for path, failing if there is none.
func factFor(t *testing.T, facts []pathFact, path string) pathFact {
	t.Helper()
	for _, f := range facts {
		if f.path == path {
			return f
		}
	}
	t.Fatalf("no fact for %s in %+v", path, facts)
	return pathFact{}
}

func hasFact(facts []pathFact, path string) bool {
	return slices.ContainsFunc(facts, func(f pathFact) bool { return f.path == path })
}

func TestFactsKinds(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "outer", "ws")
	hdir := mkdir(t, dir, "hdir")
	hfile := writeFile(t, dir, "hfile", "secret")
	target := mkdir(t, dir, "target")
	if err := os.Symlink("target", filepath.Join(dir, "rellink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hfile, filepath.Join(dir, "abslink")); err != nil {
		t.Fatal(err)
	}
	inside := mkdir(t, ws, "secret")

	p, err := newPlan("linux", Config{
		Workspace: filepath.Join(dir, "outer", "ws"),
		Hidden: []string{
			hdir, hfile,
			filepath.Join(dir, "missing"),
			filepath.Join(dir, "hfile", "under-a-file"),
			filepath.Join(dir, "rellink"), // dedupes with target below
			target,
			filepath.Join(dir, "abslink"), // dedupes with hfile
			filepath.Join(dir, "outer"),
			inside,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.workspace != ws {
		t.Errorf("workspace %s, want %s", p.workspace, ws)
	}
	for _, tc := range []struct {
		path             string
		kind             pathKind
		ancestor, inside bool
	}{
		{hdir, kindDir, false, false},
		{hfile, kindFile, false, false},
		{filepath.Join(dir, "missing"), kindMissing, false, false},
		{filepath.Join(dir, "hfile", "under-a-file"), kindMissing, false, false},
		{target, kindDir, false, false},
		{filepath.Join(dir, "outer"), kindDir, true, false},
		{inside, kindDir, false, true},
	} {
		f := factFor(t, p.hidden, tc.path)
		if f.kind != tc.kind || f.ancestor != tc.ancestor || f.inside != tc.inside {
			t.Errorf("%s: got %+v, want kind %d ancestor %v inside %v", tc.path, f, tc.kind, tc.ancestor, tc.inside)
		}
	}
	for _, f := range p.hidden {
		if strings.Contains(f.path, "link") {
			t.Errorf("a symlink was kept instead of its target: %s", f.path)
		}
	}
	var n int
	for _, f := range p.hidden {
		if f.path == target || f.path == hfile {
			n++
		}
	}
	if n != 2 {
		t.Errorf("hidden set not deduplicated after resolution: %+v", p.hidden)
	}
}

// TestMountsDepthOrder checks that plan.mounts is parent before child, so the
// ancestor tmpfs precedes the workspace bind and the hidden path inside the
// workspace follows it, whatever order the table and config list them in.
func TestMountsDepthOrder(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "h", "ws")
	inner := mkdir(t, ws, "a", "deep")
	grant := mkdir(t, dir, "h", "grant")
	p, err := newPlan("linux", Config{Workspace: ws, Hidden: []string{inner, filepath.Join(dir, "h")}, Write: []string{grant}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range p.mounts {
		if strings.HasPrefix(m.path, dir) && m.rule != linuxRuleProtectPath && m.rule != linuxRuleProtectPlaceholder {
			got = append(got, m.path)
		}
	}
	// ws/a is pinned, so the hidden ws/a/deep cannot be moved with it.
	want := []string{filepath.Join(dir, "h"), ws, grant, filepath.Join(ws, "a"), inner}
	if !slices.Equal(got, want) {
		t.Errorf("mount order\n got %q\nwant %q", got, want)
	}
	if pd, _ := newPlan("darwin", Config{Workspace: ws}); pd.mounts != nil {
		t.Error("darwin plans need no mounts")
	}
}

func TestSortMountsStable(t *testing.T) {
	m := []mount{{1, "/a/b", ""}, {2, "/c", ""}, {3, "/a/b/c", ""}, {4, "/d", ""}, {5, "/e/f", ""}}
	sortMounts(m)
	want := []mount{{2, "/c", ""}, {4, "/d", ""}, {1, "/a/b", ""}, {5, "/e/f", ""}, {3, "/a/b/c", ""}}
	if !slices.Equal(m, want) {
		t.Errorf("got %v, want %v", m, want)
	}
}

func TestDefaultHidden(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	// $HOME itself through a symlink: defaults must land on the real path.
	if err := os.Symlink(home, filepath.Join(dir, "homelink")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(dir, "homelink")+"/")
	ssh := mkdir(t, home, ".ssh")
	netrc := writeFile(t, home, ".netrc", "machine x password y")
	npmrc := writeFile(t, home, ".npmrc", "//registry/:_authToken=x")
	gh := mkdir(t, home, ".config", "gh")
	ws := mkdir(t, dir, "ws")

	p, err := newPlan("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if f := factFor(t, p.hidden, ssh); f.kind != kindDir {
		t.Errorf("ssh: %+v", f)
	}
	if f := factFor(t, p.hidden, netrc); f.kind != kindFile {
		t.Errorf("netrc: %+v", f)
	}
	// ~/.npmrc is redacted, not hidden, at its real path too.
	if f := factFor(t, p.redacted, npmrc); f.kind != kindFile || p.redactData[0] == nil || strings.Contains(string(p.redactData[0]), "_authToken") {
		t.Errorf("npmrc: %+v %q", f, p.redactData)
	}
	factFor(t, p.hidden, gh)
	// A missing default is kept, at its real path: Linux emits nothing for
	// it, and macOS denies it in case it appears while the sandbox runs.
	aws := filepath.Join(home, ".aws")
	if f := factFor(t, p.hidden, aws); f.kind != kindMissing {
		t.Errorf("aws: %+v", f)
	}
	if args := strings.Join(linuxArgs(p), " "); strings.Contains(args, aws) {
		t.Errorf("the linux argv names the missing %s: %s", aws, args)
	}
	pd, err := newPlan("darwin", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if prof, want := darwinProfile(pd), `(deny file-read* (subpath "`+aws+`"))`; !strings.Contains(prof, want) {
		t.Errorf("the darwin profile lacks %s:\n%s", want, prof)
	}

	// Reveal names the default by its $HOME expansion.
	p, err = newPlan("linux", Config{Workspace: ws, Reveal: []string{filepath.Join(dir, "homelink", ".npmrc")}})
	if err != nil {
		t.Fatal(err)
	}
	if hasFact(p.hidden, npmrc) || !hasFact(p.hidden, ssh) {
		t.Errorf("reveal: %+v", p.hidden)
	}

	// A default equal to the workspace is dropped; an explicit one is an error.
	p, err = newPlan("linux", Config{Workspace: ssh})
	if err != nil {
		t.Fatal(err)
	}
	if hasFact(p.hidden, ssh) {
		t.Error("the workspace was hidden")
	}

	// A workspace inside a default: the default is its ancestor.
	inner := mkdir(t, ssh, "proj")
	p, err = newPlan("darwin", Config{Workspace: inner})
	if err != nil {
		t.Fatal(err)
	}
	if f := factFor(t, p.hidden, ssh); !f.ancestor {
		t.Errorf("ssh should be an ancestor of %s: %+v", inner, f)
	}

	// An unusable HOME is an error, not a reason to hide nothing.
	t.Setenv("HOME", "relative/home")
	if _, err := newPlan("linux", Config{Workspace: ws}); err == nil || !strings.Contains(err.Error(), `home "relative/home": not absolute`) {
		t.Errorf("relative HOME: %v", err)
	}
	// A missing HOME hides nothing under it.
	t.Setenv("HOME", filepath.Join(dir, "nohome"))
	p, err = newPlan("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.hidden {
		if strings.HasPrefix(f.path, dir) {
			t.Errorf("hidden under a missing home: %+v", f)
		}
	}
}

// TestLstatBudget pins the cost of the default hidden set: about one lstat
// per default path, because every path under $HOME or /run shares its
// resolved parent.
func TestLstatBudget(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	ws := mkdir(t, dir, "ws")
	var calls int
	orig := lstat
	lstat = func(name string) (fs.FileInfo, error) {
		calls++
		return orig(name)
	}
	defer func() { lstat = orig }()
	if _, err := newPlan("linux", Config{Workspace: ws, NoCache: true}); err != nil { // TestCacheLstats
		t.Fatal(err)
	}
	depth := strings.Count(dir, "/")
	// The workspace and home: one per component, sharing dir's. Defaults:
	// one each, plus shared parents (.config, .cargo, /run, ...).
	// Protected paths: the workspace's .git and each $root row.
	budget := depth + 2 + len(defaultHidden) + 8 + 1 + protectRootRows()
	if calls > budget {
		t.Errorf("%d lstat calls, budget %d", calls, budget)
	}
	t.Logf("%d lstat calls for %d defaults", calls, len(defaultHidden))
}

// TestResolveMatchesEvalSymlinks compares the resolver with
// filepath.EvalSymlinks on a tree of relative, absolute, chained and
// dot-dot links.
func TestResolveMatchesEvalSymlinks(t *testing.T) {
	dir := realTempDir(t)
	mkdir(t, dir, "a", "b", "c")
	writeFile(t, dir, "a/b/c/f", "x")
	links := map[string]string{
		"l1":        "a/b",
		"a/l2":      "../a/b/c",
		"l3":        dir + "/a/l2",
		"a/b/l4":    "..",
		"a/b/c/l5":  "../../../l1/c/f",
		"l6":        "l3/../..",
		"loop1":     "loop2",
		"loop2":     "loop1",
		"dangling":  "a/nope",
		"a/b/l7":    "/",
		"a/b/self":  ".",
		"a/b/c/up3": "../../..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var cases []string
	for name := range links {
		cases = append(cases, name, name+"/f", name+"/c", name+"/c/f", name+"/l4/b")
	}
	cases = append(cases, "a/b/c/f/x", "a/b/l7/etc", "a/b/self/self/c/up3/l1")
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "b", "c", "f", "l1", "l3", "l4", "a/l2", "self", "up3", ".."}
	for range 200 {
		var s []string
		for range 1 + r.IntN(5) {
			s = append(s, parts[r.IntN(len(parts))])
		}
		cases = append(cases, filepath.Join(s...))
	}
	for _, c := range cases {
		p := filepath.Join(dir, c)
		want, wantErr := filepath.EvalSymlinks(p)
		var rs resolver
		got, fi, err := rs.resolve(p)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: resolve err %v, EvalSymlinks err %v", c, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if got != want {
			t.Errorf("%s: resolve %s, EvalSymlinks %s", c, got, want)
		}
		if st, _ := os.Stat(want); fi == nil || fi.IsDir() != st.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
			t.Errorf("%s: final lstat %v", c, fi)
		}
	}
}
