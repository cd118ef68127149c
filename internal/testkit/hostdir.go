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
// $SANDTABLE_TEST_DIR when that is set; otherwise, for root, in
// /var/lib/sandtable-test (0755), and for anyone else in
// ~/.cache/sandtable-test of the passwd home. It is removed with
// RemoveAll when tb ends, and its parent too once empty (HostDirEnv's is
// left).
func HostDir(tb testing.TB, prefix string) string {
	tb.Helper()
	base, own := os.Getenv(HostDirEnv), false
	if base == "" {
		own = true
		base = "/var/lib/sandtable-test"
		if os.Geteuid() != 0 {
			u, err := user.Current()
			if err != nil || u.HomeDir == "" {
				tb.Fatalf("testkit: no home to make a host directory in (set %s): %v", HostDirEnv, err)
			}
			base = filepath.Join(u.HomeDir, ".cache", "sandtable-test")
		}
	}
	var d string
	var err error
	for range 3 { // another package's cleanup may remove the parent meanwhile
		if own {
			if err = os.MkdirAll(base, 0o755); err == nil {
				err = os.Chmod(base, 0o755)
			}
		}
		if err == nil {
			if d, err = os.MkdirTemp(base, prefix); err == nil || !errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
	}
	if err != nil {
		tb.Fatalf("testkit: make a host directory under %s: %v", base, err)
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
