package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// profileCase is one configuration of the golden matrix, given as path facts
// so the builders run the same on every OS.
type profileCase struct {
	name          string
	workspace     string
	hidden        map[string]pathKind
	read, write   []string
	noNetwork     bool
	interactive   bool
	oldBwrap      bool // a bwrap older than 0.8.0, without --disable-userns
	callerNotRoot bool
	noVarTmp      bool // a host whose /var/tmp is a symlink or missing
	statusFD      bool // NewCmd's spawn, whose status pipe follows the other descriptors
	// macOS facts: the resolved home, the terminals of the standard
	// descriptors, Config.AllowAllMach.
	home    string
	ttys    []string
	allMach bool
	tmpdir  string
	sockets []string // host sockets to hide
	grants  []string // Config.Sockets
	proxy   bool     // network mode proxy, its macOS listener on port 49152
}

var profileCases = []profileCase{
	{name: "minimal", workspace: "/home/u/ws"},
	{name: "hidden-ancestor", workspace: "/home/u/ws", hidden: map[string]pathKind{"/home/u": kindDir}},
	{name: "hidden-inside-workspace", workspace: "/home/u/ws", hidden: map[string]pathKind{
		"/home/u/ws/.env": kindFile, "/home/u/ws/secrets": kindDir}},
	{name: "several-hidden", workspace: "/home/u/ws", hidden: map[string]pathKind{
		"/home/u/.ssh": kindDir, "/home/u/.netrc": kindFile, "/run/docker.sock": kindFile, "/opt/missing": kindMissing}},
	{name: "hidden-missing", workspace: "/home/u/ws", hidden: map[string]pathKind{"/home/u/.aws": kindMissing}},
	{name: "network-off", workspace: "/home/u/ws", noNetwork: true},
	{name: "extra-read-write", workspace: "/home/u/ws", read: []string{"/opt/sdk"}, write: []string{"/home/u/.cache/go-build"}},
	{name: "write-inside-hidden", workspace: "/home/u/ws", hidden: map[string]pathKind{"/home/u/.config": kindDir},
		write: []string{"/home/u/.config/tool"}},
	{name: "workspace-inside-hidden", workspace: "/srv/hidden/ws", hidden: map[string]pathKind{"/srv/hidden": kindDir, "/srv/hidden/ws/.git/config": kindFile}},
	{name: "spaces", workspace: "/home/u/my project", hidden: map[string]pathKind{"/home/u/My Secrets": kindDir},
		read: []string{"/opt/tool chain"}},
	{name: "hostile-characters", workspace: "/home/u/ws (1); #|x|# 'q' $HOME `id`", hidden: map[string]pathKind{
		"/home/u/ünïcødé ☃": kindDir, "/home/u/a;b)(c": kindFile}},
	{name: "interactive", workspace: "/home/u/ws", interactive: true},
	{name: "old-bwrap", workspace: "/home/u/ws", oldBwrap: true},
	{name: "unprivileged-caller", workspace: "/home/u/ws", callerNotRoot: true},
	{name: "depth-order", workspace: "/a/b/ws", hidden: map[string]pathKind{
		"/a": kindDir, "/a/b/ws/c/d": kindDir, "/a/b/ws/c/d/e.key": kindFile},
		read: []string{"/a/b/ws/c/d/e"}, write: []string{"/a/x"}},
	{name: "workspace-in-tmp", workspace: "/tmp/ws", hidden: map[string]pathKind{"/tmp/ws/.env": kindFile}},
	{name: "workspace-in-var-tmp", workspace: "/var/tmp/ws", hidden: map[string]pathKind{"/var/tmp/ws/.env": kindFile}},
	{name: "no-var-tmp", workspace: "/home/u/ws", noVarTmp: true},
	{name: "host-sockets", workspace: "/home/u/ws", hidden: map[string]pathKind{"/run/user": kindDir},
		sockets: []string{"/run/mysqld/mysqld.sock", "/var/run/tailscale/tailscaled.sock"},
		grants:  []string{"/run/user/1000/docker.sock", "/var/run/tailscale/tailscaled.sock"}},
	{name: "newcmd-status", workspace: "/home/u/ws", hidden: map[string]pathKind{"/home/u/.netrc": kindFile}, statusFD: true},
	{name: "darwin-home-terminal", workspace: "/Users/u/ws", home: "/Users/u", ttys: []string{"/dev/ttys003"},
		tmpdir: "/private/var/folders/xy/abc123/T/sandtable-1234",
		hidden: map[string]pathKind{"/Users/u/.ssh": kindDir}},
	{name: "darwin-all-mach", workspace: "/Users/u/ws", allMach: true, noNetwork: true},
	{name: "darwin-hidden-in-writable", workspace: "/Users/u/ws", home: "/Users/u", hidden: map[string]pathKind{
		"/Users/u/ws/.env": kindMissing, "/Users/u/ws/a/b/key.pem": kindFile, "/Users/u/ws/out/Cache": kindDir,
		"/Users/u/w2/sub/.Token": kindMissing},
		write: []string{"/Users/u/ws/out", "/Users/u/w2"}, read: []string{"/opt/sdk"}},
	{name: "proxy", workspace: "/Users/u/ws", home: "/Users/u", proxy: true,
		hidden: map[string]pathKind{"/Users/u/.ssh": kindDir}},
}

// newTestPlan builds the plan a validated config with these facts yields,
// on an architecture with a seccomp filter: /dev/null is descriptor 3 when
// a hidden path is a file, and the filter the next one.
func newTestPlan(c profileCase) *plan {
	p := &plan{
		workspace:     c.workspace,
		network:       !c.noNetwork,
		netHost:       !c.noNetwork && !c.proxy,
		netProxy:      c.proxy,
		interactive:   c.interactive,
		callerRoot:    !c.callerNotRoot,
		disableUserns: !c.oldBwrap,
		varTmp:        !c.noVarTmp,
		seccompFD:     "3",
	}
	for _, h := range sortedKeys(c.hidden) {
		p.hidden = append(p.hidden, fact(h, c.hidden[h], c.workspace))
		if c.hidden[h] == kindFile {
			p.nullFD, p.seccompFD = "3", "4"
		}
	}
	for _, h := range c.sockets {
		p.sockets = append(p.sockets, fact(h, kindFile, c.workspace))
		p.nullFD, p.seccompFD = "3", "4"
	}
	for _, g := range c.grants {
		p.socketGrants = append(p.socketGrants, fact(g, kindFile, c.workspace))
	}
	if c.statusFD {
		p.statusFD = "5"
	}
	for _, r := range c.read {
		p.read = append(p.read, fact(r, kindDir, c.workspace))
	}
	for _, w := range c.write {
		p.write = append(p.write, fact(w, kindDir, c.workspace))
	}
	p.pins = pinFacts(p)
	p.mounts = sortMounts(linuxMounts(p, nil))
	p.home, p.allMach, p.tmpdir = c.home, c.allMach, c.tmpdir
	if c.proxy {
		p.proxyPort = "49152"
	}
	for _, t := range c.ttys {
		p.ttys = append(p.ttys, pathFact{path: t, kind: kindFile})
	}
	if err := darwinFacts(p); err != nil {
		panic(err) // the cases are constants
	}
	return p
}

func sortedKeys(m map[string]pathKind) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fixtures is this package's folder of the module's testdata: the golden
// files, one folder per test (the fuzz corpora stay in testdata/fuzz
// beside the package, where go test finds them).
const fixtures = "../testdata/sandbox"

// TestProfile pins the bwrap argv and the SBPL profile of every case. Golden
// files prove the text; the tests under a real bwrap prove containment.
func TestProfile(t *testing.T) {
	if len(profileCases) < 12 {
		t.Fatalf("%d profile cases, want at least 12", len(profileCases))
	}
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestProfile"), goldie.WithNameSuffix(".golden"))
	for _, c := range profileCases {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPlan(c)
			args := linuxArgs(p)
			g.Assert(t, c.name+".linux", []byte(strings.Join(args, "\n")+"\n"))
			g.Assert(t, c.name+".darwin", []byte(darwinProfile(p)))
		})
	}
}

// TestStepsMatchBuilders keeps explain honest: the per-rule steps flatten to
// exactly what the fast builders emit.
func TestStepsMatchBuilders(t *testing.T) {
	for _, c := range profileCases {
		p := newTestPlan(c)
		var flat []string
		var profile strings.Builder
		for _, s := range linuxSteps(p) {
			flat = append(flat, s.Args...)
		}
		for _, s := range darwinSteps(p) {
			for _, f := range s.Args {
				profile.WriteString(f)
			}
		}
		if args := linuxArgs(p); !slices.Equal(flat, args) {
			t.Errorf("%s: linuxSteps flatten to\n%q\nwant linuxArgs\n%q", c.name, flat, args)
		}
		if got, want := profile.String(), darwinProfile(p); got != want {
			t.Errorf("%s: darwinSteps join to\n%s\nwant darwinProfile\n%s", c.name, got, want)
		}
	}
}

// TestBuildersPreallocateExactly checks the size the generated code computes
// before its one allocation: too small would mean a second allocation, too
// large wasted memory on every spawn.
func TestBuildersPreallocateExactly(t *testing.T) {
	for _, c := range profileCases {
		p := newTestPlan(c)
		if a := linuxArgs(p); cap(a) != len(a) {
			t.Errorf("%s: linuxArgs cap %d, len %d", c.name, cap(a), len(a))
		}
		if n := fewestAllocs(1, func() { _ = darwinProfile(p) }); n != 1 {
			t.Errorf("%s: darwinProfile made %v allocations, want 1", c.name, n)
		}
		if n := fewestAllocs(1, func() { _ = linuxArgs(p) }); n != 1 {
			t.Errorf("%s: linuxArgs made %v allocations, want 1", c.name, n)
		}
	}
}

// TestRuleOrderInvariants checks the order invariants on every built argv
// and profile, whatever the table says: the generator refuses tables that
// break them, and this catches a generator that stops refusing.
func TestRuleOrderInvariants(t *testing.T) {
	for _, c := range profileCases {
		p := newTestPlan(c)
		a := linuxArgs(p)
		if !slices.Equal(a[:3], []string{"--ro-bind", "/", "/"}) || a[len(a)-1] != "--" || slices.Index(a, "--") != len(a)-1 {
			t.Errorf("%s: argv must start with --ro-bind / / and end with its only --: %q", c.name, a)
		}
		prof := darwinProfile(p)
		if !strings.HasPrefix(prof, "(version 1)\n(deny default)\n") {
			t.Errorf("%s: profile must start with (version 1) (deny default)", c.name)
		}
		if d := strings.Index(prof, "(deny file-"); d >= 0 && strings.LastIndex(prof, "(allow file-") > d {
			t.Errorf("%s: an allow follows a hidden-path deny", c.name)
		}
		// Depth order: every mount destination is at least as deep as the one before.
		depth := -1
		for _, m := range p.mounts {
			d := strings.Count(m.path, "/")
			if d < depth {
				t.Errorf("%s: mount %q (depth %d) after depth %d", c.name, m.path, d, depth)
			}
			depth = d
		}
	}
}
