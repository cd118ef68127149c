package sandbox

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// TestProfileSeccomp pins the assembled filter of every architecture, as
// a listing of its instructions: a seccomp row that stops reaching the
// filter changes it, whatever the rule listing says.
func TestProfileSeccomp(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestProfileSeccomp"), goldie.WithNameSuffix(".golden"))
	for _, goarch := range []string{"amd64", "arm64"} {
		g.Assert(t, goarch, []byte(bpfListing(seccompFilter(goarch))))
	}
}

// bpfListing prints a classic BPF program one instruction a line, with
// jump targets as absolute instruction numbers.
func bpfListing(prog []byte) string {
	var b strings.Builder
	for i := 0; i+8 <= len(prog); i += 8 {
		n := i / 8
		code := binary.LittleEndian.Uint16(prog[i:])
		jt, jf := int(prog[i+2]), int(prog[i+3])
		k := binary.LittleEndian.Uint32(prog[i+4:])
		switch code {
		case bpfLdWAbs:
			fmt.Fprintf(&b, "%4d  ld   [%d]\n", n, k)
		case bpfRetK:
			fmt.Fprintf(&b, "%4d  ret  %#x\n", n, k)
		case bpfJeqK, bpfJgeK, bpfJsetK:
			op := map[uint16]string{bpfJeqK: "jeq ", bpfJgeK: "jge ", bpfJsetK: "jset"}[code]
			fmt.Fprintf(&b, "%4d  %s %#x  true %d  false %d\n", n, op, k, n+1+jt, n+1+jf)
		default:
			fmt.Fprintf(&b, "%4d  code %#x jt %d jf %d k %#x\n", n, code, jt, jf, k)
		}
	}
	return b.String()
}
