package sandbox

import (
	"errors"
	"strconv"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "4096": 4096, "1K": 1024, "2KiB": 2048, "3M": 3 << 20, "1G": 1 << 30, "5GiB": 5 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "K", "1T", "1.5G", "1 G", "99999999999999999999", "8589934592G"} {
		if got, err := ParseSize(in); !errors.Is(err, ErrBadLimit) {
			t.Errorf("ParseSize(%q) = %d, %v; want ErrBadLimit", in, got, err)
		}
	}
}

// TestLimitsInArgv: the sizes reach bwrap's argv, a caller's value as
// given, the default capped at the table's share of this machine's RAM,
// and a negative value is refused.
func TestLimitsInArgv(t *testing.T) {
	ws := t.TempDir()
	size := func(l Limits, dest string) string {
		t.Helper()
		w, err := PrefixFor("linux", Config{Workspace: ws, Limits: l, Policy: Required})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+3 < len(w.Args); i++ {
			if w.Args[i] == "--size" && w.Args[i+2] == "--tmpfs" && w.Args[i+3] == dest {
				return w.Args[i+1]
			}
		}
		t.Fatalf("no --size before --tmpfs %s in %q", dest, w.Args)
		return ""
	}
	if got := size(Limits{TmpSize: 5 << 20, ShmSize: 3 << 20}, "/tmp"); got != "5242880" {
		t.Errorf("TmpSize 5 MiB: --size %s", got)
	}
	if got := size(Limits{ShmSize: 3 << 20}, "/dev/shm"); got != "3145728" {
		t.Errorf("ShmSize 3 MiB: --size %s", got)
	}
	for i, dest := range map[int]string{limitTmpSize: "/tmp", limitShmSize: "/dev/shm"} {
		want := limitTable[i].value
		if ram := totalRAM(); ram > 0 && ram/limitTable[i].ramShare < want {
			want = ram / limitTable[i].ramShare
		}
		if got := size(Limits{}, dest); got != strconv.FormatUint(want, 10) {
			t.Errorf("default %s: --size %s, want %d (RAM %d)", dest, got, want, totalRAM())
		}
	}
	for _, l := range []Limits{{TmpSize: -1}, {ShmSize: -5}} {
		if _, err := PrefixFor("linux", Config{Workspace: ws, Limits: l, Policy: Required}); !errors.Is(err, ErrBadLimit) {
			t.Errorf("%+v: %v, want ErrBadLimit", l, err)
		}
	}
}
