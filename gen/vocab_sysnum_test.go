package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSeccompNumbersMatchXSys checks every ABI column of the seccomp
// vocabulary against golang.org/x/sys's generated tables, read from the
// module's source: the i386 and arm columns are typed by hand and no test
// runs on those architectures.
func TestSeccompNumbersMatchXSys(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	if err != nil {
		t.Fatalf("go list golang.org/x/sys: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "unix")
	abis := []string{"amd64", "386", "arm64", "arm"} // the order of the nr columns
	consts := make([]map[string]uint64, len(abis))
	for i, arch := range abis {
		consts[i] = map[string]uint64{}
		for _, f := range []string{"zerrors_linux.go", "zerrors_linux_" + arch + ".go", "zsysnum_linux_" + arch + ".go"} {
			src, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range constLine.FindAllStringSubmatch(string(src), -1) {
				v, err := strconv.ParseUint(m[2], 0, 64)
				if err == nil {
					consts[i][m[1]] = v
				}
			}
		}
	}
	check := func(kind, name string, nr [4]uint32) {
		for i, arch := range abis {
			want, ok := consts[i]["SYS_"+strings.ToUpper(name)]
			switch {
			case !ok && nr[i] != noSyscall:
				t.Errorf("%s %s on %s: %d, but x/sys has no SYS_%s", kind, name, arch, nr[i], strings.ToUpper(name))
			case ok && uint64(nr[i]) != want:
				t.Errorf("%s %s on %s: %d, x/sys says %d", kind, name, arch, nr[i], want)
			}
		}
	}
	for name, nr := range seccompSyscalls {
		check("syscall", name, nr)
	}
	for name, mc := range seccompModeCalls {
		check("setid-mode", name, mc.nr)
	}
	for name, nr := range seccompFamilyCalls {
		check("family call", name, nr)
	}
	for name, fam := range socketFamilies {
		for i, arch := range abis {
			if want, ok := consts[i][name]; !ok || uint64(fam) != want {
				t.Errorf("family %s on %s: %d, x/sys says %d (found: %v)", name, arch, fam, want, ok)
			}
		}
	}
	for name, req := range seccompIoctls {
		for i, arch := range abis {
			if want, ok := consts[i][name]; !ok || uint64(req) != want {
				t.Errorf("ioctl %s on %s: %#x, x/sys says %#x (found: %v)", name, arch, req, want, ok)
			}
		}
	}
}

var constLine = regexp.MustCompile(`(?m)^\s*([A-Z][A-Za-z0-9_]*)\s*=\s*(0x[0-9a-fA-F]+|[0-9]+)\s*$`)
