package testkit

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

// HostDirEnv names a directory the tests make their host directories in,
// in place of HostDir's default.
const HostDirEnv = "SANDTABLE_TEST_DIR"

// HostDir makes a fresh directory that a sandbox shows as the host's, for
// a test's workspace, home and files outside the workspace: not under
// /tmp or /var/tmp, which the sandbox replaces with directories of its
// own, and, for root, one the unprivileged test user can reach. It lies in
// $SANDTABLE_TEST_DIR when that is set; otherwise in the first of
// /var/lib/sandtable-test (for root: 0755) and ~/sandtable-test ($HOME's,
// else the passwd home's) it can make. The path is kept short, since the
// tests bind unix sockets deep inside it (108 bytes at most), and free of
// dots, which a profile's regex spells another way. It is removed with
// RemoveAll when tb ends, and its parent too once empty
// ($SANDTABLE_TEST_DIR is left).
func HostDir(tb testing.TB) string {
	tb.Helper()
	var bases []string
	own := true
	if d := os.Getenv(HostDirEnv); d != "" {
		bases, own = []string{d}, false
	} else {
		if os.Geteuid() == 0 {
			bases = append(bases, "/var/lib/sandtable-test")
		}
		if h := os.Getenv("HOME"); h != "" {
			bases = append(bases, filepath.Join(h, "sandtable-test"))
		}
		if u, err := user.Current(); err == nil && u.HomeDir != "" {
			bases = append(bases, filepath.Join(u.HomeDir, "sandtable-test"))
		}
	}
	var errs []error
	for _, base := range bases {
		d, err := hostDirIn(base, own)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tb.Cleanup(func() {
			RemoveAll(d)
			if own {
				os.Remove(base) // fails while another test's directory is in it
			}
		})
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		return d
	}
	tb.Fatalf("testkit: no host directory for the test (set %s): %v", HostDirEnv, errors.Join(errs...))
	return ""
}

// hostDirIn makes a fresh directory in base, named t and digits, and base
// itself (0755) when own, again should another package's cleanup remove
// base meanwhile.
func hostDirIn(base string, own bool) (string, error) {
	var err error
	for range 3 {
		if own {
			if err = os.MkdirAll(base, 0o755); err == nil {
				err = os.Chmod(base, 0o755)
			}
			if err != nil {
				return "", err
			}
		}
		var d string
		if d, err = os.MkdirTemp(base, "t"); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return d, err
		}
	}
	return "", err
}
