package sandbox

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a new pseudo-terminal pair.
func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptmx, pts
}

// TestTerminalsIn finds the terminal a descriptor is among the devices
// of a directory, as the macOS profile's own-terminal rule needs, and no
// other terminal, and nothing for a pipe.
func TestTerminalsIn(t *testing.T) {
	_, mine := openPTY(t)
	_, other := openPTY(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	got := terminalsIn("/dev/pts", "", int(mine.Fd()), int(r.Fd()))
	if len(got) != 1 || got[0].path != mine.Name() {
		t.Fatalf("terminalsIn = %+v, want only %s", got, mine.Name())
	}
	if got := terminalsIn("/dev/pts", "", int(r.Fd())); len(got) != 0 {
		t.Errorf("a pipe: %+v, want nothing", got)
	}
	if got := terminalsIn("/dev/pts", "", int(other.Fd())); len(got) != 1 || got[0].path == mine.Name() {
		t.Errorf("the other terminal: %+v", got)
	}
}
