//go:build linux || darwin

package sandbox

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// terminalsIn names the character devices in dir whose names start with
// prefix and that are the devices of the descriptors fds, each once, by
// comparing device numbers (what ttyname(3) does). A descriptor that is no
// character device, and a name the path validator refuses, give nothing.
func terminalsIn(dir, prefix string, fds ...int) []pathFact {
	var want []uint64
	for _, fd := range fds {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR {
			want = append(want, uint64(st.Rdev))
		}
	}
	if len(want) == 0 {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []pathFact
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || e.Type()&os.ModeCharDevice == 0 {
			continue
		}
		p := dir + "/" + e.Name()
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || checkPath("terminal", p) != nil {
			continue
		}
		for _, w := range want {
			if uint64(st.Rdev) == w {
				out = append(out, pathFact{path: p, kind: kindFile})
				break
			}
		}
	}
	return out
}
