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
	for i := range listAfter {
		n := "missing-" + strconv.Itoa(i)
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
	for i := range listAfter + 1 {
		r.lstat(self + "/x" + strconv.Itoa(i))
	}
	if _, ok := listNames("/proc/self"); ok {
		t.Error("listNames lists procfs")
	}
	last := self + "/x" + strconv.Itoa(listAfter)
	if listed[self] != 1 || calls[last] != 1 {
		t.Errorf("procfs: listing tried %d times, the last name lstat'd %d times: want 1 (refused) and 1", listed[self], calls[last])
	}
}

// TestListDirNames: a listing longer than one read names every entry and
// nothing else, and one over maxListing is not made.
func TestListDirNames(t *testing.T) {
	dir := realTempDir(t)
	var names []string
	for i := range 700 { // some 20 KiB of entries: three reads
		n := "entry-" + strconv.Itoa(i) + "-with-a-longer-name"
		names = append(names, n)
		writeFile(t, dir, n, "")
	}
	l, ok := listNames(dir)
	if !ok {
		t.Fatal("not listed")
	}
	for _, n := range names {
		if !l.has(n) {
			t.Fatalf("listing lacks %s", n)
		}
	}
	for _, n := range []string{"entry-700-with-a-longer-name", "entry-1", "entry-1-with-a-longer-nam", ".", "", "entry-1-with-a-longer-name\x00"} {
		if l.has(n) {
			t.Errorf("listing has %q", n)
		}
	}
	for i := 700; i < 2500; i++ {
		writeFile(t, dir, "entry-"+strconv.Itoa(i)+"-with-a-longer-name", "")
	}
	if _, ok := listNames(dir); ok {
		t.Error("a listing over maxListing was made")
	}
}
