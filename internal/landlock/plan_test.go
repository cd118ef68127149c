package landlock

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
)

// mapFS is a file system of paths: a directory's entries are the paths
// whose parent it is. Links are KindSymlink.
type mapFS struct {
	kinds map[string]Kind
	reads int // directories listed
}

func newMapFS(paths map[string]Kind) *mapFS {
	m := &mapFS{kinds: map[string]Kind{"/": KindDir}}
	for p, k := range paths {
		m.kinds[p] = k
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := m.kinds[d]; !ok {
				m.kinds[d] = KindDir
			}
		}
	}
	return m
}

func (m *mapFS) Lstat(p string) (Kind, error) { return m.kinds[p], nil }

func (m *mapFS) ReadDir(dir string) ([]Entry, error) {
	if m.kinds[dir] != KindDir {
		return nil, fmt.Errorf("readdir %s: %w", dir, fs.ErrNotExist)
	}
	m.reads++
	var out []Entry
	for p, k := range m.kinds {
		if p != "/" && path.Dir(p) == dir {
			out = append(out, Entry{Name: path.Base(p), Kind: k})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// effective is what the kernel gives p under rs: the rules on p (a file
// rule only there) and on each directory above it.
func effective(rs *Ruleset, p string) AccessFS {
	var a AccessFS
	for _, r := range rs.Rules {
		if r.Path == p || r.Dir && (r.Path == "/" || strings.HasPrefix(p, r.Path+"/")) {
			a |= r.Access
		}
	}
	return a
}

// desired is what spec says p may do: its most specific grant's access.
func desired(spec Spec, p string) AccessFS {
	best, a := -1, AccessFS(0)
	for _, g := range spec.Grants {
		if (g.Path == p || g.Path == "/" || strings.HasPrefix(p, g.Path+"/")) && len(g.Path) > best {
			best, a = len(g.Path), g.Access
		}
	}
	return a & spec.Handled
}

const (
	read  = ReadFile | ReadDir | Execute
	write = read | WriteFile | Truncate | MakeReg | MakeDir | MakeSym | RemoveFile | RemoveDir | Refer
	all   = write | MakeChar | MakeBlock | MakeFifo | MakeSock
)

func home() map[string]Kind {
	t := map[string]Kind{
		"/etc/passwd": KindFile, "/etc/shadow": KindFile, "/etc/ssh/ssh_config": KindFile, "/etc/ssh/ssh_host_rsa_key": KindFile,
		"/usr/bin/sh": KindFile, "/bin": KindSymlink, "/tmp/x": KindFile, "/dev/null": KindFile, "/dev/sda": KindFile,
		"/home/u/.ssh/id_rsa": KindFile, "/home/u/.bashrc": KindFile, "/home/u/.config/git/config": KindFile,
		"/home/u/.config/gh/hosts.yml": KindFile, "/home/u/src/app/main.go": KindFile, "/home/u/src/app/.env": KindFile,
		"/home/u/src/other/secret": KindFile, "/home/v/notes": KindFile, "/home/u/link": KindSymlink,
	}
	for i := range 100 {
		t[fmt.Sprintf("/home/u/f%03d", i)] = KindFile
	}
	return t
}

func homeSpec() Spec {
	return Spec{
		Handled: all,
		Grants: []Grant{
			{Path: "/", Access: read},
			{Path: "/etc/shadow", Access: ReadDir},
			{Path: "/etc/ssh/ssh_host_rsa_key", Access: ReadDir},
			{Path: "/home/u/.ssh", Access: ReadDir},
			{Path: "/home/u/.config/gh", Access: ReadDir},
			{Path: "/home/u/.netrc", Access: ReadDir},             // missing
			{Path: "/home/u/.cargo/credentials", Access: ReadDir}, // missing, and so is its parent
			{Path: "/home/u/src/app", Access: write, Must: true},
			{Path: "/home/u/src/app/.env", Access: ReadDir}, // hidden inside the workspace
			{Path: "/tmp", Access: ReadDir},
			{Path: "/dev", Access: ReadDir},
			{Path: "/dev/null", Access: ReadDir | ReadFile | WriteFile | Truncate},
		},
	}
}

// below is what every grant strictly below p (a directory) asks for at
// least, and p's own: what a directory above a restricting grant gets on
// itself, and so on its new entries.
func below(spec Spec, p string) AccessFS {
	a := desired(spec, p)
	for _, g := range spec.Grants {
		if strings.HasPrefix(g.Path, p+"/") || p == "/" && g.Path != "/" {
			a &= desired(spec, g.Path)
		}
	}
	return a
}

// TestPlanComplement: every file that exists when the ruleset is planned
// gets exactly what its most specific grant says, through rules the
// kernel adds up, and every directory that too, except that a directory
// above a grant that asks for less gets on itself only what all below it
// may do (listing, when the hidden paths may be listed); a hidden path's
// contents get nothing but listing.
func TestPlanComplement(t *testing.T) {
	m := newMapFS(home())
	spec := homeSpec()
	rs, err := Plan(spec, 7, m)
	if err != nil {
		t.Fatal(err)
	}
	for p, k := range m.kinds {
		want, got := desired(spec, p), effective(rs, p)
		switch k {
		case KindSymlink:
			continue
		case KindFile:
			want &= FileRights
			got &= FileRights
		case KindDir:
			want = below(spec, p)
		}
		if got != want {
			t.Errorf("%s: gets %s, want %s", p, got, want)
		}
	}
	if effective(rs, "/")&ReadDir == 0 || effective(rs, "/home/u")&ReadDir == 0 {
		t.Error("the home's ancestors cannot be listed")
	}
	// The new entries of a directory above a restricting grant get its
	// rule alone: created later under /home/u, a file is unreadable, and
	// the workspace's top level takes no new entries.
	for p, want := range map[string]AccessFS{
		"/home/u/.netrc":             ReadDir,
		"/home/u/new":                ReadDir,
		"/home/u/.cargo/credentials": ReadDir,
		"/home/u/src/app/new.go":     ReadDir,
		"/home/u/src/app/.env/x":     ReadDir,
		"/home/u/src/other/secret":   read,
	} {
		if got := effective(rs, p); got != want {
			t.Errorf("new %s: gets %s, want %s", p, got, want)
		}
	}
	for _, r := range rs.Rules {
		if !r.Dir && r.Access&^FileRights != 0 {
			t.Errorf("file rule %s has a directory's rights %s", r.Path, r.Access)
		}
		if r.Path == "/bin" || r.Path == "/home/u/link" {
			t.Errorf("a rule on the symlink %s", r.Path)
		}
	}
}

// TestPlanListsOnlyAbove: a grant that asks for more than its parent (a
// writable root) needs no listing; only the directories above a grant that
// asks for less are listed.
func TestPlanListsOnlyAbove(t *testing.T) {
	m := newMapFS(home())
	rs, err := Plan(Spec{Handled: all, Grants: []Grant{{Path: "/", Access: read}, {Path: "/home/u/src/app", Access: write}}}, 7, m)
	if err != nil {
		t.Fatal(err)
	}
	if m.reads != 0 || len(rs.Rules) != 2 {
		t.Errorf("%d directories listed, rules %v; want none and two rules", m.reads, rs.Rules)
	}
	m = newMapFS(home())
	if _, err := Plan(Spec{Handled: all, Grants: []Grant{{Path: "/", Access: read}, {Path: "/home/u/.ssh", Access: ReadDir}}}, 7, m); err != nil {
		t.Fatal(err)
	}
	if m.reads != 3 { // /, /home, /home/u
		t.Errorf("%d directories listed, want 3", m.reads)
	}
}

// TestPlanABI: what an older ABI lacks is masked out of the ruleset and
// named in Lost, with the ABI that has it.
func TestPlanABI(t *testing.T) {
	spec := homeSpec()
	spec.HandledNet, spec.Connect, spec.Scoped = BindTCP|ConnectTCP, []uint16{3128}, ScopeAbstractUnix|ScopeSignal
	for _, c := range []struct {
		abi  int
		lost []string
	}{
		{7, nil},
		{6, nil},
		{5, []string{}},
		{3, []string{"bind-tcp", "connect-tcp", "abstract-unix-socket", "signal"}},
		{1, []string{"refer", "truncate", "bind-tcp", "connect-tcp", "abstract-unix-socket", "signal"}},
	} {
		rs, err := Plan(spec, c.abi, newMapFS(home()))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range rs.Lost {
			got = append(got, l.Name)
		}
		if c.lost == nil {
			c.lost = []string{}
		}
		if c.abi == 5 {
			c.lost = []string{"abstract-unix-socket", "signal"}
		}
		if strings.Join(got, " ") != strings.Join(c.lost, " ") {
			t.Errorf("ABI %d: lost %v, want %v", c.abi, got, c.lost)
		}
		for _, r := range rs.Rules {
			if r.Access&^FSAt(c.abi) != 0 {
				t.Errorf("ABI %d: rule %s has %s", c.abi, r.Path, r.Access)
			}
		}
		if (len(rs.Connect) > 0) != (c.abi >= 4) {
			t.Errorf("ABI %d: connect ports %v", c.abi, rs.Connect)
		}
	}
	if _, err := Plan(spec, 0, newMapFS(home())); !errors.Is(err, ErrNoLandlock) {
		t.Errorf("ABI 0: %v, want ErrNoLandlock", err)
	}
}

// TestPlanBadGrants: one clear error, and no ruleset, for a grant that is
// not clean, a Must grant that is missing or a symlink.
func TestPlanBadGrants(t *testing.T) {
	for _, c := range []struct {
		g    Grant
		want string
	}{
		{Grant{Path: "/home/u/../v", Access: read}, "not a clean absolute path"},
		{Grant{Path: "rel", Access: read}, "not a clean absolute path"},
		{Grant{Path: "/nowhere/ws", Access: write, Must: true}, "file does not exist"},
		{Grant{Path: "/home/u/link", Access: write, Must: true}, "is a symlink"},
	} {
		spec := Spec{Handled: all, Grants: []Grant{{Path: "/", Access: read}, {Path: "/home/u/.ssh", Access: ReadDir}, c.g}}
		rs, err := Plan(spec, 7, newMapFS(home()))
		if err == nil || !strings.Contains(err.Error(), c.want) || rs != nil {
			t.Errorf("%+v: %v, %v; want an error with %q", c.g, rs, err, c.want)
		}
	}
}

func TestMarshal(t *testing.T) {
	spec := homeSpec()
	spec.HandledNet, spec.Connect, spec.Scoped = ConnectTCP|BindTCP, []uint16{3128, 1080}, ScopeSignal
	spec.Grants = append(spec.Grants, Grant{Path: "/home/u/odd\nname dir", Access: write})
	m := newMapFS(home())
	m.kinds["/home/u/odd\nname dir"] = KindDir
	rs, err := Plan(spec, 7, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(rs.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	rs.Lost = nil
	if fmt.Sprint(got) != fmt.Sprint(rs) {
		t.Errorf("round trip:\n%v\n%v", got, rs)
	}
	for _, bad := range []string{"", "sandtable-landlock 2\n", encodeMagic + "7 1 0 0 - -\n4 d relative\x00", encodeMagic + "7 1 0 0 - -\n4 d /x", encodeMagic + "7 1 0 0 99999 -\n"} {
		if _, err := Unmarshal([]byte(bad)); err == nil {
			t.Errorf("decoded %q", bad)
		}
	}
}

func TestNames(t *testing.T) {
	a, err := ParseFS("read-file,read-dir,refer")
	if err != nil || a != ReadFile|ReadDir|Refer || a.String() != "read-file,read-dir,refer" {
		t.Errorf("ParseFS: %v %v", a, err)
	}
	if _, err := ParseFS("read-everything"); err == nil {
		t.Error("parsed an unknown right")
	}
	if len(FSNames()) != len(fsABI) || FSAt(9) != 1<<17-1 || FSAt(3) != 1<<15-1 {
		t.Errorf("the ABI table is off: %d names, %d ABIs", len(FSNames()), len(fsABI))
	}
}
