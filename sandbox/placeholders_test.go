package sandbox

import (
	"strings"
	"testing"
)

// TestParseRecord: a placeholder record reads back what was written (a
// path with spaces included), a line cut short at the end is left out, and anything else that is not
// exactly the format (a relative or unclean path, an entry out of order, an
// identity for an entry that needs none, a header of another version) is
// refused whole, so a sweep acts on no part of it.
func TestParseRecord(t *testing.T) {
	const nonce = "0123456789abcdef0123456789abcdef"
	o := phEntry{path: "/ws/a b/.vscode", dev: 2049, ino: 77, btime: 1700000000123456789, mark: true, known: true}
	tmp := phEntry{path: "/ws/.mcp.json", temp: true}
	head := string(recordHeader(nonce))
	good := head + string(entryLine(0, o)) + string(entryLine(1, tmp))
	withID := good + string(identityLine(1, phEntry{dev: 2049, ino: 78, btime: 5}))

	r, err := parseRecord([]byte(withID))
	if err != nil {
		t.Fatalf("parseRecord: %v", err)
	}
	if r.nonce != nonce || len(r.entries) != 2 || r.entries[0] != o {
		t.Errorf("parsed %+v, want entry 0 %+v", r, o)
	}
	if e := r.entries[1]; !e.temp || !e.known || e.ino != 78 || e.path != tmp.path {
		t.Errorf("entry 1 is %+v, want the temporary entry with its identity", e)
	}
	if r, _ := parseRecord([]byte(good)); r.entries[1].known {
		t.Errorf("a temporary entry without its identity line is known: %+v", r.entries[1])
	}

	if r, err := parseRecord([]byte(good + "e 2 o 1 2")); err != nil || len(r.entries) != 2 {
		t.Errorf("a last line cut short: %d entries, %v; want it left out", len(r.entries), err)
	}

	for _, bad := range []string{
		"",
		"sandtable placeholders 2 " + nonce + "\n",
		"sandtable placeholders 1 xyz\n",
		head + "e 0 o 1 2 3 1 ws/relative\n",
		head + "e 0 o 1 2 3 1 /ws/../etc/passwd\n",
		head + "e 0 o 1 2 3 1 /ws/a\x1bb\n",
		head + "e 0 o 1 2 3 1 /\n",
		head + "e 1 o 1 2 3 1 /ws/x\n",
		head + "e 0 x 1 2 3 1 /ws/x\n",
		head + "e 0 o 1 2 3 2 /ws/x\n",
		head + "e 0 o -1 2 3 1 /ws/x\n",
		good + string(identityLine(0, o)),
		good + string(identityLine(2, o)),
		good + "rm -rf /\n",
		head + strings.Repeat("x", recordMax),
	} {
		if _, err := parseRecord([]byte(bad)); err == nil {
			t.Errorf("parseRecord(%.80q) accepted it", bad)
		}
	}
}
