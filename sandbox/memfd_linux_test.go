package sandbox

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDataFile checks the memfd a Data file is served from: it reads as
// the data from the start, and is sealed against every change.
func TestDataFile(t *testing.T) {
	data := []byte("\x20\x00\x00\x00 a filter's bytes")
	f, err := dataFile(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("read %q, %v; want %q", got, err, data)
	}
	seals, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
	want := unix.F_SEAL_WRITE | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL
	if err != nil || seals&want != want {
		t.Errorf("seals %#x, %v; want %#x", seals, err, want)
	}
	if _, err := f.WriteAt([]byte("x"), 0); err == nil {
		t.Error("wrote to a sealed memfd")
	}
	if flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("the parent's copy is not close-on-exec: %#x, %v", flags, err)
	}
}

// TestCommandFreshFilter: every Command gets a memfd of its own, at the
// start of the filter, so the second spawn does not read an empty one.
func TestCommandFreshFilter(t *testing.T) {
	requireBwrap(t)
	if nativeSeccomp() == nil {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	_, ws := spawnEnv(t)
	var fds []*os.File
	for range 2 {
		cmd, err := Command(t.Context(), Config{Workspace: ws}, "true")
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.ExtraFiles[len(cmd.ExtraFiles)-1]
		defer f.Close()
		fds = append(fds, f)
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, nativeSeccomp()) {
			t.Fatalf("the last extra file reads %d bytes, %v; want the filter's %d", len(got), err, len(nativeSeccomp()))
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("spawn with the filter: %v", err)
		}
	}
	if fds[0].Fd() == fds[1].Fd() {
		t.Error("two Commands share one memfd")
	}
}

// TestNewCmdSeccomp runs the child under NewCmd, checks the kernel reports
// a filter on it, and that Start closed this process's copy of the memfd.
func TestNewCmdSeccomp(t *testing.T) {
	requireBwrap(t)
	if nativeSeccomp() == nil {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	self, err := os.ReadFile("/proc/self/status")
	if err != nil || !strings.Contains(string(self), "\nSeccomp:\t0\n") {
		t.Skipf("this process is already filtered, so the child's status proves nothing: %v", err)
	}
	_, ws := spawnEnv(t)
	c := newCmd(t, Config{Workspace: ws}, "grep", "^Seccomp:", "/proc/self/status")
	memfd := c.ExtraFiles[len(c.ExtraFiles)-1]
	out, err := c.Output()
	if err != nil || string(out) != "Seccomp:\t2\n" {
		t.Errorf("the child says %q, %v; want filter mode, Seccomp: 2", out, err)
	}
	if c.owned != nil || memfd.Fd() != ^uintptr(0) {
		t.Errorf("Start left the memfd open in this process")
	}
}
