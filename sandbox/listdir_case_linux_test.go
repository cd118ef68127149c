package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestListingCaseFolded: a directory that finds names under another
// spelling than it lists (casefolded: .SSH found as .ssh) is never listed,
// so the resolver cannot call a hidden path that exists missing. The
// attack needs a kernel with casefolding (CONFIG_UNICODE): a tmpfs mounted
// with it, as root; elsewhere that part is skipped with the reason. The
// directories that fold nothing are still listed: ext4 and tmpfs here,
// and an XFS (its geometry says ASCII case-insensitive or not) when
// mkfs.xfs is installed and the test runs as root.
func TestListingCaseFolded(t *testing.T) {
	for _, dir := range []string{realTempDir(t), "/dev/shm"} {
		if _, ok := listDirNames(dir); !ok {
			t.Errorf("%s: not listed", dir)
		}
	}
	t.Run("xfs", func(t *testing.T) {
		mnt := testMount(t, func(mnt string) error {
			mkfs, err := exec.LookPath("mkfs.xfs")
			if err != nil {
				return err
			}
			img := filepath.Join(realTempDir(t), "xfs.img")
			if err := os.WriteFile(img, nil, 0o600); err != nil {
				return err
			}
			if err := os.Truncate(img, 300<<20); err != nil {
				return err
			}
			if out, err := exec.Command(mkfs, "-q", "-f", img).CombinedOutput(); err != nil {
				return errors.New(string(out))
			}
			return exec.Command("mount", "-o", "loop", img, mnt).Run()
		})
		if _, ok := listDirNames(mnt); !ok {
			t.Errorf("%s (xfs, case-sensitive): not listed", mnt)
		}
	})
	t.Run("casefold", func(t *testing.T) {
		mnt := testMount(t, func(mnt string) error {
			return unix.Mount("tmpfs", mnt, "tmpfs", 0, "casefold")
		})
		dir := filepath.Join(mnt, "home")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err == nil && flags&fsCasefoldFL == 0 {
			err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsCasefoldFL))
		}
		f.Close()
		if err != nil {
			t.Fatalf("chattr +F %s: %v", dir, err)
		}
		mkdir(t, dir, ".SSH")
		if _, err := os.Lstat(filepath.Join(dir, ".ssh")); err != nil {
			t.Fatalf("%s does not fold case: %v", dir, err)
		}
		var r resolver
		for i := range listAfter + 1 {
			r.lstat(filepath.Join(dir, "missing-"+strconv.Itoa(i)))
		}
		if _, err := r.lstat(filepath.Join(dir, ".ssh")); err != nil {
			t.Errorf("the resolver calls %s/.ssh, which a lookup finds (.SSH), missing: %v", dir, err)
		}
	})
}

// testMount mounts something at a fresh directory with mount, as root,
// and unmounts it when t ends; it skips t, saying why, when that fails.
func testMount(t *testing.T, mount func(mnt string) error) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	mnt := realTempDir(t)
	if err := mount(mnt); err != nil {
		t.Skipf("cannot mount the file system here: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}
