package sandbox

import (
	"encoding/binary"
	"testing"
)

// TestSeccompFilterEveryArch assembles the filter for every architecture
// it knows, not only the one the tests run on: a bad jump panics, and
// every program ends in a return.
func TestSeccompFilterEveryArch(t *testing.T) {
	for goarch := range seccompArches {
		p := seccompFilter(goarch)
		if len(p) == 0 || len(p)%8 != 0 || binary.LittleEndian.Uint16(p[len(p)-8:]) != bpfRetK {
			t.Errorf("%s: a filter of %d bytes that does not end in a return", goarch, len(p))
		}
	}
}
