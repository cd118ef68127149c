package landlock

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// onRestricted runs f on a thread of its own, which ends with it (it is
// never unlocked): a Landlock domain cannot be left.
func onRestricted(t *testing.T, rs *Ruleset, f func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if rs != nil {
			if err := rs.Apply(); err != nil {
				errc <- err
				return
			}
		}
		errc <- f()
	}()
	return <-errc
}

func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if ABI() < abi {
		t.Skipf("Landlock ABI %d, want %d", ABI(), abi)
	}
}

// tree makes a home with a hidden directory and file, a sibling, and a
// workspace, under a fresh directory, resolved.
func tree(t *testing.T) (base string, spec Spec) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"home/.ssh", "home/.config/gh", "ws", "out"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range map[string]string{"home/.ssh/id": "KEY", "home/.netrc": "NETRC", "home/.bashrc": "RC", "home/.config/gh/hosts.yml": "GH", "home/.config/other": "OTHER", "ws/a": "A"} {
		if err := os.WriteFile(filepath.Join(base, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, Spec{
		Handled: FSAt(ABI()) &^ IoctlDev,
		Grants: []Grant{
			{Path: "/", Access: read},
			{Path: filepath.Join(base, "home/.ssh"), Access: ReadDir},
			{Path: filepath.Join(base, "home/.netrc"), Access: ReadDir},
			{Path: filepath.Join(base, "home/.config/gh"), Access: ReadDir},
			{Path: filepath.Join(base, "ws"), Access: write, Must: true},
		},
	}
}

// TestApplyFiles: in the domain the hidden contents cannot be read by
// their path, through a symlink or a hard link made before, or after a
// rename; a file made in a hidden directory's parent later cannot be read;
// the workspace takes writes and nothing else does. The control: every
// attempt, on a thread without the domain, succeeds.
func TestApplyFiles(t *testing.T) {
	needLandlock(t, 3)
	base, spec := tree(t)
	ws := filepath.Join(base, "ws")
	home := filepath.Join(base, "home")
	if err := os.Symlink(filepath.Join(home, ".ssh/id"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	rs, err := Plan(spec, ABI(), OS{})
	if err != nil {
		t.Fatal(err)
	}
	attempts := []struct {
		name string
		do   func() error
	}{
		{"read hidden file", func() error { _, err := os.ReadFile(filepath.Join(home, ".ssh/id")); return err }},
		{"read hidden file alone", func() error { _, err := os.ReadFile(filepath.Join(home, ".netrc")); return err }},
		{"read hidden dir's file", func() error { _, err := os.ReadFile(filepath.Join(home, ".config/gh/hosts.yml")); return err }},
		{"read through a symlink", func() error { _, err := os.ReadFile(filepath.Join(ws, "link")); return err }},
		{"hard link into the workspace", func() error { return os.Link(filepath.Join(home, ".ssh/id"), filepath.Join(ws, "hard")) }},
		{"write outside", func() error { return os.WriteFile(filepath.Join(base, "out/x"), []byte("x"), 0o644) }},
		{"write the home", func() error { return os.WriteFile(filepath.Join(home, ".bashrc"), []byte("x"), 0o644) }},
		{"truncate outside", func() error { return os.Truncate(filepath.Join(home, ".bashrc"), 0) }},
	}
	// The control first: each attempt works without the domain.
	for _, a := range attempts {
		if err := onRestricted(t, nil, a.do); err != nil {
			t.Fatalf("control %s: %v", a.name, err)
		}
		os.Remove(filepath.Join(ws, "hard"))
		os.Remove(filepath.Join(base, "out/x"))
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("RC"), 0o644)
	for _, a := range attempts {
		err := onRestricted(t, rs, a.do)
		if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EXDEV) {
			t.Errorf("%s: %v, want EACCES", a.name, err)
		}
	}
	// What the domain keeps: reading the rest, listing the home (the
	// hidden names too), writing the workspace.
	err = onRestricted(t, rs, func() error {
		if b, err := os.ReadFile(filepath.Join(home, ".bashrc")); err != nil || string(b) != "RC" {
			return errors.New("sibling: " + string(b) + " " + errString(err))
		}
		if b, err := os.ReadFile(filepath.Join(home, ".config/other")); err != nil || string(b) != "OTHER" {
			return errors.New("sibling of a hidden dir: " + errString(err))
		}
		names, err := os.ReadDir(home)
		if err != nil || len(names) != 4 {
			return errors.New("list the home: " + errString(err))
		}
		if err := os.WriteFile(filepath.Join(ws, "b"), []byte("B"), 0o644); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(ws, "d/e"), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(ws, "b"), filepath.Join(ws, "d/e/b")); err != nil {
			return err
		}
		return os.Remove(filepath.Join(ws, "a"))
	})
	if err != nil {
		t.Errorf("in the domain: %v", err)
	}
	// A file the host makes later beside a hidden one, or renames a
	// hidden file to, is not readable.
	later := filepath.Join(home, ".netrc.new")
	err = onRestricted(t, rs, func() error {
		if err := os.WriteFile(later, []byte("LATER"), 0o600); !errors.Is(err, unix.EACCES) {
			return errors.New("made it in the home: " + errString(err))
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestApplyLater: files created or renamed into place after the ruleset
// was applied, outside the granted trees, are not readable in the domain.
func TestApplyLater(t *testing.T) {
	needLandlock(t, 1)
	base, spec := tree(t)
	home := filepath.Join(base, "home")
	rs, err := Plan(spec, ABI(), OS{})
	if err != nil {
		t.Fatal(err)
	}
	start, done := make(chan struct{}), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := rs.Apply(); err != nil {
			done <- err
			return
		}
		<-start
		var out []string
		for _, p := range []string{".netrc2", ".ssh/id2", "renamed"} {
			if _, err := os.ReadFile(filepath.Join(home, p)); !errors.Is(err, unix.EACCES) {
				out = append(out, p+": "+errString(err))
			}
		}
		if len(out) > 0 {
			done <- errors.New(strings.Join(out, "; "))
			return
		}
		done <- nil
	}()
	os.WriteFile(filepath.Join(home, ".netrc2"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(home, ".ssh/id2"), []byte("x"), 0o644)
	os.Rename(filepath.Join(home, ".ssh/id"), filepath.Join(home, "renamed"))
	close(start)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestApplyNet: TCP connect is allowed to the listed port only (any
// address), bind to none; the control connects to both without it.
func TestApplyNet(t *testing.T) {
	needLandlock(t, 4)
	var lns [2]net.Listener
	for i := range lns {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		lns[i] = ln
	}
	port := func(ln net.Listener) uint16 { return uint16(ln.Addr().(*net.TCPAddr).Port) }
	rs, err := Plan(Spec{HandledNet: ConnectTCP | BindTCP, Connect: []uint16{port(lns[0])}}, ABI(), OS{})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(ln net.Listener) func() error {
		return func() error {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Connect(fd, &unix.SockaddrInet4{Port: int(port(ln)), Addr: [4]byte{127, 0, 0, 1}})
		}
	}
	bind := func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Bind(fd, &unix.SockaddrInet4{Port: 0, Addr: [4]byte{127, 0, 0, 1}})
	}
	for i, ln := range lns {
		if err := onRestricted(t, nil, dial(ln)); err != nil {
			t.Fatalf("control: connect %d: %v", i, err)
		}
	}
	if err := onRestricted(t, nil, bind); err != nil {
		t.Fatalf("control: bind: %v", err)
	}
	if err := onRestricted(t, rs, dial(lns[0])); err != nil {
		t.Errorf("the allowed port %d: %v", port(lns[0]), err)
	}
	if err := onRestricted(t, rs, dial(lns[1])); !errors.Is(err, unix.EACCES) {
		t.Errorf("another port %d: %v, want EACCES", port(lns[1]), err)
	}
	if err := onRestricted(t, rs, bind); !errors.Is(err, unix.EACCES) {
		t.Errorf("bind: %v, want EACCES", err)
	}
}

// BenchmarkApply is what a spawn pays to add a planned ruleset: the
// rules for a home of about a hundred entries beside its hidden paths
// (landlock_create_ruleset, an open and a landlock_add_rule per rule),
// without restricting the benchmark's own thread.
func BenchmarkApply(b *testing.B) {
	if ABI() < 1 {
		b.Skip("no Landlock")
	}
	base := b.TempDir()
	var grants []Grant
	grants = append(grants, Grant{Path: "/", Access: read})
	for i := range 100 {
		os.WriteFile(filepath.Join(base, "f"+strconv.Itoa(i)), nil, 0o644)
	}
	for i := range 30 {
		p := filepath.Join(base, ".hidden"+strconv.Itoa(i))
		os.Mkdir(p, 0o700)
		grants = append(grants, Grant{Path: p, Access: ReadDir})
	}
	rs, err := Plan(Spec{Handled: FSAt(ABI()), Grants: grants}, ABI(), OS{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		fd, err := rs.build()
		if err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
	}
	b.ReportMetric(float64(len(rs.Rules)), "rules")
}
