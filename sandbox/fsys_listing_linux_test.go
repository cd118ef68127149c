package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestResolverListing: once a directory is listed, a name it lacks is
// missing without an lstat, with os.Lstat's error; a name it has is
// lstat'd; a name made since (forget) is found; and a directory on a file
// system whose listing may omit names (procfs) is never listed.
func TestResolverListing(t *testing.T) {
	dir := realTempDir(t)
	present := writeFile(t, dir, "present", "x")
	calls := countLstat(t)
	listed := countListings(t)
	var r resolver
	for _, n := range []string{"a", "b", "c", "d"} {
		if _, err := r.lstat(filepath.Join(dir, n)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: %v", n, err)
		}
	}
	_, err := r.lstat(filepath.Join(dir, "e"))
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "lstat" || pe.Path != filepath.Join(dir, "e") || !errors.Is(err, syscall.ENOENT) {
		t.Errorf("missing after the listing: %#v, want lstat's ENOENT", err)
	}
	if listed[dir] != 1 || calls[filepath.Join(dir, "e")] != 0 {
		t.Errorf("listed %d times, e lstat'd %d times: want 1 and 0", listed[dir], calls[filepath.Join(dir, "e")])
	}
	if fi, err := r.lstat(present); err != nil || !fi.Mode().IsRegular() || calls[present] != 1 {
		t.Errorf("present after the listing: %v, %v, %d lstats", fi, err, calls[present])
	}
	late := writeFile(t, dir, "late", "x")
	r.forget(late)
	if _, err := r.lstat(late); err != nil {
		t.Errorf("made since the listing, then forgotten: %v", err)
	}

	// /proc lists no thread ids but finds them: never listed.
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/task"
	for _, n := range []string{"x1", "x2", "x3", "x4", "x5"} {
		r.lstat(self + "/" + n)
	}
	if _, ok := listNames("/proc/self"); ok {
		t.Error("listNames lists procfs")
	}
	if listed[self] != 1 || calls[self+"/x5"] != 1 {
		t.Errorf("procfs: listing tried %d times, x5 lstat'd %d times: want 1 (refused) and 1", listed[self], calls[self+"/x5"])
	}
}
