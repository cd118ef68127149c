package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cacheCaller is one user running the sandbox itself, as sandtable run
// does: this test binary, copied where the user can execute it, in its
// cache-helper mode, with a fresh home and workspace of the user's own. The
// caches are made by the process that builds the spawn, so each user must
// be that process.
type cacheCaller struct {
	u               *escUser
	bin, home, ws   string
	extraEnv        []string
	hostCacheDirs   []string
	victim, planted string
}

func newCacheCaller(t *testing.T, u *escUser) *cacheCaller {
	t.Helper()
	base := hostDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cacheCaller{u: u, bin: filepath.Join(base, "sandbox.test"), home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws")}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{c.home, c.ws} {
		c.mkdir(t, d)
	}
	// The host's own caches, where the tools look by default, each with
	// something in it.
	for _, d := range []string{".cache/go-build", ".npm", "go/pkg/mod", ".cache/pip"} {
		p := filepath.Join(c.home, d)
		c.mkdir(t, p)
		c.write(t, filepath.Join(p, "marker"), "host cache\n")
		c.hostCacheDirs = append(c.hostCacheDirs, p)
	}
	return c
}

func (c *cacheCaller) chown(t *testing.T, p string) {
	t.Helper()
	if c.u.cred != nil {
		if err := os.Lchown(p, c.u.uid, c.u.gid); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *cacheCaller) mkdir(t *testing.T, p string) {
	t.Helper()
	rel, _ := filepath.Rel(filepath.Dir(c.home), p)
	d := filepath.Dir(c.home)
	for _, part := range strings.Split(rel, "/") {
		d = filepath.Join(d, part)
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Fatal(err)
		}
		c.chown(t, d)
	}
}

func (c *cacheCaller) write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	c.chown(t, p)
}

// run runs snippet with sh: mode "sandbox" in the sandbox with the caches,
// "nocache" in it with Config.NoCache, "shared" with every cache of scope
// user instead (a control), "rules" (and "rules-nocache") the real argv
// with the rules and refuse rows c.extraEnv's cacheDropVar names left out
// (a control), "host" with no sandbox (a control).
func (c *cacheCaller) run(t *testing.T, mode, snippet string, timeout time.Duration) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "-test.run", "^TestCacheHelper$", "--", "cache-helper", c.ws, mode, snippet)
	cmd.Dir = c.ws
	cmd.Env = append([]string{"PATH=/usr/local/go/bin:" + escPath, "HOME=" + c.home, "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"}, c.extraEnv...)
	if c.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.u.cred}
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// cacheDir is where the sandbox keeps the named cache for this caller's
// workspace.
func (c *cacheCaller) cacheDir(name string) string {
	return filepath.Join(c.home, ".cache", cacheSubdir, c.scope(), name)
}

// scope is the directory of the workspace's caches under the cache root.
func (c *cacheCaller) scope() string {
	real, err := filepath.EvalSymlinks(c.ws)
	if err != nil {
		panic(err)
	}
	return cacheScopeDir(real)
}

// snapshot lists every file under dirs with its size, mode and mtime.
func snapshot(t *testing.T, dirs []string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := de.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s %d %v %d\n", p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestCacheHelper is a helper process, not a test: cacheCaller runs the
// test binary as
//
//	sandbox.test -test.run '^TestCacheHelper$' -- cache-helper WORKSPACE sandbox|nocache|shared|rules|rules-nocache|host SNIPPET
//
// (modes rules and rules-nocache: see cacheRulesCmd; the Config's grants
// come from cacheHelperConfig's variables.)
func TestCacheHelper(t *testing.T) {
	args := flag.Args()
	if len(args) != 4 || args[0] != "cache-helper" {
		t.Skip("a helper process for the cache tests")
	}
	ws, mode, snippet := args[1], args[2], args[3]
	var cmd interface {
		Run() error
	}
	switch mode {
	case "host":
		c := exec.Command("/bin/sh", "-c", snippet)
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		cmd = c
	case "rules", "rules-nocache":
		cmd = cacheRulesCmd(ws, mode == "rules-nocache", snippet)
	case "sandbox", "nocache", "shared":
		if mode == "shared" {
			for i := range cacheDirs {
				cacheDirs[i].perWorkspace = false
			}
		}
		cfg := cacheHelperConfig(ws, mode == "nocache", false)
		c, err := NewCmd(context.Background(), cfg, "/bin/sh", "-c", snippet)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		cmd = c
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

// TestCacheEscape: inside the sandbox each cache variable points at
// sandtable's own directory, which is writable and persists to the next
// run, while the host's caches at the tools' default places stay
// read-only and untouched (a sandboxed write there would be read by
// unsandboxed builds). Control: the same writes outside the sandbox land.
func TestCacheEscape(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			c := newCacheCaller(t, u)
			before := snapshot(t, c.hostCacheDirs)
			attack := `printf '%s\n' "$GOCACHE" "$npm_config_cache" "$GOMODCACHE" "$PIP_CACHE_DIR"
echo token > "$GOCACHE/persist" && echo cache-written
for d in "$HOME/.cache/go-build" "$HOME/.npm" "$HOME/go/pkg/mod" "$HOME/.cache/pip"; do
	echo evil > "$d/evil" 2>/dev/null && echo "WROTE $d"
	echo evil >> "$d/marker" 2>/dev/null && echo "WROTE $d/marker"
done
true`
			out, err := c.run(t, "sandbox", attack, time.Minute)
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, name := range []string{"go-build", "npm", "go-mod", "pip"} {
				if !strings.Contains(out, c.cacheDir(name)+"\n") {
					t.Errorf("no variable points at %s:\n%s", c.cacheDir(name), out)
				}
			}
			if !strings.Contains(out, "cache-written") || strings.Contains(out, "WROTE") {
				t.Errorf("want the private cache written and no host cache:\n%s", out)
			}
			if after := snapshot(t, c.hostCacheDirs); after != before {
				t.Errorf("host caches changed:\nbefore\n%s\nafter\n%s", before, after)
			}
			// Persisted for the next run, in a directory of the caller's
			// own that nobody else can enter.
			out, err = c.run(t, "sandbox", `cat "$GOCACHE/persist"`, time.Minute)
			if err != nil || out != "token\n" {
				t.Errorf("second run: %v: %q", err, out)
			}
			for _, d := range []string{filepath.Dir(c.cacheDir("x")), c.cacheDir("go-build"), c.cacheDir("npm")} {
				fi, err := os.Lstat(d)
				if err != nil {
					t.Fatal(err)
				}
				if st := fi.Sys().(*syscall.Stat_t); fi.Mode() != fs.ModeDir|0o700 || int(st.Uid) != u.uid {
					t.Errorf("%s: mode %v owner %d, want drwx------ owned by %d", d, fi.Mode(), st.Uid, u.uid)
				}
			}
			// NoCache: no variable set, the host caches read-only as ever.
			out, _ = c.run(t, "nocache", `echo "GOCACHE=${GOCACHE-unset}"; echo evil > "$HOME/.cache/go-build/evil" 2>/dev/null && echo WROTE`, time.Minute)
			if !strings.Contains(out, "GOCACHE=unset") || strings.Contains(out, "WROTE") {
				t.Errorf("NoCache: %s", out)
			}
			// Control: outside the sandbox the same writes land.
			out, _ = c.run(t, "host", attack, time.Minute)
			if strings.Count(out, "WROTE") != 2*len(c.hostCacheDirs) {
				t.Errorf("control: the host caches were not writable outside the sandbox:\n%s", out)
			}
		})
	}
}

// TestCacheOtherWorkspace: a run in one workspace cannot leave in a
// cache what a run in another workspace then reads (an extracted module's
// source, which Go builds without rechecking it): each workspace has
// caches of its own. Control: with the caches of scope user, the second
// workspace's run reads what the first planted.
func TestCacheOtherWorkspace(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			c := newCacheCaller(t, u)
			victim := c.ws
			hostile := filepath.Join(filepath.Dir(c.ws), "hostile")
			c.mkdir(t, hostile)
			plant := `mkdir -p "$GOMODCACHE/example.org/m@v1.0.0" && echo 'func init() { println("planted") }' > "$GOMODCACHE/example.org/m@v1.0.0/m.go" && echo PLANTED`
			read := `cat "$GOMODCACHE/example.org/m@v1.0.0/m.go" 2>/dev/null || echo ABSENT`
			for _, mode := range []string{"sandbox", "shared"} {
				c.ws = hostile
				if out, err := c.run(t, mode, plant, time.Minute); err != nil || !strings.Contains(out, "PLANTED") {
					t.Fatalf("%s: the hostile workspace's own cache: %v: %s", mode, err, out)
				}
				c.ws = victim
				out, err := c.run(t, mode, read, time.Minute)
				if err != nil {
					t.Fatalf("%s: %v: %s", mode, err, out)
				}
				switch planted := strings.Contains(out, "planted"); {
				case mode == "sandbox" && planted:
					t.Errorf("another workspace's run read what the hostile one planted in its cache: %s", out)
				case mode == "shared" && !planted:
					t.Errorf("control: with a cache of scope user the plant was not read: %s", out)
				}
			}
		})
	}
}

// TestCachePlantedLink: the cache directories are written by the sandbox,
// so on the host nothing there is followed. A symlink in place of a cache
// directory (as a planted link would be), a cache root reached through a
// link in the workspace, or (root) a cache directory another user owns is
// refused before anything runs. Controls: the same spawns write the cache
// once the link is gone or the directory is real.
func TestCachePlantedLink(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			c := newCacheCaller(t, u)
			write := `echo evil > "$GOCACHE/x" && echo WROTE`
			if out, err := c.run(t, "sandbox", write, time.Minute); err != nil || !strings.Contains(out, "WROTE") {
				t.Fatalf("control: %v: %s", err, out)
			}
			victim := filepath.Join(c.home, "victim")
			c.mkdir(t, victim)
			gb := c.cacheDir("go-build")
			if err := os.RemoveAll(gb); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, gb); err != nil {
				t.Fatal(err)
			}
			c.chown(t, gb)
			out, err := c.run(t, "sandbox", write, time.Minute)
			if err == nil || strings.Contains(out, "WROTE") || !strings.Contains(out, "symlink") {
				t.Errorf("a symlinked cache directory was used: %v: %s", err, out)
			}
			if _, err := os.Lstat(filepath.Join(victim, "x")); err == nil {
				t.Error("written through the link")
			}
			os.Remove(gb)

			// The cache root through a link the workspace holds.
			link := filepath.Join(c.ws, "cachelink")
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			c.chown(t, link)
			c.extraEnv = []string{"XDG_CACHE_HOME=" + link}
			out, err = c.run(t, "sandbox", write, time.Minute)
			if err == nil || strings.Contains(out, "WROTE") || !strings.Contains(out, "resolves through the symlink") {
				t.Errorf("a cache root through a link in the workspace was used: %v: %s", err, out)
			}
			c.extraEnv = []string{"XDG_CACHE_HOME=" + victim}
			out, err = c.run(t, "sandbox", write, time.Minute)
			if err != nil || !strings.Contains(out, "WROTE") {
				t.Errorf("control: XDG_CACHE_HOME at a real directory: %v: %s", err, out)
			}
			if _, err := os.Stat(filepath.Join(victim, cacheSubdir, c.scope(), "go-build", "x")); err != nil {
				t.Errorf("control: nothing in the XDG cache root: %v", err)
			}
			c.extraEnv = nil

			if !u.isRoot() {
				return
			}
			others := escUsers(t)
			if len(others) < 2 {
				return
			}
			other := others[1]
			npm := c.cacheDir("npm")
			if err := os.Chown(npm, other.uid, other.gid); err != nil {
				t.Fatal(err)
			}
			out, err = c.run(t, "sandbox", write, time.Minute)
			if err == nil || !strings.Contains(out, "owned by uid") {
				t.Errorf("a cache directory of uid %d was used by root: %v: %s", other.uid, err, out)
			}
			if err := os.Chown(npm, 0, 0); err != nil {
				t.Fatal(err)
			}
			if out, err := c.run(t, "sandbox", write, time.Minute); err != nil || !strings.Contains(out, "WROTE") {
				t.Errorf("control: %v: %s", err, out)
			}
		})
	}
}

// TestCacheLstats: once the caches exist, a spawn looks at each cache
// directory, and at each directory above them, at most once.
func TestCacheLstats(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	ws := mkdir(t, dir, "ws")
	if _, err := PrefixFor("linux", Config{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	calls := countLstat(t)
	if _, err := PrefixFor("linux", Config{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, k := range calls {
		if strings.HasSuffix(p, "/.cache") || strings.Contains(p, "/.cache/sandtable") {
			n += k
			if k > 1 {
				t.Errorf("%s: %d lstats, want 1", p, k)
			}
		}
	}
	// .cache, sandtable, caches, one per scope and one per cache directory.
	scopes := map[bool]bool{}
	for _, c := range cacheDirs {
		scopes[c.perWorkspace] = true
	}
	if want := 3 + len(scopes) + len(cacheDirs); n != want {
		t.Errorf("%d lstats under the cache root, want %d", n, want)
	}
}

// TestCacheTools is the caches' purpose, as a new unprivileged user with an
// empty home and no options: go run of a module with a dependency and npm
// install of a small package work in the sandbox, a second build compiles
// no dependency (go build -v lists what it compiles), and the host's own
// caches are untouched. It fetches from the Go module proxy and the npm
// registry, and skips when they cannot be reached.
func TestCacheTools(t *testing.T) {
	requireBwrap(t)
	if testing.Short() {
		t.Skip("fetches from the Go module proxy and the npm registry; not in -short")
	}
	users := escUsers(t)
	u := users[len(users)-1] // the unprivileged user when there is one
	c := newCacheCaller(t, u)
	if _, err := exec.LookPath("/usr/local/go/bin/go"); err != nil {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("no go")
		}
	}
	c.write(t, filepath.Join(c.ws, "go.mod"), "module example.com/cachetest\n\ngo 1.22\n\nrequire golang.org/x/sync v0.10.0\n")
	c.write(t, filepath.Join(c.ws, "main.go"), `package main

import (
	"fmt"

	"golang.org/x/sync/errgroup"
)

func main() {
	var g errgroup.Group
	g.Go(func() error { return nil })
	fmt.Println("errgroup", g.Wait())
}
`)
	before := snapshot(t, c.hostCacheDirs)
	unreachable := func(out string) bool {
		for _, s := range []string{"dial tcp", "lookup ", "EAI_AGAIN", "ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT"} {
			if strings.Contains(out, s) {
				return true
			}
		}
		return false
	}
	start := time.Now()
	out, err := c.run(t, "sandbox", "go mod tidy && go run .", 5*time.Minute)
	first := time.Since(start)
	if err != nil && unreachable(out) {
		t.Skipf("the Go module proxy is not reachable: %s", out)
	}
	if err != nil || !strings.Contains(out, "errgroup <nil>") {
		t.Fatalf("first go run: %v: %s", err, out)
	}
	start = time.Now()
	out, err = c.run(t, "sandbox", "go build -v -o /dev/null . && go run .", 2*time.Minute)
	second := time.Since(start)
	// go build -v names the main package, whose link is never cached, and
	// every other package only when it compiles it.
	if err != nil || strings.TrimSpace(out) != "example.com/cachetest\nerrgroup <nil>" {
		t.Errorf("second build compiled a dependency (go build -v lists it) or failed: %v: %q", err, out)
	}
	t.Logf("as %s: first go run %v, second build and run %v", u.label, first.Round(time.Millisecond), second.Round(time.Millisecond))
	// Control: without the caches the same build fails on the read-only
	// home.
	if out, err := c.run(t, "nocache", "go run .", time.Minute); err == nil || !strings.Contains(out, "read-only file system") {
		t.Errorf("control: go run worked without the caches: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(c.cacheDir("go-mod"), "golang.org/x/sync@v0.10.0")); err != nil {
		t.Errorf("the module is not in the sandbox's module cache: %v", err)
	}

	c.write(t, filepath.Join(c.ws, "package.json"), `{"name": "cachetest", "version": "1.0.0"}`+"\n")
	out, err = c.run(t, "sandbox", "npm install --no-audit --no-fund --no-update-notifier is-number@7.0.0", 3*time.Minute)
	if err != nil && unreachable(out) {
		t.Skipf("the npm registry is not reachable: %s", out)
	}
	if err != nil {
		t.Fatalf("npm install: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "node_modules/is-number/package.json")); err != nil {
		t.Errorf("npm install left no package: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.cacheDir("npm"), "_cacache")); err != nil {
		t.Errorf("npm's cache is not in the sandbox's: %v", err)
	}
	if after := snapshot(t, c.hostCacheDirs); after != before {
		t.Errorf("host caches changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestRedactSettings: ~/.npmrc reaches the command as each user without
// its token but with its settings, which npm reads (nodedir, the update
// notice); --reveal passes it whole. The attack itself, with its control,
// is npmrc-token in the escape suite.
func TestRedactSettings(t *testing.T) {
	requireBwrap(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm")
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			c := newCacheCaller(t, u)
			secret := escToken("npm-token")
			c.write(t, filepath.Join(c.home, ".npmrc"), "//registry.npmjs.org/:_authToken="+secret+"\nnodedir=/usr\nupdate-notifier=false\n")
			script := `cat "$HOME/.npmrc"; ` + npm + ` config get nodedir; ` + npm + ` config get update-notifier`
			out, err := c.run(t, "sandbox", script, time.Minute)
			if err != nil || strings.Contains(out, secret) || !strings.Contains(out, "nodedir=/usr\n") || !strings.HasSuffix(out, "/usr\nfalse\n") {
				t.Errorf("want the settings without the token: %v:\n%s", err, out)
			}
			if out, _ := c.run(t, "host", `cat "$HOME/.npmrc"`, time.Minute); !strings.Contains(out, secret) {
				t.Errorf("control: the token is not in the host's file:\n%s", out)
			}
		})
	}
}
