package sandbox

import (
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// i386CallPy defines i386(nr, a, b, c), a system call through the i386 ABI
// (int 0x80 from a 64-bit process), in a page below 4 GiB whose second
// half is free for arguments in memory.
const i386CallPy = `
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
code = bytes.fromhex("5389f889f387d1cd805bc3")  # push rbx; mov eax,edi; mov ebx,esi; xchg ecx,edx; int 0x80; pop rbx; ret
page = libc.mmap(None, 4096, 7, 0x22 | 0x40, -1, 0)
ctypes.memmove(page, code, len(code))
i386 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint)(page)`

// i386EntryPy asks for its own pid through the i386 ABI and through the
// native one, and prints both.
const i386EntryPy = i386CallPy + `
print(i386(20, 0, 0, 0), os.getpid())
`

var i386Probe struct {
	once sync.Once
	on   bool
	why  string
}

// i386Entry reports whether this kernel takes system calls through the
// i386 ABI from an x86-64 process, outside any sandbox; why says what was
// seen. A kernel with IA-32 emulation off (ia32_emulation=0, or a
// hypervisor's guest that overrides it) kills the caller with SIGSEGV at
// int 0x80: there is no i386 entry to hold to the filter's families.
func i386Entry(t *testing.T, python string) (on bool, why string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		return false, "the i386 ABI is entered from x86-64 only; this is " + runtime.GOARCH
	}
	i386Probe.once.Do(func() {
		out, err := exec.Command(python, "-c", i386EntryPy).Output()
		f := strings.Fields(string(out))
		switch {
		case err != nil:
			i386Probe.why = "int 0x80 outside the sandbox: " + err.Error() + " (IA-32 emulation off in this kernel)"
		case len(f) != 2 || f[0] != f[1]:
			i386Probe.why = "int 0x80 outside the sandbox printed " + strconv.Quote(string(out)) + ", not its pid twice"
		default:
			i386Probe.on, i386Probe.why = true, "int 0x80 outside the sandbox returned its pid"
		}
	})
	return i386Probe.on, i386Probe.why
}

// TestI386ProgramsCompile: the i386 programs, which a kernel without the
// i386 entry never runs (i386Entry), are at least valid Python.
func TestI386ProgramsCompile(t *testing.T) {
	python := escLook("python3")
	if python == "" {
		t.Skip("python3 is needed to compile them")
	}
	for name, src := range map[string]string{"i386EntryPy": i386EntryPy, "socketcallPy": socketcallPy} {
		cmd := exec.Command(python, "-c", "import sys; compile(sys.stdin.read(), sys.argv[1], 'exec')", name)
		cmd.Stdin = strings.NewReader(src)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v: %s", name, err, out)
		}
	}
}
