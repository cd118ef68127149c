package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// socketsIn makes n socket files named sN.sock in dir, listed as the
// host's (listAlso), and returns their paths.
func socketsIn(t *testing.T, dir string, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("s%d.sock", i))
		socketFile(t, p)
		out = append(out, p)
	}
	listAlso(t, out...)
	return out
}

func writeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func factPaths(fs []pathFact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.path)
	}
	return out
}

// TestSocketLayout: socketLayout rebuilds a directory without its sockets
// where that costs bwrap fewer binds than a mount per socket, and only
// there: many sockets beside one file, one directory per socket; not two
// sockets among five files, a directory with a symlink it cannot make
// again, one the sandbox's user may search but not list; the plan's own
// mount at an entry makes that entry; a directory of sockets inside a
// directory of files is rebuilt alone.
func TestSocketLayout(t *testing.T) {
	base, ws := spawnEnv(t)
	if err := os.Chmod(base, 0o755); err != nil { // searchable by the user below
		t.Fatal(err)
	}
	l := mkdir(t, base, "layout")
	many := mkdir(t, l, "many")
	manySocks := socketsIn(t, many, 10)
	writeFiles(t, many, "state")
	few := mkdir(t, l, "few")
	fewSocks := socketsIn(t, few, 2)
	writeFiles(t, few, "a", "b", "c", "d", "e")
	perService := mkdir(t, l, "per-service")
	var serviceDirs []string
	for i := range 10 {
		d := mkdir(t, perService, fmt.Sprintf("svc-%d", i))
		socketsIn(t, d, 1)
		serviceDirs = append(serviceDirs, d)
	}
	withPid := mkdir(t, perService, "svc-pid")
	socketsIn(t, withPid, 1)
	writeFiles(t, withPid, "pid")
	nested := mkdir(t, mkdir(t, perService, "svc-nested"), "run")
	socketsIn(t, nested, 1)
	longLink := mkdir(t, l, "long-link")
	longSocks := socketsIn(t, longLink, 10)
	if err := os.Symlink(strings.Repeat("x", 200), filepath.Join(longLink, "link")); err != nil {
		t.Fatal(err)
	}
	searchOnly := mkdir(t, l, "search-only")
	searchSocks := socketsIn(t, searchOnly, 10)
	if err := os.Chmod(searchOnly, 0o711); err != nil {
		t.Fatal(err)
	}
	withRead := mkdir(t, l, "with-read")
	socketsIn(t, withRead, 10)
	readPath := mkdir(t, withRead, "ro")
	outer := mkdir(t, l, "outer")
	writeFiles(t, outer, "a", "b", "c")
	inner := mkdir(t, outer, "inner")
	socketsIn(t, inner, 10)
	if err := os.Symlink("../many/state", filepath.Join(many, "current")); err != nil {
		t.Fatal(err)
	}

	// The identity of a user who is not the directories' owner: it may
	// list what is 0755, and only search search-only.
	ownID := socketIdentity
	t.Cleanup(func() { socketIdentity = ownID })
	socketIdentity = func() identity { return identity{uid: 12345, gids: []uint32{12345}} }
	p, err := newPlan("linux", Config{Workspace: ws, Read: []string{readPath}})
	if err != nil {
		t.Fatal(err)
	}
	dirs, subdirs, entries, hidden := factPaths(p.socketDirs), factPaths(p.socketSubdirs), factPaths(p.socketEntries), factPaths(p.sockets)
	for _, d := range []string{many, perService, withRead, inner} {
		if !slices.Contains(dirs, d) {
			t.Errorf("%s is not rebuilt: dirs %q", d, dirs)
		}
	}
	for _, d := range []string{few, longLink, searchOnly, outer, l} {
		if slices.Contains(dirs, d) {
			t.Errorf("%s is rebuilt, and should not be: dirs %q", d, dirs)
		}
	}
	for _, s := range slices.Concat(fewSocks, longSocks, searchSocks) {
		if !slices.Contains(hidden, s) {
			t.Errorf("%s is not mounted over: %q", s, hidden)
		}
	}
	for _, s := range manySocks {
		if slices.Contains(hidden, s) {
			t.Errorf("%s is mounted over inside a rebuilt directory", s)
		}
	}
	// A directory that held nothing but sockets, nested or not, would be
	// empty: it is left out; one with a file too is made again.
	for _, d := range append(serviceDirs, nested, filepath.Dir(nested)) {
		if slices.Contains(subdirs, d) {
			t.Errorf("%s, which held its socket alone, is made again: subdirs %q", d, subdirs)
		}
	}
	if !slices.Contains(subdirs, withPid) || !slices.Contains(entries, filepath.Join(withPid, "pid")) {
		t.Errorf("%s is not made again with its pid file: subdirs %q, entries %q", withPid, subdirs, entries)
	}
	if want := filepath.Join(many, "state"); !slices.Contains(entries, want) {
		t.Errorf("%s is not bound again: entries %q", want, entries)
	}
	if slices.Contains(entries, readPath) {
		t.Errorf("the read path %s is bound again as an entry too: %q", readPath, entries)
	}
	if len(p.socketLinks) != 1 || p.socketLinks[0].path != filepath.Join(many, "current") || p.socketLinks[0].target != "../many/state" {
		t.Errorf("links %+v, want many/current to ../many/state", p.socketLinks)
	}
}

// TestSocketLayoutSpawn runs a spawn whose host sockets are laid out in
// rebuilt directories, with the plan's own mounts inside them: the
// workspace, a read path, a hidden file and a granted socket. The
// rebuilt directory's sockets are gone and its other entries are there;
// the plan's own mounts work as without the rebuild.
func TestSocketLayoutSpawn(t *testing.T) {
	requireBwrap(t)
	base, _ := spawnEnv(t)
	d := mkdir(t, base, "svc")
	socks := socketsIn(t, d, 12)
	writeFiles(t, d, "state", "secret")
	conf := mkdir(t, d, "conf")
	writeFiles(t, conf, "service.conf")
	if err := os.Symlink("state", filepath.Join(d, "current")); err != nil {
		t.Fatal(err)
	}
	readPath := mkdir(t, d, "ro")
	writeFiles(t, readPath, "data")
	ws := mkdir(t, d, "ws")
	granted := filepath.Join(d, "granted.sock")
	socketFile(t, granted)
	listAlso(t, granted)
	cfg := Config{Workspace: ws, Read: []string{readPath}, Hidden: []string{filepath.Join(d, "secret")}, Sockets: []string{granted}, Network: Network{Mode: NetworkOff}}
	steps, err := Explain("linux", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(steps, func(s Step) bool { return s.Rule == "hide-socket-dir" && slices.Contains(s.Args, d) }) {
		t.Fatalf("%s is not rebuilt: %v", d, steps)
	}
	script := fmt.Sprintf(`set -e
for s in %s; do if [ -e "$s" ]; then echo "socket $s is there"; fi; done
[ -S %[2]s/granted.sock ] || echo "the granted socket is missing"
[ "$(cat %[2]s/state %[2]s/current %[2]s/conf/service.conf %[2]s/ro/data)" = "$(printf 'state\nstate\nservice.conf\ndata')" ] || echo "an entry is missing"
[ -z "$(cat %[2]s/secret)" ] || echo "the hidden file shows"
echo ok > %[3]s/written
if touch %[2]s/new 2>/dev/null; then echo "the rebuilt directory is writable"; fi
echo done`, strings.Join(socks, " "), d, ws)
	c := newCmd(t, cfg, "/bin/sh", "-c", script)
	out, err := c.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "done" {
		t.Fatalf("%v:\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "written")); err != nil || string(b) != "ok\n" {
		t.Errorf("the workspace inside the rebuilt directory is not writable: %q %v", b, err)
	}
}

// TestFixedMounts: the mounts made outside the mounts group, which no
// rebuilt socket directory may lie above, are the table's own (the
// private /tmp, the DNS stub's resolv.conf), not the group's.
func TestFixedMounts(t *testing.T) {
	_, ws := spawnEnv(t)
	p, err := newPlan("linux", Config{Workspace: ws, Network: Network{Mode: NetworkProxy}})
	if err != nil {
		t.Fatal(err)
	}
	p.resolvFD = "9"
	fixed := fixedMounts(p)
	for _, want := range []string{"/", "/tmp", "/dev", "/etc/resolv.conf"} {
		if !slices.Contains(fixed, want) {
			t.Errorf("fixed mounts %q lack %s", fixed, want)
		}
	}
	if slices.Contains(fixed, ws) {
		t.Errorf("fixed mounts %q hold the workspace, a mounts-group path", fixed)
	}
}

// TestSocketFactsUnderFresh: a host socket under the sandbox's private
// /tmp or /var/tmp is not looked at (the sandbox does not show it), its
// directory not even listed, beside a read path too; one there under a
// read path, which shows it again, is hidden.
func TestSocketFactsUnderFresh(t *testing.T) {
	_, ws := spawnEnv(t)
	tmp := t.TempDir()
	if !strings.HasPrefix(tmp, "/tmp/") {
		t.Skipf("the test's temporary directory %s is not under /tmp", tmp)
	}
	shown := filepath.Join(tmp, "shown")
	if err := os.Mkdir(shown, 0o755); err != nil {
		t.Fatal(err)
	}
	varTmp, err := os.MkdirTemp(varTmpDir, "sandtable-test-")
	if err != nil {
		t.Skipf("no directory in %s: %v", varTmpDir, err)
	}
	t.Cleanup(func() { os.RemoveAll(varTmp) })
	unshownSocks := append(socketsIn(t, tmp, 3), socketsIn(t, varTmp, 3)...)
	shownSocks := socketsIn(t, shown, 3)
	p, err := newPlan("linux", Config{Workspace: ws, Read: []string{shown}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.varTmp {
		t.Fatalf("%s is a directory, but the plan has no var-tmp", varTmpDir)
	}
	var ls sockListings
	hostSocketFacts(&resolver{}, p, nil, &ls)
	for _, d := range []string{tmp, varTmp} {
		if _, listed := ls.dirs[d]; listed {
			t.Errorf("%s, which the sandbox does not show, was listed", d)
		}
	}
	hidden := factPaths(p.sockets)
	for _, d := range p.socketDirs {
		hidden = append(hidden, d.path+"/")
	}
	covered := func(s string) bool {
		return slices.ContainsFunc(hidden, func(h string) bool { return h == s || strings.HasSuffix(h, "/") && strings.HasPrefix(s, h) })
	}
	for _, s := range shownSocks {
		if !covered(s) {
			t.Errorf("%s, under the read path %s, is not hidden: %q", s, shown, hidden)
		}
	}
	for _, s := range unshownSocks {
		if covered(s) {
			t.Errorf("%s, under the private /tmp, is hidden: %q", s, hidden)
		}
	}
}
