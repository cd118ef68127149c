package sandbox

import (
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// countLstat routes the package's lstat through a counter for the rest of
// the test and returns how often each path was asked for.
func countLstat(t *testing.T) map[string]int {
	t.Helper()
	calls := map[string]int{}
	orig := lstat
	lstat = func(name string) (fs.FileInfo, error) {
		calls[name]++
		return orig(name)
	}
	t.Cleanup(func() { lstat = orig })
	return calls
}

// countListings routes the package's directory listings through a counter
// for the rest of the test and returns how often each directory was listed.
func countListings(t *testing.T) map[string]int {
	t.Helper()
	calls := map[string]int{}
	orig := listNames
	listNames = func(dir string) (dirNames, bool) {
		calls[dir]++
		return orig(dir)
	}
	t.Cleanup(func() { listNames = orig })
	return calls
}

// prefixesOf adds every ancestor of the clean absolute path p, and p, to set.
func prefixesOf(set map[string]bool, p string) {
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			set[p[:i]] = true
		}
	}
}

// TestPrefixLstatsEachPathOnce pins the file system cost of a whole Prefix
// call, validation, path facts, program lookup and probe included: exactly
// one lookup per distinct path component the answer depends on (an lstat,
// or the one listing of its directory), and nothing else. The config is one whose every visited path the test controls: a
// temporary $HOME with three defaults present, a fake bwrap on a PATH under
// the same temporary directory, and the table's absolute defaults revealed
// so the host's /run does not enter the count.
func TestPrefixLstatsEachPathOnce(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	clearDerivedEnv(t)
	// The host's git configuration: its system files (/etc/gitconfig and
	// the like, protect-git-host-config) are the host's, which
	// TestPrefixSharesLookups sees; its global ones are the redacted
	// ~/.gitconfig and ~/.config/git/config, counted with the home's rows.
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ws := mkdir(t, dir, "ws")
	created := map[string]bool{
		mkdir(t, home, ".ssh"):                true,
		writeFile(t, home, ".npmrc", "token"): true,
		mkdir(t, home, ".config", "gh"):       true,
		filepath.Join(home, ".config"):        true,
		// The placeholder journal, which Prefix makes before it plans.
		mkdir(t, home, ".local/state/sandtable/placeholders"): true,
		filepath.Join(home, ".local/state/sandtable"):         true,
		filepath.Join(home, ".local/state"):                   true,
		filepath.Join(home, ".local"):                         true,
		writeFile(t, dir, "bin/bwrap", "#!/bin/sh\nexit 0\n"): true,
	}
	if err := os.Chmod(filepath.Join(dir, "bin", "bwrap"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	var reveal []string
	for _, d := range defaultHidden {
		if !d.underHome && d.env == "" {
			reveal = append(reveal, d.path)
		}
	}
	// The caches' lstats are counted by TestCacheLstats.
	cfg := Config{Workspace: ws, Reveal: reveal, NoCache: true}

	// The paths a one-lstat-per-component resolver must visit: every
	// component of the workspace, the home and the bwrap candidate, and
	// each default under the home up to its first missing component.
	want := map[string]bool{}
	for _, p := range []string{ws, home, filepath.Join(dir, "bin", "bwrap")} {
		prefixesOf(want, p)
	}

	// The protect section: the workspace's .git, and each $root row.
	want[filepath.Join(ws, ".git")] = true
	for _, row := range protectedPaths {
		if row.base == protectRoot {
			want[filepath.Join(ws, row.path)] = true
		}
	}
	homeRows := make([]string, 0, len(defaultHidden)+len(redactFiles))
	for _, d := range defaultHidden {
		if d.underHome {
			homeRows = append(homeRows, d.path)
		}
	}
	for _, f := range redactFiles {
		if f.underHome {
			homeRows = append(homeRows, f.path)
		}
	}
	for _, rel := range homeRows {
		p := home
		for _, c := range strings.Split(rel, "/") {
			p = path.Join(p, c)
			want[p] = true
			if !created[p] {
				break
			}
		}
	}

	// Whether the host's /var/tmp is a directory (var-tmp).
	want[varTmpDir] = true

	// The host's sockets, whatever other processes listen on, are
	// resolved by the same resolver; TestSocketFacts covers them.
	ownList := listHostSockets
	listHostSockets = func() []string { return nil }
	defer func() { listHostSockets = ownList }()
	calls := countLstat(t)
	listed := countListings(t)
	w, err := Prefix(cfg)
	if err != nil {
		t.Fatal(err)
	}
	prog := w.Program
	if prog == wrapHelperExe { // network mode proxy, the default: bwrap follows the helper's --
		prog = w.Args[slices.Index(w.Args, "--")+1]
	}
	if prog != filepath.Join(dir, "bin", "bwrap") {
		t.Fatalf("Program = %q %q", w.Program, w.Args)
	}
	total := 0
	for p, n := range calls {
		total += n
		if n > 1 {
			t.Errorf("%s: %d lstats, want 1", p, n)
		}
		if !want[p] {
			t.Errorf("%s: lstat of a path the answer does not depend on", p)
		}
	}
	for d, n := range listed {
		total += n
		if n > 1 {
			t.Errorf("%s: listed %d times, want 1", d, n)
		}
	}
	for p := range want {
		if calls[p] == 0 && listed[path.Dir(p)] == 0 {
			t.Errorf("%s: never looked at", p)
		}
	}
	// The same number spelled out, so a change in the cost shows up in
	// review: the components of the temporary directory, then ws, home,
	// bin and bin/bwrap; then the first listAfter lookups under the home,
	// its listing, and an lstat of the one name present there that came
	// later (of .ssh, .npmrc and .config); the first listAfter under
	// home/.config, and its listing; then the 9 names the protect section
	// and the workspace's hidden defaults look up in ws, too few to list;
	// then the 6 below .local, which holds the placeholder journal:
	// .local, .local/share, .local/state, .local/state/nvim,
	// .local/state/sandtable and its placeholders; and /var/tmp, for
	// var-tmp. Every other default and
	// redacted file under the home (134 entries: 87 distinct first
	// components, 35 under .config) is answered by the listings.
	if exact := strings.Count(dir, "/") + 4 + (listAfter + 1) + 1 + listAfter + 1 + 9 + 6 + 1; total != exact {
		t.Errorf("%d lookups (%d expected paths), want exactly %d", total, len(want), exact)
	}
	t.Logf("%d lookups, %d of them lstats of distinct paths", total, len(calls))
}

// TestPrefixSharesLookups checks the same property on the host as it is,
// real /run and PATH included, with grants and a PATH entry that overlap the
// hidden set and each other: no path is lstat'd twice within one call.
func TestPrefixSharesLookups(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	mkdir(t, home, ".ssh")
	ws := mkdir(t, dir, "ws")
	bin := mkdir(t, dir, "tools", "bin")
	t.Setenv("PATH", strings.Join([]string{bin, os.Getenv("PATH")}, string(os.PathListSeparator)))
	cfg := Config{
		Workspace: ws,
		Read:      []string{bin, "/usr/bin"},
		Write:     []string{mkdir(t, dir, "tools", "cache")},
		Hidden:    []string{filepath.Join(home, ".ssh"), filepath.Join(dir, "tools")},
		NoCache:   true, // TestCacheLstats
	}
	for _, goos := range []string{"linux", "darwin"} {
		calls := countLstat(t)
		if _, err := PrefixFor(goos, cfg); err != nil {
			t.Fatal(err)
		}
		for _, p := range slices.Sorted(maps.Keys(calls)) {
			if calls[p] > 1 {
				t.Errorf("%s: %s: %d lstats, want 1", goos, p, calls[p])
			}
		}
		t.Logf("%s: %d distinct paths", goos, len(calls))
	}
}
