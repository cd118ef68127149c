package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cacheVictimWrite is what a run in the victim's workspace leaves in each
// of its caches: a file holding $CACHE_MARK (a private module's zip, a token a
// tool keeps under XDG_CACHE_HOME).
const cacheVictimWrite = `n=0
for d in "$GOMODCACHE" "$GOCACHE" "$GOPATH" "$npm_config_cache" "$PIP_CACHE_DIR" "$CARGO_HOME" "${MAVEN_ARGS#-Dmaven.repo.local=}" "$GRADLE_USER_HOME" "$XDG_CACHE_HOME"; do
	printf '%s\n' "$CACHE_MARK" > "$d/private.zip" && n=$((n+1))
done
echo "wrote $n"`

// cacheVictimCount is how many caches cacheVictimWrite writes.
const cacheVictimCount = 9

// TestCacheRootHidden: a run in one workspace cannot read what a run in
// another left in its caches (rule hide-cache-root): not by searching the
// cache root, not at the exact path, and not when the root lies where the
// command writes (XDG_CACHE_HOME in the workspace, or the workspace
// itself, a write path holding it), where it cannot write there or move
// the root aside for the next run either (pin-dir); under NoCache, and
// with XDG_CACHE_HOME moving the root in use, the home's default root
// stays hidden too. Controls: the same run with the rule left out of the
// argv reads every one of them; without pin-dir a run moves the root
// aside and the next one reads it.
func TestCacheRootHidden(t *testing.T) {
	requireBwrap(t)
	type rootCase struct {
		name string
		// xdg is XDG_CACHE_HOME for the victim's run and the attack's, ""
		// for unset; attackXDG overrides it for the attack's.
		xdg, attackXDG func(c *cacheCaller, hostile string) string
		write          func(c *cacheCaller, hostile string) string
		mode           string // the attack's: sandbox or nocache
		// pinned: the root lies where the command writes, so the
		// directories above it are pinned (pin-dir).
		pinned bool
	}
	none := func(*cacheCaller, string) string { return "" }
	inWS := func(_ *cacheCaller, hostile string) string { return filepath.Join(hostile, ".cache") }
	cases := []rootCase{
		{name: "home", xdg: none, mode: "sandbox"},
		{name: "nocache", xdg: none, mode: "nocache"},
		{name: "write-path-holds-root", xdg: none, mode: "sandbox", pinned: true,
			write: func(c *cacheCaller, _ string) string { return filepath.Join(c.home, ".cache") }},
		{name: "xdg-in-workspace", xdg: inWS, mode: "sandbox", pinned: true},
		{name: "xdg-is-workspace", xdg: func(_ *cacheCaller, hostile string) string { return hostile }, mode: "sandbox", pinned: true},
		{name: "xdg-moved", xdg: none, mode: "sandbox",
			attackXDG: func(c *cacheCaller, _ string) string { return filepath.Join(filepath.Dir(c.home), "elsewhere") }},
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					c := newCacheCaller(t, u)
					hostile := filepath.Join(filepath.Dir(c.ws), "hostile")
					c.mkdir(t, hostile)
					token := escToken("cache-" + tc.name)
					env := func(xdg string) []string {
						e := []string{"CACHE_MARK=" + token}
						if xdg != "" {
							e = append(e, "XDG_CACHE_HOME="+xdg)
						}
						return e
					}
					xdg := tc.xdg(c, hostile)
					c.extraEnv = env(xdg)
					if out, err := c.run(t, "sandbox", cacheVictimWrite, time.Minute); err != nil || !strings.Contains(out, "wrote 9") {
						t.Fatalf("the victim's run: %v: %s", err, out)
					}
					base := xdg
					if base == "" {
						base = filepath.Join(c.home, ".cache")
					}
					root := filepath.Join(base, cacheSubdir)
					victimScope := filepath.Join(root, c.scope())
					// The attack: search the cache root, read the victim's
					// module zip and XDG token at their paths, plant a file
					// in its module cache, and move the root's directory
					// aside to read it there.
					attack := `grep -rs "$CACHE_MARK" "$ROOT" | head -3
cat "$SCOPE/go-mod/private.zip" "$SCOPE/xdg/private.zip" 2>/dev/null
printf x > "$SCOPE/go-mod/planted" 2>/dev/null && echo PLANTED
mv "$PARENT" "$MOVED" 2>/dev/null && echo MOVED
grep -rs "$CACHE_MARK" "$MOVED" | head -3
true`
					ax := xdg
					if tc.attackXDG != nil {
						ax = tc.attackXDG(c, hostile)
						c.mkdir(t, ax)
					}
					c.ws = hostile
					moved := filepath.Join(filepath.Dir(filepath.Dir(root)), "moved")
					c.extraEnv = append(env(ax), "ROOT="+root, "SCOPE="+victimScope, "PARENT="+filepath.Dir(root), "MOVED="+moved)
					if tc.write != nil {
						c.extraEnv = append(c.extraEnv, cacheWriteVar+"="+tc.write(c, hostile))
					}
					out, err := c.run(t, tc.mode, attack, time.Minute)
					if err != nil || strings.Contains(out, token) || strings.Contains(out, "PLANTED") || strings.Contains(out, "MOVED") {
						t.Errorf("ATTACK SUCCEEDED or failed otherwise: a run in another workspace reached the victim's caches: %v: %s", err, out)
					}
					if _, err := os.Lstat(filepath.Join(victimScope, "go-mod", "planted")); err == nil {
						t.Error("the plant landed in the victim's cache")
					}
					// The hostile workspace's own caches still work.
					if tc.mode == "sandbox" {
						own := `printf own > "$GOMODCACHE/own" && cat "$GOMODCACHE/own"`
						if out, err := c.run(t, "sandbox", own, time.Minute); err != nil || out != "own" {
							t.Errorf("its own cache: %v: %q", err, out)
						}
					}
					ctl := "rules"
					if tc.mode == "nocache" {
						ctl = "rules-nocache"
					}
					attackEnv := c.extraEnv
					if tc.pinned {
						// Control: without pin-dir one run moves the root's
						// directory aside, hidden still (its mount moves
						// with it), and the next run reads it there.
						c.extraEnv = append(attackEnv, cacheDropVar+"=pin-dir")
						if out, err := c.run(t, ctl, attack, time.Minute); err != nil || !strings.Contains(out, "MOVED") {
							t.Errorf("control: without pin-dir the root's directory was not moved: %v: %s", err, out)
						}
						c.extraEnv = attackEnv
						if out, err := c.run(t, tc.mode, attack, time.Minute); err != nil || !strings.Contains(out, token) {
							t.Errorf("control: the next run did not read the moved root: %v: %s", err, out)
						}
						// The next run made a fresh root: put the victim's back.
						if err := os.RemoveAll(filepath.Dir(root)); err != nil {
							t.Fatal(err)
						}
						if err := os.Rename(moved, filepath.Dir(root)); err != nil {
							t.Fatal(err)
						}
					}
					// Control: the real argv without hide-cache-root.
					c.extraEnv = append(attackEnv, cacheDropVar+"=hide-cache-root")
					read := `grep -rs "$CACHE_MARK" "$ROOT" | wc -l; cat "$SCOPE/go-mod/private.zip"`
					out, err = c.run(t, ctl, read, time.Minute)
					if err != nil || strings.Count(out, token) != 1 || !strings.HasPrefix(strings.TrimSpace(out), "9") && !strings.HasPrefix(strings.TrimSpace(out), "10") {
						t.Errorf("control: without hide-cache-root the victim's %d caches were not all read: %v: %s", cacheVictimCount, err, out)
					}
				})
			}
		})
	}
}

// TestCacheGrantRefused: a workspace, write path or read path at or inside
// the cache root is refused (row no-cache-grant) before anything runs: it
// would show another workspace's caches, or let the command write them.
// Controls: planned without the row, the same runs read the victim's
// module zip, or plant a file in its module cache.
func TestCacheGrantRefused(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			c := newCacheCaller(t, u)
			victim := c.ws
			token := escToken("cache-grant")
			c.extraEnv = []string{"CACHE_MARK=" + token}
			if out, err := c.run(t, "sandbox", cacheVictimWrite, time.Minute); err != nil || !strings.Contains(out, "wrote 9") {
				t.Fatalf("the victim's run: %v: %s", err, out)
			}
			gomod := c.cacheDir("go-mod")
			elsewhere := filepath.Join(filepath.Dir(victim), "elsewhere")
			c.mkdir(t, elsewhere)
			read := `cat "` + gomod + `/private.zip"; printf x > "` + gomod + `/planted" 2>/dev/null && echo PLANTED; true`
			for _, g := range []struct {
				name, ws string
				env      []string
				want     string // in the control's output
			}{
				{name: "workspace", ws: gomod, want: token},
				{name: "write-path", ws: elsewhere, env: []string{cacheWriteVar + "=" + filepath.Dir(gomod)}, want: "PLANTED"},
				{name: "read-path", ws: elsewhere, env: []string{cacheReadVar + "=" + gomod}, want: token},
			} {
				t.Run(g.name, func(t *testing.T) {
					os.Remove(filepath.Join(gomod, "planted"))
					c.ws = g.ws
					c.extraEnv = append([]string{"CACHE_MARK=" + token}, g.env...)
					out, err := c.run(t, "sandbox", read, time.Minute)
					if err == nil || strings.Contains(out, token) || strings.Contains(out, "PLANTED") || !strings.Contains(out, "(refuse: no-cache-grant)") {
						t.Errorf("ATTACK SUCCEEDED or failed otherwise: a %s in the cache root was not refused by no-cache-grant: %v: %s", g.name, err, out)
					}
					c.extraEnv = append(c.extraEnv, cacheDropVar+"=no-cache-grant")
					out, err = c.run(t, "rules", read, time.Minute)
					if err != nil || !strings.Contains(out, g.want) {
						t.Errorf("control: planned without no-cache-grant, the run did not reach the victim's cache (want %q): %v: %s", g.want, err, out)
					}
				})
			}
		})
	}
}
