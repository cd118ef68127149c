package seccomp

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConstants checks the spelled-out numbers of this package against
// x/sys: the verdicts, the instruction codes, and the running arch's ABIs.
func TestConstants(t *testing.T) {
	for name, pair := range map[string][2]uint32{
		"SECCOMP_RET_ALLOW":       {RetAllow, unix.SECCOMP_RET_ALLOW},
		"SECCOMP_RET_ERRNO|EPERM": {RetEPERM, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		"SECCOMP_RET_ERRNO":       {RetErrno, unix.SECCOMP_RET_ERRNO},
		"BPF_LD|BPF_W|BPF_ABS":    {ldWAbs, unix.BPF_LD | unix.BPF_W | unix.BPF_ABS},
		"BPF_JMP|BPF_JEQ|BPF_K":   {jeqK, unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K},
		"BPF_JMP|BPF_JGE|BPF_K":   {jgeK, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K},
		"BPF_JMP|BPF_JSET|BPF_K":  {jsetK, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K},
		"BPF_ALU|BPF_AND|BPF_K":   {andK, unix.BPF_ALU | unix.BPF_AND | unix.BPF_K},
		"BPF_RET|BPF_K":           {retK, unix.BPF_RET | unix.BPF_K},
		"O_CREAT":                 {oCreat, unix.O_CREAT},
		"S_ISUID|S_ISGID":         {sIsuid | sIsgid, unix.S_ISUID | unix.S_ISGID},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s = %#x, want %#x", name, pair[0], pair[1])
		}
	}
	arches, ok := Arches[runtime.GOARCH]
	if !ok {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	native := arches[0]
	if native.Ioctl != unix.SYS_IOCTL {
		t.Errorf("%s ioctl = %d, want %d", runtime.GOARCH, native.Ioctl, unix.SYS_IOCTL)
	}
	if runtime.GOARCH == "amd64" && (native.Audit != unix.AUDIT_ARCH_X86_64 || arches[1].Audit != unix.AUDIT_ARCH_I386) {
		t.Errorf("amd64 audit arches %#x %#x", native.Audit, arches[1].Audit)
	}
	if runtime.GOARCH == "arm64" && (native.Audit != unix.AUDIT_ARCH_AARCH64 || arches[1].Audit != unix.AUDIT_ARCH_ARM) {
		t.Errorf("arm64 audit arches %#x %#x", native.Audit, arches[1].Audit)
	}
}
