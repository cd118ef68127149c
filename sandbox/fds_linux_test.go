package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// TestCloseStrayFDs holds a descriptor open across exec, as one inherited
// from the test's parent would be, and checks that after closeStrayFDs a
// child gets its ExtraFiles and nothing else.
func TestCloseStrayFDs(t *testing.T) {
	testCloseStrayFDs(t, closeStrayFDs)
}

// TestCloseStrayFDsListed is the same for the fallback that lists
// /proc/self/fd, which runs where close_range has no CLOEXEC flag.
func TestCloseStrayFDsListed(t *testing.T) {
	testCloseStrayFDs(t, markListedCloseOnExec)
}

func testCloseStrayFDs(t *testing.T, closeStrayFDs func() error) {
	dir := t.TempDir()
	stray, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(stray)
	if flags := fdFlags(t, stray); flags&syscall.FD_CLOEXEC != 0 {
		t.Fatalf("descriptor %d is already close-on-exec", stray)
	}
	if err := closeStrayFDs(); err != nil {
		t.Fatal(err)
	}
	if flags := fdFlags(t, stray); flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("descriptor %d is still open across exec", stray)
	}
	for fd := range 3 {
		if flags := fdFlags(t, fd); flags&syscall.FD_CLOEXEC != 0 {
			t.Errorf("standard descriptor %d was marked close-on-exec", fd)
		}
	}

	extra, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	n := strconv.Itoa(3 + 1)
	if stray > 3 {
		n = strconv.Itoa(stray)
	}
	cmd := exec.Command("/bin/sh", "-c", `readlink /proc/$$/fd/3; readlink /proc/$$/fd/`+n+` || echo closed`)
	cmd.ExtraFiles = []*os.File{extra}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := os.DevNull + "\nclosed\n"; string(out) != want {
		t.Errorf("the child's descriptors 3 and %s are\n%swant\n%s(the ExtraFiles one, and not the stray %s)", n, out, want, dir)
	}
}

func fdFlags(t *testing.T, fd int) int {
	t.Helper()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 {
		t.Fatalf("fcntl(%d, F_GETFD): %v", fd, errno)
	}
	return int(flags)
}
