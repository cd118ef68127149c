package seccomp

import (
	"strings"
	"testing"
)

// A small table of each kind, numbered as the ABIs of Arches are.
var testTable = Table{
	Syscalls: []Syscall{{Rule: "refuse-keyctl", Name: "keyctl", Nr: [4]uint32{250, 288, 219, 311}, Errno: 1}},
	Modes:    []ModeCall{{Rule: "refuse-setid-openat", Name: "openat", Nr: [4]uint32{257, 295, 56, 322}, Mode: 3, Flags: 2, Errno: 1}},
	Ioctls:   []Ioctl{{Rule: "refuse-tiocsti", Name: "TIOCSTI", Request: 0x5412, Errno: 1}},
	Families: []FamilyRule{{Rule: "refuse-families", Names: []string{"AF_UNIX"}, Calls: [2][4]uint32{{41, 359, 198, 281}, {53, 360, 199, 288}}, Keep: []uint32{1}, Errno: 97}},
}

// TestFilterVerdicts runs the filter of a small table on every ABI of
// every GOARCH: each entry refuses what it names (the ioctl with its high
// word set too, the mode call only with a set-id bit and O_CREAT), its
// neighbours are allowed, and an x32 or foreign ABI is refused.
func TestFilterVerdicts(t *testing.T) {
	for goarch, arches := range Arches {
		prog := testTable.Filter(goarch)
		if err := Check(prog); err != nil {
			t.Fatalf("%s: %v", goarch, err)
		}
		for _, arch := range arches {
			check := func(what string, nr uint32, args [6]uint64, want uint32) {
				t.Helper()
				got, err := Eval(prog, nr, arch.Audit, args)
				if err != nil || got != want {
					t.Errorf("%s %#x: %s: %#x, %v; want %#x", goarch, arch.Audit, what, got, err, want)
				}
			}
			check("keyctl", testTable.Syscalls[0].Nr[arch.ABI], [6]uint64{}, RetEPERM)
			check("another call", 0x3fff, [6]uint64{}, RetAllow)
			check("TIOCSTI", arch.Ioctl, [6]uint64{0, 0x5412}, RetEPERM)
			check("TIOCSTI, high word set", arch.Ioctl, [6]uint64{0, 1<<32 | 0x5412}, RetEPERM)
			check("TCSETS", arch.Ioctl, [6]uint64{0, 0x5402}, RetAllow)
			openat := testTable.Modes[0].Nr[arch.ABI]
			check("openat O_CREAT 04755", openat, [6]uint64{0, 0, oCreat, sIsuid | 0o755}, RetEPERM)
			check("openat O_CREAT 0755", openat, [6]uint64{0, 0, oCreat, 0o755}, RetAllow)
			check("openat 04755 without O_CREAT", openat, [6]uint64{0, 0, 0, sIsuid | 0o755}, RetAllow)
			for _, nr := range testTable.Families[0].Calls {
				check("AF_UNIX", nr[arch.ABI], [6]uint64{1, 1}, RetAllow)
				check("AF_INET", nr[arch.ABI], [6]uint64{2, 1}, RetErrno|97)
				check("AF_UNIX, high word set", nr[arch.ABI], [6]uint64{1<<32 | 2, 1}, RetErrno|97)
			}
			if arch.X32 {
				check("an x32 call", x32Bit|0x3fff, [6]uint64{}, RetEPERM)
			}
		}
		if got, err := Eval(prog, 1, 0xdeadbeef, [6]uint64{}); err != nil || got != RetEPERM {
			t.Errorf("%s: a foreign ABI: %#x, %v; want EPERM", goarch, got, err)
		}
	}
	if testTable.Filter("riscv64") != nil || (Table{}).Filter("amd64") != nil {
		t.Error("a filter for a GOARCH without ABIs here, or for an empty table")
	}
}

// TestCheck: Check refuses what is no program of this assembler.
func TestCheck(t *testing.T) {
	good := testTable.Filter("amd64")
	for name, prog := range map[string][]byte{
		"empty":               nil,
		"a partial one":       good[:len(good)-3],
		"no return at end":    {0x20, 0, 0, 0, 4, 0, 0, 0},
		"an unknown code":     append([]byte{0x07, 0, 0, 0, 0, 0, 0, 0}, good...),
		"a jump past the end": {0x15, 0, 5, 0, 0, 0, 0, 0, 0x06, 0, 0, 0, 0, 0, 0, 0},
	} {
		if err := Check(prog); err == nil {
			t.Errorf("%s: Check passed it", name)
		}
	}
	if err := Check(good); err != nil {
		t.Error(err)
	}
}

// TestListing prints each instruction kind.
func TestListing(t *testing.T) {
	l := Listing(ReducedFilter("amd64", []ReducedRow{{Rule: "tcp", Kind: RefuseSocket, Families: []uint32{2}, KeepTypes: []uint32{1}, Nr: [4]uint32{41, 359, 198, 281}, Errno: 1}}))
	for _, want := range []string{"ld   [4]", "jeq  0xc000003e", "jge  0x40000000", "and  0xf", "ret  0x7fff0000"} {
		if !strings.Contains(l, want) {
			t.Errorf("listing lacks %q:\n%s", want, l)
		}
	}
}
